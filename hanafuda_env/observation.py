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

import struct

import numpy as np

from . import cards as C
from .core import HAND_SIZE, PHASE_NAMES, STOCK_SIZE, KoiKoiCore
from .game import KoiKoiGame
from .rules import RuleSet, RuleSpec, resolve_rules

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
N_PHASES = 4
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


def encode_observations(core: KoiKoiCore, seats: int | np.ndarray | None = None,
                        out: np.ndarray | None = None) -> np.ndarray:
    """(B, OBS_DIM) float32 observations of ``seats`` (default: the player to move)."""
    seats = core.mover if seats is None else np.broadcast_to(np.asarray(seats), core.mover.shape)
    b = core.n_games
    obs = np.empty((b, OBS_DIM), dtype=np.float32) if out is None else out
    mine = seats == 0
    own_hand = np.where(mine, core.hands[:, 0], core.hands[:, 1])
    opp_hand = np.where(mine, core.hands[:, 1], core.hands[:, 0])
    own_pile = np.where(mine, core.piles[:, 0], core.piles[:, 1])
    opp_pile = np.where(mine, core.piles[:, 1], core.piles[:, 0])
    pending = np.where(core.pending >= 0, C.CARD_BITS[np.maximum(core.pending, 0)], np.uint64(0))
    seen = own_hand | core.field | own_pile | opp_pile | pending
    sets = np.stack([own_hand, core.field, own_pile, opp_pile,
                     np.uint64(C.ALL_CARDS) & ~seen, pending], axis=1)
    obs[:, :48 * len(CARD_BLOCKS)] = C.bits_to_bool(sets).reshape(b, -1)
    phase = BLOCK["phase"]
    obs[:, phase] = 0.0
    obs[np.arange(b), phase.start + core.phase.astype(np.intp)] = 1.0

    rules = core.rules
    unit = score_unit(rules)
    own_calls = np.where(mine, core.koikoi_calls[:, 0], core.koikoi_calls[:, 1])
    opp_calls = np.where(mine, core.koikoi_calls[:, 1], core.koikoi_calls[:, 0])
    own_total = np.where(mine, core.yaku_total[:, 0], core.yaku_total[:, 1])
    opp_total = np.where(mine, core.yaku_total[:, 1], core.yaku_total[:, 0])
    diff = np.where(mine, core.match_score[:, 0], core.match_score[:, 1])  # zero-sum: the lead
    at = SCALAR_INDEX
    obs[:, at["stock_left"]] = (STOCK_SIZE - core.stock_pos) / STOCK_SIZE
    obs[:, at["own_hand_size"]] = np.bitwise_count(own_hand) / HAND_SIZE
    obs[:, at["opp_hand_size"]] = np.bitwise_count(opp_hand) / HAND_SIZE
    obs[:, at["own_called_koikoi"]] = own_calls > 0
    obs[:, at["opp_called_koikoi"]] = opp_calls > 0
    obs[:, at["own_koikoi_calls"]] = own_calls / CALLS_SCALE
    obs[:, at["opp_koikoi_calls"]] = opp_calls / CALLS_SCALE
    obs[:, at["own_yaku_total"]] = np.minimum(own_total / unit, TOTAL_CLIP)
    obs[:, at["opp_yaku_total"]] = np.minimum(opp_total / unit, TOTAL_CLIP)
    obs[:, at["is_dealer"]] = core.dealer == seats
    obs[:, at["round_progress"]] = core.round_index / rules.rounds
    obs[:, at["rounds_left"]] = (rules.rounds - core.round_index) / rules.rounds
    obs[:, at["score_diff"]] = np.clip(diff / unit, -SCORE_CLIP, SCORE_CLIP)
    stake = rules.starting_points
    obs[:, at["own_points_left"]] = (0.0 if stake is None else
                                     np.clip((stake + diff) / unit, -SCORE_CLIP, SCORE_CLIP))
    return obs


# ------------------------------------------------------------- hidden cards (critics only)
HIDDEN_DIM = 2 * 48  # the opponent's hand, then the stock's draw order


