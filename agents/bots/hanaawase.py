"""Hana-awase bots (RULES.md §3): random, greedy and an expert heuristic.

They follow the Koi-Koi agents' protocol (``act(obs, mask) -> actions``) on Hana-awase
observations (``hanafuda_env.hanaawase.observation``: ``(B, D)`` float32, ``(B, 96)`` masks)
and read nothing else, so they play in the batched evaluator, in ``hanaawase_v0`` and
against a person alike. The player count follows from the observation's width; the rules
give the card points and the yaku table (the variants).

* :class:`HanaawaseRandom` — uniform over the legal actions.
* :class:`HanaawaseGreedy` — what the action scores now: card points captured plus the yaku
  it completes (weighted as the score formula weighs own yaku); with nothing to capture it
  gives away its least valuable card.
* :class:`HanaawaseExpert` — plays like a decent human: values captures by points, aims at
  the yaku it can still reach (progress weighted by the turns left), denies the cards the
  others need for theirs, and avoids laying down valuable cards that the next players can
  take.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.bots.base import Agent
from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.hanaawase.scoring import hanaawase_yaku_table
from hanafuda_env.hanaawase.state import NUM_ACTIONS
from hanafuda_env.koikoi.scoring import score_pile

_MONTH = [C.month_mask(c.month) for c in C.DECK]


@dataclass
class Seen:
    """One observation row as card sets and numbers; per-seat lists are relative to the
    viewer (index 0), in turn order."""

    n: int
    hand: int
    field: int
    pending: int  # card id, -1 when none
    unseen: int
    piles: list[int]
    shown: list[int]
    stock_left: float  # fraction of the stock still to draw
    phase: int  # 0 play, 1 choose for the played card, 2 for the drawn card


def players_of(width: int) -> int:
    n, rest = divmod(width - 197, 100)
    if rest or not 2 <= n <= 7:
        raise ValueError(f"a Hana-awase observation has 197 + 100·N values for N = 2..7 "
                         f"players, got {width}")
    return n


def _bits(row: np.ndarray) -> int:
    return C.mask_of(np.flatnonzero(row > 0.5).tolist())


def read(obs: np.ndarray) -> Seen:
    n = players_of(obs.shape[0])
    pending = np.flatnonzero(obs[96:144] > 0.5)
    numbers = 192 + 96 * n
    return Seen(n=n, hand=_bits(obs[0:48]), field=_bits(obs[48:96]),
                pending=int(pending[0]) if len(pending) else -1, unseen=_bits(obs[144:192]),
                piles=[_bits(obs[192 + 48 * k:240 + 48 * k]) for k in range(n)],
                shown=[_bits(obs[192 + 48 * (n + k):240 + 48 * (n + k)]) for k in range(n)],
                stock_left=float(obs[numbers + 4 * n + 3]),
                phase=int(np.argmax(obs[numbers + 4 * n:numbers + 4 * n + 3])))


def check_inputs(obs: np.ndarray, mask: np.ndarray, need_action: bool = True
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A batch of Hana-awase observations and masks as arrays, or a ValueError naming what is
    wrong with its layout (and, with ``need_action``, a row that allows no action)."""
    obs = np.asarray(obs, dtype=np.float32)
    mask = np.asarray(mask, dtype=bool)
    if obs.ndim != 2:
        raise ValueError(f"obs must have shape (B, D), got {obs.shape}")
    players_of(obs.shape[1])
    if mask.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"mask must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got "
                         f"{mask.shape}")
    if need_action and len(mask) and not mask.any(axis=1).all():
        raise ValueError(f"row {int(np.flatnonzero(~mask.any(axis=1))[0])} of the mask "
                         f"allows no action")
    return obs, mask


