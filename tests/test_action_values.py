"""Rollout values of every legal move: against plain play-outs, chunking, worlds, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from env_helpers import FirstLegal

from agents.analysis.action_values import estimate_action_values
from agents.analysis.koikoi_value import play_with, rollout_worlds
from hanafuda_env import cards as C
from hanafuda_env.core import DECIDE, KoiKoiCore

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def positions() -> KoiKoiCore:
    """Eight games a few random moves in, several of them at a card decision."""
    core = KoiKoiCore(8, "nintendo", seed=21)
    rng = np.random.default_rng(21)
    for _ in range(7):
        core.step(core.sample_legal_actions(rng))
    return core


def test_values_are_the_play_outs_of_each_legal_move(positions: KoiKoiCore) -> None:
    policy = FirstLegal()
    games = np.arange(positions.n_games)
    values = estimate_action_values(positions, games, policy, n_worlds=3, mode="true")
    mask = positions.legal_action_mask()
    assert values.samples.shape == (mask.sum(), 3)
    for p, g in enumerate(games):
        mine = values.point == p
        assert values.action[mine].tolist() == np.flatnonzero(mask[g]).tolist()
        for action, row in zip(values.action[mine], values.samples[mine]):
            branch = positions.fork([g])
            seat = int(branch.mover[0])
            played = play_with(branch, (policy, policy), "round", first_actions=np.array([action]))
            assert (row == played.round_reward[0, seat]).all()  # true worlds all agree
    best = values.best()
    mean = values.mean
    for p in range(len(games)):
        assert values.value_of(best)[p] == mean[values.point == p].max()


def test_the_core_is_left_as_it_was(positions: KoiKoiCore) -> None:
    before = positions.state_dict()
    estimate_action_values(positions, [0, 3], FirstLegal(), n_worlds=4, seed=2)
    after = positions.state_dict()
    for key, value in before.items():
        np.testing.assert_array_equal(value, after[key])


@pytest.mark.parametrize("mode", ["resampled", "hand_known"])
def test_chunking_does_not_change_the_values(positions: KoiKoiCore, mode: str) -> None:
    games = np.arange(positions.n_games)
    whole = estimate_action_values(positions, games, FirstLegal(), 6, mode, seed=5)
    pieces = estimate_action_values(positions, games, FirstLegal(), 6, mode, seed=5,
                                    max_batch=20)
    np.testing.assert_array_equal(whole.samples, pieces.samples)
    other = estimate_action_values(positions, games, FirstLegal(), 6, mode, seed=6)
    assert not np.array_equal(whole.samples, other.samples)  # the seed picks the worlds


def test_hand_known_worlds_keep_both_hands_and_reshuffle_the_stock(positions) -> None:
    games = np.flatnonzero(positions.phase != DECIDE)
    worlds = rollout_worlds(positions, games, copies=5, mode="hand_known", seed=3)
    original = positions.fork(games, copies=5)
    np.testing.assert_array_equal(worlds.hands, original.hands)
    np.testing.assert_array_equal(worlds.field, original.field)
    reordered = 0
    for g in range(worlds.n_games):
        pos = int(worlds.stock_pos[g])
        np.testing.assert_array_equal(worlds.stock[g, :pos], original.stock[g, :pos])
        assert sorted(worlds.stock[g, pos:]) == sorted(original.stock[g, pos:])
        reordered += int(not np.array_equal(worlds.stock[g, pos:], original.stock[g, pos:]))
    assert reordered > worlds.n_games // 2


def test_shuffle_stock_touches_only_the_chosen_games_undrawn_cards() -> None:
    core = KoiKoiCore(5, "nintendo", seed=8)
    before = core.state_dict()
    core.shuffle_stock(np.random.default_rng(0), games=[1, 3])
    after = core.state_dict()
    for key in before:
        if key != "stock":
            np.testing.assert_array_equal(before[key], after[key])
    np.testing.assert_array_equal(before["stock"][[0, 2, 4]], after["stock"][[0, 2, 4]])
    for g in (1, 3):
        pos = int(before["stock_pos"][g])
        assert C.mask_of(after["stock"][g, pos:].tolist()) == C.mask_of(
            before["stock"][g, pos:].tolist())
        assert not np.array_equal(before["stock"][g], after["stock"][g])


def test_bad_requests_name_the_problem(positions: KoiKoiCore) -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        estimate_action_values(positions, [0], FirstLegal(), mode="peek")
    with pytest.raises(ValueError, match="n_worlds must be at least 1"):
        estimate_action_values(positions, [0], FirstLegal(), n_worlds=0)
    values = estimate_action_values(positions, [0], FirstLegal(), n_worlds=1)
    illegal = int(np.flatnonzero(~positions.legal_action_mask()[0])[0])
    with pytest.raises(ValueError, match=f"actions \\[{illegal}\\] at points \\[0\\]"):
        values.value_of(np.array([illegal]))


def test_bench_search_prints_a_row_per_mode() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_search.py"), "--policy", "greedy",
         "--states", "6", "--search-worlds", "2", "--judge-worlds", "3",
         "--modes", "resampled", "true"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    lines = run.stdout.splitlines()
    assert lines[0].startswith("policy greedy: 6 card decisions")
    assert [line.split()[0] for line in lines[2:]] == ["resampled", "true"]
