"""The arithmetic of PPO: two-seat GAE with discounting, the bootstrap of each seat's
stream, the value targets, which decisions are trained on, and one loss step computed by
hand. The other PPO tests use gamma = lambda = 1 and zero values, where a dropped factor or
a lost sign cannot show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.train import ppo
from agents.train.config import PPOConfig
from agents.train.critic import critic_input
from agents.train.ppo import SELF, Trainer, compute_gae, masked_entropy

GAMMA, LAM = 0.9, 0.8


def _reference_gae(rewards: np.ndarray, dones: np.ndarray, seats: np.ndarray,
                   values: np.ndarray, last: np.ndarray, gamma: float,
                   lam: float) -> np.ndarray:
    """Textbook GAE run separately over each (game, seat, episode) list of decisions. A
    decision's reward is its seat's pay from its step up to the seat's next decision (or the
    episode's end); an episode that ended bootstraps 0, the running one ``last``. What a seat
    was paid in an episode before its first decision there is added to that decision's
    advantage, except in the episode running at the rollout's start (no ``waiting`` given)."""
    steps, n = seats.shape
    adv = np.zeros((steps, n))
    for g in range(n):
        ends = np.flatnonzero(dones[:, g]).tolist()
        bounds = [(a, b, True) for a, b in zip([0, *[e + 1 for e in ends]], ends)]
        if not ends or ends[-1] < steps - 1:
            bounds.append((ends[-1] + 1 if ends else 0, steps - 1, False))
        for start, end, ended in bounds:
            for s in (0, 1):
                times = [t for t in range(start, end + 1) if seats[t, g] == s]
                if not times:
                    continue
                next_value = 0.0 if ended else float(last[g, s])
                next_adv = 0.0
                for k in reversed(range(len(times))):
                    t = times[k]
                    stop = times[k + 1] if k + 1 < len(times) else end + 1
                    delta = rewards[t:stop, g, s].sum() + gamma * next_value - values[t, g]
                    adv[t, g] = delta + gamma * lam * next_adv
                    next_value, next_adv = values[t, g], adv[t, g]
                if start > 0:
                    adv[times[0], g] += rewards[start:times[0], g, s].sum()
    return adv


def test_gae_with_discounting_matches_a_per_seat_reference_loop() -> None:
    """gamma and lambda below 1 with non-zero values: every factor of the recursion shows."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        steps, n = int(rng.integers(2, 12)), int(rng.integers(1, 4))
        seats = rng.integers(0, 2, (steps, n))
        dones = rng.random((steps, n)) < 0.2
        rewards = np.where(rng.random((steps, n, 2)) < 0.4,
                           rng.normal(0, 2, (steps, n, 2)), 0).astype(np.float32)
        values = rng.normal(0, 1, (steps, n)).astype(np.float32)
        last = rng.normal(0, 1, (n, 2)).astype(np.float32)
        adv, _ = compute_gae(rewards, dones, seats, values, last, GAMMA, LAM)
        expected = _reference_gae(rewards, dones, seats, values, last, GAMMA, LAM)
        np.testing.assert_allclose(adv, expected, rtol=1e-5, atol=1e-5)


def test_gae_of_one_seats_three_decisions_by_hand() -> None:
    """Seat 0 decides at steps 0, 2, 4 (seat 1 in between) and is paid 1 after step 2; the
    rollout ends mid-episode, so step 4 bootstraps from seat 0's last value 2."""
    seats = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2), dtype=np.float32)
    rewards[2, 0] = [1.0, -1.0]
    values = np.array([[0.5], [9.0], [0.25], [9.0], [-1.0]], dtype=np.float32)
    last = np.array([[2.0, 0.0]], dtype=np.float32)
    adv, _ = compute_gae(rewards, np.zeros((5, 1), dtype=bool), seats, values, last, GAMMA, LAM)
    a4 = 0.0 + GAMMA * 2.0 - (-1.0)
    a2 = 1.0 + GAMMA * (-1.0) - 0.25 + GAMMA * LAM * a4
    a0 = 0.0 + GAMMA * 0.25 - 0.5 + GAMMA * LAM * a2
    assert adv[[0, 2, 4], 0] == pytest.approx([a0, a2, a4], rel=1e-6)


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
    real_gae, env_step = ppo.compute_gae, trainer.env.step

    def gae_spy(*args: Any, **kwargs: Any):
        gae_calls.append(args)
        return real_gae(*args, **kwargs)

    before: list[tuple[np.ndarray, np.ndarray]] = []

    def step_spy(action: np.ndarray):
        before.append((trainer.learner_seat.copy(), trainer.opponent.copy()))
        return env_step(action)

    monkeypatch.setattr(ppo, "compute_gae", gae_spy)
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
    obs = rng.normal(0, 1, (*shape, 303)).astype(np.float32)
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
