"""The one observation encoding of the project, computed for a whole batch at once.

A player's observation is a float32 vector of ``OBS_DIM`` values in this order:

====================  =====  ================================================================
block                 size   content
====================  =====  ================================================================
``hand``              48     own hand (1 = holds the card)
``field``             48     cards face up on the field
``own_pile``          48     own capture pile
``opp_pile``          48     opponent's capture pile
``unseen``            48     opponent's hand and the stock together (indistinguishable)
``pending``           48     the played/drawn card waiting for a field choice (one-hot)
``phase``             4      one-hot: play, choose-played, choose-drawn, koi-koi decision
``scalars``           14     see ``SCALAR_NAMES``
====================  =====  ================================================================

Scalars are scaled to small ranges: card counts by their maximum, yaku totals and scores by
ten points of the rule set's unit (``RuleSet.point_unit``: what a further card adds, at least
1; 1 for Nintendo, 10 for ten-base).
Everything an observation holds is visible to its player, so rearranging the opponent's hand
and the stock among themselves leaves it unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import popcount
from hanafuda_env.common.indices import check_index
from hanafuda_env.koikoi.deals import HAND_SIZE, STOCK_SIZE
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules
from hanafuda_env.koikoi.state import N_DECISION_PHASES, PHASE_NAMES

CARD_BLOCKS = ("hand", "field", "own_pile", "opp_pile", "unseen", "pending")
SCALAR_NAMES = (
    "stock_left",  # stock cards / 24
    "own_hand_size",  # / 8
    "opp_hand_size",  # / 8
    "own_called_koikoi",  # 1 if this player called koi-koi this round
    "opp_called_koikoi",
    "own_koikoi_calls",  # this player's koi-koi calls this round / 8 (own_koikoi_bonus)
    "opp_koikoi_calls",
    "own_yaku_total",  # / (10 * unit), clipped to [0, 10]
    "opp_yaku_total",
    "is_dealer",
    "round_progress",  # rounds played / rounds of the match
    "rounds_left",  # rounds left including this one / rounds of the match
    "score_diff",  # match lead: own points won - the opponent's (the own zero-sum match
    # score), / (10 * unit), clipped to [-10, 10]
    "own_points_left",  # starting_points + the lead, / (10 * unit), clipped to [-10, 10]; 0
    # when the rules give no starting stake
)
CALLS_SCALE = 8  # more calls than turns in a round cannot be made
N_PHASES = N_DECISION_PHASES  # a finished round's observation has no phase bit
OBS_DIM = 48 * len(CARD_BLOCKS) + N_PHASES + len(SCALAR_NAMES)
# Raised whenever an entry changes meaning: a checkpoint records the version it was trained
# on, and one of another version is refused (its network would read other inputs).
OBS_VERSION = 3

# Slices of each block in the vector, for agents that read observations.
BLOCK: dict[str, slice] = {name: slice(48 * i, 48 * (i + 1)) for i, name in enumerate(CARD_BLOCKS)}
BLOCK["phase"] = slice(48 * len(CARD_BLOCKS), 48 * len(CARD_BLOCKS) + N_PHASES)
BLOCK["scalars"] = slice(BLOCK["phase"].stop, OBS_DIM)
SCALAR_INDEX = {name: BLOCK["scalars"].start + i for i, name in enumerate(SCALAR_NAMES)}

TOTAL_CLIP, SCORE_CLIP = 10.0, 10.0


def score_unit(rules: RuleSet) -> float:
    """What yaku totals and scores are divided by: ten points of the rule set's unit
    (:attr:`RuleSet.point_unit`), so both rule sets give similar magnitudes."""
    return 10.0 * rules.point_unit


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every entry, as the encoder produces them."""
    low = np.zeros(OBS_DIM, dtype=np.float32)
    high = np.ones(OBS_DIM, dtype=np.float32)
    for name in ("own_yaku_total", "opp_yaku_total"):
        high[SCALAR_INDEX[name]] = TOTAL_CLIP
    for name in ("score_diff", "own_points_left"):
        low[SCALAR_INDEX[name]] = -SCORE_CLIP
        high[SCALAR_INDEX[name]] = SCORE_CLIP
    return low, high


def encode_observations(engine: Any, seats: int | np.ndarray | None = None,
                        out: np.ndarray | None = None) -> np.ndarray:
    """(B, OBS_DIM) float32 observations of ``seats`` (default: the player to move) in every
    game of an engine (``KoiKoiCore`` or ``KoiKoiGame``: anything with ``records`` and
    ``rules``), computed by the compiled encoder."""
    records = engine.records
    b = len(records)
    if seats is None:
        seat_of = records["mover"].astype(np.int64)
    else:
        given = np.asarray(seats)
        if given.dtype.kind not in "iu" or given.shape not in ((), (b,)) or (
                (given < 0) | (given > 1)).any():
            raise ValueError(f"seats must be 0 or 1, or one per game ({b}), got {seats!r}")
        seat_of = (np.full(b, given, dtype=np.int64) if given.ndim == 0 else
                   np.ascontiguousarray(given, dtype=np.int64))
    direct = out is not None and out.dtype == np.float32 and out.flags.c_contiguous
    obs = out if direct else np.empty((b, OBS_DIM), dtype=np.float32)
    encode_rows(records, seat_of, *_scales(engine.rules), obs)
    if out is not None and not direct:  # a caller's array of another layout or float dtype
        out[...] = obs
        return out
    return obs


