"""The contract every environment keeps, checked alike on the PettingZoo AEC env
(``koikoi_v0``), the single-agent Gymnasium env and the batched vector env.

Each env is driven through a small adapter (``Aec``, ``Gym``, ``Vector``) that deals with
how it hands out decisions; the checks themselves are the same for all three: a seeded reset
replays the same play, observations have the documented shape, dtype and bounds, the mask
marks exactly the legal actions and never none while a decision is due, an illegal action
raises naming the legal ones and changes nothing, rewards are zero-sum where both seats are
seen, a rejected reset or option leaves the env as it was or fails naming itself, and a match
ended at the deal is reported."""

from __future__ import annotations

import pickle
import random
from typing import Any, NamedTuple

import gymnasium
import numpy as np
import pytest

import hanafuda_env
from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import IllegalActionError
from hanafuda_env.koikoi.observation import OBS_DIM
from tests.helpers.envs import (
    TESHI_DECK,
    aec_trajectory,
    gym_trajectory,
    play_episode,
    same,
    vector_trajectory,
)

BAD_DECK = [0] * 48
HUGE = np.uint64(2**64 - 1)


class Decision(NamedTuple):
    """One decision as the env handed it out, and what the step that answered it paid."""

    obs: np.ndarray  # (n, OBS_DIM): the observation of the seat to move in each game
    mask: np.ndarray  # (n, 98): its mask, as the env gives it
    legal: np.ndarray  # (n, 98) bool: the engine's own legal actions at that moment
    rewards: np.ndarray  # (n, 2) per seat, or (n, 1): the learner's only


class Aec:
    """``koikoi_v0.env()``: one agent decides at a time; both seats' rewards are seen."""

    name = "aec"
    mask_dtype = np.int8  # PettingZoo's
    seeded_by_constructor = True
    both_seats = True
    raising: dict[str, Any] = {"illegal_action": "raise"}  # env() penalizes by default
    nonsense = (None, 98, -1, 1.0)
    bad_resets = [{"options": {"deck": BAD_DECK}}, {"options": {"dealer": 2}},
                  {"seed": 2**64}, {"seed": -1}]
    trajectory = staticmethod(aec_trajectory)

    @staticmethod
    def make(**kwargs: Any) -> Any:
        return koikoi_v0.env(result_infos=True, **kwargs)

    @staticmethod
    def play(env: Any, seed: int, decisions: int) -> list[Decision]:
        """Random legal moves from ``reset(seed)``, episode after episode (each finished one
        stepped out with None, then an unseeded ``reset``)."""
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out: list[Decision] = []
        while len(out) < decisions:
            if not env.agents:
                env.reset()
                continue
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            agent = env.agent_selection
            space = env.observation_space(agent)["observation"]
            assert space.contains(obs["observation"])
            legal = env.unwrapped.game.legal_action_mask().astype(bool)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            rewards = [env.rewards[a] for a in env.possible_agents]
            out.append(Decision(obs["observation"][None], obs["action_mask"][None], legal[None],
                                np.array([rewards])))
        return out

    @staticmethod
    def state(env: Any) -> Any:
        return env.unwrapped.game.state_dict(), env.agent_selection

    @staticmethod
    def mask(env: Any) -> np.ndarray:
        return env.observe(env.agent_selection)["action_mask"][None].astype(bool)

    @staticmethod
    def step(env: Any, action: Any) -> None:
        env.step(action)


