"""Rollouts inside the kernel: the same games as stepping from Python, zero-sum, ended where
asked, reproducible by seed and independent of the batch; the compiled greedy policy picks a
capture the greedy agent values most."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.base import decode, legal_candidates
from agents.bots.baselines import card_outcomes, card_points
from hanafuda_env.common.seeding import splitmix64
from hanafuda_env.koikoi import batch as B
from hanafuda_env.koikoi import loops as L
from hanafuda_env.koikoi.core import ROUND_OVER, KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.state import DECIDE, MATCH_OVER, STOP


@pytest.mark.parametrize("rules", ["nintendo", "ten-base", "koikoi-japan"])
@pytest.mark.parametrize("policy", ["random", "greedy", ("greedy", "random")])
def test_rollouts_end_rounds_zero_sum(rules, policy) -> None:
    core = KoiKoiCore(300, rules, seed=4, autoreset=False)
    live = ~core.round_over  # a dealt hand yaku ended some rounds already
    before = core.match_score.copy()
    rewards, moves = core.rollout(policy, "round", seed=1)
    assert (core.phase >= ROUND_OVER).all() and (moves[live] > 0).all()
    assert not moves[~live].any() and not rewards[~live].any()
    assert (rewards.sum(axis=1) == 0).all()
    assert np.array_equal(rewards, core.match_score - before)
    assert (core.round_index[live] == 1).all()


def test_match_rollouts_play_every_round_of_the_match() -> None:
    core = KoiKoiCore(200, {"rounds": 3}, seed=8, autoreset=False)
    live = ~core.round_over
    before = core.match_score.copy()
    rewards, _ = core.rollout("random", "match", seed=2)
    assert (core.phase[live] == MATCH_OVER).all() and (core.round_index[live] == 3).all()
    assert np.array_equal(rewards[live], (core.match_score - before)[live])


def test_rollouts_are_reproducible_by_seed() -> None:
    source = KoiKoiCore(50, seed=6, autoreset=False)
    first = source.fork(np.arange(50)).rollout("random", "round", seed=9)
    again = source.fork(np.arange(50)).rollout("random", "round", seed=9)
    other = source.fork(np.arange(50)).rollout("random", "round", seed=10)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[1], other[1])
    # forks of one game roll out different futures (each its own stream)
    worlds = source.fork(0, copies=64)
    assert len(set(worlds.rollout("random", "round", seed=1)[1].tolist())) > 1


def _uniforms(seed: int, games: np.ndarray, counter: np.ndarray) -> np.ndarray:
    """The random number a rollout draws for a game's n-th move: splitmix64 of the move
    counter added to the hash of the seed and the game's index, as 53 bits in [0, 1)."""
    start = splitmix64(np.uint64(seed) ^ splitmix64(games.astype(np.uint64)))
    word = splitmix64(start + counter.astype(np.uint64))
    return (word >> np.uint64(11)).astype(np.float64) / 2.0**53


def _python_steps(twin: KoiKoiCore, seed: int, limit: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Step ``twin``'s games from Python with a random rollout's numbers (up to ``limit``
    moves each); returns the moves made and the points paid."""
    n = twin.n_games
    games = np.arange(n)
    counter = np.zeros(n, dtype=np.int64)
    paid = np.zeros((n, 2), dtype=np.int64)
    actions = np.empty(n, dtype=np.int64)
    while True:
        live = ~twin.round_over & (counter < (limit or np.iinfo(np.int64).max))
        if not live.any():
            return counter, paid
        counter[live] += 1
        L.sample_actions(twin.records, _uniforms(seed, games, counter), actions)
        # finished games take no move: step the live ones in a fork and copy them back
        part = twin.fork(games[live])
        out = part.step(actions[live])
        twin.records[live] = part.records
        paid[live] += out.reward


@pytest.mark.parametrize("rules", ["nintendo", "koikoi-japan"])
def test_a_random_rollout_is_the_python_step_loop_with_the_same_numbers(rules) -> None:
    core = KoiKoiCore(128, rules, seed=12, autoreset=False)
    twin = core.fork(np.arange(128))
    rewards, moves = core.rollout("random", "round", seed=3)
    counter, paid = _python_steps(twin, 3)
    assert np.array_equal(counter, moves)
    assert np.array_equal(paid, rewards)
    assert np.array_equal(twin.records, core.records)


@pytest.mark.parametrize("limit", [1, 5])
def test_a_truncated_rollout_stops_after_its_moves_where_the_full_one_went_on(limit) -> None:
    core = KoiKoiCore(128, seed=12, autoreset=False)
    full_rewards, full_moves = core.fork(np.arange(128)).rollout("random", "round", seed=3)
    cut = core.fork(np.arange(128))
    rewards, moves = cut.rollout("random", "round", seed=3, max_decisions=limit)
    assert np.array_equal(moves, np.minimum(full_moves, limit))
    went_on = full_moves > limit
    assert went_on.any() and (cut.phase[went_on] < ROUND_OVER).all()
    assert np.array_equal(rewards[~went_on], full_rewards[~went_on])
    twin = core.fork(np.arange(128))
    counter, paid = _python_steps(twin, 3, limit)
    assert np.array_equal(counter, moves) and np.array_equal(paid, rewards)
    assert np.array_equal(twin.records, cut.records)


def test_rollout_arguments_are_checked() -> None:
    core = KoiKoiCore(2, seed=0, autoreset=False)
    with pytest.raises(ValueError, match="policy must be one of random, greedy, expert"):
        core.rollout("search")
    with pytest.raises(ValueError, match="until must be 'round' or 'match'"):
        core.rollout("random", "game")
    for wrong in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="max_decisions must be None or a positive"):
            core.rollout("random", max_decisions=wrong)


def test_compiled_greedy_takes_the_capture_the_greedy_agent_values_most() -> None:
    core = KoiKoiCore(400, seed=21)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(30):
        obs = encode_observations(core)
        mask = core.legal_action_mask()
        view = decode(obs, core.rules)
        rows, acts = legal_candidates(mask[:, :96])
        out = card_outcomes(view, rows, acts)
        value = card_points(out.captured) - 0.01 * card_points(out.placed)
        best = np.full(core.n_games, -np.inf)
        np.maximum.at(best, out.row, value)
        for g in range(core.n_games):
            action = B.greedy_action(core.records[g], np.uint64(g + 1))
            if core.phase[g] == DECIDE:
                assert action == STOP
                continue
            mine = value[(out.row == g) & (out.action == action)]
            assert len(mine) and mine.max() == pytest.approx(best[g], abs=2e-3)
            checked += 1
        core.step(core.sample_legal_actions(rng))
    assert checked > 5000
