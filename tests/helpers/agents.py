"""Running an agent on real observations."""

from __future__ import annotations

import numpy as np

from agents.bots.base import AgentLike
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv


def actions_of(agent: AgentLike, n: int = 64) -> np.ndarray:
    """The agent's moves for the first decisions of ``n`` games dealt from seed 1."""
    env = KoiKoiVectorEnv(n, seed=1)
    obs, info = env.reset()
    return agent.act(obs, info["action_mask"])
