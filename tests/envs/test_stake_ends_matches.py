"""With a starting stake (``starting_points``, RULES.md §2.10) a match ends as soon as a
player has 0 points or fewer: every env's match episode ends there, before the rounds run
out, and its returns are the match's points."""

from __future__ import annotations

import random

import numpy as np

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from tests.helpers.envs import play_episode, play_single

STAKE = 4
RULES = {"preset": "koikoi-japan", "starting_points": STAKE}


def check_match(match: dict) -> None:
    scores, rounds = match["scores"], match["rounds"]
    assert rounds <= 8
    if rounds < 8:  # ended by the stake: one player is out of points
        assert min(STAKE + scores[0], STAKE + scores[1]) <= 0


def test_aec_match_episodes_end_when_a_player_is_out_of_points() -> None:
    env = koikoi_v0.env(result_infos=True, rules=RULES, episode="match")
    early = 0
    for seed in range(12):
        env.reset(seed=seed)
        returns, final = play_episode(env, random.Random(seed))
        (match,) = final["player_0"]["match_results"]
        check_match(match)
        early += match["rounds"] < 8
        assert [returns["player_0"], returns["player_1"]] == match["scores"]
    assert early >= 6  # a stake of 4 is lost in a round or two


def test_gym_match_episodes_end_when_a_player_is_out_of_points() -> None:
    env = KoiKoiSingleAgentEnv(rules=RULES, episode="match")
    rounds = []
    for seed in range(12):
        total, info = play_single(env, np.random.default_rng(seed), seed=seed)
        (match,) = info["match_results"]
        check_match(match)
        rounds.append(match["rounds"])
        assert total == match["scores"][env.seat]
    assert min(rounds) < 8


def test_vector_env_match_episodes_end_when_a_player_is_out_of_points() -> None:
    env = KoiKoiVectorEnv(16, rules=RULES, episode="match", seed=3)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    lengths = []
    for _ in range(600):
        mask = env.core.legal_action_mask()
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        _, _, terminated, _, info = env.step(actions)
        matches = info["match_results"]
        for scores, rounds in zip(matches.scores.tolist(), matches.rounds.tolist()):
            check_match({"scores": scores, "rounds": rounds})
            lengths.append(rounds)
        assert terminated.sum() == len(matches.game)
    assert lengths and min(lengths) < 8
