"""Rejected calls leave every environment exactly as it was (RNG, seat, game, carried
rewards), bad options fail naming themselves, and an illegal action reveals nothing hidden to
the other seat."""

from __future__ import annotations

import random

import numpy as np
import pytest
from env_helpers import play_episode

from hanafuda_env import koikoi_v0
from hanafuda_env.core import IllegalActionError, KoiKoiCore
from hanafuda_env.game import KoiKoiGame
from hanafuda_env.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.vector_env import KoiKoiVectorEnv

BAD_DECK = [0] * 48
HUGE = np.uint64(2**64 - 1)


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


class Switchable:
    """A deterministic opponent that, while ``fault`` is set, errs: an illegal action or
    ``fault`` itself when it is an exception."""

    def __init__(self):
        self.fault: object = None

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if isinstance(self.fault, Exception):
            raise self.fault
        return 99 if self.fault else first_legal(obs, mask)


# ----------------------------------------------------------------------------- trajectories
def gym_trajectory(env: KoiKoiSingleAgentEnv, steps: int = 40) -> list:
    """An unseeded reset and first-legal play across episodes: what the env shows."""
    obs, info = env.reset()
    out = [(obs.tobytes(), info["seat"])]
    for _ in range(steps):
        obs, reward, terminated, _, info = env.step(first_legal(obs, env.action_masks()))
        out.append((obs.tobytes(), reward, terminated, info["seat"]))
        if terminated:
            obs, info = env.reset()
            out.append((obs.tobytes(), info["seat"]))
    return out


def aec_trajectory(env, steps: int = 80) -> list:
    env.reset()
    out = []
    for _ in range(steps):
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else first_legal(None, obs["action_mask"]))
    return out


def vector_trajectory(env: KoiKoiVectorEnv, steps: int = 30) -> list:
    obs, _ = env.reset()
    out = [obs.copy()]
    for _ in range(steps):
        obs, rewards, *_ = env.step(env.action_masks().argmax(axis=1))
        out += [obs.copy(), rewards.copy()]
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


# --------------------------------------------------------------------------- rejected resets
GYM_BAD_RESETS = [
    {"seed": 5, "options": {"deck": BAD_DECK}},
    {"seed": 5, "options": {"dealer": 2}},
    {"seed": 5, "options": {"learner_seat": 3}},
    {"seed": 5, "options": {"colour": "red"}},
    {"seed": 2**64},
    {"seed": -1},
]


@pytest.mark.parametrize("bad", GYM_BAD_RESETS)
def test_gym_rejected_reset_changes_nothing(bad):
    env, fresh = KoiKoiSingleAgentEnv(), KoiKoiSingleAgentEnv()
    env.reset(seed=0)
    fresh.reset(seed=0)
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert gym_trajectory(env) == gym_trajectory(fresh)


@pytest.mark.parametrize("bad", [{"options": {"deck": BAD_DECK}}, {"options": {"dealer": 2}},
                                 {"seed": 2**64}, {"seed": -1}])
def test_aec_rejected_reset_keeps_the_constructor_seed_and_the_rng(bad):
    env = koikoi_v0.env(seed=3)
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert aec_trajectory(env) == aec_trajectory(koikoi_v0.env(seed=3))
    env, fresh = koikoi_v0.env(), koikoi_v0.env()  # a seeded generator, then a bad call
    env.reset(seed=7)
    fresh.reset(seed=7)
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert aec_trajectory(env) == aec_trajectory(fresh)


@pytest.mark.parametrize("bad", [{"options": {"deck": BAD_DECK}}, {"options": {"dealer": 2}},
                                 {"options": {"colour": "red"}}, {"seed": [1, 2]},
                                 {"seed": 5, "options": {"deck": BAD_DECK}}])
def test_vector_rejected_reset_keeps_the_constructor_seed_and_the_rng(bad):
    env = KoiKoiVectorEnv(4, seed=3)
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert same(vector_trajectory(env), vector_trajectory(KoiKoiVectorEnv(4, seed=3)))
    env, fresh = KoiKoiVectorEnv(4), KoiKoiVectorEnv(4)
    env.reset(seed=9)
    fresh.reset(seed=9)
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert same(vector_trajectory(env), vector_trajectory(fresh))