class HanaawaseAgent(Agent):
    """Base of the Hana-awase bots: the agent base with Hana-awase rules (``options`` such as
    ``num_players=4`` apply on top) and observations, one choice per row."""

    name = "hanaawase-agent"

    def __init__(self, rules: HanaawaseRules | dict | None = None, seed: int | None = None,
                 name: str | None = None, **options):
        super().__init__(resolve_hanaawase_rules(rules, **options), seed, name)

    @staticmethod
    def read_rules(rules: HanaawaseRules | dict | None) -> HanaawaseRules:
        return resolve_hanaawase_rules(rules)

    def check(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return check_inputs(obs, mask)

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([self._choose(obs[g], np.flatnonzero(mask[g])) for g in range(len(obs))],
                        dtype=np.int64)

    def _choose(self, obs: np.ndarray, legal: np.ndarray) -> int:
        seen = read(obs)
        values = np.array([self.value(seen, int(a)) for a in legal], dtype=np.float64)
        values += 1e-6 * self.rng.random(len(values))  # ties broken at random
        return int(legal[int(np.argmax(values))])

    def value(self, seen: Seen, action: int) -> float:
        """What the action is worth to the player who sees ``seen``."""
        raise NotImplementedError


class HanaawaseRandom(HanaawaseAgent):
    name = "random"

    def _choose(self, obs: np.ndarray, legal: np.ndarray) -> int:
        return int(self.rng.choice(legal))


def captures(seen: Seen, action: int) -> list[tuple[int, int]]:
    """The outcomes of an action: (cards to the player's pile, card laid on the field) per
    way it can go (a played card matching two field cards: one outcome per choice)."""
    if action >= 48:
        card = action - 48
        return [((1 << card) | (1 << seen.pending), 0)]
    matches = seen.field & _MONTH[action]
    count = matches.bit_count()
    if count == 0:
        return [(0, 1 << action)]
    if count == 2:
        return [((1 << action) | (1 << c), 0) for c in C.ids_of(matches)]
    return [((1 << action) | matches, 0)]


class HanaawaseGreedy(HanaawaseAgent):
    name = "greedy"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.points = self.rules.card_points
        self.table = hanaawase_yaku_table(self.rules)

    def cards(self, bits: int) -> int:
        return sum(self.points[c] for c in C.ids_of(bits))

    def yaku(self, pile: int) -> int:
        return sum(score_pile(pile, self.table).values())

    def value(self, seen: Seen, action: int) -> float:
        best = -np.inf
        for taken, laid in captures(seen, action):
            if laid:
                gain = -float(self.cards(laid))
            else:
                gain = self.cards(taken) + (seen.n - 1) * (
                    self.yaku(seen.piles[0] | taken) - self.yaku(seen.piles[0]))
            best = max(best, gain)
        return float(best)


@dataclass(frozen=True)
class ExpertWeights:
    """How much the expert cares about each part of an action's value."""

    progress: float = 0.3  # a reachable yaku's points × progress², times the stock left
    denial: float = 0.4  # the others' reachable yaku points that a capture takes away
    exposure: float = 1.0  # card points laid down that a next player can take


class HanaawaseExpert(HanaawaseGreedy):
    name = "expert"

    def __init__(self, *args, weights: ExpertWeights | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.weights = weights or ExpertWeights()
        self._yaku = [(y.points, y.conditions) for y in self.table]

    def potential(self, pile: int, available: int, time_left: float) -> float:
        """Yaku made, plus the points of those still reachable (their cards in ``pile`` or
        ``available``) by how far along they are."""
        total, made = 0.0, False
        weight = self.weights.progress * time_left
        for points, conditions in self._yaku:
            progress = 1.0
            for mask, needed in conditions:
                held = (pile & mask).bit_count()
                if held >= needed:
                    continue
                if held + (available & mask).bit_count() < needed:
                    progress = 0.0
                    break
                progress = min(progress, held / needed)
            if progress >= 1.0:
                made = True
            else:
                total += weight * points * progress * progress
        if made:  # the table's replacements decide what the made yaku are worth
            total += sum(score_pile(pile, self.table).values())
        return total

    def _context(self, seen: Seen) -> tuple:
        """What every candidate action of one decision shares: the turns left, the cards
        still free (for the viewer) and reachable (for the others), and the potentials
        before the move."""
        time_left = max(seen.stock_left, 0.1)
        pending = 1 << seen.pending if seen.pending >= 0 else 0
        free = seen.field | seen.unseen | seen.hand | pending
        reach = free
        for k in range(1, seen.n):
            reach |= seen.shown[k]
        return (seen, time_left, free, reach, self.potential(seen.piles[0], free, time_left),
                [self.potential(seen.piles[k], reach, time_left) for k in range(1, seen.n)])

    def _choose(self, obs: np.ndarray, legal: np.ndarray) -> int:
        context = self._context(read(obs))
        values = np.array([self._value(context, int(a)) for a in legal], dtype=np.float64)
        values += 1e-6 * self.rng.random(len(values))
        return int(legal[int(np.argmax(values))])

    def value(self, seen: Seen, action: int) -> float:
        return self._value(self._context(seen), action)

    def _value(self, context: tuple, action: int) -> float:
        seen, time_left, free, reach, before, others_before = context
        n, w = seen.n, self.weights
        best = -np.inf
        for taken, laid in captures(seen, action):
            value = float(self.cards(taken))
            if taken:
                value += (n - 1) * (self.potential(seen.piles[0] | taken, free & ~taken,
                                                   time_left) - before)
                for k in range(1, n):
                    value += w.denial * (others_before[k - 1] - self.potential(
                        seen.piles[k], reach & ~taken, time_left))
            if laid:
                value -= self.cards(laid) * 0.2
                value -= w.exposure * self._exposure(seen, laid)
            best = max(best, value)
        return float(best)

    def _exposure(self, seen: Seen, laid: int) -> float:
        """The card points a laid card is likely to give the others: a month with cards
        still hidden is taken by whoever plays or draws one first, most likely someone else,
        unless the player keeps a card of the month to take it back with; a month with no
        card left hidden stays put."""
        card = laid.bit_length() - 1
        month = _MONTH[card]
        if not seen.unseen & month:
            return 0.0
        keeps = bool(seen.hand & month & ~laid)
        others = (seen.n - 1) / seen.n
        return self.cards(laid) * (others / 2 if keeps else others)


HANAAWASE_BOTS = {"random": HanaawaseRandom, "greedy": HanaawaseGreedy,
                  "expert": HanaawaseExpert}
