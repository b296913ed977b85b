"""How self-play results feed the opponent pool (score, Elo, PFSP draws), how the evaluator
seats the agents and deals, that random play covers every legal card, and that an
interrupted write never damages a file. Each checks a rule a wrong sign or index would
break silently: training and evaluation still run, only their numbers lie."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import files
from agents.eval import matches as evaluation
from agents.files import atomic_write_bytes
from agents.train.config import PPOConfig
from agents.train.pool import ELO_K, ELO_START, OpponentPool
from agents.train.ppo import SELF, Trainer
from hanafuda_env.core import KoiKoiCore
from hanafuda_env.rules import NINTENDO, resolve_rules

SHORT = resolve_rules("nintendo").replace(rounds=3)


def _pool(*scores: float) -> OpponentPool:
    """A pool of baselines (never built here) with the learner's given scores."""
    pool = OpponentPool(NINTENDO, ["random", "greedy", "expert"][:len(scores)],
                        {"hidden": 8, "layers": 1})
    for entry, score in zip(pool.entries, scores):
        entry.score = score
    return pool


# ------------------------------------------------------------------ pool results
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
    trainer = Trainer(cfg, tmp_path)
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


# ------------------------------------------------------------------ evaluator seating
class _EndAgent:
    """Plays its lowest (or highest) legal action, so a game's step shows who moved."""

    def __init__(self, name: str, highest: bool):
        self.name, self.highest = name, highest

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.highest:
            return (mask.shape[1] - 1 - mask[:, ::-1].argmax(1)).astype(np.int64)
        return mask.argmax(1).astype(np.int64)


def _observed_seating(monkeypatch: pytest.MonkeyPatch, n_matches: int,
                      batch: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Play A (lowest legal action) against B (highest) with a core that records each
    wave's deal seeds and first dealers, and which seat moved lowest at the first step."""
    waves: list[dict[str, np.ndarray]] = []

    class RecordingCore(KoiKoiCore):
        def reset(self, seed=None, options=None):
            outcome = super().reset(seed=seed, options=options)
            if options is not None:
                dealer = np.broadcast_to(np.asarray(options["dealer"]), (self.n_games,))
                waves.append({"seed": np.array(seed, dtype=np.uint64), "dealer": dealer.copy()})
            return outcome

        def step(self, actions):
            wave = waves[-1]
            if "seat_a" not in wave:  # the first move of every game: none has ended
                mask = self.legal_action_mask()
                lowest = mask.argmax(1)
                highest = mask.shape[1] - 1 - mask[:, ::-1].argmax(1)
                assert (lowest < highest).all()
                assert ((actions == lowest) | (actions == highest)).all()
                wave["seat_a"] = np.where(actions == lowest, self.mover, 1 - self.mover)
            return super().step(actions)

    monkeypatch.setattr(evaluation, "KoiKoiCore", RecordingCore)
    result = evaluation.play_matches(_EndAgent("low", False), _EndAgent("high", True),
                                     n_matches, SHORT, seed=4, batch=batch)
    observed = {key: np.concatenate([w[key] for w in waves]) for key in waves[0]}
    assert len(observed["seat_a"]) == n_matches
    return observed, result


def test_play_matches_seats_and_deals_as_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    """Match j: A at seat j % 2, first deal to seat (j // 2) % 2, the deck of pair j // 2.
    So A changes seat within a pair over the same cards, and deals first in half the
    matches; the reported seat counts are what was played."""
    n = 11
    seen, result = _observed_seating(monkeypatch, n, batch=4)
    j = np.arange(n)
    assert seen["seat_a"].tolist() == (j % 2).tolist()
    assert seen["dealer"].tolist() == ((j // 2) % 2).tolist()
    seeds = seen["seed"]
    assert (seeds[0:-1:2] == seeds[1::2]).all()  # a pair shares its deal
    assert len(set(seeds[::2].tolist())) == (n + 1) // 2  # pairs do not
    a_deals = seen["seat_a"] == seen["dealer"]
    assert result["seats"] == {"a_at_seat_0": int((seen["seat_a"] == 0).sum()),
                               "a_at_seat_1": int((seen["seat_a"] == 1).sum()),
                               "a_deals_first": int(a_deals.sum())}
    assert a_deals[:10].sum() == 5  # A deals first in one match of each pair


def test_seating_does_not_depend_on_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    one, _ = _observed_seating(monkeypatch, 6, batch=1)
    all_at_once, _ = _observed_seating(monkeypatch, 6, batch=64)
    for key in ("seat_a", "dealer", "seed"):
        assert one[key].tolist() == all_at_once[key].tolist()


# ------------------------------------------------------------------ random play
def test_random_legal_actions_are_uniform_over_eight_cards_in_hand() -> None:
    """Filler moves and random baselines draw from the bit sets: every one of eight cards
    in hand must come up about one time in eight (0.125; 20k draws give a spread of
    0.0023, the bounds allow 15 times that)."""
    core = KoiKoiCore(2500, seed=11)
    mask = core.legal_action_mask()
    assert (mask.sum(1) == 8).all()  # every game waits for the first card of a round
    rank = np.cumsum(mask, axis=1) - 1  # each legal action's place among its game's
    rng = np.random.default_rng(5)
    games = np.arange(core.n_games)
    counts = np.zeros(8)
    for _ in range(8):
        actions = core.sample_legal_actions(rng)
        assert mask[games, actions].all()
        counts += np.bincount(rank[games, actions], minlength=8)
    share = counts / counts.sum()
    assert share.min() > 0.09 and share.max() < 0.16, share


# ------------------------------------------------------------------ atomic files
class _DiesMidWrite:
    """A file handle that writes half of what it is given, then fails."""

    def __init__(self, handle: Any, error: BaseException):
        self.handle, self.error = handle, error

    def __enter__(self) -> _DiesMidWrite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, data: bytes) -> int:
        self.handle.write(data[:len(data) // 2])
        self.handle.flush()
        raise self.error


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"),
                                   KeyboardInterrupt()])
@pytest.mark.parametrize("existed", [True, False])
def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temp_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException,
        existed: bool) -> None:
    """A full disk or Ctrl-C while a checkpoint or summary is written: the previous file is
    still there byte for byte (or none, if there was none), with no stray temp file."""
    target = tmp_path / "latest.pt"
    old = bytes(range(256)) * 4
    if existed:
        target.write_bytes(old)
    real_fdopen = os.fdopen
    monkeypatch.setattr(files.os, "fdopen",
                        lambda fd, mode: _DiesMidWrite(real_fdopen(fd, mode), error))
    with pytest.raises(type(error)):
        atomic_write_bytes(target, b"new checkpoint " * 1000)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["latest.pt"] if existed else [])
    if existed:
        assert target.read_bytes() == old


def test_a_completed_write_replaces_the_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    target.write_bytes(b"old")
    atomic_write_bytes(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
