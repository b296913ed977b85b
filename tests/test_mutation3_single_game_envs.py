"""Behaviour of the single-game envs (koikoi_v0 and the Gymnasium env) that a third mutation
audit found unpinned: the rendered round summaries, the learner's hidden-hand render, the
scale of its rewards, masks once an episode is over, what the opponent is handed, and how
skipped rounds are flagged."""

from __future__ import annotations

import re

import numpy as np
import pytest
from env_helpers import HANAMI_DECK

from hanafuda_env import koikoi_v0
from hanafuda_env.core import STOP
from hanafuda_env.env_options import NotAnActionError
from hanafuda_env.gym_env import KoiKoiSingleAgentEnv


def _lowest_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return STOP if mask[STOP] else int(np.flatnonzero(mask)[0])


def _aec_first_legal_episode(seed: int) -> tuple[koikoi_v0.raw_env, dict]:
    """koikoi_v0 (ansi) played with the lowest legal action to the end of one round
    episode; returns the env and the final infos of the selected agent."""
    env = koikoi_v0.env(render_mode="ansi")
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            return env, info
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    raise AssertionError("the episode did not end")


# ------------------------------------------------------------------ koikoi_v0
def test_aec_render_after_a_no_game_names_nobody_and_round_one() -> None:
    """The finished-round line is 1-based and says "nobody" for a round without a winner
    (seed 42, both seats playing their lowest legal action, ends in a no-game)."""
    env, info = _aec_first_legal_episode(42)
    (row,) = info["round_results"]
    assert (row["reason"], row["winner"], row["round_index"]) == ("no-game", -1, 0)
    text = env.render()
    assert text.startswith("episode over; last decision:")
    assert "round 1: no-game, nobody wins 0 (base 0 x1; yaku: none)" in text
    assert "player_-1" not in text


def test_aec_render_lists_a_won_round_with_its_winner() -> None:
    """A round won by a seat is rendered with that seat, its points and yaku."""
    env = koikoi_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    env.step(8)  # the curtain onto the cherry ribbon; the drawn sake cup: hanami-zake
    env.step(STOP)
    text = env.render()
    assert "round 1: stop, player_0 wins 5 (base 5 x1; yaku: hanami_zake 5)" in text


# ------------------------------------------------------------ single-agent env
def test_gym_rejects_a_bad_learner_seat_when_built() -> None:
    """learner_seat is 0, 1 or None, checked by the constructor already."""
    for seat in (2, -1, "0"):
        with pytest.raises(ValueError, match="learner_seat must be 0, 1 or None"):
            KoiKoiSingleAgentEnv(learner_seat=seat)


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


def test_gym_masks_are_all_false_once_the_episode_is_over() -> None:
    """After the episode's last step, action_masks() allows nothing (as the info's mask)."""
    env = KoiKoiSingleAgentEnv(learner_seat=0)
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    env.step(8)
    _, _, terminated, _, info = env.step(STOP)
    assert terminated
    assert env.action_masks().dtype == bool and not env.action_masks().any()
    assert not info["action_mask"].any()


@pytest.mark.parametrize("seat", [0, 1])
def test_gym_render_hides_the_opponents_hand(seat: int) -> None:
    """The learner's render shows its own hand and only a count for the opponent's, during
    and after the episode."""
    env = KoiKoiSingleAgentEnv(learner_seat=seat, render_mode="ansi")
    env.reset(seed=3)

    def hands(text: str) -> dict[int, str]:
        found = re.findall(r"^player_(\d)[^\n]*\n  hand:  ([^\n]*)$", text, re.MULTILINE)
        return {int(s): shown for s, shown in found}

    shown = hands(env.render())
    assert re.fullmatch(r"\d+ hidden cards?", shown[1 - seat])
    assert "hidden" not in shown[seat]
    rng = np.random.default_rng(0)
    while True:
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated:
            break
    text = env.render()
    assert text.startswith("episode over; last decision:\n")
    assert re.fullmatch(r"\d+ hidden cards?|-", hands(text)[1 - seat])


def test_gym_callable_opponent_is_handed_a_bool_mask() -> None:
    """A callable opponent gets its mask as bool, as an object opponent's act() does."""
    dtypes = []

    def opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        dtypes.append(mask.dtype)
        return _lowest_legal(obs, mask)

    env = KoiKoiSingleAgentEnv(opponent=opponent, learner_seat=1)
    env.reset(seed=0, options={"dealer": 0})
    for _ in range(4):
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
    assert dtypes and all(d == np.dtype(bool) for d in dtypes)


@pytest.mark.parametrize("rounds", [1, 2])
def test_gym_skipped_rounds_are_not_marked_rewarded(rounds: int) -> None:
    """A round that ended before the learner's first decision is listed in ``skipped`` as not
    rewarded (its points were never the learner's reward)."""
    env = KoiKoiSingleAgentEnv(opponent=_lowest_legal, learner_seat=1, rounds=rounds)
    _, info = env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    (skipped,) = info["skipped"]
    assert skipped["yaku"] == {"hanami_zake": 5}
    assert skipped["rewarded"] is False


def test_a_value_that_is_no_action_names_the_legal_actions() -> None:
    """A float or a shaped array given as an action is refused with the legal actions
    listed, in both single-game envs."""
    env = koikoi_v0.env()
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
    with pytest.raises(NotAnActionError, match=re.escape(f"legal actions: {legal}")):
        env.step(8.0)
    gym_env = KoiKoiSingleAgentEnv(learner_seat=0)
    gym_env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    legal = np.flatnonzero(gym_env.action_masks()).tolist()
    with pytest.raises(NotAnActionError, match=re.escape(f"legal actions: {legal}")):
        gym_env.step(np.array([8]))