class Gym:
    """``KoiKoiSingleAgentEnv``: the learner's decisions only; only its rewards are seen."""

    name = "gym"
    mask_dtype = np.int8  # info["action_mask"], as PettingZoo's; action_masks() is bool
    seeded_by_constructor = False  # seeds go to reset, as Gymnasium has it
    both_seats = False
    raising: dict[str, Any] = {"illegal_action": "raise"}
    nonsense = (None, 98, -1, 1.0)
    bad_resets = [{"seed": 5, "options": {"deck": BAD_DECK}}, {"seed": 5, "options": {"dealer": 2}},
                  {"seed": 5, "options": {"learner_seat": 3}},
                  {"seed": 5, "options": {"colour": "red"}}, {"seed": 2**64}, {"seed": -1}]
    trajectory = staticmethod(gym_trajectory)

    @staticmethod
    def make(**kwargs: Any) -> Any:
        return KoiKoiSingleAgentEnv(**kwargs)

    @staticmethod
    def play(env: Any, seed: int, decisions: int) -> list[Decision]:
        """Random legal learner moves from ``reset(seed)``, each finished episode followed by
        an unseeded ``reset``."""
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out: list[Decision] = []
        while len(out) < decisions:
            assert env.observation_space.contains(obs)
            mask = info["action_mask"]
            np.testing.assert_array_equal(env.action_masks(), mask.astype(bool))
            legal = env.game.legal_action_mask().astype(bool)
            next_obs, reward, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(mask))))
            out.append(Decision(obs[None], mask[None], legal[None], np.array([[reward]])))
            obs = next_obs
            if terminated or truncated:
                obs, info = env.reset()
        return out

    @staticmethod
    def state(env: Any) -> Any:
        return env.game.state_dict(), env.seat, env.np_random.bit_generator.state

    @staticmethod
    def mask(env: Any) -> np.ndarray:
        return env.action_masks()[None]

    @staticmethod
    def step(env: Any, action: Any) -> None:
        env.step(action)


class Vector:
    """``KoiKoiVectorEnv`` of four games: every game's seat to move at once, both seats'
    rewards."""

    name = "vector"
    mask_dtype = np.bool_
    seeded_by_constructor = True
    both_seats = True
    raising: dict[str, Any] = {}  # an illegal action always raises
    nonsense = (98, -1)
    bad_resets = [{"options": {"deck": BAD_DECK}}, {"options": {"dealer": 2}},
                  {"options": {"colour": "red"}}, {"seed": [1, 2]},
                  {"seed": 5, "options": {"deck": BAD_DECK}}]
    trajectory = staticmethod(vector_trajectory)

    @staticmethod
    def make(**kwargs: Any) -> Any:
        return KoiKoiVectorEnv(4, **kwargs)

    @staticmethod
    def play(env: Any, seed: int, decisions: int) -> list[Decision]:
        """Random legal moves in every game from ``reset(seed)`` (episodes restart in the
        same step)."""
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out: list[Decision] = []
        while len(out) < decisions:
            space = env.single_observation_space
            assert all(space.contains(row) for row in obs)
            mask = info["action_mask"]
            legal = env.core.legal_action_mask()
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
            decision = (obs.copy(), mask.copy(), legal)  # the env writes obs in place
            obs, rewards, _, _, info = env.step(actions)
            out.append(Decision(*decision, rewards.copy()))
        return out

    @staticmethod
    def state(env: Any) -> Any:
        return env.state_dict()

    @staticmethod
    def mask(env: Any) -> np.ndarray:
        return env.action_masks()

    @staticmethod
    def step(env: Any, action: Any) -> None:
        """``action`` for game 0, the first legal action in every other game."""
        actions = env.action_masks().argmax(axis=1).astype(np.asarray(action).dtype)
        actions[0] = action
        env.step(actions)


KINDS = [pytest.param(kind, id=kind.name) for kind in (Aec, Gym, Vector)]


def same_play(a: list[Decision], b: list[Decision]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for da, db in zip(a, b)
                                    for x, y in zip(da, db))


def same_trajectory(a: list, b: list) -> bool:
    """The AEC and Gymnasium trajectories are tuples of plain values, the vector env's arrays."""
    return a == b if isinstance(a[0], tuple) else same(a, b)


