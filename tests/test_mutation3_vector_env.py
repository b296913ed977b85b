"""Behaviour of the batched self-play env that a third mutation audit found unpinned: the
constructor seed is used once, carried rewards survive state_dict/load_state_dict without
shared arrays, and observe() hands out new arrays."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.vector_env import KoiKoiVectorEnv

CARRY = np.array([[3.0, -3.0], [0.0, 0.0]])


def _first_legal(env: KoiKoiVectorEnv) -> np.ndarray:
    return env.action_masks().argmax(axis=1)


def _env_with_carry() -> tuple[KoiKoiVectorEnv, np.ndarray]:
    """A 2-game env whose loaded state carries 3 points to seat 0 of game 0; also returns
    the carry array handed to load_state_dict."""
    env = KoiKoiVectorEnv(2, seed=5)
    env.reset()
    state = env.state_dict()
    carry = CARRY.copy()
    state["carry"] = carry
    env.load_state_dict(state)
    return env, carry


def test_the_constructor_seed_serves_only_the_first_reset() -> None:
    """reset() without a seed after the first one deals new games, and the sequence of
    deals repeats for another env built with the same seed."""
    def deals(env: KoiKoiVectorEnv) -> list[np.ndarray]:
        return [env.reset()[0].copy() for _ in range(3)]

    first = deals(KoiKoiVectorEnv(2, seed=9))
    again = deals(KoiKoiVectorEnv(2, seed=9))
    assert not np.array_equal(first[0], first[1])
    assert not np.array_equal(first[1], first[2])
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_a_loaded_carry_is_paid_with_the_next_step() -> None:
    """Rewards carried in a loaded state arrive with the first step after loading."""
    env, _ = _env_with_carry()
    _, rewards, terminated, _, _ = env.step(_first_legal(env))
    assert not terminated.any()
    np.testing.assert_array_equal(rewards, CARRY.astype(np.float32))
    _, rewards, _, _, _ = env.step(_first_legal(env))
    assert not rewards.any()  # paid once


def test_reset_drops_a_carry_from_before() -> None:
    """A reset starts the games afresh: nothing carried before it is paid after it."""
    env, _ = _env_with_carry()
    env.reset(seed=1)
    _, rewards, terminated, _, _ = env.step(_first_legal(env))
    assert not terminated.any() and not rewards.any()
    assert not env.state_dict()["carry"].any()


def test_state_dict_is_a_snapshot_of_the_carry() -> None:
    """A saved state keeps its carry when the env then pays it."""
    env, _ = _env_with_carry()
    saved = env.state_dict()
    env.step(_first_legal(env))
    np.testing.assert_array_equal(saved["carry"], CARRY)
    np.testing.assert_array_equal(env.state_dict()["carry"], np.zeros((2, 2)))


def test_load_state_dict_does_not_keep_the_callers_array() -> None:
    """Paying a loaded carry does not write into the array that was loaded."""
    env, carry = _env_with_carry()
    env.step(_first_legal(env))
    np.testing.assert_array_equal(carry, CARRY)


def test_load_state_dict_checks_the_carry_shape() -> None:
    """A carry that does not have one row per game is refused at load, state untouched."""
    env = KoiKoiVectorEnv(2, seed=5)
    env.reset()
    state = env.state_dict()
    before = env.state_dict()
    state["carry"] = np.zeros((3, 2))
    with pytest.raises(ValueError, match="carry"):
        env.load_state_dict(state)
    after = env.state_dict()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value)


def test_load_state_dict_names_a_missing_carry() -> None:
    """A state without the carried rewards (a core's state_dict) is refused by name."""
    env = KoiKoiVectorEnv(2, seed=5)
    env.reset()
    with pytest.raises(ValueError, match="lacks 'carry'"):
        env.load_state_dict(env.core.state_dict())


def test_observe_returns_arrays_that_later_steps_leave_alone() -> None:
    """observe(seats) makes a new array; stepping the env does not overwrite it."""
    env = KoiKoiVectorEnv(2, seed=4)
    obs, _ = env.reset()
    seen = env.observe(np.array([0, 1]))
    kept_seen = seen.copy()
    env.step(_first_legal(env))
    np.testing.assert_array_equal(seen, kept_seen)
    assert seen is not env.observe(np.array([0, 1]))
    assert not np.shares_memory(seen, obs)
