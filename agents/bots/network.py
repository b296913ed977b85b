"""The actor-critic network a trained bot plays with, and sampling from its masked logits."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import NUM_ACTIONS
from hanafuda_env.koikoi.observation import BLOCK, OBS_DIM

# Illegal logits get this value instead of -inf: exp() underflows to exactly 0 in float32,
# yet no inf - inf = NaN can appear in log-softmax or its gradient.
MASKED_LOGIT = -1e9


def layer_init(layer: nn.Linear, std: float = 2**0.5, bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def mlp_layers(width: int, hidden: int, layers: int) -> list[nn.Module]:
    """``layers`` tanh layers of ``hidden`` units on a ``width``-wide input."""
    body: list[nn.Module] = []
    for _ in range(layers):
        body += [layer_init(nn.Linear(width, hidden)), nn.Tanh()]
        width = hidden
    return body


# Card groups the yaku are made of: progress towards them is a feature of its own.
YAKU_GROUPS = (C.BRIGHTS, C.INO_SHIKA_CHO, C.RED_POETRY_RIBBONS, C.BLUE_RIBBONS,
               C.CURTAIN | C.SAKE_CUP, C.MOON | C.SAKE_CUP, C.ANIMALS, C.RIBBONS,
               C.CHAFF_CARDS | C.SAKE_CUP)


class CardFeatures(nn.Module):
    """Fixed (untrained) features an MLP finds slowly on its own: products of card sets.

    Whether a hand card can capture depends on the *field's* cards of its month — a product
    of two observation blocks, which a tanh layer only approximates. Per card (48 each):
    same-month counts on the field, among unseen cards, in my hand and in both piles; "this
    hand card captures now", "this field card is takeable by my hand", "this field card can
    be taken by a card I have not seen". Per yaku group: the share in my pile, the
    opponent's, and still free.
    """

    def __init__(self):
        super().__init__()
        months = torch.zeros(C.NUM_CARDS, C.NUM_MONTHS)
        months[torch.arange(C.NUM_CARDS), torch.as_tensor(C.CARD_MONTH.astype("int64") - 1)] = 1.0
        groups = torch.as_tensor(C.bits_to_bool(np.array(YAKU_GROUPS, dtype=np.uint64)),
                                 dtype=torch.float32).reshape(len(YAKU_GROUPS), 48).T
        # same_month[i, j] = 1/3 when cards i and j share a month: one matmul per count
        self.register_buffer("same_month", months @ months.T / 3.0, persistent=False)
        self.register_buffer("groups", groups / groups.sum(0), persistent=False)
        self.blocks = [BLOCK[name] for name in ("hand", "field", "own_pile", "opp_pile",
                                                 "unseen", "pending")]

    size = 7 * 48 + 3 * len(YAKU_GROUPS)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        hand, field, own, opp, unseen, pending = (obs[:, b] for b in self.blocks)
        # per card: its month's count in each set (batched: small batches are call-bound)
        at_field, at_unseen, at_hand, at_piles = torch.stack(
            [field, unseen, hand, own + opp]) @ self.same_month
        free = hand + field + unseen + pending
        own_groups, opp_groups, free_groups = torch.stack([own, opp, free]) @ self.groups
        return torch.cat([
            obs, at_field, at_unseen, at_hand, at_piles,
            hand * (at_field > 0), field * (at_hand > 0), field * (at_unseen > 0),
            own_groups, opp_groups, free_groups], dim=1)


class ActorCritic(nn.Module):
    """A shared MLP trunk with a 98-way policy head and a value head.

    One head makes every decision (card, field choice, koi-koi); the decision phase is part of
    the observation, and the mask leaves only that phase's actions. ``card_features`` adds
    :class:`CardFeatures` to the input.
    """

    def __init__(self, obs_dim: int = OBS_DIM, hidden: int = 256, layers: int = 2,
                 n_actions: int = NUM_ACTIONS, card_features: bool = False):
        super().__init__()
        self.features = CardFeatures() if card_features else nn.Identity()
        width = obs_dim + (CardFeatures.size if card_features else 0)
        self.trunk = nn.Sequential(*mlp_layers(width, hidden, layers))
        self.policy = layer_init(nn.Linear(hidden, n_actions), std=0.01)
        self.value = layer_init(nn.Linear(hidden, 1), std=1.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at MASKED_LOGIT) and state values."""
        features = self.trunk(self.features(obs))
        logits = self.policy(features).masked_fill(~mask, MASKED_LOGIT)
        return logits, self.value(features).squeeze(-1)


