"""Hanafuda for reinforcement learning: Koi-Koi and Hana-awase on compiled (Numba) batched
cores, one-game engines and PettingZoo / Gymnasium environments.

Sub-packages, lowest first: ``common`` (cards, bits, seeding, files) → ``koikoi`` (rules,
scoring, kernel, cores; ``koikoi.expert``, the expert's model) → ``hanaawase`` → ``render`` →
``envs``. Importing the package registers the single-agent Gymnasium environment as
``"hanafuda/KoiKoi-v0"`` (``gymnasium.make("hanafuda/KoiKoi-v0", opponent=...)``). The main
classes are importable from here; each loads its module (and PettingZoo, for the AEC envs)
only when first asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import gymnasium as _gymnasium

from hanafuda_env.common.numba_cache import use_keyed_cache as _use_keyed_cache

# Before any kernel module defines its compiled functions: the cache follows their sources.
_use_keyed_cache()

GYM_ID = "hanafuda/KoiKoi-v0"

if GYM_ID not in _gymnasium.registry:
    _gymnasium.register(id=GYM_ID,
                        entry_point="hanafuda_env.envs.gym_env:KoiKoiSingleAgentEnv")

if TYPE_CHECKING:  # what the lazy exports below resolve to, for type checkers
    from hanafuda_env.envs import hanaawase_v0, koikoi_v0
    from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
    from hanafuda_env.envs.hanaawase_vector_env import HanaawaseVectorEnv
    from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
    from hanafuda_env.hanaawase.core import HanaawaseCore
    from hanafuda_env.hanaawase.rules import HanaawaseRules
    from hanafuda_env.koikoi.core import KoiKoiCore
    from hanafuda_env.koikoi.game import KoiKoiGame
    from hanafuda_env.koikoi.rules import RuleSet, resolve_rules

# name -> the module that defines it
_EXPORTS = {
    "KoiKoiCore": "koikoi.core",
    "KoiKoiGame": "koikoi.game",
    "RuleSet": "koikoi.rules",
    "resolve_rules": "koikoi.rules",
    "HanaawaseCore": "hanaawase.core",
    "HanaawaseRules": "hanaawase.rules",
    "KoiKoiSingleAgentEnv": "envs.gym_env",
    "KoiKoiVectorEnv": "envs.vector_env",
    "HanaawaseVectorEnv": "envs.hanaawase_vector_env",
}
# the AEC env modules, importable as ``from hanafuda_env import koikoi_v0``
_ENV_MODULES = ("koikoi_v0", "hanaawase_v0")
__all__ = ["GYM_ID", "HanaawaseCore", "HanaawaseRules", "HanaawaseVectorEnv", "KoiKoiCore",
           "KoiKoiGame", "KoiKoiSingleAgentEnv", "KoiKoiVectorEnv", "RuleSet", "hanaawase_v0",
           "koikoi_v0", "resolve_rules"]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    if name in _ENV_MODULES:
        return importlib.import_module(f".envs.{name}", __name__)
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
