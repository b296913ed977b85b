"""Actor-critic network and the masked categorical distribution used by PPO."""

from __future__ import annotations

import torch
from torch import nn

from hanafuda_env.core import NUM_ACTIONS
from hanafuda_env.observation import OBS_DIM

# Illegal logits get this value instead of -inf: exp() underflows to exactly 0 in float32,
# yet no inf - inf = NaN can appear in log-softmax or its gradient.
MASKED_LOGIT = -1e9


def layer_init(layer: nn.Linear, std: float = 2**0.5, bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """A shared MLP trunk with a 98-way policy head and a value head.

    One head makes every decision (card, field choice, koi-koi); the decision phase is part of
    the observation, and the mask leaves only that phase's actions.
    """

    def __init__(self, obs_dim: int = OBS_DIM, hidden: int = 256, layers: int = 2,
                 n_actions: int = NUM_ACTIONS):
        super().__init__()
        self.hidden, self.layers = hidden, layers
        trunk: list[nn.Module] = []
        width = obs_dim
        for _ in range(layers):
            trunk += [layer_init(nn.Linear(width, hidden)), nn.Tanh()]
            width = hidden
        self.trunk = nn.Sequential(*trunk)
        self.policy = layer_init(nn.Linear(hidden, n_actions), std=0.01)
        self.value = layer_init(nn.Linear(hidden, 1), std=1.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at MASKED_LOGIT) and state values."""
        features = self.trunk(obs)
        logits = self.policy(features).masked_fill(~mask, MASKED_LOGIT)
        return logits, self.value(features).squeeze(-1)


class Critic(nn.Module):
    """A value network of its own, for a critic that sees more than the policy (the hidden
    cards during training: ``hanafuda_env.observation.encode_hidden``)."""

    def __init__(self, input_dim: int, hidden: int = 256, layers: int = 2):
        super().__init__()
        body: list[nn.Module] = []
        width = input_dim
        for _ in range(layers):
            body += [layer_init(nn.Linear(width, hidden)), nn.Tanh()]
            width = hidden
        self.body = nn.Sequential(*body, layer_init(nn.Linear(width, 1), std=1.0))

    def forward(self, critic_obs: torch.Tensor) -> torch.Tensor:
        return self.body(critic_obs).squeeze(-1)


def masked_log_probs(logits: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(logits, dim=-1)


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over legal actions only (masked terms are exactly zero, never NaN)."""
    probs = log_probs.exp()
    return -(probs * log_probs).masked_fill(~mask, 0.0).sum(-1)


def sample_actions(logits: torch.Tensor, generator: torch.Generator | None = None
                   ) -> torch.Tensor:
    """One action per row from masked logits (Gumbel-max with the given generator)."""
    uniform = torch.rand(logits.shape, generator=generator).clamp_(1e-12, 1.0)
    return torch.argmax(logits - torch.log(-torch.log(uniform)), dim=-1)
