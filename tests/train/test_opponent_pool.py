"""The opponent pool: self-play results move the learner's and the opponents' Elo and score,
PFSP draws the opponents the learner does not beat, the pool is credited with the learner's
episode return, and a full pool retires its oldest snapshot (its games finish against the same
agent and count for it; the slot, once reused, plays the new snapshot)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.bots.network import ActorCritic
from agents.train.config import PPOConfig
from agents.train.koikoi import KoiKoiTrainer
from agents.train.pool import ELO_K, ELO_START, SELF, OpponentPool
from hanafuda_env.koikoi.rules import NINTENDO

KWARGS = {"hidden": 8, "layers": 1}
POLICY = {"network": KWARGS}  # what a snapshot's checkpoint holds besides its weights


def network(seed: int) -> ActorCritic:
    """A small network with weights of its own (torch's global RNG is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return ActorCritic(**KWARGS)


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


# ------------------------------------------------------------------ reused slots
def test_a_reused_slot_plays_the_new_snapshot() -> None:
    pool = OpponentPool(NINTENDO, ["random"], POLICY, max_snapshots=1)
    first, second = network(1), network(2)
    assert not same_weights(first, second)
    pool.add_snapshot(first, 100)
    old = pool.agent(1)  # built and cached while @100 is drawn
    assert old.name == "snapshot@100" and same_weights(old.network, first)
    pool.add_snapshot(second, 200)  # the pool is full and no game plays @100: slot 1 reused
    assert [e.name for e in pool.entries] == ["random", "snapshot@200"]
    new = pool.agent(1)
    assert new is not old and new.name == "snapshot@200"
    assert same_weights(new.network, second)


def test_a_slot_still_in_use_keeps_its_agent_until_freed() -> None:
    """While a game plays the retired @100, the new snapshot takes a new slot and slot 1
    keeps its agent; the next snapshot reuses slot 1 and brings its own."""
    pool = OpponentPool(NINTENDO, ["random"], POLICY, max_snapshots=1)
    pool.add_snapshot(network(1), 100)
    old = pool.agent(1)
    pool.add_snapshot(network(2), 200, in_use=[1])
    assert pool.agent(1) is old and pool.agent(2).name == "snapshot@200"
    third = network(3)
    pool.add_snapshot(third, 300)
    assert [e.name for e in pool.entries] == ["random", "snapshot@300", "snapshot@200"]
    assert pool.agent(1).name == "snapshot@300" and same_weights(pool.agent(1).network, third)


# ---------------------------------------------------------------------- results
def _pool(*scores: float) -> OpponentPool:
    """A pool of baselines (never built here) with the learner's given scores."""
    pool = OpponentPool(NINTENDO, ["random", "greedy", "expert"][:len(scores)], POLICY)
    for entry, score in zip(pool.entries, scores):
        entry.score = score
    return pool


def test_a_learner_win_raises_its_elo_and_score_and_lowers_the_opponents() -> None:
    pool = _pool(0.5)
    pool.record(0, np.array([3.0]))  # equal ratings: the winner expected half a win
    entry = pool.entries[0]
    assert pool.learner_elo == pytest.approx(ELO_START + ELO_K / 2)
    assert entry.elo == pytest.approx(ELO_START - ELO_K / 2)
    assert entry.score == pytest.approx(0.5 + pool.score_decay * 0.5)
    pool.record(0, np.array([-2.0]))  # and a loss undoes part of it
    assert pool.learner_elo < ELO_START + ELO_K / 2 and entry.score < 0.5 + pool.score_decay
    assert entry.rounds == 2


def test_a_draw_pulls_the_score_toward_one_half_and_moves_elo_by_expectation() -> None:
    """A draw is half a win: a score of 0.8 falls, and a learner rated below its opponent
    gains a little (it was expected to score under one half), less than a win gives."""
    pool = _pool(0.8)
    entry = pool.entries[0]
    entry.elo = ELO_START + 100.0
    pool.record(0, np.array([0.0]))
    expected = 1.0 / (1.0 + 10 ** (100.0 / 400.0))
    assert entry.score == pytest.approx(0.8 + pool.score_decay * (0.5 - 0.8))
    assert pool.learner_elo == pytest.approx(ELO_START + ELO_K * (0.5 - expected))
    assert entry.elo == pytest.approx(ELO_START + 100.0 - ELO_K * (0.5 - expected))
    assert pool.learner_elo - ELO_START < ELO_K * (1.0 - expected) / 2


def test_pfsp_draws_the_opponents_the_learner_does_not_beat() -> None:
    """Weights (1 - score) ** 2 + 0.001: scores 0, 0.5, 1 give 1.001 : 0.251 : 0.001."""
    pool = _pool(0.0, 0.5, 1.0)
    n = 20_000
    drawn = pool.sample(n, np.random.default_rng(0), self_play_fraction=0.0)
    share = np.bincount(drawn, minlength=3) / n
    weights = np.array([1.001, 0.251, 0.001])
    np.testing.assert_allclose(share, weights / weights.sum(), atol=0.015)
    assert share[0] > 50 * max(share[2], 1 / n)
    mixed = pool.sample(n, np.random.default_rng(1), self_play_fraction=0.25)
    assert abs((mixed == SELF).mean() - 0.25) < 0.02


def test_the_pool_is_credited_with_the_learners_episode_return(tmp_path: Path) -> None:
    """Each finished episode against a pool opponent records the learner's seat's return
    (summed over the episode), not the opponent's (its negation: zero-sum)."""
    cfg = PPOConfig.from_dict({"n_envs": 16, "n_steps": 32, "hidden": 16, "layers": 1,
                               "warmstart_decisions": 0, "eval_interval": 0,
                               "baselines": ["random", "greedy"], "self_play_fraction": 0.25,
                               "progress_bar": False})
    trainer = KoiKoiTrainer(cfg, tmp_path)
    recorded: list[tuple[int, float]] = []
    expected: list[tuple[int, float]] = []
    paid = np.zeros((cfg.n_envs, 2))
    env_step, record = trainer.env.step, trainer.pool.record

    def record_spy(index: int, learner_rewards: Any) -> None:
        recorded.append((index, float(learner_rewards)))
        record(index, learner_rewards)

    def step_spy(action: np.ndarray):
        seat, opponent = trainer.learner_seat.copy(), trainer.opponent.copy()
        out = env_step(action)
        paid[:] += out[1]
        for g in np.flatnonzero(out[2] | out[3]):
            if opponent[g] != SELF:
                expected.append((int(opponent[g]), float(paid[g, seat[g]])))
        paid[out[2] | out[3]] = 0.0
        return out

    trainer.pool.record = record_spy
    trainer.env.step = step_spy
    trainer.collect()
    assert recorded == expected
    assert sum(points != 0 for _, points in recorded) >= 5  # a wrong sign would show


# ------------------------------------------------------------ retired snapshots
def test_a_replaced_snapshot_finishes_its_games_and_is_credited_with_them() -> None:
    """A full pool retires its oldest snapshot: never drawn again, but a game still playing
    it goes on against the same agent and its result counts for that snapshot; the slot is
    reused once no game holds it. Every entry keeps its index."""
    from agents.train.pool import OpponentPool
    from hanafuda_env.koikoi.rules import NINTENDO

    pool = OpponentPool(NINTENDO, ["random", "greedy"], POLICY, max_snapshots=2)
    net = ActorCritic(hidden=8, layers=1)
    pool.add_snapshot(net, 100)
    pool.add_snapshot(net, 200)
    old_agent = pool.agent(2)  # @100, drawn by a game still playing
    pool.add_snapshot(net, 300, in_use=[-1, 2])
    assert [e.name for e in pool.entries] == ["random", "greedy", "snapshot@100",
                                              "snapshot@200", "snapshot@300"]
    assert pool.entries[2].retired and pool.agent(2) is old_agent
    pool.record(2, np.array([5.0]))  # that game's result
    assert pool.entries[2].rounds == 1 and pool.entries[4].rounds == 0
    drawn = pool.sample(2000, np.random.default_rng(0), self_play_fraction=0.0)
    assert 2 not in drawn and {0, 1, 3, 4} <= set(drawn.tolist())
    pool.add_snapshot(net, 400, in_use=[0, 3])  # @100's games are over: its slot is reused
    assert [e.name for e in pool.entries][2:] == ["snapshot@400", "snapshot@200",
                                                  "snapshot@300"]
    assert pool.entries[3].retired and not pool.entries[2].retired
    state = pool.state_dict()
    again = OpponentPool(NINTENDO, [], POLICY, max_snapshots=2)
    again.load_state_dict(state)
    assert [e.retired for e in again.entries] == [e.retired for e in pool.entries]
