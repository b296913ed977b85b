"""A network built for cards: one token per card, cards that share a month or a yaku group
exchange information, and each card action is scored from the card it moves.

An MLP over the flat observation must learn, for each of the 48 cards separately, that a
hand card captures when the field holds its month, and which cards finish which yaku. Here
every card is a token (where it lies — hand, field, own pile, opponent's pile, unseen,
pending —, counts of its month per place, "captures now" flags, and a learned embedding of
its identity on top of its month, kind and yaku groups), and what one card learns is shared
by all: the same weights read every card. Each block passes messages along the two
relations that the rules are made of — month mates (captures) and yaku-group mates (what a
capture is worth) — and between the cards and a global token (phase, counts, scores, and
per-place summaries of the cards). The policy scores playing card ``c`` and taking field
card ``c`` from token ``c``, and stop and koi-koi from the global token; the value head
reads the global token.

It takes the project's observation and mask and returns masked logits and values, as
:class:`~agents.bots.network.ActorCritic` does, so every agent, trainer and checkpoint
check that takes one takes the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents.bots.network import MASKED_LOGIT, YAKU_GROUPS, layer_init
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import NUM_ACTIONS
from hanafuda_env.koikoi.observation import BLOCK, CARD_BLOCKS, OBS_DIM
from hanafuda_env.koikoi.state import CHOOSE_OFFSET, KOIKOI, STOP

ARCHITECTURE = "card_graph"
N_PLACES = len(CARD_BLOCKS)  # hand, field, own pile, opponent's pile, unseen, pending
N_CARD_INPUTS = N_PLACES + 4 + 3  # place one-hot, month counts per place, capture flags
KIND_MASKS = (C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS)
N_GLOBAL_INPUTS = (OBS_DIM - 48 * N_PLACES) + 3 * len(YAKU_GROUPS)  # phase, scalars, groups
# The sizes a checkpoint may ask for (checked before anything is built).
MAX_WIDTH, MAX_BLOCKS, MAX_GLOBAL = 512, 16, 4096


def _membership(masks: tuple[int, ...]) -> torch.Tensor:
    """(48, len(masks)) 1 where the card belongs to the mask."""
    bits = C.bits_to_bool(np.array(masks, dtype=np.uint64)).reshape(len(masks), 48)
    return torch.as_tensor(bits, dtype=torch.float32).T


def card_attributes() -> torch.Tensor:
    """(48, 12 + 4 + groups) what a card is: its month, kind and yaku groups (fixed)."""
    months = torch.zeros(48, C.NUM_MONTHS)
    months[torch.arange(48), torch.as_tensor(C.CARD_MONTH.astype("int64") - 1)] = 1.0
    return torch.cat([months, _membership(KIND_MASKS), _membership(YAKU_GROUPS)], dim=1)


class CardBlock(nn.Module):
    """One round of messages: each card hears its month mates, its yaku-group mates and the
    global token; the global token hears a summary of the cards in each place."""

    def __init__(self, width: int, global_width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.month_message = nn.Linear(width, width, bias=False)
        self.group_message = nn.Linear(width, width, bias=False)
        self.from_global = nn.Linear(global_width, width)
        self.card_mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.ReLU(),
                                      nn.Linear(2 * width, width))
        self.global_norm = nn.LayerNorm(global_width)
        self.global_mlp = nn.Sequential(
            nn.Linear(global_width + N_PLACES * width, global_width), nn.ReLU(),
            nn.Linear(global_width, global_width))

    def forward(self, cards: torch.Tensor, glob: torch.Tensor, places: torch.Tensor,
                groups: torch.Tensor, group_share: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.norm(cards)
        batch, _, width = x.shape
        # month mates: the cards are month-major, four a month, so a month's sum is a reshape
        month_sum = x.reshape(batch, C.NUM_MONTHS, 4, width).sum(2, keepdim=True)
        month_mates = ((month_sum - x.reshape(batch, C.NUM_MONTHS, 4, width)) / 3.0
                       ).reshape(batch, 48, width)
        # yaku-group mates: each group's mean, handed back to its members
        group_means = self.group_message(group_share.T @ x)  # (B, groups, width)
        mixed = (x + self.month_message(month_mates) + groups @ group_means
                 + self.from_global(glob)[:, None, :])
        cards = cards + self.card_mlp(mixed)
        summary = (places.transpose(1, 2) @ self.norm(cards)).flatten(1) / 8.0
        glob = glob + self.global_mlp(torch.cat([self.global_norm(glob), summary], dim=1))
        return cards, glob


class CardGraphNet(nn.Module):
    """Card tokens with month and yaku-group messages (see the module docstring).

    ``width``: a card token's size; ``global_width``: the global token's; ``blocks``: rounds
    of messages.
    """

    def __init__(self, width: int = 48, global_width: int = 192, blocks: int = 2,
                 obs_dim: int = OBS_DIM, n_actions: int = NUM_ACTIONS,
                 architecture: str = ARCHITECTURE):
        super().__init__()
        if obs_dim != OBS_DIM or n_actions != NUM_ACTIONS or architecture != ARCHITECTURE:
            raise ValueError(f"a {ARCHITECTURE} network reads obs_dim={OBS_DIM} and gives "
                             f"n_actions={NUM_ACTIONS}")
        groups = _membership(YAKU_GROUPS)
        # a group's message reaches each member, averaged over the member's groups
        self.register_buffer("group_members", groups / groups.sum(1, keepdim=True).clamp(min=1),
                             persistent=False)
        self.register_buffer("group_share", groups / groups.sum(0), persistent=False)
        months = torch.as_tensor(C.CARD_MONTH.astype("int64") - 1)
        same_month = (months[:, None] == months[None, :]).float()  # itself included
        self.register_buffer("same_month", same_month, persistent=False)
        self.register_buffer("attributes", card_attributes(), persistent=False)
        self.card_in = nn.Linear(N_CARD_INPUTS, width)
        self.attribute_in = nn.Linear(self.attributes.shape[1], width, bias=False)
        self.identity = nn.Parameter(torch.zeros(48, width))
        self.global_in = nn.Linear(N_GLOBAL_INPUTS, global_width)
        self.blocks = nn.ModuleList(CardBlock(width, global_width) for _ in range(blocks))
        self.card_norm = nn.LayerNorm(width)
        self.global_norm = nn.LayerNorm(global_width)
        self.play_head = layer_init(nn.Linear(width, 1), std=0.01)
        self.take_head = layer_init(nn.Linear(width, 1), std=0.01)
        self.decide_head = layer_init(nn.Linear(global_width, 2), std=0.01)
        self.value_head = nn.Sequential(layer_init(nn.Linear(global_width, global_width)),
                                        nn.Tanh(), layer_init(nn.Linear(global_width, 1),
                                                              std=1.0))
        self.place_slices = [BLOCK[name] for name in CARD_BLOCKS]

    def tokens(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The card tokens (B, 48, inputs), the global inputs and the place one-hots."""
        places = torch.stack([obs[:, s] for s in self.place_slices], dim=2)  # (B, 48, 6)
        hand, field, own, opp, unseen, pending = places.unbind(2)
        at_field, at_unseen, at_hand, at_piles = (
            torch.stack([field, unseen, hand, own + opp]) @ self.same_month)
        flags = torch.stack([hand * (at_field > 0), field * (at_hand - hand > 0),
                             field * (at_unseen > 0)], dim=2)
        counts = torch.stack([at_field, at_unseen, at_hand, at_piles], dim=2) / 4.0
        cards = torch.cat([places, counts, flags], dim=2)
        free = hand + field + unseen + pending
        own_g, opp_g, free_g = torch.stack([own, opp, free]) @ self.group_share
        glob = torch.cat([obs[:, BLOCK["phase"].start:], own_g, opp_g, free_g], dim=1)
        return cards, glob, places

    def forward(self, obs: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at MASKED_LOGIT) and state values."""
        card_inputs, global_inputs, places = self.tokens(obs)
        cards = (self.card_in(card_inputs) + self.attribute_in(self.attributes)
                 + self.identity)
        glob = self.global_in(global_inputs)
        for block in self.blocks:
            cards, glob = block(cards, glob, places, self.group_members, self.group_share)
        cards, glob = self.card_norm(cards), self.global_norm(glob)
        logits = torch.empty(obs.shape[0], NUM_ACTIONS, dtype=cards.dtype, device=obs.device)
        logits[:, :48] = self.play_head(cards)[..., 0]
        logits[:, CHOOSE_OFFSET:CHOOSE_OFFSET + 48] = self.take_head(cards)[..., 0]
        logits[:, [STOP, KOIKOI]] = self.decide_head(glob)
        return logits.masked_fill(~mask, MASKED_LOGIT), self.value_head(glob).squeeze(-1)


def card_graph_shapes(spec: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The weight shapes of the network ``spec`` names, by state-dict name, built on the
    meta device (no memory): a checkpoint's claims are compared with them first."""
    with torch.device("meta"):
        net = CardGraphNet(**spec)
    return {name: tuple(t.shape) for name, t in net.state_dict().items()}


def spec_problem(spec: dict[str, Any]) -> str | None:
    """Why ``spec`` (a checkpoint's or a config's ``network``) does not name a card-graph
    network that can be built here, or None."""
    allowed = {"architecture", "width", "global_width", "blocks", "obs_dim", "n_actions"}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        return f"unknown keys {unknown}; a {ARCHITECTURE} network takes {sorted(allowed)}"
    for key, high in (("width", MAX_WIDTH), ("global_width", MAX_GLOBAL),
                      ("blocks", MAX_BLOCKS)):
        value = spec.get(key, 1)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
            return f"{key}={value!r}; a {ARCHITECTURE} network has {key} from 1 to {high}"
    return None
