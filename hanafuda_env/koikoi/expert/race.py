"""The expert's model of the rest of a round: who improves their yaku total first.

:mod:`hanafuda_env.koikoi.expert.kernel` values each candidate outcome of a decision by this race:
every card's chance of ending in either pile (the card model's table), the count tails of
each yaku's cards (a Poisson-binomial), the chances and scores of each way to improve, and
the turns left. The outcomes of one decision are valued together, each in its own work lane.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index, popcount
from hanafuda_env.koikoi.expert.card_model import CODES, MAX_TURNS
from hanafuda_env.koikoi.expert.views import (
    VI_DEALER,
    VI_OPP_CALLED,
    VI_OPP_CALLS,
    VI_OPP_HAND_N,
    VI_OPP_TOTAL,
    VU_OPP_PILE,
    VU_UNSEEN,
)
from hanafuda_env.koikoi.kernel import (
    DEALER_ALWAYS,
    HIGHEST_TOTAL,
    P_EXHAUSTION,
    P_EXHAUSTION_POINTS,
    P_N_YAKU,
    P_QUIET_WINNER,
    pile_breakdown,
    round_score,
)

# Columns of the yaku table the expert reads (one row per yaku of the rule set's table):
# the mask slots and counts of up to two conditions (slot -1: none), the slot of the mask
# whose further cards add points (-1: none), those points, the base points, the least gain
# of making it anew, and the yaku that cancel it / that it replaces as bit sets.
(T_SLOT_A, T_SLOT_B, T_NEED_A, T_NEED_B, T_EXTRA_SLOT, T_EXTRA_POINTS, T_POINTS, T_FLOOR,
 T_EXCLUDERS, T_REPLACES) = range(10)
MAX_NEED = 10  # the most cards a yaku condition asks for (kasu)
MAX_OUT = 8  # outcomes valued together (a hand's plays)
LANES = 2 * MAX_OUT  # work lanes: my side of each outcome, then the opponent's
# per-outcome floats: each side's improvement chance, mean score and gains, the race
(F_Q_ME, F_WIN_ME, F_POT_ME, F_Q_OPP, F_WIN_OPP, F_POT_OPP, F_P_ME, F_P_OPP, F_EXHAUST,
 F_VALUE) = range(10)
N_FLOATS = 10


# A row's candidate outcomes are valued together, the outcome the innermost axis of every
# work array: one move changes the cards of one month only, and the count tails of a mask
# update the live lanes of every outcome in one pass per card.
@njit(cache=True)
def _acquisition(n, hands, fields, gones, unseen, my_turns, draw_now, chances, acq) -> None:
    """``acq[card, o]`` / ``acq[card, MAX_OUT + o]``: the chance that each card not in a
    pile (``gones[o]``) ends in my pile / the opponent's after outcome o: the card model's table by
    where the month's four cards lie, and my draw still to come this turn taking a field
    card first. Turns beyond the table (none in a game) read its nearest row. An outcome
    changes one month, so every other month copies outcome 0's column."""
    turns = min(max(my_turns, 0), MAX_TURNS) * CODES
    n_unseen = float(max(popcount(unseen), 1))
    for m in range(12):
        shift = U64(4 * m)
        u = (unseen >> shift) & U64(15)
        hit = float(popcount(u)) / n_unseen if draw_now else 0.0
        first = ZERO
        for o in range(n):
            f = (fields[o] >> shift) & U64(15)
            h = (hands[o] >> shift) & U64(15)
            gone = (gones[o] >> shift) & U64(15)
            key = h | (f << U64(4)) | (gone << U64(8))
            if o == 0:
                first = key
            elif key == first:
                for k in range(4):
                    acq[4 * m + k, o] = acq[4 * m + k, 0]
                    acq[4 * m + k, MAX_OUT + o] = acq[4 * m + k, MAX_OUT]
                continue
            at = turns + np.int64(h | (f << U64(4)) | (u << U64(8)))
            for k in range(4):
                mine, theirs = chances[at, k], chances[at, 4 + k]
                if (f >> U64(k)) & ONE:
                    mine = (1.0 - hit) * mine + hit
                    theirs = (1.0 - hit) * theirs
                if (gone >> U64(k)) & ONE:
                    mine, theirs = 0.0, 0.0
                acq[4 * m + k, o] = mine
                acq[4 * m + k, MAX_OUT + o] = theirs


@njit(cache=True)
def points(total, loser_called, winner_calls, params) -> np.int64:
    base, factor = round_score(total, loser_called, winner_calls, params)
    return base * factor


@njit(cache=True, inline="always")
def _bit_index(bit) -> np.int64:
    return lowest_index(U64(bit))