_SCALES: dict[int, tuple[RuleSet, tuple[float, float, float]]] = {}


def _scales(rules: RuleSet) -> tuple[float, float, float]:
    """The encoder's point unit, rounds and stake (-1: none) of a rule set, kept by the
    rule set's identity (hashing a rule set costs more than the encoding of one game)."""
    kept = _SCALES.get(id(rules))
    if kept is None or kept[0] is not rules:
        stake = -1.0 if rules.starting_points is None else float(rules.starting_points)
        kept = _SCALES[id(rules)] = (rules, (score_unit(rules), float(rules.rounds), stake))
    return kept[1]


_AT_SCALARS = BLOCK["scalars"].start
_AT_PHASE = BLOCK["phase"].start
_AT_STOCK_LEFT, _AT_OWN_HAND, _AT_OPP_HAND, _AT_OWN_CALLED, _AT_OPP_CALLED, _AT_OWN_CALLS, \
    _AT_OPP_CALLS, _AT_OWN_TOTAL, _AT_OPP_TOTAL, _AT_DEALER, _AT_PROGRESS, _AT_LEFT, \
    _AT_DIFF, _AT_POINTS_LEFT = (SCALAR_INDEX[name] for name in SCALAR_NAMES)
_ALL = np.uint64(C.ALL_CARDS)


_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32)  # byte -> 8 bits


@njit(cache=True)
def _bits_into(row, start, bits) -> None:
    """A 48-bit set as 48 floats 0/1, a byte at a time from a table."""
    for k in range(6):
        source = _BYTE_BITS[(bits >> np.uint64(8 * k)) & np.uint64(0xFF)]
        for j in range(8):
            row[start + 8 * k + j] = source[j]


@njit(cache=True)
def encode_rows(records, seats, unit, rounds, stake, out) -> None:
    """The encoder: one observation row per game (see the module docstring for the layout;
    ``stake`` < 0 means the rules give no starting points)."""
    for g in range(records.shape[0]):
        s = records[g]
        me = seats[g]
        other = 1 - me
        row = out[g]
        pending = np.uint64(0) if s.pending < 0 else np.uint64(1) << np.uint64(s.pending)
        own_hand, opp_hand = s.hands[me], s.hands[other]
        own_pile, opp_pile = s.piles[me], s.piles[other]
        unseen = _ALL & ~(own_hand | s.field | own_pile | opp_pile | pending)
        _bits_into(row, 0, own_hand)
        _bits_into(row, 48, s.field)
        _bits_into(row, 96, own_pile)
        _bits_into(row, 144, opp_pile)
        _bits_into(row, 192, unseen)
        _bits_into(row, 240, pending)
        for p in range(N_PHASES):
            row[_AT_PHASE + p] = 1.0 if s.phase == p else 0.0
        own_calls, opp_calls = s.koikoi_calls[me], s.koikoi_calls[other]
        diff = s.match_score[me] / unit  # zero-sum: the lead
        row[_AT_STOCK_LEFT] = (STOCK_SIZE - s.stock_pos) / STOCK_SIZE
        row[_AT_OWN_HAND] = popcount(own_hand) / HAND_SIZE
        row[_AT_OPP_HAND] = popcount(opp_hand) / HAND_SIZE
        row[_AT_OWN_CALLED] = 1.0 if own_calls > 0 else 0.0
        row[_AT_OPP_CALLED] = 1.0 if opp_calls > 0 else 0.0
        row[_AT_OWN_CALLS] = own_calls / CALLS_SCALE
        row[_AT_OPP_CALLS] = opp_calls / CALLS_SCALE
        row[_AT_OWN_TOTAL] = min(s.yaku_total[me] / unit, TOTAL_CLIP)
        row[_AT_OPP_TOTAL] = min(s.yaku_total[other] / unit, TOTAL_CLIP)
        row[_AT_DEALER] = 1.0 if s.dealer == me else 0.0
        row[_AT_PROGRESS] = s.round_index / rounds
        row[_AT_LEFT] = (rounds - s.round_index) / rounds
        row[_AT_DIFF] = min(max(diff, -SCORE_CLIP), SCORE_CLIP)
        left = 0.0
        if stake >= 0:
            left = min(max((stake + s.match_score[me]) / unit, -SCORE_CLIP), SCORE_CLIP)
        row[_AT_POINTS_LEFT] = left


# ------------------------------------------------------------- hidden cards (critics only)
HIDDEN_DIM = 2 * 48  # the opponent's hand, then the stock's draw order


