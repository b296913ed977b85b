"""Illegal actions in the single-game envs under ``illegal_action="penalize"``: the episode ends
for everyone with ``illegal_reward`` to the offender (in koikoi_v0 through PettingZoo's stock
wrappers, which also assert out-of-bounds actions), info dicts already handed out are left
alone, and a value that is no action id at all raises naming the legal actions where the env
raises. (The contract tests check ``"raise"`` in every env.)"""

from __future__ import annotations

import copy
import random
import re

import numpy as np
import pytest

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.options import NotAnActionError
from hanafuda_env.koikoi.core import IllegalActionError
from tests.helpers.envs import HANAMI_DECK, play_episode


# -------------------------------------------------------------------- koikoi_v0
def test_illegal_action_penalize_terminates_everyone():
    """koikoi_v0.env() is PettingZoo's stock stack: an illegal move ends the episode for
    everyone, the offender losing ``illegal_reward`` and the other getting 0."""
    env = koikoi_v0.env(seed=3, illegal_reward=-2.0)
    env.reset()
    offender = env.agent_selection
    other = "player_1" if offender == "player_0" else "player_0"
    before = env.unwrapped.game.state_dict()
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards == {offender: -2.0, other: 0.0}
    assert env.unwrapped.game.state_dict() == before  # the move was not played
    returns, _ = play_episode(env, random.Random(0))
    assert returns == {offender: -2.0, other: 0.0} and env.agents == []
    env.reset()  # an interrupted episode: a new match
    assert not any(env.terminations.values()) and env.unwrapped.game.round_index == 0


def test_the_default_env_is_pettingzoos_stock_wrapper_stack():
    from pettingzoo.utils import wrappers

    env = koikoi_v0.env()
    layers = []
    while hasattr(env, "env"):
        layers.append(env)
        env = env.env
    stock = (wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper,
             wrappers.TerminateIllegalWrapper)
    assert len(layers) == 3 and all(isinstance(w, c) for w, c in zip(layers, stock))
    assert isinstance(env, koikoi_v0.raw_env)
    raising = koikoi_v0.env(illegal_action="raise")
    assert isinstance(raising, wrappers.OrderEnforcingWrapper)
    assert isinstance(raising.env, koikoi_v0.raw_env)


def test_an_out_of_bounds_action_is_asserted_and_changes_nothing():
    env = koikoi_v0.env()
    env.reset(seed=0)
    before = env.unwrapped.game.state_dict()
    for value in (99, -1, None):
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(value)
    assert env.unwrapped.game.state_dict() == before and not any(env.terminations.values())


def test_a_penalized_move_writes_into_no_info_dict_already_in_infos() -> None:
    """Info dicts handed out (public in ``env.infos``) are not written to when the
    offender errs, and they hold only the action mask."""
    env = koikoi_v0.env()
    env.reset(seed=0)
    held = {a: env.infos[a] for a in env.possible_agents}
    snapshot = copy.deepcopy(held)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))
    for a in env.possible_agents:
        assert held[a].keys() == snapshot[a].keys() == {"action_mask"}
        assert np.array_equal(held[a]["action_mask"], snapshot[a]["action_mask"])


# --------------------------------------------------------- the single-agent env
def test_single_agent_illegal_actions():
    """A penalized learner ends its episode with ``illegal_reward`` (stepping on needs a
    reset); an opponent's illegal action always raises, naming the opponent."""
    env = KoiKoiSingleAgentEnv(learner_seat=1)
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated) == (-1.0, True, False) and "illegal_action" in info
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    cheat = KoiKoiSingleAgentEnv(opponent=lambda obs, mask: 96, learner_seat=1)
    with pytest.raises(IllegalActionError, match="opponent"):
        for seed in range(5):  # raises as soon as the opponent has to move
            cheat.reset(seed=seed)
            cheat.step(int(np.flatnonzero(cheat.action_masks())[0]))


def test_gym_illegal_penalty_is_not_scaled() -> None:
    """Illegal learner actions end the episode with ``illegal_reward`` itself."""
    env = KoiKoiSingleAgentEnv(reward_scale=0.1, illegal_reward=-2.0, learner_seat=0)
    env.reset(seed=0, options={"dealer": 0})
    _, reward, terminated, truncated, info = env.step(99)
    assert (reward, terminated, truncated) == (-2.0, True, False)
    assert info["illegal_action"]["action"] == 99


# ------------------------------------------------- values that are no action id
def test_a_value_that_is_no_action_id_raises_even_when_illegal_moves_are_penalized():
    from hanafuda_env.envs import koikoi_v0
    from hanafuda_env.envs.options import NotAnActionError

    env = KoiKoiSingleAgentEnv(learner_seat=1)  # illegal_action="penalize"
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    before = env.game.state_dict()
    with pytest.raises(NotAnActionError, match=r"shape \(1,\)"):
        env.step(np.array([legal]))  # a policy's batch of one, not an action
    assert env.game.state_dict() == before
    env.step(np.array(legal))  # a 0-d array is one
    aec = koikoi_v0.env(illegal_action="raise")
    aec.reset(seed=0)
    with pytest.raises(TypeError, match="one integer id"):
        aec.step(None)
    assert not any(aec.terminations.values())


def test_a_value_that_is_no_action_names_the_legal_actions() -> None:
    """A float or a shaped array given as an action is refused with the legal actions
    listed, in both single-game envs (the AEC env's raising stack)."""
    env = koikoi_v0.env(illegal_action="raise")
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
    with pytest.raises(NotAnActionError, match=re.escape(f"legal actions: {legal}")):
        env.step(8.0)
    gym_env = KoiKoiSingleAgentEnv(learner_seat=0)
    gym_env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    legal = np.flatnonzero(gym_env.action_masks()).tolist()
    with pytest.raises(NotAnActionError, match=re.escape(f"legal actions: {legal}")):
        gym_env.step(np.array([8]))