def same_state(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return a == b


# ------------------------------------------------------------------ seeding
@pytest.mark.parametrize("kind", KINDS)
def test_a_seeded_reset_replays_the_same_play(kind) -> None:
    """Two envs reset with one seed and given the same random legal moves hand out the same
    observations and masks and pay the same rewards, across several episodes (the unseeded
    resets between them draw from the seeded generator); another seed deals another game."""
    first = kind.play(kind.make(), 13, 150)
    again = kind.play(kind.make(), 13, 150)
    assert same_play(first, again)
    other = kind.play(kind.make(), 14, 1)
    assert not np.array_equal(other[0].obs, first[0].obs)


# ------------------------------------------------------------- observations and masks
@pytest.mark.parametrize("kind", KINDS)
def test_observations_have_the_documented_shape_dtype_and_bounds(kind) -> None:
    """float32 rows of OBS_DIM inside the env's observation space (checked as they are
    handed out), one per game, with a mask of 98 actions in the env's documented dtype."""
    for d in kind.play(kind.make(), 5, 200):
        assert d.obs.dtype == np.float32 and d.obs.shape == (len(d.obs), OBS_DIM)
        assert d.mask.dtype == kind.mask_dtype and d.mask.shape == (len(d.obs), 98)


@pytest.mark.parametrize("kind", KINDS)
def test_the_mask_marks_exactly_the_legal_actions_and_at_least_one(kind) -> None:
    """Whenever a decision is handed out, its mask is the engine's set of legal actions, and
    that set is never empty; the random play then only ever takes legal actions."""
    for d in kind.play(kind.make(), 6, 300):
        np.testing.assert_array_equal(d.mask.astype(bool), d.legal)
        assert d.legal.any(axis=1).all()


# ------------------------------------------------------------------ illegal actions
@pytest.mark.parametrize("kind", KINDS)
def test_an_illegal_action_raises_naming_the_legal_ones_and_changes_nothing(kind) -> None:
    """With illegal actions set to raise, a legal-looking id that is not legal now, and values
    that are no action at all, raise IllegalActionError; the message names the action and the
    legal ones; the env (its game, the seat to move, its RNG) is as it was and plays on."""
    env = kind.make(**kind.raising)
    env.reset(seed=3)
    mask = kind.mask(env)
    bad = int(np.flatnonzero(~mask[0])[0])
    before = kind.state(env)
    with pytest.raises(IllegalActionError, match=rf"action {bad}\b.*legal actions: \["):
        kind.step(env, bad)
    for nonsense in kind.nonsense:
        with pytest.raises(IllegalActionError):
            kind.step(env, nonsense)
    assert same_state(kind.state(env), before)
    kind.step(env, int(np.flatnonzero(mask[0])[0]))  # still playable


@pytest.mark.parametrize("kind", KINDS)
def test_an_illegal_action_error_reports_the_value_given(kind) -> None:
    """An action id past int64 is named as given, not as the -1 it would wrap to."""
    env = kind.make(**kind.raising)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="18446744073709551615") as error:
        kind.step(env, HUGE)
    assert "action -1" not in str(error.value)


# ------------------------------------------------------------------ rewards
@pytest.mark.parametrize("reward", ["points", "match_win"])
@pytest.mark.parametrize("kind", [k for k in KINDS if k.values[0].both_seats])
def test_rewards_are_zero_sum_where_both_seats_are_seen(kind, reward: str) -> None:
    """Every step pays the two seats amounts that cancel, round points and match-win
    values alike, and the play is long enough for rounds to be paid."""
    paid = np.concatenate([d.rewards for d in kind.play(kind.make(reward=reward), 8, 400)])
    np.testing.assert_allclose(paid.sum(axis=1), 0.0, atol=1e-6)
    assert (paid != 0).any()


# ------------------------------------------------------------------ rejected resets
REJECTED = [pytest.param(kind, bad, id=f"{kind.name}-{i}")
            for kind in (Aec, Gym, Vector) for i, bad in enumerate(kind.bad_resets)]


