"""What the single-game envs pay with the default ``points`` reward: each seat its own round
points, whoever moved last; a round episode only the round it played, a match episode the
match score (hand-yaku rounds included) over many episodes that go on from each other;
rounds that end before the learner's first decision paid with its first step, or listed as
skipped; and ``reward_scale`` applied to points, never to the illegal-action penalty."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.koikoi.core import STOP
from tests.helpers.envs import (
    HANAMI_DECK,
    TESHI_DECK,
    hanami_deck,
    play_episode,
    play_single,
    stopper,
)


# -------------------------------------------------------------------- koikoi_v0
def test_reward_goes_to_the_winning_seat_whoever_moved_last():
    """dealer-wins exhaustion: the non-dealer makes the last move and loses the round."""
    env = koikoi_v0.env(result_infos=True, rules={"on_exhaustion": "dealer-wins"}, seed=21)
    rng = random.Random(21)
    seen = {"loser_last": 0, "winner_last": 0}
    last_mover: list[str] = []
    for _ in range(200):
        env.reset()
        last_mover.clear()
        returns, final = play_episode(env, rng, lambda e, agent, a: last_mover.append(agent))
        rows = [r for r in final["player_0"]["round_results"] if r["rewarded"]]
        assert len(rows) == 1 and final["player_1"]["round_results"] == \
            final["player_0"]["round_results"]
        row = rows[0]
        assert returns == {"player_0": row["reward"][0], "player_1": row["reward"][1]}
        assert sum(returns.values()) == 0
        if row["winner"] >= 0:
            winner = f"player_{row['winner']}"
            assert returns[winner] == row["points"] > 0
            seen["winner_last" if last_mover[-1] == winner else "loser_last"] += 1
    assert seen["loser_last"] > 0 and seen["winner_last"] > 0


def test_match_episode_return_is_the_match_score():
    """Every round is rewarded, hand-yaku rounds included (one ends round 1 at the deal)."""
    env = koikoi_v0.env(result_infos=True, episode="match", rounds=3)
    rng = random.Random(5)
    for seed in range(4):
        env.reset(seed=seed, options={"deck": TESHI_DECK, "dealer": 0})
        first = env.infos["player_0"]["round_results"]  # seed 3 deals a second hand yaku
        assert {r["reason"] for r in first} == {"hand-yaku"} and all(r["rewarded"] for r in first)
        assert first[0]["reward"] == [6, -6] and len(first) == 1 + (seed == 3)
        returns, final = play_episode(env, rng)
        (match,) = final["player_0"]["match_results"]
        assert [returns["player_0"], returns["player_1"]] == match["scores"]
        assert match["rounds"] == 3


def test_round_episode_rewards_only_the_played_round():
    env = koikoi_v0.env(result_infos=True, episode="round", reward_scale=0.5)
    env.reset(seed=0, options={"deck": TESHI_DECK, "dealer": 0})
    (row,) = env.infos["player_1"]["round_results"]
    assert row["reason"] == "hand-yaku" and not row["rewarded"]
    returns, final = play_episode(env, random.Random(0))
    played = [r for r in final["player_0"]["round_results"] if r["rewarded"]]
    assert len(played) == 1 and played[0]["round_index"] == 1  # the teshi round was round 0
    assert returns == {"player_0": played[0]["reward"][0] * 0.5,
                       "player_1": played[0]["reward"][1] * 0.5}


@pytest.mark.parametrize("make", ["aec", "gym"])
def test_match_returns_over_many_continued_episodes(make):
    """Two-round matches, each episode reset() from the last: a hand yaku dealt to the next
    match at the reset is rewarded in that match's episode (with its first step), so every
    episode's return is its match's score."""
    carried = 0
    rng = random.Random(1)
    if make == "aec":
        env = koikoi_v0.env(result_infos=True, episode="match", rounds=2, seed=1)
        env.reset()
        final = None
        for episode in range(600):  # about 1 in 80 deals is a hand yaku
            if carried and episode > 100:
                break
            paid = [r for r in env.infos["player_0"]["round_results"] if r["rewarded"]]
            if paid and final is not None:  # dealt by a reset that went on from an episode
                assert {r["reason"] for r in paid} == {"hand-yaku"}
                assert all(r["round_index"] < 2 for r in paid)  # the new match's rounds
            carried += bool(paid)
            returns, final = play_episode(env, rng)
            match = final["player_1"]["match_results"][0]  # later ones: hand yaku at the deal
            assert [returns["player_0"], returns["player_1"]] == match["scores"]
            env.reset()
    else:
        env = KoiKoiSingleAgentEnv(episode="match", rounds=2)
        start = env.reset(seed=1)
        for episode in range(600):
            if carried and episode > 100:
                break
            carried += any(r["rewarded"] for r in start[1]["round_results"])
            total, info = play_single(env, np.random.default_rng(rng.randrange(99)), start=start)
            assert total == info["match_results"][0]["scores"][info["seat"]]
            start = env.reset()
    assert carried > 0


def test_aec_reward_scale_scales_points_but_not_the_illegal_penalty() -> None:
    """``reward_scale`` multiplies round rewards; the offender of a penalized illegal action
    gets ``illegal_reward`` as given (PettingZoo's TerminateIllegalWrapper pays it so)."""
    env = koikoi_v0.env(result_infos=True, reward_scale=0.1)
    env.reset(seed=0, options=hanami_deck(0))
    env.step(8)
    env.step(STOP)
    assert env.rewards == {"player_0": pytest.approx(0.5), "player_1": pytest.approx(-0.5)}
    env = koikoi_v0.env(reward_scale=0.1, illegal_reward=-2.0)
    env.reset(seed=0, options=hanami_deck(0))
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))
    assert env.rewards == {"player_0": -2.0, "player_1": 0.0}


