"""The ``reward``/``round_sigma`` options of the single-game envs (PettingZoo ``koikoi_v0`` and
the single-agent Gymnasium env): every step pays what ``KoiKoiVectorEnv`` pays for the same
deals and moves, a match episode's rewards add up to its result, and every round's
match-win value telescopes to its match's result. (The contract tests check the options
themselves in every env.)"""

from __future__ import annotations

import random

import numpy as np
import pytest

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from tests.helpers.envs import TESHI_DECK, play_episode

# 3-round matches; 1-round matches (a match ends with every round, a dealt hand yaku ends
# one before any move); a target score that ends matches early.
RULES = [{"rounds": 3}, {"rounds": 1}, {"rounds": 4, "target_score": 7}]
# The first deal is a teshi for the dealer: a round (with rounds=1, a match) over at reset.
TESHI = {"deck": TESHI_DECK, "dealer": 0}


def _result(match: dict, seat: int) -> float:
    """+1/0/-1: the match's result for ``seat``."""
    return 0.0 if match["winner"] < 0 else 1.0 if match["winner"] == seat else -1.0


def _check_rounds_telescope(rows: list[dict], matches: list[dict]) -> int:
    """Chronological round rows and match rows: each finished match's rounds' ``match_win``
    values add up to its result (a match of dealt hand yaku only, which had no decision and
    pays nothing, aside). Returns the number of matches checked."""
    groups: list[list[dict]] = []
    for row in rows:
        if row["round_index"] == 0:
            groups.append([])
        groups[-1].append(row)
    checked = 0
    for group, match in zip(groups, matches):
        assert group[-1]["round_index"] + 1 == match["rounds"]
        values = np.array([row["match_win"] for row in group])
        np.testing.assert_allclose(values.sum(axis=1), 0.0, atol=1e-12)  # zero-sum
        if all(row["reason"] == "hand-yaku" for row in group):
            assert not any(row["rewarded"] for row in group)
            continue
        assert values[:, 0].sum() == pytest.approx(_result(match, 0), abs=1e-9)
        checked += 1
    return checked


# ------------------------------------------------------------------------------ PettingZoo
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("episode", ["round", "match"])
def test_aec_pays_what_the_vector_env_pays(episode, rules):
    """Same seed, deals and moves: every AEC step's rewards are the vector env's, episodes
    end together, a match episode returns its result and, in round episodes, every round's
    value (paid or not) telescopes to its match's result."""
    aec = koikoi_v0.env(result_infos=True, episode=episode, reward="match_win", **rules)
    vec = KoiKoiVectorEnv(1, episode=episode, reward="match_win", **rules)
    aec.reset(seed=5, options=TESHI)
    vec.reset(seed=5, options=TESHI)
    rows = list(aec.infos["player_0"]["round_results"])
    matches = list(aec.infos["player_0"]["match_results"])
    rng = random.Random(5)
    returns = np.zeros(2)
    episodes = 0
    for _ in range(2500):
        if not aec.agents:  # both agents saw the end: go on with the game
            aec.reset()
            if episode == "round":  # rounds a hand yaku ended at the deal
                rows += aec.infos["player_0"]["round_results"]
                matches += aec.infos["player_0"]["match_results"]
            continue
        agent = aec.agent_selection
        obs, _, term, trunc, _ = aec.last()
        if term or trunc:
            aec.step(None)
            continue
        assert vec.core.mover[0] == int(agent[-1])
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        aec.step(action)
        _, rewards, terminated, _, _ = vec.step(np.array([action]))
        paid = [aec.rewards["player_0"], aec.rewards["player_1"]]
        np.testing.assert_allclose(paid, rewards[0], atol=1e-5)
        assert paid[0] == -paid[1]
        returns += paid
        info = aec.infos[agent]  # the mover's: what this step finished, nothing older
        if episode == "round":
            rows += info["round_results"]
            matches += info["match_results"]
        assert all(aec.terminations.values()) == bool(terminated[0])
        if terminated[0]:
            if episode == "match":  # the first match reported is the episode's
                match = info["match_results"][0]
                assert returns == pytest.approx([_result(match, 0), _result(match, 1)])
            returns[:] = 0
            episodes += 1
    assert episodes > (40 if episode == "match" else 120)
    if episode == "round" and "target_score" not in rules:
        assert _check_rounds_telescope(rows, matches) > 40