@pytest.mark.parametrize(("kind", "bad"), REJECTED)
def test_a_rejected_reset_changes_nothing(kind, bad: dict) -> None:
    """A reset refused for its seed or options raises ValueError and leaves the env as it
    was: its next unseeded resets and play are those of an env that never saw the call,
    whether the env's generator was seeded by its constructor or by a previous reset."""
    if kind.seeded_by_constructor:
        env = kind.make(seed=3)
        with pytest.raises(ValueError):
            env.reset(**bad)
        assert same_trajectory(kind.trajectory(env), kind.trajectory(kind.make(seed=3)))
    env, fresh = kind.make(), kind.make()
    env.reset(seed=7)
    fresh.reset(seed=7)
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert same_trajectory(kind.trajectory(env), kind.trajectory(fresh))


# ------------------------------------------------------------------ options
MAKERS = {"aec": koikoi_v0.env, "gym": KoiKoiSingleAgentEnv,
          "vector": lambda **kw: KoiKoiVectorEnv(2, **kw)}


@pytest.mark.parametrize("make", [koikoi_v0.env, koikoi_v0.raw_env, KoiKoiSingleAgentEnv,
                                  lambda **kw: KoiKoiVectorEnv(2, **kw)])
def test_unknown_option_names_the_key_and_the_allowed_ones(make):
    with pytest.raises(ValueError, match=r"'episodes'.*allowed options:.*episode"):
        make(episodes="match")


@pytest.mark.parametrize("make, name", [
    ("aec", "reward_scale"), ("aec", "illegal_reward"), ("aec", "round_sigma"),
    ("gym", "reward_scale"), ("gym", "illegal_reward"), ("gym", "round_sigma"),
    ("vector", "round_sigma")])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 10**400],
                         ids=["nan", "inf", "-inf", "huge-int"])
def test_non_finite_float_options_are_rejected(make, name, value):
    with pytest.raises(ValueError, match=rf"{name} must be a finite"):
        MAKERS[make](**{name: value})


@pytest.mark.parametrize("make", [lambda **kw: koikoi_v0.env(**kw),
                                  lambda **kw: KoiKoiSingleAgentEnv(**kw)])
@pytest.mark.parametrize(("option", "message"), [
    ({"episode": "game"}, "episode must be one of 'round', 'match', got 'game'"),
    ({"illegal_action": "skip"},
     "illegal_action must be one of 'raise', 'penalize', got 'skip'"),
    ({"render_mode": "svg"},
     "render_mode must be one of 'ansi', 'human', 'rgb_array', None, got 'svg'"),
    ({"reward": "wins"}, "reward must be one of 'points', 'match_win', got 'wins'"),
])
def test_a_value_outside_its_set_is_named_with_every_allowed_value(make, option: dict,
                                                                   message: str) -> None:
    with pytest.raises(ValueError) as error:
        make(**option)
    assert str(error.value).startswith(message)


REWARD_MAKERS = {
    "aec": koikoi_v0.env, "raw": koikoi_v0.raw_env, "gym": KoiKoiSingleAgentEnv,
    "gym.make": lambda **kwargs: gymnasium.make("hanafuda/KoiKoi-v0", **kwargs),
    "vector": lambda **kwargs: KoiKoiVectorEnv(2, **kwargs),
}


@pytest.mark.parametrize("make", list(REWARD_MAKERS))
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"reward": "wins"}, "reward must be one of 'points', 'match_win', got 'wins'"),
    ({"reward": "match_win", "round_sigma": 0}, "round_sigma must be a positive number, got 0"),
    ({"round_sigma": -2.5}, "round_sigma must be a positive number, got -2.5"),
    ({"round_sigma": "10"}, "round_sigma must be a positive number, got '10'"),
    ({"round_sigma": True}, "round_sigma must be a positive number, got True"),
])
def test_bad_reward_options_fail_in_every_env(make, kwargs, message):
    with pytest.raises(ValueError, match=message):
        REWARD_MAKERS[make](**kwargs)


