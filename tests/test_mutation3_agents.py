"""Behaviour of the agent-side helpers that a third mutation audit found unpinned: the warm
start's teacher data and cloning, agent seeding through the registry, the commands printed
for the user, and the training config's override and resume rules."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.base import AgentLike, argmax_per_row, decode
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent, save_checkpoint
from agents.bots.registry import make_agent
from agents.train.config import ConfigError, PPOConfig, resume_config
from agents.train.critic import Critic
from agents.train.warm_start import clone_step, collect_teacher_games, warm_start
from cli.commands import program, train_command
from hanafuda_env.core import KoiKoiCore
from hanafuda_env.observation import encode_observations
from hanafuda_env.rules import resolve_rules
from hanafuda_env.vector_env import KoiKoiVectorEnv


def _teacher_data(reward_scale: float = 1.0, with_hidden: bool = False,
                  n_steps: int = 32) -> dict[str, np.ndarray]:
    env = KoiKoiVectorEnv(8, seed=0)
    env.reset()
    return collect_teacher_games(env, GreedyAgent(seed=0), n_steps, reward_scale,
                                 with_hidden=with_hidden)


# ------------------------------------------------------------------ warm start
def test_teacher_rewards_and_returns_are_scaled_by_reward_scale() -> None:
    """The same games at reward_scale 0.1 record a tenth of the rewards and returns."""
    full, tenth = _teacher_data(1.0), _teacher_data(0.1)
    np.testing.assert_array_equal(full["action"], tenth["action"])
    assert np.abs(full["reward"]).sum() > 0
    np.testing.assert_allclose(tenth["reward"], full["reward"] * 0.1, rtol=1e-6)
    np.testing.assert_allclose(tenth["return"], full["return"] * 0.1, rtol=1e-5, atol=1e-6)


def test_only_decisions_of_finished_episodes_are_kept() -> None:
    """Each game's decisions up to its last finished episode are kept; those of the episode
    cut off at the end of the batch are not (their returns are unknown)."""
    data = _teacher_data()
    done, keep = data["done"], data["keep"]
    assert done.any(axis=0).all() and (~keep).any()
    for g in range(done.shape[1]):
        last = int(np.flatnonzero(done[:, g])[-1])
        assert keep[:last + 1, g].all() and not keep[last + 1:, g].any()


def test_cloning_learns_the_teachers_moves_and_the_returns() -> None:
    """Supervised epochs make the network pick the teacher's moves and its value head
    predict the returns, also when a privileged critic is trained alongside."""
    torch.manual_seed(0)
    data = _teacher_data(0.1, with_hidden=True)
    keep = data["keep"]
    obs, mask = data["obs"][keep], data["mask"][keep]
    action, returns = data["action"][keep], data["return"][keep]
    network, critic = ActorCritic(hidden=32, layers=1), Critic(hidden=32, layers=1)
    agent = PolicyAgent(network)

    def accuracy_and_value_error() -> tuple[float, float]:
        return (float((agent.act(obs, mask) == action).mean()),
                float(((agent.value(obs, mask) - returns) ** 2).mean()))

    accuracy, error = accuracy_and_value_error()
    optimizer = torch.optim.Adam([*network.parameters(), *critic.parameters()], lr=3e-3)
    clone_step(network, optimizer, data, 30, 2, 0.5, 0.5, torch.Generator().manual_seed(0),
               critic=critic)
    new_accuracy, new_error = accuracy_and_value_error()
    assert new_accuracy > max(0.8, accuracy)
    assert new_error < 0.25 * error


class _Bar:
    def update(self, n: int) -> None: ...

    def set_postfix_str(self, text: str) -> None: ...

    def close(self) -> None: ...


class _Writer:
    def __init__(self) -> None:
        self.scalars: list[tuple[str, float, int]] = []

    def add_scalar(self, key: str, value: float, step: int) -> None:
        self.scalars.append((key, value, step))


def test_warm_start_hands_back_the_training_learning_rate(tmp_path: Path) -> None:
    """The warm start trains at warmstart_learning_rate, then restores learning_rate (a run
    without annealing would otherwise train at the warm start's rate)."""
    from agents.train.ppo import Trainer

    cfg = PPOConfig.from_dict({"n_envs": 2, "n_steps": 8, "n_minibatches": 2, "hidden": 16,
                               "layers": 1, "warmstart_decisions": 16,
                               "warmstart_teacher": "greedy", "warmstart_learning_rate": 5e-3,
                               "learning_rate": 1e-4, "anneal_lr": False,
                               "eval_interval": 0, "baselines": ["random"],
                               "progress_bar": False})
    trainer = Trainer(cfg, tmp_path)
    writer = _Writer()
    warm_start(trainer, KoiKoiVectorEnv(2, seed=3), writer, lambda **_kw: _Bar())
    assert trainer.warm_started and writer.scalars
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(1e-4)


# --------------------------------------------------------------------- registry
def _actions(agent: AgentLike, n: int = 64) -> np.ndarray:
    env = KoiKoiVectorEnv(n, seed=1)
    obs, info = env.reset()
    return agent.act(obs, info["action_mask"])


def test_make_agent_seeds_a_baseline() -> None:
    """make_agent(name, seed=s) is that baseline seeded s: its random choices repeat."""
    a = _actions(make_agent("random", seed=3))
    np.testing.assert_array_equal(a, _actions(make_agent("random", seed=3)))
    np.testing.assert_array_equal(a, _actions(RandomAgent(seed=3)))
    assert not np.array_equal(a, _actions(make_agent("random", seed=4)))


def test_make_agent_seeds_a_checkpoint_policy(tmp_path: Path) -> None:
    """make_agent(path, seed=s) seeds the policy's sampler: sampled moves repeat for s."""
    torch.manual_seed(0)
    path = tmp_path / "policy.pt"
    save_checkpoint(path, {"model": ActorCritic(hidden=8, layers=1).state_dict(),
                           "network": {"hidden": 8, "layers": 1}})

    def sampled(seed: int) -> np.ndarray:
        agent = make_agent(str(path), seed=seed)
        assert isinstance(agent, PolicyAgent)
        agent.greedy = False
        return _actions(agent, 256)

    reference = PolicyAgent.load(path, greedy=False)
    reference.seed(7)
    np.testing.assert_array_equal(sampled(7), _actions(reference, 256))
    assert not np.array_equal(sampled(7), sampled(8))


# --------------------------------------------------------------------- commands
@pytest.fixture
def fake_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding venv/bin/python as sys.executable, with PATH empty."""
    root = tmp_path.resolve()
    bin_dir = root / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "tensorboard"):
        (bin_dir / name).write_text("")
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("PATH", "")
    monkeypatch.chdir(root)
    return root


def test_programs_inside_the_working_folder_are_named_relative_to_it(fake_venv: Path) -> None:
    """A venv's python and tensorboard not on PATH are given relative to the working folder
    when they are inside it."""
    assert program("python") == str(Path("venv", "bin", "python"))
    assert program("tensorboard") == str(Path("venv", "bin", "tensorboard"))
    assert program("no-such-program") == "no-such-program"


def test_train_command_repeats_the_script_path_it_was_started_with(
        fake_venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """train.py started as tools/train.py is to be started the same way again."""
    monkeypatch.setattr(sys, "argv", [str(Path("tools", "train.py")), "--config", "x.yaml"])
    command = train_command("--resume", "runs/a")
    assert command == (f"{Path('venv', 'bin', 'python')} {Path('tools', 'train.py')} "
                       "--resume runs/a")
    monkeypatch.setattr(sys, "argv", ["-c"])
    assert train_command("--resume", "runs/a").endswith(" train.py --resume runs/a")


# ------------------------------------------------------------------- ppo config
def test_override_keys_may_have_spaces_around_them() -> None:
    """``key = value`` overrides read like ``key=value``."""
    cfg = PPOConfig.load(None, ["seed = 3", " n_envs= 4", "exp_name =run"])
    assert (cfg.seed, cfg.n_envs, cfg.exp_name) == (3, 4, "run")


def test_exp_name_may_not_hold_a_backslash() -> None:
    """exp_name starts a folder name: neither '/' nor '\\' may be in it."""
    for name in ("a\\b", "a/b"):
        with pytest.raises(ConfigError, match="exp_name must be a non-empty name"):
            PPOConfig(exp_name=name)


def test_a_resumed_run_may_change_its_progress_bar(tmp_path: Path) -> None:
    """progress_bar and total_decisions may change on resume; other keys may not."""
    payload = {"config": {"n_envs": 2, "n_steps": 4, "progress_bar": True,
                          "total_decisions": 100},
               "rules": "nintendo"}
    resumed = resume_config(tmp_path, {"progress_bar": False, "total_decisions": 200},
                            payload=payload)
    assert (resumed.progress_bar, resumed.total_decisions) == (False, 200)
    with pytest.raises(ConfigError, match="only total_decisions, progress_bar may change"):
        resume_config(tmp_path, {"n_envs": 4}, payload=payload)


def test_a_resumed_run_may_name_its_rules_as_it_did(tmp_path: Path) -> None:
    """Checkpoints hold the resolved rule set; naming the same rules again (by preset) on
    resume is no change."""
    rules = resolve_rules("nintendo")
    payload = {"config": {"n_envs": 2, "n_steps": 4, "rules": "nintendo"},
               "rules": rules.to_dict()}
    resumed = resume_config(tmp_path, {"rules": "nintendo"}, payload=payload)
    assert resolve_rules(resumed.rules) == rules
    with pytest.raises(ConfigError, match="may change"):
        resume_config(tmp_path, {"rules": "ten-base"}, payload=payload)


@pytest.mark.parametrize("bad", [0, -0.1, float("nan"), "0.02"])
def test_target_kl_must_be_a_positive_number(bad: object) -> None:
    """target_kl is null or a finite number above zero."""
    with pytest.raises(ConfigError, match="target_kl must be a finite number > 0"):
        PPOConfig(target_kl=bad)
    assert PPOConfig(target_kl=0.02).target_kl == 0.02
    assert PPOConfig(target_kl=None).target_kl is None


def test_an_unseeded_sampling_policy_repeats_its_moves() -> None:
    """PolicyAgent without a seed starts from seed 0: two such agents sample alike."""
    torch.manual_seed(0)
    network = ActorCritic(hidden=8, layers=1)
    first = _actions(PolicyAgent(network, greedy=False), 256)
    np.testing.assert_array_equal(first, _actions(PolicyAgent(network, greedy=False), 256))
    seeded = PolicyAgent(network, greedy=False, seed=0)
    np.testing.assert_array_equal(first, _actions(seeded, 256))


def test_a_policy_loaded_to_sample_samples(tmp_path: Path) -> None:
    """PolicyAgent.load(path, greedy=False) samples from the policy instead of taking its
    most likely move."""
    torch.manual_seed(0)
    path = tmp_path / "policy.pt"
    save_checkpoint(path, {"model": ActorCritic(hidden=8, layers=1).state_dict(),
                           "network": {"hidden": 8, "layers": 1}})
    sampling = PolicyAgent.load(path, greedy=False)
    greedy = PolicyAgent.load(path)
    assert not sampling.greedy and greedy.greedy
    assert not np.array_equal(_actions(sampling, 256), _actions(greedy, 256))


# ------------------------------------------------------------------- base, greedy
def test_argmax_per_row_keeps_the_first_of_equal_values() -> None:
    """Ties go to the first candidate of the row (candidates come row-major); a row without
    candidates gets -1."""
    rows = np.array([0, 0, 0, 2, 2])
    actions = np.array([5, 7, 9, 2, 3])
    values = np.array([1.0, 3.0, 3.0, 4.0, 4.0])
    assert argmax_per_row(rows, actions, values, 3).tolist() == [7, -1, 2]


def test_decode_reads_the_waiting_card_and_the_rounds_left() -> None:
    """decode gives pending -1 when no card waits (card 0 is the pine crane) and counts the
    rounds left in the rule set's own number of rounds."""
    rules = resolve_rules("nintendo").replace(rounds=6)
    crane_hand, other_hand = [0, 5, 9, 13, 17, 21, 25, 29], [6, 10, 14, 18, 22, 26, 30, 34]
    field = [1, 2, 36, 40, 44, 41, 37, 33]
    deck = crane_hand + other_hand + field + [
        c for c in range(48) if c not in set(crane_hand + other_hand + field)]
    core = KoiKoiCore(1, rules=rules, seed=0)
    core.reset(seed=0, options={"deck": deck, "dealer": 0})
    view = decode(encode_observations(core, np.array([0])), rules)
    assert view.pending.tolist() == [-1] and view.rounds_left.tolist() == [6]
    core.step(np.array([0]))  # the crane matches two pine cards: it waits for the choice
    view = decode(encode_observations(core, np.array([0])), rules)
    assert view.pending.tolist() == [0] and view.rounds_left.tolist() == [6]


def test_greedy_agents_break_ties_by_their_seed() -> None:
    """Two greedy agents with different seeds do not mirror each other; one seed repeats."""
    a = _actions(GreedyAgent(seed=0), 256)
    np.testing.assert_array_equal(a, _actions(GreedyAgent(seed=0), 256))
    assert not np.array_equal(a, _actions(GreedyAgent(seed=1), 256))
