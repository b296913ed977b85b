"""A step before the first reset() is refused with a message that says to call reset():
the game an env is built with is a placeholder, not a deal anyone asked for. Nothing
changes, and after reset() the env plays as usual."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hanafuda_env.envs import hanaawase_v0, koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.hanaawase_vector_env import HanaawaseVectorEnv
from hanafuda_env.envs.options import ResetNeededError
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


ENVS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any], Callable[[Any], Any]]] = {
    # name: (make, a step before reset, a legal step after reset)
    "KoiKoiSingleAgentEnv": (KoiKoiSingleAgentEnv, lambda e: e.step(0),
                             lambda e: e.step(first_legal(e.action_masks()))),
    "KoiKoiVectorEnv": (lambda: KoiKoiVectorEnv(3, seed=0),
                        lambda e: e.step(np.zeros(3, dtype=np.int64)),
                        lambda e: e.step(e.action_masks().argmax(axis=1))),
    "HanaawaseVectorEnv": (lambda: HanaawaseVectorEnv(3, seed=0),
                           lambda e: e.step(np.zeros(3, dtype=np.int64)),
                           lambda e: e.step(e.core.legal_action_mask().argmax(axis=1))),
    "koikoi_v0": (koikoi_v0.raw_env, lambda e: e.step(0),
                  lambda e: e.step(first_legal(e.last()[0]["action_mask"]))),
    "koikoi_v0.env": (koikoi_v0.env, lambda e: e.step(0),
                      lambda e: e.step(first_legal(e.last()[0]["action_mask"]))),
    "hanaawase_v0": (hanaawase_v0.raw_env, lambda e: e.step(0),
                     lambda e: e.step(first_legal(e.last()[0]["action_mask"]))),
}


def env_state(env: Any) -> bytes:
    core = getattr(env, "core", None) or env.unwrapped.__dict__.get("core") \
        or env.unwrapped.game
    return core.records.tobytes()


@pytest.mark.parametrize("name", ENVS)
def test_a_step_before_reset_says_to_call_reset(name: str) -> None:
    make, early_step, legal_step = ENVS[name]
    env = make()
    before = env_state(env)
    with pytest.raises((ResetNeededError, AssertionError), match=r"reset\(\)"):
        early_step(env)
    assert env_state(env) == before
    env.reset(seed=1)
    legal_step(env)


@pytest.mark.parametrize("name", ["koikoi_v0", "hanaawase_v0", "KoiKoiSingleAgentEnv"])
def test_the_raw_envs_name_reset_not_an_empty_legal_list(name: str) -> None:
    env = ENVS[name][0]()
    with pytest.raises(ResetNeededError) as error:
        ENVS[name][1](env)
    assert "legal actions: []" not in str(error.value)
    assert "call reset() first" in str(error.value)


def test_a_loaded_state_counts_as_a_reset() -> None:
    source = KoiKoiVectorEnv(3, seed=0)
    source.reset(seed=4)
    target = KoiKoiVectorEnv(3, seed=0)
    target.load_state_dict(source.state_dict())
    actions = source.action_masks().argmax(axis=1)
    assert np.array_equal(target.step(actions)[0], source.step(actions)[0])


def test_a_failed_first_reset_still_needs_a_reset() -> None:
    env = KoiKoiSingleAgentEnv()
    with pytest.raises(ValueError):
        env.reset(options={"dealer": 5})
    with pytest.raises(ResetNeededError):
        env.step(0)
