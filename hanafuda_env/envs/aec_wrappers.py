"""PettingZoo's stock wrappers for the AEC envs, as its classic games use them.

:func:`stock_wrappers` puts a raw env in ``TerminateIllegalWrapper`` (an illegal move: the
mover gets ``illegal_reward``, the others 0, and the episode ends) and
``AssertOutOfBoundsWrapper`` when ``illegal_action="penalize"``, and always in
``OrderEnforcingWrapper``. The wrappers are the stock ones but for one thing: the attributes
every step reads come straight from the raw env instead of through a ``__getattr__`` per
layer (three Python calls per read, over half of an env's time in random play).
``_OrderEnforcing`` opens them at its first reset, so before it PettingZoo's own "cannot be
accessed before reset" errors are raised as ever.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hanafuda_env.envs.options import ILLEGAL_ACTIONS, check_number, one_of

_STEP_STATE = ("agent_selection", "agents", "rewards", "terminations", "truncations",
               "infos", "_cumulative_rewards")


def check_illegal_options(illegal_action: Any, illegal_reward: Any) -> float:
    """The wrapper options checked before the raw env is built; the reward as a float."""
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(one_of("illegal_action", illegal_action, ILLEGAL_ACTIONS))
    return check_number("illegal_reward", illegal_reward)


def stock_wrappers(raw: AECEnv, illegal_action: str, illegal_reward: float) -> AECEnv:
    wrapped: AECEnv = raw
    if illegal_action == "penalize":
        wrapped = _TerminateIllegal(wrapped, illegal_reward=float(illegal_reward))
        wrapped = _AssertOutOfBounds(wrapped)
    return _OrderEnforcing(wrapped)


def _read_through(path: str) -> dict[str, property]:
    return {name: property(attrgetter(f"{path}.{name}"), doc=f"The raw env's {name}.")
            for name in _STEP_STATE}


class _RawState:
    """Mixed into a stock wrapper: reads the step state of the raw env, prints as the stock
    wrapper does (``TerminateIllegalWrapper<koikoi_v0>``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._raw = self.env.unwrapped

    def __str__(self) -> str:
        stock = next(c for c in type(self).__mro__ if c.__module__.startswith("pettingzoo"))
        return f"{stock.__name__}<{self.env!s}>"


class _TerminateIllegal(_RawState, wrappers.TerminateIllegalWrapper):
    locals().update(_read_through("_raw"))


class _AssertOutOfBounds(_RawState, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's bounds assertion; a Python int in range passes without the space's
    ``contains`` (which builds NumPy dtype limits on every call)."""

    locals().update(_read_through("_raw"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._n_actions = self._raw.action_space(self._raw.possible_agents[0]).n

    def step(self, action: Any) -> None:
        if action.__class__ is int and 0 <= action < self._n_actions:
            self.env.step(action)
        else:
            super().step(action)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, reading the step state of the raw env once reset."""

    locals().update(_read_through("_live"))

    def __str__(self) -> str:  # as PettingZoo prints its own OrderEnforcingWrapper
        return str(self.env)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._live = self.env.unwrapped  # opens the read-through attributes