def test_aec_explicit_seed_supersedes_the_constructor_seed():
    env = koikoi_v0.env(seed=3)
    env.reset(seed=5)
    play_episode(env, random.Random(0))
    dealt = env.unwrapped.game.state_dict()
    env.reset()  # goes on with the match seed 5 dealt, not a new one from seed 3
    assert env.unwrapped.game.state_dict() == dealt
    env, plain = koikoi_v0.env(seed=3), koikoi_v0.env()
    for e in (env, plain):
        e.reset(seed=5)
        e.step(first_legal(None, e.observe(e.agent_selection)["action_mask"]))
        e.reset()  # an interrupted episode: a new match drawn from seed 5's generator
    assert env.unwrapped.game.state_dict() == plain.unwrapped.game.state_dict()


# ---------------------------------------------------------------------- opponent errors
@pytest.mark.parametrize("fault", [True, RuntimeError("policy crashed")])
def test_gym_opponent_error_in_step_undoes_the_learners_move(fault):
    opponent, reference = Switchable(), Switchable()
    env = KoiKoiSingleAgentEnv(opponent=opponent, learner_seat=0, episode="match", rounds=2)
    ref = KoiKoiSingleAgentEnv(opponent=reference, learner_seat=0, episode="match", rounds=2)
    obs, _ = env.reset(seed=1, options={"dealer": 0})
    ref.reset(seed=1, options={"dealer": 0})
    state, mask = env.game.state_dict(), env.action_masks()
    rng_state = env.np_random.bit_generator.state
    opponent.fault = fault
    error = IllegalActionError if fault is True else RuntimeError
    text = (r"opponent \(seat 1\) chose illegal action 99; its legal actions: \[\d"
            if fault is True else "policy crashed")
    with pytest.raises(error, match=text):
        env.step(first_legal(obs, mask))
    assert env.game.state_dict() == state and env.game.mover == env.seat == 0
    np.testing.assert_array_equal(env.action_masks(), mask)
    assert env.np_random.bit_generator.state == rng_state
    opponent.fault = None
    assert gym_trajectory(env) == gym_trajectory(ref)


@pytest.mark.parametrize("fault", [True, RuntimeError("policy crashed")])
def test_gym_opponent_error_in_reset_changes_nothing(fault):
    opponent, reference = Switchable(), Switchable()
    env = KoiKoiSingleAgentEnv(opponent=opponent)
    ref = KoiKoiSingleAgentEnv(opponent=reference)
    env.reset(seed=0)
    ref.reset(seed=0)
    state, seat = env.game.state_dict(), env.seat
    opponent.fault = fault
    with pytest.raises(IllegalActionError if fault is True else RuntimeError):
        env.reset(seed=4, options={"learner_seat": 1, "dealer": 0})  # the opponent deals
    assert env.game.state_dict() == state and env.seat == seat
    opponent.fault = None
    assert gym_trajectory(env) == gym_trajectory(ref)


# ------------------------------------------------------------------------ hidden information
def test_penalized_illegal_action_shows_legal_actions_only_to_the_offender():
    env = koikoi_v0.env(illegal_action="penalize")
    env.reset(seed=0)
    offender = env.agent_selection
    other = "player_1" if offender == "player_0" else "player_0"
    legal = np.flatnonzero(env.observe(offender)["action_mask"]).tolist()
    env.step(99)
    assert env.infos[offender]["illegal_action"] == {"agent": offender, "action": 99,
                                                     "legal_actions": legal}
    assert env.infos[other]["illegal_action"] == {"agent": offender}


# ------------------------------------------------------------------------------- options
def test_vector_env_unknown_option_and_bad_n_envs():
    with pytest.raises(ValueError, match=r"'foo'.*allowed options:.*n_envs.*round_sigma"):
        KoiKoiVectorEnv(2, foo=1)
    for n_envs in (2.5, 0, -1, True, "4"):
        with pytest.raises(ValueError, match="n_envs must be a positive integer"):
            KoiKoiVectorEnv(n_envs)
        with pytest.raises(ValueError, match="n_games must be a positive integer"):
            KoiKoiCore(n_envs)
    assert KoiKoiVectorEnv(np.int64(3)).n_envs == 3


MAKERS = {"aec": koikoi_v0.raw_env, "gym": KoiKoiSingleAgentEnv,
          "vector": lambda **kw: KoiKoiVectorEnv(2, **kw)}


@pytest.mark.parametrize("make, name", [
    ("aec", "reward_scale"), ("aec", "illegal_reward"), ("aec", "round_sigma"),
    ("gym", "reward_scale"), ("gym", "illegal_reward"), ("gym", "round_sigma"),
    ("vector", "round_sigma")])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 10**400],
                         ids=["nan", "inf", "-inf", "huge-int"])