@pytest.mark.parametrize("make", list(REWARD_MAKERS))
def test_reward_options_are_kept(make):
    def inner(env):
        return getattr(env, "unwrapped", env)  # the vector env has no wrappers

    env = REWARD_MAKERS[make](reward="match_win", round_sigma=4)
    assert (inner(env).reward, inner(env).round_sigma) == ("match_win", 4.0)
    assert inner(REWARD_MAKERS[make]()).reward == "points"  # the default
    if make == "raw":  # a pickled env keeps its options
        copy = pickle.loads(pickle.dumps(env))
        assert (copy.reward, copy.round_sigma) == ("match_win", 4.0)


# ------------------------------------------------------- a match ended at the deal


@pytest.mark.parametrize("episode", ["round", "match"])
@pytest.mark.parametrize("make", ["aec", "gym", "vector"])
def test_reset_reports_a_match_that_ended_at_the_deal(make, episode):
    """rounds=1 and a dealt teshi: the match ends inside reset. Its round and match are
    reported (the round not rewarded: the match had no decision), and play goes on."""
    options = {"deck": TESHI_DECK, "dealer": 0}
    if make == "aec":
        env = koikoi_v0.env(result_infos=True, episode=episode, rounds=1)
        env.reset(seed=0, options=options)
        info = env.infos["player_1"]
        rows, matches = info["round_results"], info["match_results"]
    elif make == "gym":
        env = KoiKoiSingleAgentEnv(episode=episode, rounds=1, learner_seat=1)
        _, info = env.reset(seed=0, options=options)
        rows, matches = info["round_results"], info["match_results"]
    else:
        env = KoiKoiVectorEnv(1, episode=episode, rounds=1)
        _, info = env.reset(seed=0, options=options)
        rows = [dict(r, rewarded=bool(ok))
                for r, ok in zip(info["round_results"].records(), info["rewarded"])]
        m = info["match_results"]
        matches = [{"winner": int(m.winner[k]), "scores": m.scores[k].tolist(),
                    "rounds": int(m.rounds[k])} for k in range(len(m.game))]
    assert [(r["reason"], r["reward"], r["rewarded"]) for r in rows] == [
        ("hand-yaku", [6, -6], False)]
    assert matches == [{"winner": 0, "scores": [6, -6], "rounds": 1}]
    if make == "aec" and episode == "match":  # the episode is the next match, from 0 : 0
        returns, final = play_episode(env, random.Random(0))
        match = final["player_0"]["match_results"][0]
        assert [returns["player_0"], returns["player_1"]] == match["scores"]


# ------------------------------------------------------------------ the package


def test_the_package_exports_its_main_classes():
    from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
    from hanafuda_env.envs.vector_env import KoiKoiVectorEnv

    assert hanafuda_env.KoiKoiSingleAgentEnv is KoiKoiSingleAgentEnv
    assert hanafuda_env.KoiKoiVectorEnv is KoiKoiVectorEnv
    assert hanafuda_env.envs.koikoi_v0.env is koikoi_v0.env
    assert all(hasattr(hanafuda_env, name) for name in hanafuda_env.__all__)
    assert set(hanafuda_env.__all__) == {"GYM_ID", "koikoi_v0", "hanaawase_v0",
                                         *hanafuda_env._EXPORTS}
    # the import paths users write
    from hanafuda_env import HanaawaseCore, KoiKoiCore, KoiKoiGame, RuleSet, hanaawase_v0
    from hanafuda_env.hanaawase.core import HanaawaseCore as core_class

    assert HanaawaseCore is core_class and hanaawase_v0.env is not None
    assert KoiKoiCore and KoiKoiGame and RuleSet
    assert set(hanafuda_env.__all__) <= set(dir(hanafuda_env))
    with pytest.raises(AttributeError, match="no attribute 'KoiKoiEnv'"):
        hanafuda_env.KoiKoiEnv  # noqa: B018
