"""The privileged critic: a value network that sees the hidden cards during training only.

The policy never reads it, so a trained bot plays from its own observation alone.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.bots.network import layer_init, mlp_layers
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.observation import HIDDEN_DIM, OBS_DIM, encode_hidden

CRITIC_INPUT_DIM = OBS_DIM + HIDDEN_DIM


def critic_input(obs: np.ndarray, core: KoiKoiCore) -> np.ndarray:
    """The privileged critic's input: the movers' observations and their hidden cards."""
    return np.concatenate([obs, encode_hidden(core)], axis=1)


class Critic(nn.Module):
    """A value network of its own, for a critic that sees more than the policy (the hidden
    cards during training: ``hanafuda_env.koikoi.observation.encode_hidden``)."""

    def __init__(self, input_dim: int = CRITIC_INPUT_DIM, hidden: int = 256, layers: int = 2):
        super().__init__()
        self.body = nn.Sequential(*mlp_layers(input_dim, hidden, layers),
                                  layer_init(nn.Linear(hidden if layers else input_dim, 1),
                                             std=1.0))

    def forward(self, critic_obs: torch.Tensor) -> torch.Tensor:
        return self.body(critic_obs).squeeze(-1)
