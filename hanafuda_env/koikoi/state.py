"""The Koi-Koi game state as one structured array: one record per game, a field per rule item.

:class:`State` documents every field (shape per game, dtype, meaning). The engine keeps a
batch as one NumPy array of :data:`STATE_DTYPE` records, so the compiled kernel
(:mod:`hanafuda_env.koikoi.kernel`) takes it as one argument, ``fork`` is fancy indexing and a saved
state is one array; ``state["hands"]`` and the like are views of a field across the batch.
:func:`check_state` refuses a state that no game could reach (a card twice or missing, a
stock position out of range, an unknown phase, a wrong dtype), naming the field.

Phases: a game waits at one decision of the player to move (``mover``) — ``PLAY`` a card
(actions 0–47), ``CHOOSE_PLAYED`` / ``CHOOSE_DRAWN`` a field card for the played or drawn
card that matches two (48 + field card), ``DECIDE`` stop (96) or koi-koi (97) — or it has
finished its round (``ROUND_OVER``) or its match (``MATCH_OVER``) and waits for the next
deal. Result rows of finished rounds have :data:`RESULT_DTYPE`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.deals import HAND_SIZE, STOCK_SIZE
from hanafuda_env.koikoi.rules import MAX_ROUNDS

NUM_ACTIONS = 98
CHOOSE_OFFSET = 48
STOP, KOIKOI = 96, 97

PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE, ROUND_OVER, MATCH_OVER = range(6)
PHASE_NAMES = ("play", "choose-played", "choose-drawn", "koikoi-or-stop", "round-over",
               "match-over")
N_DECISION_PHASES = 4  # phases below this wait for a move
MAX_YAKU = 16  # result rows hold this many yaku columns (a rule set's table and hand yaku)


def field_spec(dtype: Any, shape: tuple[int, ...], meaning: str) -> Any:
    return field(default=None, metadata={"dtype": np.dtype(dtype), "shape": shape,
                                         "meaning": meaning})


@dataclass
class State:
    """One field per attribute, with its dtype, per-game shape and meaning in the field's
    metadata (``dataclasses.fields(State)``). Instances hold views of a structured batch."""

    hands: np.ndarray = field_spec(np.uint64, (2,), "each seat's hand, a 48-bit card set")
    field: np.ndarray = field_spec(np.uint64, (), "cards face up on the field")
    piles: np.ndarray = field_spec(np.uint64, (2,), "each seat's capture pile")
    stock: np.ndarray = field_spec(np.int8, (STOCK_SIZE,), "the stock's card ids, top first")
    stock_pos: np.ndarray = field_spec(np.int8, (), "index of the next card to draw, 0..24")
    dealer: np.ndarray = field_spec(np.int8, (), "seat that deals (and moves first) this round")
    mover: np.ndarray = field_spec(np.int8, (), "seat to move")
    phase: np.ndarray = field_spec(np.int8, (), "PLAY … MATCH_OVER (see the module docstring)")
    pending: np.ndarray = field_spec(np.int8, (), "card waiting for a field choice, -1 if none")
    koikoi_calls: np.ndarray = field_spec(np.int16, (2,), "koi-koi calls per seat this round")
    yaku_total: np.ndarray = field_spec(np.int32, (2,), "each seat's yaku total at its last "
                                   "turn's end (the raised sake yaku from its call on); a "
                                   "turn that captures nothing keeps it, so a state set by "
                                   "hand holds its pile's total")
    turn: np.ndarray = field_spec(np.int16, (), "turns completed this round")
    round_index: np.ndarray = field_spec(np.int16, (), "rounds of the match finished")
    match_score: np.ndarray = field_spec(np.int32, (2,), "zero-sum match score: sum of the "
                                    "rounds' rewards")
    points_won: np.ndarray = field_spec(np.int32, (2,), "points each seat scored this match "
                                   "(for target_score)")
    seed: np.ndarray = field_spec(np.uint64, (), "the game's seed: its deals hash it with "
                             "deal_count")
    deal_count: np.ndarray = field_spec(np.uint64, (), "shuffles drawn from the seed so far")

    @classmethod
    def of(cls, records: np.ndarray) -> State:
        """Named views of a batch of :data:`STATE_DTYPE` records."""
        return cls(**{f.name: records[f.name] for f in dataclasses.fields(cls)})


STATE_FIELDS = tuple(f.name for f in dataclasses.fields(State))
STATE_DTYPE = np.dtype([(f.name, f.metadata["dtype"], f.metadata["shape"])
                        for f in dataclasses.fields(State)], align=True)

# One finished round (and, where ``match_over``, its match) per row.
RESULT_DTYPE = np.dtype([
    ("round_index", np.int16), ("dealer", np.int8), ("winner", np.int8),
    ("base", np.int32), ("multiplier", np.int32), ("points", np.int32),
    ("reward", np.int32, (2,)), ("koikoi_calls", np.int16, (2,)), ("reason", np.int8),
    ("yaku", np.int32, (MAX_YAKU,)), ("piles", np.uint64, (2,)), ("turns", np.int16),
    ("match_over", np.bool_), ("match_winner", np.int8), ("match_scores", np.int32, (2,)),
    ("match_rounds", np.int16),
], align=True)


def new_states(n_games: int, dtype: np.dtype = STATE_DTYPE) -> np.ndarray:
    """A zeroed batch (every game still to be dealt: phase MATCH_OVER); ``dtype``: the game's
    record (Koi-Koi's, or Hana-awase's ``HA_STATE_DTYPE``)."""
    records = np.zeros(n_games, dtype=dtype)
    records["phase"] = MATCH_OVER
    records["pending"] = -1
    return records


class StateError(ValueError):
    """A state that no game reaches: loading it would corrupt the engine."""


def check_state(records: Any, n_games: int | None = None, rules: Any = None) -> np.ndarray:
    """``records`` as a fresh :data:`STATE_DTYPE` batch, or a :class:`StateError` naming the
    first field that no game could hold (every game is checked before anything is used).
    ``rules`` (a ``RuleSet``) also bounds what its matches reach: the rounds, the target
    score, the starting points."""
    if isinstance(records, dict):
        missing = [name for name in STATE_FIELDS if name not in records]
        extra = sorted(set(records) - set(STATE_FIELDS))
        if missing or extra:
            raise StateError(f"a state needs the fields {', '.join(STATE_FIELDS)}; missing "
                             f"{missing or 'none'}, unknown {extra or 'none'}")
        n = n_games if n_games is not None else len(np.atleast_1d(records["phase"]))
        out = np.zeros(n, dtype=STATE_DTYPE)
        for name in STATE_FIELDS:
            out[name] = _field_values(records[name], name, n)
    else:
        given = np.asarray(records)
        if given.dtype != STATE_DTYPE or given.ndim != 1:
            raise StateError(f"a state is a 1-d array of STATE_DTYPE records or a dict of its "
                             f"fields, got dtype {given.dtype} and shape {given.shape}")
        out = given.copy()
    if n_games is not None and len(out) != n_games:
        raise StateError(f"the state holds {len(out)} games, expected {n_games}")
    _check_values(out, rules)
    return out


def with_field(records: np.ndarray, name: str, value: Any, rules: Any = None) -> np.ndarray:
    """A checked copy of ``records`` with field ``name`` set to ``value`` (one value per
    game): what a setter writes, refused like a loaded state (a :class:`StateError` naming
    the field; ``records`` unchanged)."""
    if name not in STATE_FIELDS:
        raise StateError(f"unknown state field {name!r}; the fields: {', '.join(STATE_FIELDS)}")
    state = {field: records[field] for field in STATE_FIELDS}
    state[name] = value
    return check_state(state, len(records), rules)


def _field_values(value: Any, name: str, n: int) -> np.ndarray:
    spec = next(f for f in dataclasses.fields(State) if f.name == name).metadata
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise StateError(f"state field {name!r} must hold integers ({spec['dtype']}), got "
                         f"dtype {array.dtype}")
    if array.shape != (n, *spec["shape"]):
        raise StateError(f"state field {name!r} has shape {array.shape}, expected "
                         f"{(n, *spec['shape'])}")
    info = np.iinfo(spec["dtype"])
    if array.size and (int(array.min()) < info.min or int(array.max()) > info.max):
        raise StateError(f"state field {name!r} holds values outside {spec['dtype']} "
                         f"({info.min}..{info.max})")
    return array.astype(spec["dtype"])


def _first(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad)[0])


def _check_values(s: np.ndarray, rules: Any) -> None:
    def refuse(bad: np.ndarray, name: str, why: str) -> None:
        if bad.any():
            g = _first(bad)
            raise StateError(f"game {g}: state field {name!r} {why}")

    refuse((s["phase"] < 0) | (s["phase"] > MATCH_OVER), "phase",
           f"must be 0..{MATCH_OVER} ({', '.join(PHASE_NAMES)})")
    refuse((s["stock_pos"] < 0) | (s["stock_pos"] > STOCK_SIZE), "stock_pos",
           f"must be 0..{STOCK_SIZE}")
    for name in ("dealer", "mover"):
        refuse((s[name] != 0) & (s[name] != 1), name, "must be 0 or 1")
    refuse((s["pending"] < -1) | (s["pending"] >= C.NUM_CARDS), "pending",
           "must be -1 or a card id 0..47")
    choosing = (s["phase"] == CHOOSE_PLAYED) | (s["phase"] == CHOOSE_DRAWN)
    refuse(choosing != (s["pending"] >= 0), "pending",
           "must name a card in the choose phases and be -1 otherwise")
    stock = s["stock"].astype(np.int64)
    refuse(((stock < 0) | (stock >= C.NUM_CARDS)).any(axis=1), "stock",
           "must hold card ids 0..47")
    for name in ("hands", "piles"):
        refuse((s[name] >> np.uint64(C.NUM_CARDS) != 0).any(axis=1), name,
               "holds bits beyond the 48 cards")
    refuse(s["field"] >> np.uint64(C.NUM_CARDS) != 0, "field", "holds bits beyond the 48 cards")
    refuse((np.bitwise_count(s["hands"]) > HAND_SIZE).any(axis=1), "hands",
           f"holds more than {HAND_SIZE} cards")
    for name in ("koikoi_calls", "turn", "round_index", "yaku_total", "points_won"):
        refuse((s[name] < 0).reshape(len(s), -1).any(axis=1), name, "must not be negative")
    refuse(s["match_score"].astype(np.int64).sum(axis=1) != 0, "match_score",
           "must be zero-sum (each round moves its points from one seat to the other)")
    playing = s["phase"] < N_DECISION_PHASES
    refuse_lost_cards(s, 2, STOCK_SIZE, playing, refuse)
    refuse_impossible_turns(s, 2, HAND_SIZE, s["phase"] == DECIDE, refuse)
    refuse(playing & (s["phase"] == DECIDE) & (_mover_hand(s) == 0), "hands",
           "of the mover must not be empty at a koi-koi decision (the round ends instead)")
    _refuse_beyond_rules(s, rules, refuse)


def _mover_hand(s: np.ndarray) -> np.ndarray:
    return np.take_along_axis(s["hands"], s["mover"].astype(np.intp)[:, None], axis=1)[:, 0]


def _refuse_beyond_rules(s: np.ndarray, rules: Any, refuse: Any) -> None:
    """Round counts (and, with ``rules``, scores) that end a match: only a finished match
    may hold them."""
    rounds = MAX_ROUNDS if rules is None else rules.rounds
    open_match = s["phase"] != MATCH_OVER
    refuse(s["round_index"] > rounds, "round_index", f"must be 0..{rounds}")
    refuse(open_match & (s["round_index"] >= rounds), "round_index",
           f"must be below {rounds} (the rounds of a match) unless the match is over")
    if rules is None:
        return
    if rules.target_score is not None:
        refuse(open_match & (s["points_won"] >= rules.target_score).any(axis=1), "points_won",
               f"reaches the target score {rules.target_score}, which ends the match")
    if rules.starting_points is not None:
        refuse(open_match & (rules.starting_points + s["match_score"].astype(np.int64)
                             <= 0).any(axis=1), "match_score",
               f"leaves a seat none of its {rules.starting_points} starting points, which "
               f"ends the match")


def refuse_impossible_turns(s: np.ndarray, seats: int, hand_size: int, decided: np.ndarray,
                            refuse: Any) -> None:
    """What the turn count fixes in a round in play (each turn plays one card from the
    mover's hand and draws one, the turn passing round the table from the dealer): the
    mover, the cards drawn, every hand's size; a choose phase has exactly two field cards
    to choose from. ``decided``: games whose mover has finished its turn (a koi-koi
    decision)."""
    playing = s["phase"] < ROUND_OVER
    turns = s["turn"].astype(np.int64)
    most = seats * hand_size
    refuse(turns > most, "turn", f"must be 0..{most} ({seats} hands of {hand_size} cards)")
    refuse(playing & ~decided & (turns >= most), "turn",
           f"must be below {most} in a round in play (the round ends with the last card)")
    refuse(playing & decided & (turns < 1), "turn",
           "must be at least 1 at a koi-koi decision (it follows a finished turn)")
    choosing = (s["phase"] == CHOOSE_PLAYED) | (s["phase"] == CHOOSE_DRAWN)
    pending = np.where(choosing, s["pending"], 0).astype(np.intp)
    choices = np.bitwise_count(s["field"] & C.MONTH_MASK_OF_CARD[pending])
    refuse(choosing & (choices != 2), "pending",
           "must match exactly two field cards in a choose phase (its choices)")
    dealer, mover = s["dealer"].astype(np.int64), s["mover"].astype(np.int64)
    moved = turns - decided  # the turns before the mover's
    refuse(playing & (mover != (dealer + moved) % seats), "mover",
           f"must be the seat whose turn it is: (dealer + turn) mod {seats}, the turn passing "
           f"round the table")
    drawn = turns + (s["phase"] == CHOOSE_DRAWN)
    refuse(playing & (s["stock_pos"] != drawn), "stock_pos",
           "must be the number of cards drawn: one a turn (the turn count, plus the card "
           "drawn in the choose-drawn phase)")
    position = (np.arange(seats)[None, :] - dealer[:, None]) % seats
    played = turns[:, None] // seats + (position < (turns % seats)[:, None])
    played += choosing[:, None] & (np.arange(seats)[None, :] == mover[:, None])
    held = np.bitwise_count(s["hands"][:, :seats]).astype(np.int64)
    refuse(playing & (held != hand_size - played).any(axis=1), "hands",
           f"hold a number of cards the turn count does not leave (each seat is dealt "
           f"{hand_size} and plays one a turn)")


def refuse_lost_cards(s: np.ndarray, seats: int, stock_size: int, in_play: np.ndarray,
                      refuse: Any) -> None:
    """Every card once in a game in play: the seats' hands and piles, the field, the pending
    card and the undrawn stock (``refuse(bad, field, why)`` names the culprit)."""
    stock = s["stock"][:, :stock_size].astype(np.int64)
    undrawn = np.arange(stock_size) >= s["stock_pos"][:, None].astype(np.int64)
    counts = np.zeros((len(s), C.NUM_CARDS), dtype=np.int64)
    for bits in (*s["hands"][:, :seats].T, *s["piles"][:, :seats].T, s["field"]):
        counts += C.bits_to_bool(bits).reshape(len(s), -1)
    pending = s["pending"].astype(np.int64)
    rows = np.flatnonzero(pending >= 0)
    counts[rows, pending[rows]] += 1
    live, slot = np.nonzero(undrawn)
    np.add.at(counts, (live, stock[live, slot]), 1)
    refuse(in_play & (counts != 1).any(axis=1), "hands",
           "with the field, piles, pending card and undrawn stock must hold every card "
           "exactly once")
