"""Hanafuda Koi-Koi: a vectorized NumPy core, a single-game engine and RL environments.

Importing the package registers the single-agent Gymnasium environment as
``"hanafuda/KoiKoi-v0"`` (``gymnasium.make("hanafuda/KoiKoi-v0", opponent=...)``). The main
classes are importable from here; each loads its module (and PettingZoo, for ``koikoi_v0``)
only when first asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import gymnasium as _gymnasium

GYM_ID = "hanafuda/KoiKoi-v0"

if GYM_ID not in _gymnasium.registry:
    _gymnasium.register(id=GYM_ID, entry_point="hanafuda_env.gym_env:KoiKoiSingleAgentEnv")

if TYPE_CHECKING:  # what the lazy exports below resolve to, for type checkers
    from . import koikoi_v0
    from .core import KoiKoiCore
    from .game import KoiKoiGame
    from .gym_env import KoiKoiSingleAgentEnv
    from .rules import RuleSet, resolve_rules
    from .vector_env import KoiKoiVectorEnv

# name -> the module that defines it
_EXPORTS = {
    "KoiKoiCore": "core",
    "KoiKoiGame": "game",
    "KoiKoiSingleAgentEnv": "gym_env",
    "KoiKoiVectorEnv": "vector_env",
    "RuleSet": "rules",
    "resolve_rules": "rules",
}
__all__ = ["GYM_ID", "KoiKoiCore", "KoiKoiGame", "KoiKoiSingleAgentEnv", "KoiKoiVectorEnv",
           "RuleSet", "koikoi_v0", "resolve_rules"]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    if name == "koikoi_v0":
        return importlib.import_module(".koikoi_v0", __name__)
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