def test_aec_returns_through_last_are_match_results():
    """PettingZoo's contract as with points: ``last()`` hands each agent the rewards
    accumulated since it last acted; over a match episode that is its result."""
    env = koikoi_v0.env(result_infos=True, episode="match", rounds=2, reward="match_win",
                        round_sigma=4.0, seed=2)
    env.reset()
    rng = random.Random(2)
    results = set()
    for _ in range(30):
        returns, final = play_episode(env, rng)
        match = final["player_1"]["match_results"][0]
        assert returns["player_0"] == pytest.approx(_result(match, 0))
        assert returns["player_1"] == pytest.approx(_result(match, 1))
        results.add(_result(match, 0))
        env.reset()
    assert results >= {1.0, -1.0}


def test_aec_reward_scale_and_points_default():
    """``reward_scale`` scales match-win rewards too; the default reward is still points."""
    rewards = {}
    for kwargs in ({}, {"reward": "points"}, {"reward": "match_win"},
                   {"reward": "match_win", "reward_scale": 2.5}):
        env = koikoi_v0.env(result_infos=True, episode="match", rounds=2, **kwargs)
        env.reset(seed=7)
        returns, _ = play_episode(env, random.Random(7))
        rewards[str(kwargs)] = returns["player_0"]
    assert rewards["{}"] == rewards["{'reward': 'points'}"] and rewards["{}"] % 1 == 0
    scaled = rewards["{'reward': 'match_win', 'reward_scale': 2.5}"]
    assert scaled == pytest.approx(2.5 * rewards["{'reward': 'match_win'}"])
    assert abs(rewards["{'reward': 'match_win'}"]) in (0.0, 1.0)


# ------------------------------------------------------------------------------ Gymnasium
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("episode", ["round", "match"])
def test_gym_env_pays_what_the_vector_env_pays(episode, rules):
    """The learner (either seat, drawn at each reset) and a random opponent; every move is
    replayed in a vector env. Each learner step pays the vector env's rewards for its seat
    since the learner last acted (since the episode began, for its first step), except for
    episodes over before its first decision, which are none; a match episode returns its
    result; in round episodes every round's value telescopes to its match's result."""
    moves: list[int] = []
    rng = np.random.default_rng(11)

    def opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        action = int(rng.choice(np.flatnonzero(mask)))
        moves.append(action)
        return action

    env = KoiKoiSingleAgentEnv(opponent, episode=episode, reward="match_win", **rules)
    vec = KoiKoiVectorEnv(1, episode=episode, reward="match_win", **rules)
    replayed = 0

    def replay() -> list[tuple[float, bool]]:
        """The moves not yet replayed, in the vector env: the learner's reward and whether
        the episode ended, per move."""
        nonlocal replayed
        out = []
        for action in moves[replayed:]:
            _, rewards, terminated, _, _ = vec.step(np.array([action]))
            out.append((float(rewards[0, env.seat]), bool(terminated[0])))
        replayed = len(moves)
        return out

    def owed_after_reset() -> float:
        """What the opponent's moves inside reset earned the learner in the vector env:
        owed with its first step, but nothing for episodes over before that decision."""
        owed = 0.0
        for gained, ended in replay():
            owed = 0.0 if ended else owed + gained
        return owed

    _, info = env.reset(seed=5, options=TESHI)
    vec.reset(seed=5, options=TESHI)
    rows = info["skipped"] + info["round_results"]
    matches = list(info["match_results"])
    owed = owed_after_reset()
    returns, episodes = 0.0, 0
    for _ in range(1500):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        moves.append(action)
        _, reward, terminated, _, info = env.step(action)
        played = replay()
        assert reward == pytest.approx(owed + sum(g for g, _ in played), abs=1e-5)
        assert [ended for _, ended in played] == [False] * (len(played) - 1) + [terminated]
        returns += reward
        if episode == "round":
            rows += info["round_results"]
            matches += info["match_results"]
        if terminated:
            if episode == "match":
                assert returns == pytest.approx(_result(info["match_results"][0], env.seat))
            returns, episodes = 0.0, episodes + 1
            _, info = env.reset()
            if episode == "round":
                rows += info["skipped"] + info["round_results"]
                matches += info["match_results"]
        owed = owed_after_reset() if terminated else 0.0
    assert episodes > (25 if episode == "match" else 80)
    if episode == "round" and "target_score" not in rules:
        assert _check_rounds_telescope(rows, matches) > 25
