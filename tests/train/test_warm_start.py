"""The warm start: the teacher's games (rewards and returns scaled by ``reward_scale``,
discounted by the run's gamma, kept only up to each game's last finished episode), cloning
that learns the teacher's moves and the returns, and the learning rate handed back to
training afterwards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.baselines import GreedyAgent
from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent
from agents.train.config import PPOConfig
from agents.train.critic import Critic
from agents.train.warm_start import clone_step, collect_teacher_games, warm_start
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv


def _teacher_data(reward_scale: float = 1.0, with_hidden: bool = False,
                  n_steps: int = 32) -> dict[str, np.ndarray]:
    env = KoiKoiVectorEnv(8, seed=0)
    env.reset()
    return collect_teacher_games(env, GreedyAgent(seed=0), n_steps, reward_scale,
                                 with_hidden=with_hidden)


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


def test_warm_start_value_targets_use_the_runs_gamma() -> None:
    """The teacher's returns are discounted like PPO's value targets: the same games give
    the same last-decision returns, and smaller ones before them with gamma < 1."""
    from agents.bots.baselines import GreedyAgent
    from agents.train.warm_start import collect_teacher_games
    from hanafuda_env.envs.vector_env import KoiKoiVectorEnv

    def returns(gamma: float) -> dict[str, np.ndarray]:
        env = KoiKoiVectorEnv(8, seed=0)
        env.reset()
        return collect_teacher_games(env, GreedyAgent(seed=0), 48, 1.0, gamma=gamma)

    full, half = returns(1.0), returns(0.5)
    np.testing.assert_array_equal(full["action"], half["action"])  # the same games
    keep = full["keep"]
    last_of_seat = np.zeros_like(keep)  # each seat's last decision of each finished episode
    for g in range(keep.shape[1]):
        seen: set[tuple[int, int]] = set()
        episode = 0
        for t in reversed(range(keep.shape[0])):
            if full["done"][t, g]:
                episode += 1
            key = (episode, int(full["seat"][t, g]))
            if keep[t, g] and key not in seen:
                seen.add(key)
                last_of_seat[t, g] = True
    np.testing.assert_allclose(half["return"][last_of_seat], full["return"][last_of_seat])
    differs = ~np.isclose(half["return"], full["return"]) & keep
    assert differs.any() and not (differs & last_of_seat).any()


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
    """A progress bar that keeps its count (``n``, as tqdm's)."""

    def __init__(self, total: int = 0, **_kw) -> None:
        self.n, self.total = 0, total

    def update(self, n: int) -> None:
        self.n += n

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
    from agents.train.koikoi import KoiKoiTrainer

    cfg = PPOConfig.from_dict({"n_envs": 2, "n_steps": 8, "n_minibatches": 2, "hidden": 16,
                               "layers": 1, "warmstart_decisions": 16,
                               "warmstart_teacher": "greedy", "warmstart_learning_rate": 5e-3,
                               "learning_rate": 1e-4, "anneal_lr": False,
                               "eval_interval": 0, "baselines": ["random"],
                               "progress_bar": False})
    trainer = KoiKoiTrainer(cfg, tmp_path)
    writer = _Writer()
    warm_start(trainer, writer, lambda **_kw: _Bar())
    assert trainer.warm_started and writer.scalars
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(1e-4)


def test_the_warm_start_bar_stops_at_its_total(tmp_path: Path) -> None:
    """Batches of 48 decisions over a 100-decision warm start: the bar ends at 100 of 100
    (the last batch runs over, the bar does not)."""
    from agents.train.koikoi import KoiKoiTrainer

    cfg = PPOConfig.from_dict({"n_envs": 6, "n_steps": 8, "n_minibatches": 2, "hidden": 16,
                               "layers": 1, "warmstart_decisions": 100,
                               "warmstart_teacher": "greedy", "eval_interval": 0,
                               "baselines": ["random"], "progress_bar": False})
    trainer = KoiKoiTrainer(cfg, tmp_path)
    bars: list[_Bar] = []
    warm_start(trainer, _Writer(), lambda **kw: bars.append(_Bar(**kw)) or bars[-1])
    assert trainer.batch_steps == 48 and bars[0].total == 100 and bars[0].n == 100