def encode_hidden(core: KoiKoiCore, seats: int | np.ndarray | None = None) -> np.ndarray:
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


# ------------------------------------------------------------------ one game, fast (KoiKoiGame)

_N_BINARY = BLOCK["scalars"].start  # card blocks and phase one-hot: 292 bits of one Python int
_BINARY = f"0{_N_BINARY}b"  # format() spec: those bits as digits, the highest first
_DIGITS = bytes.maketrans(b"01", b"\x00\x01")  # ASCII digits -> 0/1 bytes
_PHASE_BIT = tuple(1 << (BLOCK["phase"].start + p) for p in range(N_PHASES))
_AT_HAND, _AT_FIELD, _AT_OWN, _AT_OPP, _AT_UNSEEN, _AT_PENDING = (
    BLOCK[name].start for name in CARD_BLOCKS)
_SCALARS = struct.Struct(f"<{len(SCALAR_NAMES)}f")  # float32, as NumPy stores them
_SCALARS_AT = 4 * _N_BINARY  # their byte offset in an observation


def encode_game(game: KoiKoiGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """(OBS_DIM,) float32 observation of ``seat``: exactly ``encode_observations`` of the
    same state, built from Python ints for single-game speed. NumPy calls dominate here, so
    there are two: the card and phase bits, one int, become binary digits by ``format``
    (0/1 bytes after ``translate``) widened by one reversed-slice assignment (the digits come
    highest bit first); the scalars are packed straight into the fresh array's buffer.
    (Positional dtypes: NumPy parses keywords of these calls slowly.)"""
    fresh = out is None
    if fresh:
        out = np.empty(OBS_DIM, np.float32)
    other = 1 - seat
    own_hand, opp_hand = game.hands[seat], game.hands[other]
    own_pile, opp_pile = game.piles[seat], game.piles[other]
    field = game.field
    pending = 1 << game.pending if game.pending >= 0 else 0
    unseen = C.ALL_CARDS & ~(own_hand | field | own_pile | opp_pile | pending)
    packed = (own_hand << _AT_HAND | field << _AT_FIELD | own_pile << _AT_OWN
              | opp_pile << _AT_OPP | unseen << _AT_UNSEEN | pending << _AT_PENDING
              | _PHASE_BIT[game.phase])
    out[_N_BINARY - 1::-1] = memoryview(format(packed, _BINARY).encode().translate(_DIGITS))
    rules = game.rules
    rounds = rules.rounds
    unit = score_unit(rules)  # >= 10: no zero division
    totals, calls, score = game.yaku_total, game.koikoi_calls, game.match_score
    own_total = totals[seat] / unit
    opp_total = totals[other] / unit
    diff = score[seat] / unit  # zero-sum: the lead
    stake = rules.starting_points
    left = 0.0 if stake is None else stake / unit + diff
    scalars = (  # in SCALAR_NAMES order (tests compare this with encode_observations)
        (STOCK_SIZE - game.stock_pos) / STOCK_SIZE,
        own_hand.bit_count() / HAND_SIZE,
        opp_hand.bit_count() / HAND_SIZE,
        1.0 if calls[seat] > 0 else 0.0,
        1.0 if calls[other] > 0 else 0.0,
        calls[seat] / CALLS_SCALE,
        calls[other] / CALLS_SCALE,
        own_total if own_total < TOTAL_CLIP else TOTAL_CLIP,
        opp_total if opp_total < TOTAL_CLIP else TOTAL_CLIP,
        1.0 if game.dealer == seat else 0.0,
        game.round_index / rounds,
        (rounds - game.round_index) / rounds,
        -SCORE_CLIP if diff < -SCORE_CLIP else (diff if diff < SCORE_CLIP else SCORE_CLIP),
        -SCORE_CLIP if left < -SCORE_CLIP else (left if left < SCORE_CLIP else SCORE_CLIP),
    )
    if fresh:
        _SCALARS.pack_into(out, _SCALARS_AT, *scalars)
    else:  # a caller's array, of any layout and float dtype: NumPy converts
        out[_N_BINARY:] = scalars
    return out


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