def test_non_finite_float_options_are_rejected(make, name, value):
    with pytest.raises(ValueError, match=rf"{name} must be a finite"):
        MAKERS[make](**{name: value})


def test_seed_options_are_checked():
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(ValueError, match="seed must be None or an integer"):
            koikoi_v0.raw_env(seed=seed)
        with pytest.raises(ValueError, match="seed must be None or an integer"):
            KoiKoiSingleAgentEnv().reset(seed=seed)
        for make in (KoiKoiCore, KoiKoiVectorEnv):
            with pytest.raises(ValueError, match="seed must be an integer"):
                make(2, seed=seed)


# ------------------------------------------------------------------------ illegal actions
def test_illegal_action_errors_report_the_value_given():
    aec = koikoi_v0.env()
    aec.reset(seed=0)
    gym_env = KoiKoiSingleAgentEnv(illegal_action="raise")
    gym_env.reset(seed=0)
    vector = KoiKoiVectorEnv(2, seed=0)
    vector.reset()
    core = KoiKoiCore(2, seed=0)
    for call in (lambda: aec.step(HUGE), lambda: gym_env.step(HUGE),
                 lambda: vector.step(np.full(2, HUGE)), lambda: core.step(np.full(2, HUGE))):
        with pytest.raises(IllegalActionError, match="18446744073709551615") as error:
            call()
        assert "action -1" not in str(error.value)


@pytest.mark.parametrize("make", [lambda **kw: koikoi_v0.raw_env(**kw),
                                  lambda **kw: KoiKoiSingleAgentEnv(**kw)])
@pytest.mark.parametrize(("option", "message"), [
    ({"episode": "game"}, "episode must be one of 'round', 'match', got 'game'"),
    ({"illegal_action": "skip"},
     "illegal_action must be one of 'raise', 'penalize', got 'skip'"),
    ({"render_mode": "rgb_array"},
     "render_mode must be one of 'ansi', 'human', None, got 'rgb_array'"),
    ({"reward": "wins"}, "reward must be one of 'points', 'match_win', got 'wins'"),
])
def test_a_value_outside_its_set_is_named_with_every_allowed_value(make, option: dict,
                                                                   message: str) -> None:
    with pytest.raises(ValueError) as error:
        make(**option)
    assert str(error.value).startswith(message)


def test_an_unknown_reset_option_is_named_with_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) 'dealr'; allowed: "
                                         r"dealer, deck$"):
        KoiKoiCore(1, seed=0).reset(seed=0, options={"dealr": 1})


# ------------------------------------------------------------ reset options, by engine
@pytest.mark.parametrize(("options", "message"), [
    ({"deck": np.arange(48) + 0.0}, r"deck must hold each card id 0\.\.47 exactly once, as "
                                    r"integers"),
    ({"deck": list(range(47))}, r"deck must have shape \(48,\)"),
    ({"dealer": True}, r"dealer must be 0 or 1"),
    ({"dealer": 1.0}, r"dealer must be 0 or 1"),
    ({"dealer": [0, 1, 0]}, r"dealer must be 0 or 1"),
])
def test_reset_options_of_the_wrong_kind_are_refused_by_every_engine(options, message):
    """A float deck, a short deck, a bool, float or wrongly sized dealer: refused by name
    with what is allowed (NumPy's indexing or broadcasting errors said neither), and the
    games stay as they were."""
    core = KoiKoiCore(2, seed=1)
    before = core.state_dict()
    with pytest.raises(ValueError, match=message):
        core.reset(seed=1, options=options)
    assert all(np.array_equal(before[k], v) for k, v in core.state_dict().items())
    game = KoiKoiGame(seed=1)
    with pytest.raises(ValueError, match=message):
        game.reset(seed=1, options=options)
    env = KoiKoiVectorEnv(2, seed=1)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=1, options=options)


@pytest.mark.parametrize("seat", [True, 1.0, 2, "1"])
def test_gym_learner_seat_must_be_an_int_seat(seat):
    with pytest.raises(ValueError, match=r"learner_seat must be 0, 1 or None, got "):
        KoiKoiSingleAgentEnv(learner_seat=seat)
    env = KoiKoiSingleAgentEnv()
    with pytest.raises(ValueError, match=r"learner_seat must be 0, 1 or None, got "):
        env.reset(seed=0, options={"learner_seat": seat})