# --------------------------------------------------------- the single-agent env
@pytest.mark.parametrize("episode", ["round", "match"])
def test_single_agent_rewards_are_the_learners_points(episode):
    env = KoiKoiSingleAgentEnv(episode=episode, rounds=2)
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(12):
        total, info = play_single(env, rng, seed)
        seat = info["seat"]
        seats.add(seat)
        if episode == "match":
            (match,) = info["match_results"]
            assert total == match["scores"][seat]
        else:
            (row,) = [r for r in info["round_results"] if r["rewarded"]]
            assert total == row["reward"][seat]
    assert seats == {0, 1}


@pytest.mark.parametrize("episode", ["round", "match"])
def test_single_agent_round_won_before_the_learner_moves(episode):
    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, episode=episode, rounds=2)
    start = env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    info = start[1]
    total, last = play_single(env, np.random.default_rng(0), start=start)
    if episode == "round":
        (skipped,) = info["skipped"]
        assert (skipped["reason"], skipped["winner"], skipped["yaku"]) == (
            "stop", 0, {"hanami_zake": 5})
        (row,) = [r for r in last["round_results"] if r["rewarded"]]
        assert row["round_index"] == 1 and total == row["reward"][1]
    else:  # the lost round is the match's: rewarded with the learner's first step
        assert info["skipped"] == [] and info["round_results"][0]["reward"] == [5, -5]
        assert total == last["match_results"][0]["scores"][1]


@pytest.mark.parametrize("episode", ["round", "match"])
def test_single_agent_match_ended_before_the_learner_moves_is_reported(episode):
    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, episode=episode, rounds=1)
    _, info = env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    (skipped,) = info["skipped"]  # the one round, and with it the match, before any decision
    assert skipped["winner"] == 0 and skipped["yaku"] == {"hanami_zake": 5}
    (match,) = info["match_results"]
    assert match["winner"] == 0 and match["scores"] == [5, -5] and match["rounds"] == 1


@pytest.mark.parametrize("rounds", [1, 2])
def test_gym_skipped_rounds_are_not_marked_rewarded(rounds: int) -> None:
    """A round that ended before the learner's first decision is listed in ``skipped`` as not
    rewarded (its points were never the learner's reward)."""
    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, rounds=rounds)
    _, info = env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    (skipped,) = info["skipped"]
    assert skipped["yaku"] == {"hanami_zake": 5}
    assert skipped["rewarded"] is False


def _hanami_step_reward(reward_scale: float) -> float:
    env = KoiKoiSingleAgentEnv(learner_seat=0, reward_scale=reward_scale)
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    _, reward, terminated, _, _ = env.step(8)
    assert not terminated
    _, reward, terminated, truncated, _ = env.step(STOP)
    assert (terminated, truncated) == (True, False)
    return reward


def test_gym_reward_scale_multiplies_round_points() -> None:
    """The learner's 5-point hanami-zake pays 5 * reward_scale."""
    assert _hanami_step_reward(1.0) == pytest.approx(5.0)
    assert _hanami_step_reward(0.1) == pytest.approx(0.5)
    assert _hanami_step_reward(3.0) == pytest.approx(15.0)


def test_gym_rounds_carried_past_a_skipped_match_are_paid_with_the_first_step() -> None:
    """episode="match": the opponent wins a whole match before the learner's first decision
    (skipped); the next match's first round ends at its deal on teshi (§2.3). That round
    belongs to the learner's episode, so its points come with the learner's first step."""
    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, episode="match", rounds=2)
    # round 2 of the first match, then the next match's first round, as dealt
    env.game.upcoming_decks = [list(HANAMI_DECK), list(TESHI_DECK)]
    obs, info = env.reset(seed=0, options=hanami_deck(0))
    assert [(r["winner"], r["yaku"]) for r in info["skipped"]] == [
        (0, {"hanami_zake": 5}), (0, {"hanami_zake": 5})]
    (teshi,) = info["round_results"]
    assert teshi["reason"] == "hand-yaku" and teshi["rewarded"] and teshi["round_index"] == 0
    carried = teshi["reward"][1]
    assert abs(carried) == 6 and env.game.round_index == 1
    _, reward, terminated, _, step_info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    paid_now = sum(r["reward"][1] for r in step_info["round_results"] if r["rewarded"])
    assert reward == carried + paid_now
