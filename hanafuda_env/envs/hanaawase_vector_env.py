"""Batched Hana-awase for training: B matches of N players, every seat driven by the caller.

Each step takes one action per game for its player to move and returns the next mover's
observation and mask; a finished round pays every seat of its game at once (``rewards``
(B, N): score minus the round's mean, zero-sum), and the game deals on in the kernel (the
match's next round, or a new match), so the batch never waits. A trainer that plays one
learning seat among pool opponents reads ``mover`` to route each game's decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hanafuda_env.envs.options import check_number, reset_needed
from hanafuda_env.hanaawase.core import HanaawaseCore
from hanafuda_env.hanaawase.rules import HanaawaseRules


class HanaawaseVectorEnv:
    """``num_envs`` games; ``rules``/``options`` as for :class:`HanaawaseCore`."""

    def __init__(self, num_envs: int, rules: HanaawaseRules | dict | None = None,
                 seed: int | None = None, reward_scale: float = 1.0, **options: Any):
        self.core = HanaawaseCore(num_envs, rules, seed=seed, autoreset=True, **options)
        self.num_envs = self.core.n_games
        self.num_players = self.core.num_players
        self.rules = self.core.rules
        self.reward_scale = check_number("reward_scale", reward_scale)
        self.observation_size = self.core.observation_size
        self._obs = np.empty((self.num_envs, self.observation_size), dtype=np.float32)
        self._started = False  # a reset gave the games their episodes (step() needs one)

    def _view(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        self.core.observe(out=self._obs)
        return self._obs.copy(), {"action_mask": self.core.legal_action_mask(),
                                  "mover": self.core.mover.astype(np.int64)}

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """New matches in every game; the movers' observations and masks."""
        self.core.reset(seed)
        self._started = True
        return self._view()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict[str, Any]]:
        """(observations, rewards (B, N), round_over, match_over, info): info has the next
        ``action_mask`` and ``mover`` and the finished rounds' ``rows`` / ``row_games``."""
        if not self._started:
            raise reset_needed("HanaawaseVectorEnv.step")
        out = self.core.step(np.asarray(actions))
        obs, info = self._view()
        info["rows"], info["row_games"] = out.rows, out.row_games
        rewards = (out.rewards * self.reward_scale).astype(np.float32)
        return obs, rewards, out.round_over, out.match_over, info
