"""Baseline agents: random and greedy, plus the card-action outcomes the expert shares.

Both read only the observation and the legal-action mask (see ``agents.bots.base``) and work on
whole batches: candidate actions are flattened to rows (at most 8 per game), valued with
NumPy, and the best one per game is taken.

* :class:`RandomAgent` — uniform over the legal actions.
* :class:`GreedyAgent` — the capture worth most card points now (bright 20, animal 10,
  ribbon 5, chaff 1, the classic Hana-awase card values); with no capture it lays down its
  least valuable card. Fixed koi-koi rule: **always stop** (bank the points at once).

The rules-aware expert heuristic is :class:`agents.bots.expert.ExpertAgent`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.bots.base import Agent, View, argmax_per_row, decode, legal_candidates
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import STOP

_U64 = np.uint64
_KIND_MASKS = np.array([C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS], dtype=_U64)
_KIND_POINTS = np.array([20.0, 10.0, 5.0, 1.0])


def card_points(bits: np.ndarray) -> np.ndarray:
    """Hana-awase card points of each set: a simple, rule-free measure of a capture."""
    counts = np.bitwise_count(np.asarray(bits, dtype=_U64)[..., None] & _KIND_MASKS)
    return counts @ _KIND_POINTS


def _lowest_bit(bits: np.ndarray) -> np.ndarray:
    return bits & (~bits + _U64(1))


@dataclass
class Outcomes:
    """The immediate effect of each candidate card action (one row per outcome).

    A play that matches two field cards has two outcomes (one per field card the player
    would take next); such a play is worth its better outcome.
    """

    row: np.ndarray  # game row in the batch
    action: np.ndarray
    captured: np.ndarray  # uint64: cards that go to the player's pile
    placed: np.ndarray  # uint64: card laid on the field (no match)
    taken: np.ndarray  # uint64: field cards that leave the field
    played: np.ndarray  # uint64: card that leaves the hand


def card_outcomes(view: View, rows: np.ndarray, actions: np.ndarray) -> Outcomes:
    """Outcomes of play (0-47) and take (48-95) actions, following RULES.md §2.2."""
    field = view.field[rows]
    is_play = actions < 48
    card = np.where(is_play, actions, actions - 48)
    bit = C.CARD_BITS[card]
    matches = np.where(is_play, field & C.MONTH_MASK_OF_CARD[card], _U64(0))
    count = np.bitwise_count(matches)
    pending = C.CARD_BITS[np.maximum(view.pending[rows], 0)]
    # play with 2 matches: first outcome takes the lower field card, a copy takes the other
    low = _lowest_bit(matches)
    taken = np.where(is_play, np.where(count == 2, low, matches), bit)
    captured = np.where(is_play, np.where(count > 0, taken | bit, _U64(0)), bit | pending)
    placed = np.where(is_play & (count == 0), bit, _U64(0))
    played = np.where(is_play, bit, _U64(0))
    two = np.flatnonzero(count == 2)
    high = matches[two] & ~low[two]
    return Outcomes(
        row=np.concatenate([rows, rows[two]]), action=np.concatenate([actions, actions[two]]),
        captured=np.concatenate([captured, high | bit[two]]),
        placed=np.concatenate([placed, placed[two]]),
        taken=np.concatenate([taken, high]), played=np.concatenate([played, played[two]]))


class RandomAgent(Agent):
    """Uniformly random legal actions: the floor every other agent must clear."""

    name = "random"
    reads_rules = False

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        keys = self.rng.random(mask.shape)
        return np.where(mask, keys, -1.0).argmax(axis=1)


class GreedyAgent(Agent):
    """Takes the capture worth most card points now; always stops when it makes yaku.

    Without a capture it lays down its least valuable card. Ties break at random, so two
    greedy agents do not mirror each other.
    """

    name = "greedy"
    reads_rules = False  # fixed card points, always stops

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        view = decode(obs, self.rules)
        actions = np.full(len(obs), STOP, dtype=np.int64)  # the fixed koi-koi rule
        cards = mask[:, :96]
        rows, acts = legal_candidates(cards)
        if len(rows):
            out = card_outcomes(view, rows, acts)
            value = card_points(out.captured) - 0.01 * card_points(out.placed)
            value = value + 1e-3 * self.rng.random(len(value))
            chosen = argmax_per_row(out.row, out.action, value, len(obs))
            actions = np.where(chosen >= 0, chosen, actions)
        return actions
