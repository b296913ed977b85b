"""The PettingZoo AEC env ``koikoi_v0``: PettingZoo's own API, seed and render tests and its
order-enforcing wrapper, the agent to move and its mask, who learns a round's outcome first,
the terminal observation, how ``reset`` goes on with the match or starts a new one, copies
that play on like the original, and observations and info dicts that are never written
after they are handed out."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterator

from hanafuda_env.common import cards as C
from hanafuda_env.envs import koikoi_v0
from hanafuda_env.koikoi.core import STOP
from hanafuda_env.koikoi.observation import BLOCK, OBS_DIM
from tests.helpers.envs import (
    first_legal,
    hanami_deck,
    play_episode,
    random_action,
)


# --------------------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("kwargs", [{}, {"episode": "match", "rounds": 2},
                                    {"rules": "ten-base", "episode": "match", "rounds": 1},
                                    {"rules": "koikoi-japan", "episode": "match"}])
def test_pettingzoo_api(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice for non-dict envs; reset option
        api_test(koikoi_v0.env(result_infos=True, **kwargs), num_cycles=200)


@pytest.mark.filterwarnings("ignore:koikoi_v0.reset ignores option")  # the test's made-up one
def test_the_turn_based_parallel_wrapper_passes_pettingzoos_parallel_test():
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    parallel_api_test(turn_based_aec_to_parallel(koikoi_v0.env(result_infos=True)), num_cycles=200)


def test_pettingzoo_seed_and_render():
    seed_test(koikoi_v0.env, num_cycles=200)
    render_test(koikoi_v0.env, custom_tests={"ansi": lambda text: "player_0" in text})


def test_order_enforcing_wrapper_keeps_pettingzoos_checks():
    env = koikoi_v0.env(seed=0)
    assert isinstance(env, OrderEnforcingWrapper)
    for name in ("agent_selection", "agents", "num_agents", "rewards", "terminations",
                 "truncations", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    for call, text in ((lambda: env.step(0), "before step"),
                       (lambda: env.observe("player_0"), "before observe"),
                       (env.agent_iter, "before agent_iter"), (env.render, "before render")):
        with pytest.raises(AssertionError, match=text):
            call()
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.last()
    with pytest.raises(AttributeError, match="private attribute"):
        env._legal  # noqa: B018 - BaseWrapper hides the wrapped env's private names
    env.reset()
    agents = iter(env.agent_iter())
    assert isinstance(agents, AECOrderEnforcingIterator)
    assert next(agents) == env.agent_selection == env.unwrapped.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)  # no step in between
    assert env.rewards is env.unwrapped.rewards and env.num_agents == 2
    rng = random.Random(0)
    env.step(random_action(env, rng))
    play_episode(env, rng)
    assert env.agents == [] and list(env.agent_iter()) == []
    EnvLogger.flush()
    env.step(None)  # after the episode: PettingZoo's warning, nothing else
    assert any("step" in message for message in EnvLogger.mqueue)
    EnvLogger.flush()


def test_arrays_handed_out_are_never_written_later():
    """Observations and masks (in infos too) keep what they held when handed out; each step
    hands out new ones."""
    env = koikoi_v0.env(result_infos=True, seed=2, episode="match", rounds=2)
    env.reset()
    rng = random.Random(2)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    last_mask = None
    for _ in range(400):
        obs, _, term, trunc, info = env.last()
        arrays = [obs["observation"], obs["action_mask"], info["action_mask"]]
        for other in env.agents:
            arrays += [env.observe(other)["observation"], env.infos[other]["action_mask"]]
        kept += [(a, a.copy()) for a in arrays]
        assert obs["action_mask"] is not last_mask and arrays[0].flags.writeable
        last_mask = obs["action_mask"]
        env.step(None if term or trunc else random_action(env, rng))
        if not env.agents:
            env.reset()
    for array, snapshot in kept:
        np.testing.assert_array_equal(array, snapshot)


def test_metadata_and_agents():
    env = koikoi_v0.env(result_infos=True)
    assert env.metadata["name"] == "koikoi_v0"
    assert set(env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert env.metadata["is_parallelizable"] is False
    env.reset(seed=1)
    assert env.agents == ["player_0", "player_1"] == env.possible_agents
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (OBS_DIM,) and space.dtype == np.float32


def test_mask_only_for_agent_to_move_and_in_infos():
    env = koikoi_v0.env(result_infos=True, seed=5)
    env.reset()
    rng = random.Random(0)
    for _ in range(150):
        mover = env.agent_selection
        if env.terminations[mover]:
            env.reset()
            continue
        core_seat = env.unwrapped.game.mover
        assert mover == f"player_{core_seat}"
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (98,)
            np.testing.assert_array_equal(mask, env.infos[agent]["action_mask"])
            assert mask.any() == (agent == mover)
        env.step(random_action(env, rng))


def test_terminal_observation_is_the_table_as_the_round_ended():
    """The engine's rounds end: the final observation shows the round's end (no decision
    phase, the captures of the last move in the piles), and nothing new is dealt."""
    env = koikoi_v0.env(result_infos=True, seed=8)
    env.reset()
    rng = random.Random(8)
    ended = 0
    for agent in env.agent_iter():
        obs, _, term, _, info = env.last()
        if term:
            assert not obs["action_mask"].any()
            assert obs["observation"][BLOCK["phase"]].sum() == 0
            game = env.unwrapped.game
            assert game.round_over and len(info["round_results"]) == 1
            own = obs["observation"][BLOCK["own_pile"]] > 0.5
            assert np.flatnonzero(own).tolist() == C.ids_of(game.piles[int(agent[-1])])
            assert info["round_results"][0]["turns"] == game.turn
            ended += 1
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert ended == 2



# ------------------------------------------------------------ AEC resets and continued play


@pytest.mark.parametrize("copier", ["deepcopy", "pickle"])
def test_aec_copies_keep_the_game_in_progress(copier):
    """A copy (e.g. to branch a search) goes on exactly like the original, and stepping the
    copy leaves the original alone."""
    import copy
    import pickle

    def trace(env, rng):
        out = []
        for agent in env.agent_iter():
            obs, reward, term, _, info = env.last()
            out.append((agent, reward, obs["observation"].tobytes(),
                        obs["action_mask"].tobytes(), len(info.get("round_results", []))))
            env.step(None if term else random_action(env, rng))
        return out

    env = koikoi_v0.env(result_infos=True, episode="match", rounds=2)
    env.reset(seed=21)
    rng = random.Random(3)
    for _ in range(7):
        env.step(random_action(env, rng))
    clone = (copy.deepcopy(env) if copier == "deepcopy"
             else pickle.loads(pickle.dumps(env)))
    assert clone.agent_selection == env.agent_selection
    clone_trace = trace(clone, random.Random(4))
    assert len(clone_trace) > 20
    assert trace(env, random.Random(4)) == clone_trace


def test_aec_reset_goes_on_with_the_match_after_a_finished_episode():
    env = koikoi_v0.env(result_infos=True, seed=12)
    env.reset()
    rng = random.Random(12)
    for _ in range(4):
        _, final = play_episode(env, rng)
        (row,) = [r for r in final["player_0"]["round_results"] if r["rewarded"]]
        ended = env.unwrapped.game.copy()  # nothing dealt after the episode's round
        assert ended.round_over
        expected = ended.copy()
        expected.deal_next()
        while expected.round_over:  # a hand yaku dealt: the env deals on
            expected.deal_next()
        env.reset()
        game = env.unwrapped.game
        assert game.state_dict() == expected.state_dict()
        assert game.round_index > row["round_index"] and game.turn == 0
        assert env.observe(env.agent_selection)["observation"][BLOCK["hand"]].sum() == 8
    # a seed, options or an interrupted episode start a new match
    env.step(random_action(env, rng))
    env.reset()
    assert env.unwrapped.game.round_index == 0 and env.unwrapped.game.turn == 0


# ----------------------------------------------- who moves and who learns first
@pytest.mark.parametrize("dealer", [0, 1])
def test_aec_selects_the_other_seat_once_the_round_is_over(dealer: int) -> None:
    """The seat that did not end the round learns the outcome first (its reward and final
    observation come before the mover's own last())."""
    env = koikoi_v0.env(result_infos=True)
    env.reset(seed=0, options=hanami_deck(dealer))
    mover = f"player_{dealer}"
    assert env.agent_selection == mover
    env.step(8)  # the curtain onto the cherry ribbon; the drawn sake cup takes its ribbon
    assert env.agent_selection == mover and env.observe(mover)["action_mask"][STOP]
    env.step(STOP)
    assert all(env.terminations.values())
    other = f"player_{1 - dealer}"
    assert env.agent_selection == other
    assert env.rewards == {mover: 5.0, other: -5.0}


def test_aec_explicit_seed_supersedes_the_constructor_seed():
    env = koikoi_v0.env(result_infos=True, seed=3)
    env.reset(seed=5)
    play_episode(env, random.Random(0))
    expected = env.unwrapped.game.copy()
    expected.deal_next()
    while expected.round_over:
        expected.deal_next()
    env.reset()  # goes on with the match seed 5 dealt, not a new one from seed 3
    assert env.unwrapped.game.state_dict() == expected.state_dict()
    env, plain = koikoi_v0.env(result_infos=True, seed=3), koikoi_v0.env(result_infos=True)
    for e in (env, plain):
        e.reset(seed=5)
        e.step(first_legal(None, e.observe(e.agent_selection)["action_mask"]))
        e.reset()  # an interrupted episode: a new match drawn from seed 5's generator
    assert env.unwrapped.game.state_dict() == plain.unwrapped.game.state_dict()


def test_aec_info_dicts_handed_out_never_change_afterwards() -> None:
    """A replay buffer may keep ``last()``'s info as it is: later steps (new rounds, masks,
    a penalized move) make new dicts instead of writing into the ones handed out."""
    import copy

    env = koikoi_v0.env(result_infos=True, episode="match", rounds=3)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    kept: list[tuple[dict, dict]] = []
    erred = False
    for _ in range(400):
        obs, _, terminated, truncated, info = env.last()
        kept.append((info, copy.deepcopy(info)))
        kept += [(other, copy.deepcopy(other)) for other in env.infos.values()]
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                break
            continue
        if info["round_results"] and not erred:  # a round of the match has ended: err now
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            erred = True
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert erred and any(info["round_results"] for info, _ in kept)
    for info, snapshot in kept:
        assert info.keys() == snapshot.keys()
        assert info["round_results"] == snapshot["round_results"]
        assert np.array_equal(info["action_mask"], snapshot["action_mask"])


def test_the_aec_env_prints_its_name_as_pettingzoo_wrappers_do() -> None:
    assert str(koikoi_v0.env()) == "AssertOutOfBoundsWrapper<TerminateIllegalWrapper<koikoi_v0>>"
    assert str(koikoi_v0.env(illegal_action="raise")) == str(koikoi_v0.raw_env()) == "koikoi_v0"


def test_infos_hold_only_arrays_by_default_and_results_stay_readable() -> None:
    """As PettingZoo's classic envs: every info is {"action_mask": array}; the rows of the
    rounds and matches the latest step or reset finished are on the raw env."""
    env = koikoi_v0.env(seed=0, episode="match", rounds=2)
    env.reset()
    rng = random.Random(0)
    seen_rows = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        assert set(info) == {"action_mask"} and isinstance(info["action_mask"], np.ndarray)
        assert all(set(i) == {"action_mask"} for i in env.infos.values())
        rows = env.unwrapped.round_results
        seen_rows += len(rows)
        assert all(row["rewarded"] for row in rows if row["reason"] != "hand-yaku")
        if term or trunc:
            assert env.unwrapped.match_results  # the match episode ended with its match
            env.step(None)
            continue
        env.step(random_action(env, rng))
    assert seen_rows >= 2
