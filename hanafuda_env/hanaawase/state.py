"""The Hana-awase game state as one structured array: one record per game (RULES.md §3).

Like Koi-Koi's :mod:`~hanafuda_env.koikoi.state`: :class:`HanaawaseState` documents every field,
a batch is one NumPy array of :data:`HA_STATE_DTYPE` records that the compiled kernel takes
as one argument, and :func:`check_hanaawase_state` refuses a state no game could reach,
naming the field. Seats are 0..N−1 (N ≤ 7; the arrays have room for seven and seats from N
on stay empty); play goes from the dealer around the table in seat order.

The phases are Koi-Koi's without the koi-koi decision: ``PLAY`` a card (actions 0–47),
``CHOOSE_PLAYED`` / ``CHOOSE_DRAWN`` a field card for the card that matches two
(48 + field card), then ``ROUND_OVER`` or ``MATCH_OVER`` until the next deal.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.rules import MAX_PLAYERS, MAX_STOCK, HanaawaseRules
from hanafuda_env.koikoi.state import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    MATCH_OVER,
    PHASE_NAMES,
    PLAY,
    ROUND_OVER,
    StateError,
    field_spec,
    new_states,
    refuse_impossible_turns,
    refuse_lost_cards,
)

__all__ = ["CHOOSE_DRAWN", "CHOOSE_PLAYED", "MATCH_OVER", "PLAY", "ROUND_OVER"]
NUM_ACTIONS = 96  # play a card (0–47), choose a field card (48–95)
MAX_YAKU_COLUMNS = 20  # a round's yaku breakdown: the pile table and the variants' yaku
HAND_YAKU_NONE, HAND_YAKU_NANA, HAND_YAKU_ROKU = 0, 1, 2
HA_PHASES = (PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, ROUND_OVER, MATCH_OVER)


@dataclass
class HanaawaseState:
    """One field per attribute, with its dtype, per-game shape and meaning in the field's
    metadata (``dataclasses.fields(HanaawaseState)``)."""

    hands: np.ndarray = field_spec(np.uint64, (MAX_PLAYERS,), "each seat's hand, a 48-bit set")
    field: np.ndarray = field_spec(np.uint64, (), "cards face up on the field")
    piles: np.ndarray = field_spec(np.uint64, (MAX_PLAYERS,), "each seat's capture pile")
    stock: np.ndarray = field_spec(np.int8, (MAX_STOCK,), "the stock's card ids, top first")
    stock_pos: np.ndarray = field_spec(np.int8, (), "index of the next card to draw")
    dealer: np.ndarray = field_spec(np.int8, (), "seat that deals (and moves first) this round")
    mover: np.ndarray = field_spec(np.int8, (), "seat to move")
    phase: np.ndarray = field_spec(np.int8, (), "PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, ROUND_OVER "
                              "or MATCH_OVER")
    pending: np.ndarray = field_spec(np.int8, (), "card waiting for a field choice, -1 if none")
    hand_yaku: np.ndarray = field_spec(np.int8, (MAX_PLAYERS,), "declared hand yaku per seat: "
                                  "0 none, 1 nana-kasu, 2 roku-kasu")
    declared: np.ndarray = field_spec(np.uint64, (MAX_PLAYERS,), "the chaff each seat showed "
                                 "when declaring (public to every player)")
    turn: np.ndarray = field_spec(np.int16, (), "turns completed this round")
    round_index: np.ndarray = field_spec(np.int16, (), "rounds of the match finished")
    match_score: np.ndarray = field_spec(np.int32, (MAX_PLAYERS,), "each seat's score summed "
                                    "over the match's rounds (the score table, §3.2)")
    seed: np.ndarray = field_spec(np.uint64, (), "the game's seed: its deals hash it with "
                             "deal_count")
    deal_count: np.ndarray = field_spec(np.uint64, (), "shuffles drawn from the seed so far")


HA_STATE_FIELDS = tuple(f.name for f in dataclasses.fields(HanaawaseState))
HA_STATE_DTYPE = np.dtype([(f.name, f.metadata["dtype"], f.metadata["shape"])
                           for f in dataclasses.fields(HanaawaseState)], align=True)

# One finished round (and, where ``match_over``, its match) per row; seats from N on are 0.
HA_RESULT_DTYPE = np.dtype([
    ("round_index", np.int16), ("dealer", np.int8), ("next_dealer", np.int8),
    ("card_points", np.int16, (MAX_PLAYERS,)),
    ("yaku", np.int16, (MAX_PLAYERS, MAX_YAKU_COLUMNS)),
    ("yaku_total", np.int16, (MAX_PLAYERS,)), ("score", np.int32, (MAX_PLAYERS,)),
    ("rank", np.int8, (MAX_PLAYERS,)),  # 0 for the top score: players scoring more, per seat
    ("void", np.bool_), ("cancelled", np.bool_), ("piles", np.uint64, (MAX_PLAYERS,)),
    ("match_over", np.bool_), ("match_scores", np.int32, (MAX_PLAYERS,)),
    ("match_ranks", np.int8, (MAX_PLAYERS,)),
    ("match_rounds", np.int16),
], align=True)


def new_hanaawase_states(n_games: int) -> np.ndarray:
    """A zeroed batch (every game still to be dealt: phase MATCH_OVER)."""
    return new_states(n_games, HA_STATE_DTYPE)


def check_hanaawase_state(records: Any, rules: HanaawaseRules,
                          n_games: int | None = None) -> np.ndarray:
    """``records`` as a fresh :data:`HA_STATE_DTYPE` batch for ``rules``' player count, or a
    :class:`~hanafuda_env.koikoi.state.StateError` naming the first field no game could hold."""
    given = np.asarray(records)
    if given.dtype != HA_STATE_DTYPE or given.ndim != 1:
        raise StateError(f"a Hana-awase state is a 1-d array of HA_STATE_DTYPE records, got "
                         f"dtype {given.dtype} and shape {given.shape}")
    s = given.copy()
    if n_games is not None and len(s) != n_games:
        raise StateError(f"the state holds {len(s)} games, expected {n_games}")
    n = rules.num_players

    def refuse(bad: np.ndarray, name: str, why: str) -> None:
        if bad.any():
            raise StateError(f"game {int(np.flatnonzero(bad)[0])}: state field {name!r} {why}")

    refuse(~np.isin(s["phase"], HA_PHASES), "phase", "must be one of " + ", ".join(
        f"{p} ({PHASE_NAMES[p]})" for p in HA_PHASES))
    refuse((s["stock_pos"] < 0) | (s["stock_pos"] > rules.stock_size), "stock_pos",
           f"must be 0..{rules.stock_size}")
    for name in ("dealer", "mover"):
        refuse((s[name] < 0) | (s[name] >= n), name, f"must be a seat 0..{n - 1}")
    choosing = (s["phase"] == CHOOSE_PLAYED) | (s["phase"] == CHOOSE_DRAWN)
    refuse(choosing != (s["pending"] >= 0), "pending",
           "must name a card in the choose phases and be -1 otherwise")
    refuse(s["pending"] >= C.NUM_CARDS, "pending", "must be -1 or a card id 0..47")
    stock = s["stock"][:, :rules.stock_size].astype(np.int64)
    refuse(((stock < 0) | (stock >= C.NUM_CARDS)).any(axis=1), "stock",
           "must hold card ids 0..47")
    refuse((s["hand_yaku"] < 0).any(axis=1) | (s["hand_yaku"] > HAND_YAKU_ROKU).any(axis=1),
           "hand_yaku", "must be 0 (none), 1 (nana-kasu) or 2 (roku-kasu)")
    for name in ("hands", "piles", "declared"):
        refuse((s[name] >> np.uint64(C.NUM_CARDS) != 0).any(axis=1), name,
               "holds bits beyond the 48 cards")
        refuse((s[name][:, n:] != 0).any(axis=1), name, f"holds cards for a seat past {n - 1}")
    refuse(s["field"] >> np.uint64(C.NUM_CARDS) != 0, "field", "holds bits beyond the 48 cards")
    refuse((np.bitwise_count(s["hands"]) > rules.hand_size).any(axis=1), "hands",
           f"holds more than {rules.hand_size} cards")
    for name in ("turn", "round_index"):
        refuse(s[name] < 0, name, "must not be negative")
    refuse(s["round_index"] > rules.rounds, "round_index", f"must be 0..{rules.rounds}")
    refuse((s["phase"] != MATCH_OVER) & (s["round_index"] >= rules.rounds), "round_index",
           f"must be below {rules.rounds} (the rounds of a match) unless the match is over")
    refuse_lost_cards(s, n, rules.stock_size, s["phase"] < ROUND_OVER, refuse)
    refuse_impossible_turns(s, n, rules.hand_size, np.zeros(len(s), dtype=bool), refuse)
    return s
