"""One PPO update: a real rollout (each seat's stream bootstraps from its own side of the
value, value targets are advantage plus value, only the learner's decisions are trained on,
round statistics credit rounds dealt after an episode to its new seats, rewards waiting for a
decision are kept in the run state), and the learning step (the clipped objectives computed
by hand, the entropy bonus, minibatches of two samples or more, tiny batches without NaN)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.bots.policy import load_checkpoint, save_checkpoint
from agents.train import koikoi
from agents.train.config import ConfigError, PPOConfig
from agents.train.critic import critic_input
from agents.train.koikoi import KoiKoiTrainer as Trainer
from agents.train.pool import SELF
from agents.train.ppo import masked_entropy, minibatches
from hanafuda_env.koikoi.observation import OBS_DIM

GAMMA, LAM = 0.9, 0.8


# ------------------------------------------------------------------ a real rollout
def _config(**overrides: Any) -> PPOConfig:
    settings = {"n_envs": 16, "n_steps": 24, "hidden": 16, "layers": 1,
                "warmstart_decisions": 0, "eval_interval": 0, "baselines": ["random"],
                "self_play_fraction": 0.5, "progress_bar": False, "gamma": GAMMA,
                "gae_lambda": LAM, **overrides}
    return PPOConfig.from_dict(settings)


def _spied_rollout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   critic: str = "shared") -> dict[str, Any]:
    """One ``collect``, keeping the arguments it passed to ``compute_gae`` and each step's
    learner seats and opponents as they were when the step's actions were chosen."""
    trainer = Trainer(_config(critic=critic), tmp_path)
    gae_calls: list[tuple] = []
    real_gae, env_step = koikoi.compute_gae, trainer.env.step

    def gae_spy(*args: Any, **kwargs: Any):
        gae_calls.append(args)
        return real_gae(*args, **kwargs)

    before: list[tuple[np.ndarray, np.ndarray]] = []

    def step_spy(action: np.ndarray):
        before.append((trainer.learner_seat.copy(), trainer.opponent.copy()))
        return env_step(action)

    monkeypatch.setattr(koikoi, "compute_gae", gae_spy)
    trainer.env.step = step_spy
    buf, _ = trainer.collect()
    assert len(gae_calls) == 1
    return {"trainer": trainer, "buf": buf, "gae_args": gae_calls[0], "before": before}


@pytest.mark.parametrize("critic", ["shared", "privileged"])
def test_each_seats_stream_bootstraps_from_its_own_side_of_the_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, critic: str) -> None:
    """The critic values the state for the player to move; zero-sum, so the seat waiting
    for its turn continues from the negation."""
    run = _spied_rollout(tmp_path, monkeypatch, critic)
    trainer = run["trainer"]
    last = run["gae_args"][4]
    with torch.no_grad():
        _, value = trainer.network(torch.as_tensor(trainer.obs), torch.as_tensor(trainer.mask))
        if critic == "privileged":
            value = trainer.critic(torch.as_tensor(critic_input(trainer.obs, trainer.env.core)))
    value = value.numpy()
    games = np.arange(len(value))
    assert np.abs(value).min() > 1e-4  # a sign can show
    np.testing.assert_allclose(last[games, trainer.seat], value, rtol=1e-6)
    np.testing.assert_allclose(last[games, 1 - trainer.seat], -value, rtol=1e-6)


