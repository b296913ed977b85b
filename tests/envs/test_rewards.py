"""The match-win reward (``hanafuda_env.envs.rewards``) in the vector env: golden values, exact
telescoping to match results, a plain reference walk over random games, the points reward
unchanged by the option, saved states, and finite graded rewards whatever the point unit."""

from __future__ import annotations

from math import erf, sqrt

import numpy as np
import pytest

from hanafuda_env.envs.rewards import match_value
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.rules import NINTENDO


def test_match_value_golden_cases() -> None:
    assert match_value(0, 5, 10.0) == 0.0
    assert match_value(10, 1, 10.0) == pytest.approx(erf(1 / sqrt(2)))  # one sigma: 68 %
    assert match_value(-10, 1, 10.0) == pytest.approx(-erf(1 / sqrt(2)))
    assert match_value(20, 4, 10.0) == pytest.approx(match_value(10, 1, 10.0))
    assert (match_value(3, 0, 10.0), match_value(-1, 0, 10.0), match_value(0, 0, 10.0)) == (
        1.0, -1.0, 0.0)
    assert match_value(5, 1, 10.0) > match_value(5, 6, 10.0) > 0  # a lead is safer late


def _result(matches, g: int) -> float:
    first = np.flatnonzero(matches.game == g)[0]  # the match this step ended
    winner = matches.winner[first]
    return 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0


@pytest.mark.parametrize("rules", [{"rounds": 12}, {"rounds": 3}, {"rounds": 1},
                                   {"rounds": 6, "target_score": 8}])
def test_match_episode_rewards_add_up_to_the_match_result(rules) -> None:
    env = KoiKoiVectorEnv(256, rules=rules, episode="match", reward="match_win")
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    returns = np.zeros((256, 2))
    checked = 0
    for _ in range(600):
        _, rewards, terminated, _, info = env.step(env.core.sample_legal_actions(rng))
        np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-6)
        returns += rewards
        for g in np.flatnonzero(terminated):
            assert returns[g, 0] == pytest.approx(_result(info["match_results"], g), abs=1e-5)
            checked += 1
        returns[terminated] = 0.0
    assert checked > 100


def test_round_rewards_are_match_value_changes() -> None:
    """Against a plain walk that keeps each match's margin from the round records."""
    rules = {"rounds": 4}
    n_rounds, scale = 4, 10.0
    env = KoiKoiVectorEnv(128, rules=rules, episode="round", reward="match_win")
    _, info = env.reset(seed=8)
    margin = np.zeros(128)
    dealt = info["round_results"]  # hand yaku at the first deal
    np.add.at(margin, dealt.game, dealt.reward[:, 0])
    rng = np.random.default_rng(2)
    rewarded_rounds = 0
    for _ in range(500):
        _, rewards, _, _, info = env.step(env.core.sample_legal_actions(rng))
        rounds, matches = info["round_results"], info["match_results"]
        expected = np.zeros(128)
        ended: set[int] = set()
        for k in range(len(rounds)):
            g, i = int(rounds.game[k]), int(rounds.round_index[k])
            if i == 0:
                margin[g] = 0.0  # a new match
            before = match_value(margin[g], n_rounds - i, scale)
            margin[g] += rounds.reward[k, 0]
            later = [j for j in range(k + 1, len(rounds)) if rounds.game[j] == g]
            if g in matches.game and g not in ended and (
                    not later or rounds.round_index[later[0]] == 0):  # the match's last
                after = _result(matches, g)
                ended.add(g)
            else:
                after = match_value(margin[g], n_rounds - i - 1, scale)
            if info["rewarded"][k]:
                expected[g] += after - before
                rewarded_rounds += 1
        np.testing.assert_allclose(rewards[:, 0], expected, atol=1e-5)
        np.testing.assert_allclose(rewards[:, 1], -expected, atol=1e-5)
    assert rewarded_rounds > 300


def test_points_reward_is_unchanged_by_the_option() -> None:
    a = KoiKoiVectorEnv(64, episode="match", seed=3)
    b = KoiKoiVectorEnv(64, episode="match", seed=3, reward="points")
    a.reset(), b.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        actions = a.core.sample_legal_actions(rng)
        ra, rb = a.step(actions)[1], b.step(actions)[1]
        np.testing.assert_array_equal(ra, rb)
        assert np.all(ra == np.round(ra))  # whole points


def test_match_win_env_state_round_trips_mid_match() -> None:
    env = KoiKoiVectorEnv(64, rules={"rounds": 1}, episode="match", reward="match_win", seed=5)
    env.reset()
    rng = np.random.default_rng(3)
    for _ in range(50):
        env.step(env.core.sample_legal_actions(rng))
    copy = KoiKoiVectorEnv(64, rules={"rounds": 1}, episode="match", reward="match_win")
    copy.load_state_dict(env.state_dict())
    for _ in range(100):
        actions = env.core.sample_legal_actions(rng)
        np.testing.assert_array_equal(env.step(actions)[1], copy.step(actions)[1])


NO_EXTRA = NINTENDO.replace(points={"extra_card": 0})


def test_match_win_rewards_stay_finite_when_further_cards_add_nothing() -> None:
    env = KoiKoiVectorEnv(64, rules=NO_EXTRA, reward="match_win", seed=3)
    env.reset()
    rng = np.random.default_rng(3)
    paid = []
    for _ in range(300):
        _, rewards, _, _, _ = env.step(env.core.sample_legal_actions(rng))
        paid.append(rewards)
    paid = np.concatenate(paid)
    assert np.isfinite(paid).all()
    assert ((np.abs(paid) > 0) & (np.abs(paid) < 1)).any()  # graded, not only match results
