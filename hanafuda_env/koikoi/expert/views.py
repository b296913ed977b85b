"""What the player to move sees, as the compiled expert reads it: a *view* in two rows.

``vu`` holds 5 uint64 card sets (``VU_*``) and ``vi`` 13 integers (``VI_*``): the fields of
:class:`agents.bots.base.View` that the expert reads. :func:`views_from_observations` decodes
them from observation vectors; :func:`record_view` builds them from a game record the way the
encoder would (yaku totals and the lead clipped as the observation clips them), so a record
and its observation give the same choice. Neither reads the opponent's hand or the stock
order: only the unseen set.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import ONE, U64, ZERO, popcount
from hanafuda_env.koikoi.observation import BLOCK, CALLS_SCALE, SCALAR_INDEX, SCORE_CLIP, TOTAL_CLIP

VU_HAND, VU_FIELD, VU_OWN_PILE, VU_OPP_PILE, VU_UNSEEN = range(5)
(VI_PENDING, VI_PHASE, VI_OWN_HAND_N, VI_OPP_HAND_N, VI_OWN_CALLED, VI_OPP_CALLED,
 VI_OWN_CALLS, VI_OPP_CALLS, VI_OWN_TOTAL, VI_OPP_TOTAL, VI_DEALER, VI_ROUNDS_LEFT,
 VI_SCORE_DIFF) = range(13)
N_VU, N_VI = 5, 13
_ALL = U64(C.ALL_CARDS)


@njit(cache=True)
def record_view(s, score_scale, rounds, vu, vi) -> None:
    """The view of the player to move in a game record, as its observation decodes: the
    unseen set is every card it cannot see; yaku totals and the lead clipped like the
    encoder's (``score_scale``: its unit, ten points of the rule set's)."""
    me = s.mover
    other = 1 - me
    pending = ZERO if s.pending < 0 else ONE << U64(s.pending)
    hand, opp_pile, own_pile = s.hands[me], s.piles[other], s.piles[me]
    vu[VU_HAND] = hand
    vu[VU_FIELD] = s.field
    vu[VU_OWN_PILE] = own_pile
    vu[VU_OPP_PILE] = opp_pile
    vu[VU_UNSEEN] = _ALL & ~(hand | s.field | own_pile | opp_pile | pending)
    top_total = TOTAL_CLIP * score_scale
    top_lead = SCORE_CLIP * score_scale
    vi[VI_PENDING] = s.pending
    vi[VI_PHASE] = s.phase
    vi[VI_OWN_HAND_N] = popcount(hand)
    vi[VI_OPP_HAND_N] = popcount(s.hands[other])
    vi[VI_OWN_CALLED] = 1 if s.koikoi_calls[me] > 0 else 0
    vi[VI_OPP_CALLED] = 1 if s.koikoi_calls[other] > 0 else 0
    vi[VI_OWN_CALLS] = s.koikoi_calls[me]
    vi[VI_OPP_CALLS] = s.koikoi_calls[other]
    vi[VI_OWN_TOTAL] = int(min(s.yaku_total[me], top_total))
    vi[VI_OPP_TOTAL] = int(min(s.yaku_total[other], top_total))
    vi[VI_DEALER] = 1 if s.dealer == me else 0
    vi[VI_ROUNDS_LEFT] = rounds - s.round_index
    vi[VI_SCORE_DIFF] = int(min(max(s.match_score[me], -top_lead), top_lead))


@njit(cache=True)
def views_from_records(records, score_scale, rounds, vu, vi) -> None:
    """:func:`record_view` of every game."""
    for g in range(records.shape[0]):
        record_view(records[g], score_scale, rounds, vu[g], vi[g])


_AT = {name: SCALAR_INDEX[name] for name in (
    "own_hand_size", "opp_hand_size", "own_called_koikoi", "opp_called_koikoi",
    "own_koikoi_calls", "opp_koikoi_calls", "own_yaku_total", "opp_yaku_total", "is_dealer",
    "rounds_left", "score_diff")}
_AT_OWN_HAND, _AT_OPP_HAND, _AT_OWN_CALLED, _AT_OPP_CALLED, _AT_OWN_CALLS, _AT_OPP_CALLS, \
    _AT_OWN_TOTAL, _AT_OPP_TOTAL, _AT_DEALER, _AT_LEFT, _AT_DIFF = _AT.values()
_AT_CARDS = tuple(BLOCK[name].start for name in ("hand", "field", "own_pile", "opp_pile",
                                                  "unseen"))
_AT_PENDING, _AT_PHASE = BLOCK["pending"].start, BLOCK["phase"].start
_N_PHASES = BLOCK["phase"].stop - BLOCK["phase"].start


@njit(cache=True, inline="always")
def _count(x, scale) -> np.int64:
    """A scaled count back to an integer, as ``np.rint`` of the float32 product."""
    return np.int64(np.rint(np.float32(x * np.float32(scale))))


@njit(cache=True)
def views_from_observations(obs, score_scale, rounds, vu, vi) -> None:
    """The views of observation rows (``agents.bots.base.decode``'s fields, compiled)."""
    for g in range(obs.shape[0]):
        row = obs[g]
        for k in range(N_VU):
            bits = ZERO
            start = _AT_CARDS[k]
            for c in range(48):
                if row[start + c] > 0.5:
                    bits |= ONE << U64(c)
            vu[g, k] = bits
        pending = -1
        for c in range(48):
            if row[_AT_PENDING + c] > 0.5:
                pending = c
                break
        phase = 0
        for p in range(1, _N_PHASES):
            if row[_AT_PHASE + p] > row[_AT_PHASE + phase]:
                phase = p
        vi[g, VI_PENDING] = pending
        vi[g, VI_PHASE] = phase
        vi[g, VI_OWN_HAND_N] = _count(row[_AT_OWN_HAND], 8)
        vi[g, VI_OPP_HAND_N] = _count(row[_AT_OPP_HAND], 8)
        vi[g, VI_OWN_CALLED] = 1 if row[_AT_OWN_CALLED] > 0.5 else 0
        vi[g, VI_OPP_CALLED] = 1 if row[_AT_OPP_CALLED] > 0.5 else 0
        vi[g, VI_OWN_CALLS] = _count(row[_AT_OWN_CALLS], CALLS_SCALE)
        vi[g, VI_OPP_CALLS] = _count(row[_AT_OPP_CALLS], CALLS_SCALE)
        vi[g, VI_OWN_TOTAL] = _count(row[_AT_OWN_TOTAL], score_scale)
        vi[g, VI_OPP_TOTAL] = _count(row[_AT_OPP_TOTAL], score_scale)
        vi[g, VI_DEALER] = 1 if row[_AT_DEALER] > 0.5 else 0
        vi[g, VI_ROUNDS_LEFT] = _count(row[_AT_LEFT], rounds)
        vi[g, VI_SCORE_DIFF] = _count(row[_AT_DIFF], score_scale)
