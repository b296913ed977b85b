"""Rollout values of every legal move: against plain play-outs, chunking, worlds, errors."""

from __future__ import annotations

import numpy as np
import pytest

from agents.analysis.action_values import estimate_action_values
from agents.analysis.koikoi_value import play_with, rollout_worlds
from hanafuda_env.koikoi.core import DECIDE, KoiKoiCore
from tests.helpers.envs import FirstLegal


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


def test_bad_requests_name_the_problem(positions: KoiKoiCore) -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        estimate_action_values(positions, [0], FirstLegal(), mode="peek")
    with pytest.raises(ValueError, match="n_worlds must be at least 1"):
        estimate_action_values(positions, [0], FirstLegal(), n_worlds=0)
    values = estimate_action_values(positions, [0], FirstLegal(), n_worlds=1)
    illegal = int(np.flatnonzero(~positions.legal_action_mask()[0])[0])
    with pytest.raises(ValueError, match=f"actions \\[{illegal}\\] at points \\[0\\]"):
        values.value_of(np.array([illegal]))