# The most weights a network built from a checkpoint or a config may have (float32: about
# 200 MB); the default 256 x 2 network has about 0.1 M. Counted from the sizes alone, before
# anything is allocated.
MAX_PARAMETERS = 50_000_000


def actor_critic_shapes(width: int, hidden: int, layers: int, n_actions: int = NUM_ACTIONS,
                        prefix: str = "") -> dict[str, tuple[int, ...]]:
    """The shape of every weight of an :class:`ActorCritic` on a ``width``-wide input
    (the observation plus any fixed features), by its state-dict name: computed, not built,
    so a checkpoint's claims are compared with its weights before memory is spent."""
    shapes: dict[str, tuple[int, ...]] = {}
    for k in range(layers):
        shapes[f"{prefix}trunk.{2 * k}.weight"] = (hidden, width)
        shapes[f"{prefix}trunk.{2 * k}.bias"] = (hidden,)
        width = hidden
    shapes.update({f"{prefix}policy.weight": (n_actions, hidden), f"{prefix}policy.bias":
                   (n_actions,), f"{prefix}value.weight": (1, hidden), f"{prefix}value.bias": (1,)})
    return shapes


def parameter_count(shapes: dict[str, tuple[int, ...]]) -> int:
    return sum(math.prod(shape) for shape in shapes.values())


def size_problem(shapes: dict[str, tuple[int, ...]]) -> str | None:
    """Why a network of these weight shapes is too large to build here, or None."""
    count = parameter_count(shapes)
    if count <= MAX_PARAMETERS:
        return None
    return (f"a network of {count:,} weights (about {count * 4 / 2**30:.1f} GiB as float32); "
            f"a network here has at most {MAX_PARAMETERS:,}")


def weights_problem(model: Any, shapes: dict[str, tuple[int, ...]]) -> str | None:
    """Why ``model`` (a checkpoint's state dict) is not a sound set of weights of the shapes
    given, or None: a size over the cap, a weight missing, unknown or of another shape, a
    tensor that is not floating point, a NaN or an infinity (named by the tensor)."""
    too_large = size_problem(shapes)
    if too_large:
        return f"its network sizes ask for {too_large}"
    if not isinstance(model, dict):
        return f"its weights ('model') are not a dict of tensors, got {type(model).__name__}"
    missing = [name for name in shapes if name not in model]
    unknown = [str(name) for name in model if name not in shapes]
    if missing or unknown:
        return (f"its weights do not fit the network its sizes name: missing "
                f"{missing[:4] or 'none'}, unknown {unknown[:4] or 'none'}")
    for name, shape in shapes.items():
        tensor = model[name]
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            return f"weight {name!r} is not a floating-point tensor"
        if tuple(tensor.shape) != shape:
            return (f"weight {name!r} has shape {tuple(tensor.shape)}; the network its sizes "
                    f"name needs {shape}")
        if not bool(torch.isfinite(tensor).all()):
            return f"weight {name!r} holds NaN or infinite values: the network cannot play"
    return None


def sample_actions(logits: torch.Tensor, generator: torch.Generator | None = None
                   ) -> torch.Tensor:
    """One action per row from masked logits (Gumbel-max with the given generator)."""
    uniform = torch.rand(logits.shape, generator=generator).clamp_(1e-12, 1.0)
    return torch.argmax(logits - torch.log(-torch.log(uniform)), dim=-1)
