"""A cheap compiled Koi-Koi policy fitted to the expert: the rollout policy ``fast``.

The expert (:mod:`hanafuda_env.koikoi.expert.kernel`) values every candidate outcome with a
card model and a yaku race, which costs microseconds a move; search bots that roll out
thousands of worlds per decision are bounded by it. This policy keeps the expert's shape
(list the outcomes, take a capture that makes yaku first, else the best value; koi-koi by
match-win chances) but values an outcome linearly, from features a few popcounts give:

- for every card that moves (captured, laid down, or left alone on the field when one of
  two matches is taken), each yaku of the rule set's table whose cards include it, weighted
  by the yaku's points (in the rule set's unit) and bucketed by how many cards that yaku
  still needs, for the mover (progress) and for the opponent (denial, exposure); a yaku the
  side can no longer make (too few of its cards left outside the other pile, or a forbidden
  card held) counts nothing;
- the kinds of the cards captured and laid down;
- every feature again scaled by the mover's hand left (progress early is worth more).

A koi-koi decision is a logistic rule on the match-win chance of a stop (the normal
approximation of the rest of the match the expert uses), what doubling would add or lose,
how near each side is to improving, and the round's stage; a stop that loses the match
anyway calls koi-koi, as the expert does.

The weights are data (:mod:`hanafuda_env.koikoi.expert.fast_weights`), fitted to the
expert's choices in expert self-play by ``scripts/fit_fast_policy.py`` (conditional logit
for the card moves, logistic regression for koi-koi). Features read only the mover's view:
its hand, the field, both piles, the pending card, the calls, the lead and the rounds left;
the unseen cards are every card it cannot see, never the opponent's hand or the stock.
Ties go to the lowest action: the policy is a function of the view.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index, popcount
from hanafuda_env.koikoi.expert.fast_weights import CARD_WEIGHTS, DECIDE_WEIGHTS
from hanafuda_env.koikoi.expert.kernel import match_chance
from hanafuda_env.koikoi.kernel import (
    P_N_YAKU,
    P_ROUNDS,
    P_STAKE,
    Y_EXTRA_MASK,
    Y_EXTRA_POINTS,
    Y_FORBIDDEN,
    Y_NEED_A,
    Y_NEED_MASK_A,
    Y_NEED_MASK_B,
    Y_POINTS,
    round_score,
)
from hanafuda_env.koikoi.observation import SCORE_CLIP
from hanafuda_env.koikoi.score_lookup import lookup_total
from hanafuda_env.koikoi.state import CHOOSE_OFFSET, DECIDE, KOIKOI, PLAY, STOP

N_BUCKETS = 6  # cards a yaku still needs: 0 (made: extra cards), 1, ..., 5 or more
# Card-move features: blocks of N_BUCKETS per kind of card movement, then card kinds; the
# whole layout twice (as it is, then scaled by the mover's hand left).
(F_CAP_ME, F_CAP_OPP, F_PLACE_OPP, F_PLACE_ME, F_LEFT_OPP) = (
    k * N_BUCKETS for k in range(5))
F_KIND_CAP = 5 * N_BUCKETS  # bright, animal, ribbon, chaff captured
F_KIND_PLACE = F_KIND_CAP + 4  # ... laid down
N_BLOCK = F_KIND_PLACE + 4
N_CARD_FEATURES = 2 * N_BLOCK
CARD_FEATURE_NAMES = tuple(
    f"{name}{'_early' if half else ''}"
    for half in range(2)
    for name in ([f"{kind}_{b}" for kind in ("cap_me", "cap_opp", "place_opp", "place_me",
                                              "left_opp") for b in range(N_BUCKETS)]
                 + [f"{k}_{kind}" for k in ("cap", "place")
                    for kind in ("bright", "animal", "ribbon", "chaff")]))
# Koi-koi features.
DECIDE_FEATURE_NAMES = ("bias", "win_if_stop", "gain_if_doubled", "loss_if_equalled",
                        "stop_points", "opp_near_1", "opp_near_2", "opp_near_3",
                        "own_near_1", "own_near_2", "own_near_3", "hand_left", "opp_called",
                        "last_round", "own_sure", "own_ways", "opp_on_field", "opp_ways")
N_DECIDE_FEATURES = len(DECIDE_FEATURE_NAMES)
MAX_OUTCOMES = 24  # a decision's most: 8 plays, each with a second outcome; or 2 takes
MADE_BONUS = 1000.0  # per point made now: a capture that makes yaku outranks the rest
ROUND_SIGMA = 6.0  # one round's spread in the rule set's unit (the expert's default)
HOPELESS = 1e-9  # a stop with this match-win chance or less loses anyway: koi-koi

_W_CARD = np.asarray(CARD_WEIGHTS, dtype=np.float64)
_W_DECIDE = np.asarray(DECIDE_WEIGHTS, dtype=np.float64)
assert _W_CARD.shape == (N_CARD_FEATURES,) and _W_DECIDE.shape == (N_DECIDE_FEATURES,)
_MONTH = C.MONTH_MASK_OF_CARD.copy()
_KINDS = np.array([C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS], dtype=np.uint64)
_ALL = U64(C.ALL_CARDS)


# ------------------------------------------------------------------------ the rule set
@njit(cache=True)
def rule_unit(counts) -> np.int64:
    """The rule set's point unit (``RuleSet.point_unit``) from its yaku table: what one
    further card adds, at least 1."""
    unit = 1
    for y in range(counts.shape[1]):
        unit = max(unit, counts[0, y, Y_EXTRA_POINTS])
    return unit


@njit(cache=True, inline="always")
def _need(pile, other, t, y, masks, counts) -> np.int64:
    """Cards yaku ``y`` (table ``t``) still needs in ``pile``; -1 when it cannot be made
    (a forbidden card held, or too few of its cards outside ``other``)."""
    if pile & masks[t, y, Y_FORBIDDEN] != ZERO:
        return -1
    rem = 0
    for k in range(2):
        mask = masks[t, y, Y_NEED_MASK_A + k]
        need = counts[t, y, Y_NEED_A + k]
        have = popcount(pile & mask)
        if have + popcount(mask & ~pile & ~other) < need:
            return -1
        rem += max(need - have, 0)
    return rem


@njit(cache=True)
def _add_card(card, pile, other, t, n_yaku, masks, counts, unit, scale, out, at) -> None:
    """Add each yaku holding ``card`` that ``pile``'s side can still make: its points (in
    units, times ``scale``) into ``out[at + cards it needs]``."""
    bit = ONE << U64(card)
    for y in range(n_yaku):
        if (masks[t, y, Y_NEED_MASK_A] | masks[t, y, Y_NEED_MASK_B]) & bit == ZERO:
            continue
        rem = _need(pile, other, t, y, masks, counts)
        if rem >= 0:
            out[at + min(rem, N_BUCKETS - 1)] += scale * counts[t, y, Y_POINTS] / unit


# ------------------------------------------------------------------------- card moves
@njit(cache=True)
def block_features(captured, placed, left, hand_after, own_pile, opp_pile, unseen, t_me, t_opp,
                   params, masks, counts, unit, out) -> None:
    """One block of an outcome's features into ``out[:N_BLOCK]``: cards ``captured`` into
    the mover's pile, the card ``placed`` on the field, the card ``left`` alone on it when
    one of two matches is taken."""
    for i in range(N_BLOCK):
        out[i] = 0.0
    n_yaku = params[P_N_YAKU]
    bits = captured
    while bits != ZERO:
        card = lowest_index(bits)
        bits &= bits - ONE
        _add_card(card, own_pile, opp_pile, t_me, n_yaku, masks, counts, unit, 1.0, out,
                  F_CAP_ME)
        _add_card(card, opp_pile, own_pile, t_opp, n_yaku, masks, counts, unit, 1.0, out,
                  F_CAP_OPP)
    if placed != ZERO:
        card = lowest_index(placed)
        if unseen & _MONTH[card] != ZERO:  # the opponent may hold or draw its mate
            _add_card(card, opp_pile, own_pile, t_opp, n_yaku, masks, counts, unit, 1.0, out,
                      F_PLACE_OPP)
        if hand_after & _MONTH[card] != ZERO:  # the mover holds its mate
            _add_card(card, own_pile, opp_pile, t_me, n_yaku, masks, counts, unit, 1.0, out,
                      F_PLACE_ME)
    if left != ZERO:
        card = lowest_index(left)
        if unseen & _MONTH[card] != ZERO:
            _add_card(card, opp_pile, own_pile, t_opp, n_yaku, masks, counts, unit, 1.0, out,
                      F_LEFT_OPP)
    for k in range(4):
        out[F_KIND_CAP + k] = popcount(captured & _KINDS[k])
        out[F_KIND_PLACE + k] = popcount(placed & _KINDS[k])


@njit(cache=True)
def outcome_features(captured, placed, left, hand_after, own_pile, opp_pile, unseen, t_me,
                     t_opp, early, params, masks, counts, unit, out) -> None:
    """All N_CARD_FEATURES of one card outcome into ``out``: the block, then the block
    scaled by ``early`` (the mover's hand left, 0..1)."""
    block_features(captured, placed, left, hand_after, own_pile, opp_pile, unseen, t_me, t_opp,
                   params, masks, counts, unit, out)
    for i in range(N_BLOCK):
        out[N_BLOCK + i] = early * out[i]


@njit(cache=True)
def list_outcomes(hand, field, pending, phase, outs, acts) -> np.int64:
    """A decision's card outcomes (``outs`` rows: captured, placed, left, hand after) and
    their actions, ascending by action; a play matching two field cards has two (the lower
    field card taken, then the higher). Returns how many (0 at a koi-koi decision)."""
    n = 0
    if phase == PLAY:
        bits = hand
        while bits != ZERO:
            card = lowest_index(bits)
            bits &= bits - ONE
            bit = ONE << U64(card)
            matches = field & _MONTH[card]
            count = popcount(matches)
            rest = hand & ~bit
            if count == 2:
                low = matches & (~matches + ONE)
                for k in range(2):
                    taken = low if k == 0 else matches & ~low
                    outs[n, 0], outs[n, 1], outs[n, 2] = taken | bit, ZERO, matches & ~taken
                    outs[n, 3] = rest
                    acts[n] = card
                    n += 1
            else:
                outs[n, 0] = matches | bit if count > 0 else ZERO
                outs[n, 1] = bit if count == 0 else ZERO
                outs[n, 2], outs[n, 3] = ZERO, rest
                acts[n] = card
                n += 1
    elif phase != DECIDE:
        pend = ONE << U64(pending)
        matches = field & _MONTH[pending]
        bits = matches
        while bits != ZERO:
            card = lowest_index(bits)
            bits &= bits - ONE
            bit = ONE << U64(card)
            outs[n, 0], outs[n, 1], outs[n, 2], outs[n, 3] = bit | pend, ZERO, matches & ~bit, \
                hand
            acts[n] = CHOOSE_OFFSET + card
            n += 1
    return n


@njit(cache=True, inline="always")
def _unseen(hand, field, own_pile, opp_pile, pending) -> np.uint64:
    pend = ZERO if pending < 0 else ONE << U64(pending)
    return _ALL & ~(hand | field | own_pile | opp_pile | pend)


@njit(cache=True, inline="always")
def _card_decision(hand, field, own_pile, opp_pile, pending, phase, own_calls, opp_calls,
                   counts, lookup, outs, acts):
    """A card decision's outcomes (into ``outs`` and ``acts``) and what valuing them reads:
    ``(n, unit, t_me, t_opp, unseen, early, now)``."""
    n = list_outcomes(hand, field, pending, phase, outs, acts)
    unit = rule_unit(counts)
    t_me, t_opp = (1 if own_calls > 0 else 0), (1 if opp_calls > 0 else 0)
    unseen = _unseen(hand, field, own_pile, opp_pile, pending)
    early = popcount(hand) / 8.0
    now = lookup_total(own_pile, t_me, lookup)
    return n, unit, t_me, t_opp, unseen, early, now


@njit(cache=True)
def decision_rows(hand, field, own_pile, opp_pile, pending, phase, own_calls, opp_calls,
                  params, masks, counts, lookup, feats, acts, made) -> np.int64:
    """Every card outcome of a decision: its features (``feats`` rows), action and the
    points it makes now (``made``, 0 if none). Returns how many (the fit's data)."""
    outs = np.empty((MAX_OUTCOMES, 4), dtype=np.uint64)
    n, unit, t_me, t_opp, unseen, early, now = _card_decision(
        hand, field, own_pile, opp_pile, pending, phase, own_calls, opp_calls, counts, lookup,
        outs, acts)
    for o in range(n):
        outcome_features(outs[o, 0], outs[o, 1], outs[o, 2], outs[o, 3], own_pile, opp_pile,
                         unseen, t_me, t_opp, early, params, masks, counts, unit, feats[o])
        made[o] = max(lookup_total(own_pile | outs[o, 0], t_me, lookup) - now, 0) / unit
    return n


# ----------------------------------------------------------------------------- koi-koi
@njit(cache=True)
def _nearest(pile, other, t, n_yaku, masks, counts) -> np.int64:
    """Fewest cards that would raise the side's total: a yaku's missing cards, or one card
    of a made yaku that scores extra cards; 99 when none."""
    best = 99
    for y in range(n_yaku):
        rem = _need(pile, other, t, y, masks, counts)
        if rem == 0:
            extra = masks[t, y, Y_EXTRA_MASK]
            if counts[t, y, Y_EXTRA_POINTS] > 0 and extra & ~pile & ~other != ZERO:
                rem = 1
            else:
                continue
        if rem > 0:
            best = min(best, rem)
    return best


@njit(cache=True)
def _improvers(pile, other, t, n_yaku, masks, counts) -> np.uint64:
    """Cards still outside both piles any one of which raises the side's total: the last
    card a yaku needs, or a further card of a made yaku that scores extra cards."""
    bits = ZERO
    free = ~pile & ~other
    for y in range(n_yaku):
        rem = _need(pile, other, t, y, masks, counts)
        if rem == 1:
            for k in range(2):
                mask = masks[t, y, Y_NEED_MASK_A + k]
                if popcount(pile & mask) < counts[t, y, Y_NEED_A + k]:
                    bits |= mask & free
        elif rem == 0 and counts[t, y, Y_EXTRA_POINTS] > 0:
            bits |= masks[t, y, Y_EXTRA_MASK] & free
    return bits


@njit(cache=True)
def decide_features(hand, field, own_pile, opp_pile, own_calls, opp_calls, score_diff,
                    rounds_left, params, masks, counts, lookup, out) -> float:
    """The koi-koi features of a decision into ``out`` (N_DECIDE_FEATURES); returns the
    match-win chance of a stop."""
    unit = rule_unit(counts)
    n_yaku = params[P_N_YAKU]
    t_me = 1 if own_calls > 0 else 0
    total = lookup_total(own_pile, t_me, lookup)
    base, multiplier = round_score(total, opp_calls > 0, own_calls, params)
    stop = float(base * multiplier)
    diff = float(score_diff)
    sigma = ROUND_SIGMA * unit * math.sqrt(max(rounds_left - 1, 0)) + 1e-6
    stake = params[P_STAKE]
    u_stop = match_chance(diff + stop, sigma, stake)
    for i in range(N_DECIDE_FEATURES):
        out[i] = 0.0
    out[0] = 1.0
    out[1] = u_stop
    out[2] = match_chance(diff + 2.0 * stop, sigma, stake) - u_stop
    out[3] = u_stop - match_chance(diff - stop, sigma, stake)
    out[4] = stop / (10.0 * unit)
    opp = _nearest(opp_pile, own_pile, 1 if opp_calls > 0 else 0, n_yaku, masks, counts)
    own = _nearest(own_pile, opp_pile, t_me, n_yaku, masks, counts)
    if opp < 99:
        out[5 + min(opp, 3) - 1] = 1.0
    if own < 99:
        out[8 + min(own, 3) - 1] = 1.0
    out[11] = popcount(hand) / 8.0
    out[12] = 1.0 if opp_calls > 0 else 0.0
    out[13] = 1.0 if rounds_left <= 1 else 0.0
    mine = _improvers(own_pile, opp_pile, t_me, n_yaku, masks, counts)
    theirs = _improvers(opp_pile, own_pile, 1 if opp_calls > 0 else 0, n_yaku, masks, counts)
    reach = ZERO  # the months the mover's hand matches
    bits = hand
    while bits != ZERO:
        reach |= _MONTH[lowest_index(bits)]
        bits &= bits - ONE
    unseen = _ALL & ~(hand | field | own_pile | opp_pile)
    out[14] = min(popcount(mine & field & reach), 2) / 2.0
    out[15] = min(popcount(mine & (field | unseen)), 4) / 4.0
    out[16] = min(popcount(theirs & field), 2) / 2.0
    out[17] = min(popcount(theirs & unseen), 4) / 4.0
    return u_stop


# ------------------------------------------------------------------------- the policy
@njit(cache=True)
def view_action(hand, field, own_pile, opp_pile, pending, phase, own_calls, opp_calls,
                score_diff, rounds_left, params, masks, counts, lookup) -> np.int64:
    """The policy's action from the mover's view (``lookup``: the rule set's packed score
    lookup; ``score_diff`` clipped as the observation clips it)."""
    if phase == DECIDE:
        feats = np.empty(N_DECIDE_FEATURES)
        u_stop = decide_features(hand, field, own_pile, opp_pile, own_calls, opp_calls,
                                 score_diff, rounds_left, params, masks, counts, lookup, feats)
        logit = 0.0
        for i in range(N_DECIDE_FEATURES):
            logit += _W_DECIDE[i] * feats[i]
        return KOIKOI if logit > 0.0 or u_stop <= HOPELESS else STOP
    outs = np.empty((MAX_OUTCOMES, 4), dtype=np.uint64)
    acts = np.empty(MAX_OUTCOMES, dtype=np.int64)
    n, unit, t_me, t_opp, unseen, early, now = _card_decision(
        hand, field, own_pile, opp_pile, pending, phase, own_calls, opp_calls, counts, lookup,
        outs, acts)
    feats = np.empty(2 * N_BLOCK)  # a block's features, then its weights at this stage
    for i in range(N_BLOCK):  # w . (f, early f) = (w_block + early w_early) . f
        feats[N_BLOCK + i] = _W_CARD[i] + early * _W_CARD[N_BLOCK + i]
    best, best_value = -1, -np.inf
    for o in range(n):
        block_features(outs[o, 0], outs[o, 1], outs[o, 2], outs[o, 3], own_pile, opp_pile,
                       unseen, t_me, t_opp, params, masks, counts, unit, feats)
        value = 0.0
        for i in range(N_BLOCK):
            value += feats[N_BLOCK + i] * feats[i]
        gain = lookup_total(own_pile | outs[o, 0], t_me, lookup) - now
        if gain > 0:
            value += MADE_BONUS * gain / unit
        if value > best_value:
            best, best_value = acts[o], value
    return best


@njit(cache=True, inline="always")
def clipped_lead(lead, unit) -> np.int64:
    """The lead as the observation clips it (``SCORE_CLIP`` times ten units)."""
    top = int(SCORE_CLIP * 10 * unit)
    return min(max(lead, -top), top)


@njit(cache=True)
def record_action(s, params, masks, counts, lookup) -> np.int64:
    """The policy's move in a game record, from its mover's view only (the rollout
    policy ``batch.FAST``)."""
    me = s.mover
    other = 1 - me
    return view_action(s.hands[me], s.field, s.piles[me], s.piles[other], s.pending, s.phase,
                       s.koikoi_calls[me], s.koikoi_calls[other],
                       clipped_lead(s.match_score[me], rule_unit(counts)),
                       params[P_ROUNDS] - s.round_index, params, masks, counts, lookup)


@njit(cache=True)
def records_actions(records, params, masks, counts, lookup, out) -> None:
    """:func:`record_action` of every game in play (-1 for a game whose round is over)."""
    for g in range(records.shape[0]):
        s = records[g]
        out[g] = -1 if s.phase > DECIDE else record_action(s, params, masks, counts, lookup)