@njit(cache=True)
def _tails(n, piles, acq, table, mask_bits, tails, per_mask) -> None:
    """Count tails of every mask's cards not yet in the lane's pile: ``tails[m, r, lane]``
    the chance that at least r of them get there (a Poisson-binomial, one card at a time,
    ascending; a card with no chance leaves the tails as they were), up to the largest r
    asked; ``per_mask[m, lane]`` the mask's cards in the pile."""
    n_yaku, n_masks = table.shape[0], mask_bits.shape[0]
    common = piles[0]
    for o in range(n):
        common &= piles[o] & piles[MAX_OUT + o]
    for m in range(n_masks):
        for o in range(n):
            per_mask[m, o] = popcount(piles[o] & mask_bits[m])
            per_mask[m, MAX_OUT + o] = popcount(piles[MAX_OUT + o] & mask_bits[m])
        per_mask[m, LANES] = 0
    for y in range(n_yaku):
        for k in range(3):
            m = table[y, T_SLOT_A + k] if k < 2 else table[y, T_EXTRA_SLOT]
            if m < 0:
                continue
            reach = per_mask[m, LANES]
            if k == 2:
                reach = max(reach, 1)
            else:
                for o in range(n):
                    need = table[y, T_NEED_A + k]
                    reach = max(reach, need - per_mask[m, o], need - per_mask[m, MAX_OUT + o])
            per_mask[m, LANES] = reach
    for m in range(n_masks):
        cap = per_mask[m, LANES]
        for o in range(n):  # the live lanes: mine, then the opponent's
            tails[m, 0, o] = 1.0
            tails[m, 0, MAX_OUT + o] = 1.0
        for r in range(1, cap + 1):
            for o in range(n):
                tails[m, r, o] = 0.0
                tails[m, r, MAX_OUT + o] = 0.0
        done = 0
        bits = mask_bits[m] & ~common
        while bits != ZERO and cap > 0:
            c = lowest_index(bits)
            bits &= bits - ONE
            live = False
            for o in range(n):
                live = live or acq[c, o] != 0.0 or acq[c, MAX_OUT + o] != 0.0
            if not live:
                continue
            for r in range(min(done + 1, cap), 0, -1):
                for o in range(n):
                    tails[m, r, o] += (tails[m, r - 1, o] - tails[m, r, o]) * acq[c, o]
                    lane = MAX_OUT + o
                    tails[m, r, lane] += (tails[m, r - 1, lane] - tails[m, r, lane]) \
                        * acq[c, lane]
            done += 1


@njit(cache=True)
def _events(n, side, piles, totals, loser_called, winner_calls, bds, bd_row, params, table,
            forbidden, tails, per_mask, floats, events) -> None:
    """One player's chance of improving the yaku total after each outcome, the mean score if
    so and the expected yaku gains (``floats`` rows ``side * 3 + 0..2``); outcome 0's ways
    to improve (a yaku made anew, a standing one growing) into ``events[2 side : 2 side + 2]``
    (chances, scores). A yaku needs ``need`` cards of a mask: with ``have`` in the pile, at
    least ``need - have`` of the others, read off their count tails (:func:`_tails`)."""
    n_yaku = table.shape[0]
    probs, scores = events[2 * side], events[2 * side + 1]
    for o in range(n):
        lane = side * MAX_OUT + o
        pile, total = piles[lane], totals[o]
        breakdown = bds[bd_row if bd_row >= 0 else o]
        none = 1.0
        weight, weighted, potential = 0.0, 0.0, 0.0
        e = 0
        for y in range(n_yaku):
            prob, met = 1.0, (pile & forbidden[y]) == ZERO
            allowed = met
            for k in range(2):
                m = table[y, T_SLOT_A + k]
                if m >= 0:
                    need, have = table[y, T_NEED_A + k], per_mask[m, lane]
                    met = met and have >= need
                    prob = prob * tails[m, max(need - have, 0), lane]
            blocked = False
            others = table[y, T_EXCLUDERS]
            while others:
                j = others & -others  # the lowest yaku of the set, as a bit
                others ^= j
                blocked = blocked or breakdown[_bit_index(j)] > 0
            replaced = 0
            others = table[y, T_REPLACES]
            while others:
                j = others & -others
                others ^= j
                replaced += breakdown[_bit_index(j)]
            p = 0.0 if met or blocked else (prob if allowed else 0.0)
            gain = max(table[y, T_POINTS] - replaced, table[y, T_FLOOR])
            for grow in range(2):
                if grow:
                    if table[y, T_EXTRA_SLOT] < 0:
                        break
                    p = tails[table[y, T_EXTRA_SLOT], 1, lane] if breakdown[y] > 0 else 0.0
                    gain = table[y, T_EXTRA_POINTS]
                p = min(max(p, 0.0), 1.0)
                score = float(points(total + gain, loser_called, winner_calls, params))
                if o == 0:
                    probs[e] = p
                    scores[e] = score
                none = none * (1.0 - p) if e else 1.0 - p
                weight += p
                weighted += p * score
                potential += p * gain
                e += 1
        floats[3 * side, o] = 1.0 - none
        floats[3 * side + 1, o] = weighted / max(weight, 1e-12)
        floats[3 * side + 2, o] = potential