def encode_hidden(core: Any, seats: int | np.ndarray | None = None) -> np.ndarray:
    """(B, HIDDEN_DIM) float32: what ``seats`` (default: the player to move) cannot see.

    The first block is the opponent's hand (1 = holds the card); the second is the undrawn
    stock, the next card to be drawn 1.0 and each later one 1/24 less. This is **not** an
    observation: it feeds a training-time critic that judges positions with perfect
    information (lower-variance advantages), while policies keep acting on
    :func:`encode_observations` alone.
    """
    seats = core.mover if seats is None else np.broadcast_to(np.asarray(seats), core.mover.shape)
    b = core.n_games
    out = np.zeros((b, HIDDEN_DIM), dtype=np.float32)
    opp_hand = np.where(seats == 0, core.hands[:, 1], core.hands[:, 0])
    out[:, :48] = C.bits_to_bool(opp_hand).reshape(b, 48)
    ahead = np.arange(STOCK_SIZE)[None, :] - core.stock_pos[:, None].astype(np.intp)
    rows, cols = np.nonzero(ahead >= 0)
    out[rows, 48 + core.stock[rows, cols].astype(np.intp)] = 1.0 - ahead[rows, cols] / STOCK_SIZE
    return out


_SEAT_ROWS = (np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64))


def encode_game(game: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """(OBS_DIM,) float32 observation of ``seat`` in a one-game engine (``KoiKoiGame``)."""
    if out is not None:
        encode_observations(game, seat, out.reshape(1, OBS_DIM))
        return out
    if seat.__class__ is not int or not 0 <= seat <= 1:
        seat = check_index(seat, 2, "seat")
    obs = np.empty((1, OBS_DIM), dtype=np.float32)
    encode_rows(game.records, _SEAT_ROWS[seat], *_scales(game.rules), obs)
    return obs[0]


def describe_observation(obs: np.ndarray, rules: RuleSpec = None) -> str:
    """One observation vector as text: what its player sees, for reading a logged observation
    while debugging a policy. ``rules``: the rule set it was encoded under, as the env
    resolved it (its point unit and its ``rounds``: an env made with ``rounds=3`` needs that).
    Totals and scores at the encoder's clip read as "at least" the clip."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.shape != (OBS_DIM,):
        raise ValueError(f"an observation has shape ({OBS_DIM},), got {obs.shape}")
    rules = resolve_rules(rules)
    unit = score_unit(rules)

    def cards(block: str) -> str:
        return C.describe(int(C.bool_to_bits(obs[BLOCK[block]] > 0.5)))

    def count(name: str, scale: float) -> int:
        return round(float(obs[SCALAR_INDEX[name]]) * scale)

    def flag(name: str) -> bool:
        return bool(obs[SCALAR_INDEX[name]] > 0.5)

    def total(name: str) -> str:
        clipped = obs[SCALAR_INDEX[name]] >= TOTAL_CLIP
        return f"{'at least ' if clipped else ''}{count(name, unit)}"

    def pile(whose: str, side: str) -> str:  # side: "own" or "opp", as the names begin
        calls = count(f"{side}_koikoi_calls", CALLS_SCALE)
        called = (", called koi-koi" + (f" {calls} times" if calls > 1 else "")
                  if flag(f"{side}_called_koikoi") else "")
        return (f"{whose} pile: {cards(f'{side}_pile')}  (yaku total at its last turn's end "
                f"{total(f'{side}_yaku_total')}{called})")

    diff = float(obs[SCALAR_INDEX["score_diff"]])
    score = (f"{'at least' if diff > 0 else 'at most'} {count('score_diff', unit):+d}"
             if abs(diff) >= SCORE_CLIP else f"{count('score_diff', unit):+d}")
    points_left = ""
    if rules.starting_points is not None:
        left = float(obs[SCALAR_INDEX["own_points_left"]])
        edge = ("at least " if left > 0 else "at most ") if abs(left) >= SCORE_CLIP else ""
        points_left = f", points left {edge}{count('own_points_left', unit)}"
    pending = obs[BLOCK["pending"]] > 0.5
    waiting = f", card waiting: {C.card_name(int(pending.argmax()))}" if pending.any() else ""
    return "\n".join([
        f"phase: {PHASE_NAMES[int(obs[BLOCK['phase']].argmax())]}{waiting}",
        f"hand ({count('own_hand_size', HAND_SIZE)}): {cards('hand')}",
        f"field: {cards('field')}",
        pile("own", "own"),
        pile("opponent's", "opp"),
        f"unseen: {count('opp_hand_size', HAND_SIZE)} in the opponent's hand, "
        f"{count('stock_left', STOCK_SIZE)} in the stock: {cards('unseen')}",
        f"{'dealer' if flag('is_dealer') else 'not dealer'}, "
        f"{count('rounds_left', rules.rounds)} of {rules.rounds} rounds left (this one "
        f"included), match lead {score}{points_left}",
    ])