def test_value_targets_are_advantage_plus_value(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The critic learns returns, not advantages: return - value == advantage."""
    buf = _spied_rollout(tmp_path, monkeypatch)["buf"]
    assert np.abs(buf["value"]).max() > 1e-3
    np.testing.assert_allclose(buf["return"] - buf["value"], buf["advantage"], atol=1e-5)


def test_only_the_learners_decisions_are_marked_for_training(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Against a pool opponent only the learner's seat trains; in self-play both seats do.
    An opponent's moves come from another policy: training on them would be off-policy."""
    run = _spied_rollout(tmp_path, monkeypatch)
    buf = run["buf"]
    for t, (learner_seat, opponent) in enumerate(run["before"]):
        expected = (opponent == SELF) | (buf["seat"][t] == learner_seat)
        assert buf["train"][t].tolist() == expected.tolist()
    assert buf["train"].any() and not buf["train"].all()


# ------------------------------------------------------------------ one loss step
def _hand_made_batch(trainer: Trainer, advantage: list[float], ratio: list[float],
                     value_offset: list[float], return_offset: list[float]) -> dict:
    """A (2, 6) batch: the first row's 6 decisions and 2 of the second's are the learner's;
    the opponent's 4 hold NaN observations and huge targets that must never be used."""
    rng = np.random.default_rng(7)
    shape = (2, 6)
    train = np.array([[True] * 6, [True, False, True, False, False, False]])
    obs = rng.normal(0, 1, (*shape, OBS_DIM)).astype(np.float32)
    mask = rng.random((*shape, 98)) < 0.2
    mask[..., 3] = mask[..., 50] = True  # at least two legal actions
    action = np.argmax(mask * rng.random((*shape, 98)), axis=-1)
    logits, value = trainer.network(torch.as_tensor(obs[train]), torch.as_tensor(mask[train]))
    with torch.no_grad():
        now = torch.log_softmax(logits, dim=-1).gather(1, torch.as_tensor(action[train])[:, None])
    buf = {
        "obs": obs, "mask": mask, "action": action,
        "logprob": np.full(shape, np.nan, dtype=np.float32),
        "value": np.full(shape, 1e6, dtype=np.float32),
        "advantage": np.full(shape, 1e6, dtype=np.float32),
        "return": np.full(shape, 1e6, dtype=np.float32),
        "seat": np.zeros(shape, dtype=np.int64), "train": train,
        "reward": np.zeros((*shape, 2), dtype=np.float32), "done": np.zeros(shape, dtype=bool),
    }
    buf["obs"][~train] = np.nan
    v = value.detach().numpy()
    buf["logprob"][train] = now.squeeze(1).numpy() - np.log(ratio)
    buf["value"][train] = v + np.array(value_offset)
    buf["return"][train] = v + np.array(return_offset)
    buf["advantage"][train] = advantage
    return buf


def test_one_loss_step_matches_the_clipped_objectives_computed_by_hand(
        tmp_path: Path) -> None:
    """One epoch, one minibatch: the reported losses are those of the weights before the
    step, so they can be recomputed: normalised advantages, the pessimistic (max) clipped
    policy loss, the pessimistic clipped value loss; the opponent's rows never count."""
    cfg = _config(n_envs=6, n_steps=2, n_minibatches=1, update_epochs=1, clip_coef=0.2,
                  anneal_lr=False)
    trainer = Trainer(cfg, tmp_path)
    advantage = [2.0, -1.0, 0.5, 3.0, -2.5, 1.0, -0.5, 4.0]
    ratio = [0.5, 0.7, 0.95, 1.6, 1.05, 1.3, 1.6, 0.75]
    value_offset = [0.5, -0.5, 0.1, -0.3, 0.4, 0.0, -0.6, 0.25]
    return_offset = [1.0, -1.0, 0.3, -0.8, 0.6, 0.7, -0.2, -0.4]
    buf = _hand_made_batch(trainer, advantage, ratio, value_offset, return_offset)
    train = buf["train"]
    with torch.no_grad():
        logits, value = trainer.network(torch.as_tensor(buf["obs"][train]),
                                        torch.as_tensor(buf["mask"][train]))
        log_probs = torch.log_softmax(logits, dim=-1)
        entropy = masked_entropy(log_probs, torch.as_tensor(buf["mask"][train])).numpy()
        new = log_probs.gather(1, torch.as_tensor(buf["action"][train])[:, None]).squeeze(1)
    r = np.exp(new.numpy().astype(np.float64) - buf["logprob"][train])
    np.testing.assert_allclose(r, ratio, rtol=1e-4)  # the batch is what it claims
    adv = np.array(advantage)
    adv = (adv - adv.mean()) / (adv.std(ddof=1) + 1e-8)
    pg = np.maximum(-adv * r, -adv * np.clip(r, 0.8, 1.2)).mean()
    v, old, ret = value.numpy(), buf["value"][train], buf["return"][train]
    clipped = old + np.clip(v - old, -0.2, 0.2)
    v_loss = 0.5 * np.maximum((v - ret) ** 2, (clipped - ret) ** 2).mean()
    metrics = trainer.learn(buf)
    assert metrics["losses/policy_loss"] == pytest.approx(pg, rel=1e-4)
    assert metrics["losses/value_loss"] == pytest.approx(v_loss, rel=1e-4)
    assert metrics["losses/entropy"] == pytest.approx(entropy.mean(), rel=1e-4)
    assert metrics["losses/entropy"] > 0
    assert all(torch.isfinite(p).all() for p in trainer.network.parameters())


def test_the_entropy_bonus_raises_the_policys_entropy(tmp_path: Path) -> None:
    """With no advantage and no value loss the only gradient is the entropy bonus: one step
    must make the policy less certain, not more."""
    cfg = _config(n_envs=6, n_steps=2, n_minibatches=1, update_epochs=1, vf_coef=0.0,
                  ent_coef=0.5, anneal_lr=False, learning_rate=1e-3)
    trainer = Trainer(cfg, tmp_path)
    torch.manual_seed(3)
    with torch.no_grad():  # a peaked policy, well below its maximum entropy
        trainer.network.policy.weight.normal_(0.0, 1.0)
    buf = _hand_made_batch(trainer, [0.0] * 8, [1.0] * 8, [0.0] * 8, [0.0] * 8)
    train = buf["train"]
    obs, mask = torch.as_tensor(buf["obs"][train]), torch.as_tensor(buf["mask"][train])

    def mean_entropy() -> float:
        with torch.no_grad():
            logits, _ = trainer.network(obs, mask)
            return masked_entropy(torch.log_softmax(logits, dim=-1), mask).mean().item()

    before = mean_entropy()
    trainer.learn(buf)
    assert mean_entropy() > before + 1e-4


# ----------------------------------------------------- credit and state across steps
def test_round_statistics_credit_rounds_dealt_after_an_episode_to_its_new_seats(tmp_path):
    """A hand yaku dealt right after an episode ends belongs to the next episode: the trainer's
    logged round statistics read it with the seats it draws for that episode."""
    cfg = PPOConfig.from_dict({"n_envs": 64, "n_steps": 48, "hidden": 16, "rules": {"rounds": 1},
                               "episode": "match", "warmstart_decisions": 0, "eval_interval": 0,
                               "self_play_fraction": 0.0, "baselines": ["random"]})
    trainer = Trainer(cfg, tmp_path)
    steps, env_step = [], trainer.env.step

    def spy(action):
        before = (trainer.learner_seat.copy(), trainer.opponent.copy())
        out = env_step(action)
        steps.append((before, out[4]["round_results"], out[4]["next_episode"]))
        return out

    trainer.env.step = spy
    _, stats = trainer.collect()
    expected, moved = [], 0
    for t, ((seat, opponent), rows, later) in enumerate(steps):
        after = steps[t + 1][0][0] if t + 1 < len(steps) else trainer.learner_seat
        for k in [*np.flatnonzero(~later), *np.flatnonzero(later)]:
            g = rows.game[k]
            assert opponent[g] != SELF
            s = after[g] if later[k] else seat[g]
            moved += bool(later[k] and after[g] != seat[g])
            expected.append(rows.reward[k, s])
    assert moved > 0  # some rounds changed hands with the new draw of seats
    assert stats["pool_points"] == expected  # no self-play: every learner round is a pool one
    assert stats["learner_rounds"] == len(expected)


def test_rewards_waiting_for_a_decision_are_kept_in_the_run_state(tmp_path) -> None:
    """Rewards waiting for a seat's first decision survive a checkpoint, amounts and the
    seats still undecided both."""
    cfg = PPOConfig.from_dict({"n_envs": 4, "n_steps": 8, "n_minibatches": 2, "hidden": 16,
                               "warmstart_decisions": 0, "eval_interval": 0})
    trainer = Trainer(cfg, tmp_path)
    trainer.waiting.amount[2, 1] = -6.0
    trainer.waiting.undecided[3, 0] = False
    save_checkpoint(tmp_path / "state.pt", trainer.state())
    resumed = Trainer(cfg, tmp_path, resuming=True)
    resumed.restore(load_checkpoint(tmp_path / "state.pt"))
    assert resumed.waiting.amount.tolist() == trainer.waiting.amount.tolist()
    assert resumed.waiting.undecided.tolist() == trainer.waiting.undecided.tolist()
    assert not resumed.waiting.undecided[3, 0] and resumed.waiting.amount[2, 1] == -6.0


# ------------------------------------------------------------------ minibatches
def test_minibatches_never_hold_a_single_sample() -> None:
    generator = torch.Generator().manual_seed(0)
    for n, wanted in [(0, 4), (1, 4), (3, 4), (5, 5), (8, 4), (1000, 4)]:
        parts = minibatches(n, wanted, generator)
        assert all(len(p) >= 2 for p in parts) and len(parts) <= wanted
        covered = sorted(torch.cat(parts).tolist()) if parts else []
        assert covered == (list(range(n)) if n >= 2 else [])


def test_tiny_batches_train_without_nan(tmp_path) -> None:
    """A rollout with fewer learner decisions than minibatches trains without filling the
    weights with NaN (a one-sample minibatch would normalise its advantages by a zero
    spread), and configs whose minibatches are sure to be too small are refused up front."""
    from agents.train.run import train as run_training

    with pytest.raises(ConfigError, match="a minibatch needs two samples"):
        PPOConfig(n_envs=1, n_steps=3, n_minibatches=4)
    cfg = PPOConfig(n_envs=1, n_steps=4, n_minibatches=2, hidden=16, layers=1,
                    total_decisions=12, baselines=["random"], self_play_fraction=0.0,
                    warmstart_decisions=8, eval_interval=0, progress_bar=False)
    run_training(cfg, run_dir=tmp_path / "run")
    model = load_checkpoint(tmp_path / "run" / "checkpoints" / "latest.pt")["model"]
    assert all(torch.isfinite(t).all() for t in model.values())