@njit(cache=True)
def _exhaustion_value(total, opp_total, me_called, opp_called, my_calls, opp_calls, dealer,
                      params) -> float:
    """What both hands running out would be worth to me (§2.6, §2.8, §2.10)."""
    rule = params[P_EXHAUSTION]
    called = me_called or opp_called
    quiet = rule == DEALER_ALWAYS or (not called and total == 0 and opp_total == 0)
    value = 0.0
    offset = params[P_QUIET_WINNER]
    if offset >= 0 and quiet:
        pts = float(params[P_EXHAUSTION_POINTS])
        value = pts if dealer != (offset == 1) else -pts
    if rule == HIGHEST_TOTAL and called:
        if total > opp_total or (total == opp_total and dealer):
            value = float(points(total, opp_called, my_calls, params))
        else:
            value = -float(points(opp_total, me_called, opp_calls, params))
    return value


@njit(cache=True, inline="always")
def _spread(q, turns) -> float:
    """A chance over the rest of the round as the same chance each turn."""
    return 1.0 - (1.0 - q) ** (1.0 / float(max(turns, 1))) if turns > 0 else 0.0


@njit(cache=True)
def race(vu, vi, n, sets, totals, my_turns, draw_now, me_called, my_calls, params, masks,
          counts, table, forbidden, mask_bits, chances, scratch) -> None:
    """Who improves their yaku total first after each of ``n`` outcomes (``sets``: hand,
    field, pile rows): the chances that I / the opponent do (turns alternating, the
    opponent first), each side's mean score and gains, and the value of both hands running
    out, into the per-outcome floats."""
    acq, tails, events, bds, per_mask, floats = scratch[:6]
    hands, fields, piles, gones = sets[0], sets[1], sets[2], sets[3]
    opp_pile = vu[VU_OPP_PILE]
    opp_total, opp_called, opp_calls = vi[VI_OPP_TOTAL], vi[VI_OPP_CALLED] != 0, vi[VI_OPP_CALLS]
    for o in range(n):
        gones[o] = piles[o] | opp_pile
    _acquisition(n, hands, fields, gones, vu[VU_UNSEEN], my_turns, draw_now, chances, acq)
    opp_totals = totals[1]
    for o in range(n):  # the live lanes: my piles are set, the opponent's is the same in each
        piles[MAX_OUT + o] = opp_pile
        opp_totals[o] = opp_total
    _tails(n, piles, acq, table, mask_bits, tails, per_mask)
    _events(n, 0, piles, totals[0], opp_called, my_calls, bds, -1, params, table, forbidden,
            tails, per_mask, floats, events)
    _events(n, 1, piles, opp_totals, me_called, opp_calls, bds, MAX_OUT, params, table,
            forbidden, tails, per_mask, floats, events)
    opp_turns = vi[VI_OPP_HAND_N]
    dealer = vi[VI_DEALER] != 0
    for o in range(n):
        h_me, h_opp = _spread(floats[F_Q_ME, o], my_turns), _spread(floats[F_Q_OPP, o],
                                                                    opp_turns)
        alive, p_me, p_opp = 1.0, 0.0, 0.0
        for t in range(8):  # a player has at most a hand of turns left
            if opp_turns > t:
                p_opp += alive * h_opp
                alive = alive * (1.0 - h_opp)
            if my_turns > t:
                p_me += alive * h_me
                alive = alive * (1.0 - h_me)
        floats[F_P_ME, o] = p_me
        floats[F_P_OPP, o] = p_opp
        floats[F_EXHAUST, o] = _exhaustion_value(totals[0, o], opp_total, me_called, opp_called,
                                                 my_calls, opp_calls, dealer, params)


@njit(cache=True)
def breakdown_total(pile, called, params, masks, counts, out) -> np.int64:
    n_yaku = params[P_N_YAKU]
    pile_breakdown(pile, 1 if called else 0, masks, counts, n_yaku, out)
    total = 0
    for y in range(n_yaku):
        total += out[y]
    return total
