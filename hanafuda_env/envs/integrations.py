"""Small adapters for RL libraries whose conventions differ from PettingZoo's.

RLlib's action-masking RL module reads an observation dict with the keys ``"observations"``
and ``"action_mask"`` (a float mask); :class:`RLlibObservations` renames koikoi_v0's
``"observation"`` and casts the mask, and :func:`rllib_env` wraps the result in RLlib's own
``PettingZooEnv`` (``ray[rllib]`` is imported only there). TorchRL, Tianshou and OpenSpiel need
no adapter (see README).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from hanafuda_env.envs import koikoi_v0


class RLlibObservations(BaseWrapper):
    """koikoi_v0 with observations ``{"observations": float32[306], "action_mask":
    float32[98]}`` (RLlib's names and dtype); everything else as the wrapped env."""

    def __init__(self, env: Any):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict({
            "observations": inner["observation"],
            "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
        })

    def observation_space(self, agent: str) -> spaces.Space:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}


def rllib_env(config: dict | None = None) -> Any:
    """An RLlib multi-agent env of koikoi_v0 (``config``: koikoi_v0.env's keywords), for
    ``tune.register_env("koikoi", rllib_env)``. Illegal moves end the episode with the
    mover's ``illegal_reward`` (RLlib's env checker samples unmasked actions)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(RLlibObservations(koikoi_v0.env(**dict(config or {}))))
