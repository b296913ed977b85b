"""The expert heuristic compiled: its card rule and koi-koi rule on one player's view.

:class:`agents.bots.expert.ExpertAgent` describes the heuristic (a card model, the yaku race,
koi-koi as match-win chances). It lives here, below the agents, because the kernel's rollouts
play it as a compiled policy (``batch.EXPERT``) without returning to Python per move; the
agent calls the same functions on the views it decodes from observations.

It works on *views* of what the player to move sees (:mod:`hanafuda_env.expert_views`, whose
names this module also offers): decoded from observations or built from game records, never
from the opponent's hand or the stock order.

Ties between card actions are broken by a noise of ``1e-9 × u`` per outcome; ``u`` comes from
the caller (the agent's random generator, :func:`count_outcomes` says how many, or splitmix64
words in a rollout), in the order the NumPy formulation drew them: every legal card action of
the batch, row-major, then the second outcome of each play that matches two field cards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from . import cards as C
from .bits import _ONE, _U, _ZERO, lowest_index, popcount, splitmix64
from .card_model import CARD_MODEL, CODES, MAX_TURNS, chance_table
from .expert_views import (  # noqa: F401  (the views are part of this module's interface)
    N_VI,
    N_VU,
    VI_DEALER,
    VI_OPP_CALLED,
    VI_OPP_CALLS,
    VI_OPP_HAND_N,
    VI_OPP_TOTAL,
    VI_OWN_CALLED,
    VI_OWN_CALLS,
    VI_OWN_HAND_N,
    VI_OWN_TOTAL,
    VI_PENDING,
    VI_PHASE,
    VI_ROUNDS_LEFT,
    VI_SCORE_DIFF,
    VU_FIELD,
    VU_HAND,
    VU_OPP_PILE,
    VU_OWN_PILE,
    VU_UNSEEN,
    record_view,
    views_from_observations,
    views_from_records,
)
from .kernel import (
    DEALER_ALWAYS,
    HIGHEST_TOTAL,
    P_EXHAUSTION,
    P_EXHAUSTION_POINTS,
    P_N_YAKU,
    P_QUIET_WINNER,
    P_STAKE,
    compile_rules,
    pile_breakdown,
    round_score,
)
from .observation import score_unit
from .rules import RuleSet
from .scoring import yaku_table
from .state import CHOOSE_OFFSET, CHOOSE_PLAYED, DECIDE, KOIKOI, MAX_YAKU, PLAY, STOP

# The expert's tunable weights, in the order of the ``weights`` array the functions take.
WEIGHT_NAMES = ("potential", "round_sigma", "koikoi_margin")
DEFAULT_WEIGHTS = {"potential": 0.4,  # weight of expected yaku gains beyond the race
                   "round_sigma": 6.0,  # spread of one round's result, in rule units
                   "koikoi_margin": 0.0}  # match-win chance koi-koi must gain over a stop
MADE_BONUS = 1000.0  # in rule units: making yaku now outranks every other outcome
NOISE = 1e-9  # tie-break noise per outcome

# Columns of the yaku table the expert reads (one row per yaku of the rule set's table):
# the mask slots and counts of up to two conditions (slot -1: none), the slot of the mask
# whose further cards add points (-1: none), those points, the base points, the least gain
# of making it anew, and the yaku that cancel it / that it replaces as bit sets.
(T_SLOT_A, T_SLOT_B, T_NEED_A, T_NEED_B, T_EXTRA_SLOT, T_EXTRA_POINTS, T_POINTS, T_FLOOR,
 T_EXCLUDERS, T_REPLACES) = range(10)
MAX_NEED = 10  # the most cards a yaku condition asks for (kasu)
MAX_OUT = 8  # outcomes valued together (a hand's plays)
LANES = 2 * MAX_OUT  # work lanes: my side of each outcome, then the opponent's
MAX_OUTCOMES = 3 * 48  # a mask row's most: every play, take and second outcome
# per-outcome floats: each side's improvement chance, mean score and gains, the race
(F_Q_ME, F_WIN_ME, F_POT_ME, F_Q_OPP, F_WIN_OPP, F_POT_OPP, F_P_ME, F_P_OPP, F_EXHAUST,
 F_VALUE) = range(10)
_N_FLOATS = 10

_BIT = C.CARD_BITS.copy()
_MONTH_MASK = C.MONTH_MASK_OF_CARD.copy()
_ALL = _U(C.ALL_CARDS)
_SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True)
class ExpertRules:
    """A rule set as the compiled expert reads it: the kernel's arrays (scores, breakdowns),
    the yaku table as masks and columns ``T_*``, and the card model's chance table."""

    params: np.ndarray
    masks: np.ndarray
    counts: np.ndarray
    table: np.ndarray  # (n_yaku, 10) int64
    forbidden: np.ndarray  # (n_yaku,) uint64
    mask_bits: np.ndarray  # (n_masks,) uint64: the distinct card masks of the table
    chances: np.ndarray  # card_model.chance_table
    unit: int  # RuleSet.point_unit
    score_unit: float  # the encoder's scale of totals and scores
    rounds: int

    @property
    def arrays(self) -> tuple:
        """The arguments every compiled entry point takes after its own, in order."""
        return (self.params, self.masks, self.counts, self.table, self.forbidden,
                self.mask_bits, self.chances, float(self.unit))


@lru_cache(maxsize=32)
def _expert_rules(rules: RuleSet, model_key: bytes) -> ExpertRules:
    model = np.frombuffer(model_key, dtype=np.float64).reshape(CARD_MODEL.shape)
    return _build(rules, chance_table(model))


def expert_rules(rules: RuleSet, card_model: np.ndarray | None = None) -> ExpertRules:
    """The compiled expert's arrays for ``rules`` (cached per rule set and card model)."""
    model = CARD_MODEL if card_model is None else np.asarray(card_model, dtype=np.float64)
    if model.shape != CARD_MODEL.shape:
        raise ValueError(f"card_model must have shape {CARD_MODEL.shape}, got {model.shape}")
    return _expert_rules(rules, np.ascontiguousarray(model).tobytes())


def _build(rules: RuleSet, chances: np.ndarray) -> ExpertRules:
    compiled = compile_rules(rules)
    yaku = yaku_table(rules)  # the points of a yaku made anew: the uncalled table's
    names = [y.name for y in yaku]
    masks: list[int] = []

    def slot(mask: int) -> int:
        if mask not in masks:
            masks.append(mask)
        return masks.index(mask)

    table = np.zeros((len(yaku), 10), dtype=np.int64)
    excluders = [[names.index(e) for e in y.excluded_by if e in names] for y in yaku]
    for i, y in enumerate(yaku):
        conditions = list(y.conditions) + [None] * (2 - len(y.conditions))
        assert len(conditions) == 2 and all(c is None or c[1] <= MAX_NEED for c in conditions)
        for k, condition in enumerate(conditions):
            table[i, T_SLOT_A + k] = -1 if condition is None else slot(condition[0])
            table[i, T_NEED_A + k] = 0 if condition is None else condition[1]
        table[i, T_EXTRA_SLOT] = slot(y.extra_mask) if y.extra_points else -1
        table[i, T_EXTRA_POINTS] = y.extra_points
        table[i, T_POINTS] = y.points
        table[i, T_FLOOR] = y.extra_points or 1
        table[i, T_EXCLUDERS] = sum(1 << e for e in excluders[i])
        table[i, T_REPLACES] = sum(1 << j for j in range(len(yaku)) if i in excluders[j])
    return ExpertRules(compiled.params, compiled.yaku_masks, compiled.yaku_counts, table,
                       np.array([y.forbidden for y in yaku], dtype=np.uint64),
                       np.array(masks, dtype=np.uint64), chances, rules.point_unit,
                       score_unit(rules), rules.rounds)


def weights_of(values: dict[str, float] | None = None) -> np.ndarray:
    """The ``weights`` array (``WEIGHT_NAMES`` order) from a name → value mapping."""
    values = DEFAULT_WEIGHTS if values is None else values
    return np.array([float(values[name]) for name in WEIGHT_NAMES], dtype=np.float64)


def rollout_arguments(expert: ExpertRules, weights: np.ndarray | None = None) -> tuple:
    """What ``batch.rollout_games`` passes to the expert policy (default weights)."""
    return (expert.score_unit, expert.rounds, weights_of() if weights is None else weights,
            expert.table, expert.forbidden, expert.mask_bits, expert.chances,
            float(expert.unit), new_scratch(expert))


def _placeholder() -> tuple:
    """Arguments of the same types as :func:`rollout_arguments`' for rollouts without the
    expert (one compiled rollout for every policy pair)."""
    chances = np.zeros((2, 4, 0))
    chances.flags.writeable = False  # as the chance table
    return (1.0, 1, weights_of(), np.zeros((0, 10), dtype=np.int64), np.zeros(0, np.uint64),
            np.zeros(0, np.uint64), chances, 1.0, _scratch(0, 0))


def new_scratch(expert: ExpertRules) -> tuple:
    """Work arrays of one batch call, so that no decision allocates."""
    n_events = len(expert.table) + int((expert.table[:, T_EXTRA_SLOT] >= 0).sum())
    return _scratch(len(expert.mask_bits), n_events)


def _scratch(n_masks: int, n_events: int) -> tuple:
    """Card chances (card, lane), count tails (mask, count, lane), the koi-koi
    position's events (my chances, scores, the opponent's), yaku breakdowns (outcome; the
    last row the opponent's), per-mask counts (mask, outcome; the last column the largest
    count asked), per-outcome floats, card sets (per lane) and totals, and a row's outcome
    list. Lane o is my side after outcome o, lane MAX_OUT + o the opponent's."""
    return (np.zeros((48, LANES)), np.zeros((n_masks, MAX_NEED + 1, LANES)),
            np.zeros((4, n_events)), np.zeros((MAX_OUT + 1, MAX_YAKU), dtype=np.int64),
            np.zeros((n_masks, LANES + 1), dtype=np.int64), np.zeros((_N_FLOATS, MAX_OUT)),
            np.zeros((4, LANES), dtype=np.uint64), np.zeros((2, MAX_OUT), dtype=np.int64),
            np.zeros((4, MAX_OUTCOMES), dtype=np.uint64),
            np.zeros((2, MAX_OUTCOMES), dtype=np.int64))


NO_EXPERT = _placeholder()


# ------------------------------------------------------------------------------ the model
# A row's candidate outcomes are valued together, the outcome the innermost axis of every
# work array: one move changes the cards of one month only, and the count tails of a mask
# update for all outcomes in one vectorized pass per card.
@njit(cache=True)
def _acquisition(n, hands, fields, gones, unseen, my_turns, draw_now, chances, acq) -> None:
    """``acq[card, o]`` / ``acq[card, MAX_OUT + o]``: the chance that each card not in a
    pile (``gones[o]``) ends in my pile / the opponent's after outcome o: the card model's table by
    where the month's four cards lie, and my draw still to come this turn taking a field
    card first. Turns beyond the table (none in a game) read its nearest row."""
    turns = min(max(my_turns, 0), MAX_TURNS) * CODES
    n_unseen = float(max(popcount(unseen), 1))
    for m in range(12):
        shift = _U(4 * m)
        u = (unseen >> shift) & _U(15)
        hit = float(popcount(u)) / n_unseen if draw_now else 0.0
        for o in range(n):
            f = (fields[o] >> shift) & _U(15)
            at = turns + np.int64(((hands[o] >> shift) & _U(15)) | (f << _U(4)) | (u << _U(8)))
            gone = gones[o] >> shift
            for k in range(4):
                mine, theirs = chances[0, k, at], chances[1, k, at]
                if (f >> _U(k)) & _ONE:
                    mine = (1.0 - hit) * mine + hit
                    theirs = (1.0 - hit) * theirs
                if (gone >> _U(k)) & _ONE:
                    mine, theirs = 0.0, 0.0
                acq[4 * m + k, o] = mine
                acq[4 * m + k, MAX_OUT + o] = theirs


@njit(cache=True)
def _points(total, loser_called, winner_calls, params) -> np.int64:
    base, factor = round_score(total, loser_called, winner_calls, params)
    return base * factor


@njit(cache=True, inline="always")
def _bit_index(bit) -> np.int64:
    return lowest_index(_U(bit))


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
        for o in range(LANES):
            per_mask[m, o] = popcount(piles[o] & mask_bits[m])
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
        t = tails[m]
        for o in range(LANES):  # every lane: a fixed width the compiler vectorizes
            t[0, o] = 1.0
        for r in range(1, cap + 1):
            for o in range(LANES):
                t[r, o] = 0.0
        done = 0
        bits = mask_bits[m] & ~common
        while bits != _ZERO and cap > 0:
            p = acq[lowest_index(bits)]
            bits &= bits - _ONE
            live = False
            for o in range(n):
                live = live or p[o] != 0.0 or p[MAX_OUT + o] != 0.0
            if not live:
                continue
            for r in range(min(done + 1, cap), 0, -1):
                here, below = t[r], t[r - 1]
                for o in range(LANES):
                    here[o] += (below[o] - here[o]) * p[o]
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
            prob, met = 1.0, (pile & forbidden[y]) == _ZERO
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
                score = float(_points(total + gain, loser_called, winner_calls, params))
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
            value = float(_points(total, opp_called, my_calls, params))
        else:
            value = -float(_points(opp_total, me_called, opp_calls, params))
    return value


@njit(cache=True, inline="always")
def _spread(q, turns) -> float:
    """A chance over the rest of the round as the same chance each turn."""
    return 1.0 - (1.0 - q) ** (1.0 / float(max(turns, 1))) if turns > 0 else 0.0


@njit(cache=True)
def _race(vu, vi, n, sets, totals, my_turns, draw_now, me_called, my_calls, params, masks,
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
    for o in range(MAX_OUT):  # the lanes of my piles, then the opponent's (lanes past n idle)
        if o >= n:
            piles[o] = piles[0]
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
def _breakdown_total(pile, called, params, masks, counts, out) -> np.int64:
    n_yaku = params[P_N_YAKU]
    pile_breakdown(pile, 1 if called else 0, masks, counts, n_yaku, out)
    total = 0
    for y in range(n_yaku):
        total += out[y]
    return total


@njit(cache=True)
def _match_chance(margin, sigma, stake) -> float:
    """Chance of winning the match with this score margin and ``sigma`` of noise to come (a
    draw counts half); with a starting stake (>= 0) a margin of the stake is decided."""
    if stake >= 0:
        if margin >= stake:
            return 1.0
        if margin <= -stake:
            return 0.0
    return 0.5 * (1.0 + math.erf(margin / (sigma * _SQRT2)))


@njit(cache=True)
def _weighted_chance(probs, scores, diff, sign, sigma, stake) -> float:
    """Mean match chance over the ways to improve, by their chances (uniform if all 0)."""
    n_events = probs.shape[0]
    weight = 0.0
    for e in range(n_events):
        weight += probs[e]
    total = 0.0
    for e in range(n_events):
        p = probs[e] / max(weight, 1e-300) if weight > 0 else 1.0 / n_events
        total += p * _match_chance(diff + sign * scores[e], sigma, stake)
    return total


# --------------------------------------------------------------------------- the choices
@njit(cache=True)
def _card_values(vu, vi, n, outs, weights, params, masks, counts, table, forbidden, mask_bits,
                 chances, unit, scratch) -> None:
    """Values of ``n`` card outcomes (``outs``: played, taken, placed, captured rows) into
    the floats' F_VALUE row: the race in round points, or a made yaku first."""
    bds, floats, sets, totals = scratch[3], scratch[5], scratch[6], scratch[7]
    phase = vi[VI_PHASE]
    own_called = vi[VI_OWN_CALLED] != 0
    for o in range(n):
        sets[0, o] = vu[VU_HAND] & ~outs[0, o]
        sets[1, o] = (vu[VU_FIELD] & ~outs[1, o]) | outs[2, o]
        sets[2, o] = vu[VU_OWN_PILE] | outs[3, o]
        totals[0, o] = _breakdown_total(sets[2, o], own_called, params, masks, counts, bds[o])
    my_calls = vi[VI_OWN_CALLS]
    _race(vu, vi, n, sets, totals, vi[VI_OWN_HAND_N] - (1 if phase == PLAY else 0),
          phase == PLAY or phase == CHOOSE_PLAYED, own_called, my_calls, params, masks,
          counts, table, forbidden, mask_bits, chances, scratch)
    opp_called = vi[VI_OPP_CALLED] != 0
    for o in range(n):
        p_me, p_opp = floats[F_P_ME, o], floats[F_P_OPP, o]
        p_none = min(max(1.0 - p_me - p_opp, 0.0), 1.0)
        value = (p_me * floats[F_WIN_ME, o] - p_opp * floats[F_WIN_OPP, o]
                 + p_none * floats[F_EXHAUST, o]
                 + weights[0] * (floats[F_POT_ME, o] - floats[F_POT_OPP, o]))
        total = totals[0, o]
        if total > vi[VI_OWN_TOTAL]:
            # a capture that makes yaku is always taken (the biggest first): it wins the
            # round or, after a koi-koi, keeps every card captured so far
            stop = float(_points(total, opp_called, my_calls, params))
            value = MADE_BONUS * unit + stop + 1e-3 * value
        floats[F_VALUE, o] = value


@njit(cache=True)
def _decide(vu, vi, weights, params, masks, counts, table, forbidden, mask_bits, chances, unit,
            scratch) -> np.int64:
    """Stop or koi-koi, by the chance of winning the match after each: a stop banks the
    score; a koi-koi leads to each way of improving (its own score), to the opponent
    scoring, or to the hands running out, with the race's chances."""
    events, bds, floats, sets, totals = scratch[2], scratch[3], scratch[5], scratch[6], \
        scratch[7]
    sets[0, 0], sets[1, 0], sets[2, 0] = vu[VU_HAND], vu[VU_FIELD], vu[VU_OWN_PILE]
    totals[0, 0] = _breakdown_total(vu[VU_OWN_PILE], True, params, masks, counts, bds[0])
    _race(vu, vi, 1, sets, totals, vi[VI_OWN_HAND_N], False, True, vi[VI_OWN_CALLS] + 1,
          params, masks, counts, table, forbidden, mask_bits, chances, scratch)
    opp_called = vi[VI_OPP_CALLED] != 0
    stop = float(_points(vi[VI_OWN_TOTAL], opp_called, vi[VI_OWN_CALLS], params))
    diff = float(vi[VI_SCORE_DIFF])
    later = max(vi[VI_ROUNDS_LEFT] - 1, 0)
    sigma = weights[1] * unit * math.sqrt(later) + 1e-6
    stake = params[P_STAKE]
    u_stop = _match_chance(diff + stop, sigma, stake)
    p_me, p_opp = floats[F_P_ME, 0], floats[F_P_OPP, 0]
    p_none = min(max(1.0 - p_me - p_opp, 0.0), 1.0)
    u_mine = _weighted_chance(events[0], events[1], diff, 1.0, sigma, stake)
    u_theirs = _weighted_chance(events[2], events[3], diff, -1.0, sigma, stake)
    u_koi = (p_me * u_mine + p_opp * u_theirs
             + p_none * _match_chance(diff + floats[F_EXHAUST, 0], sigma, stake))
    hopeless = u_stop < 1e-9  # a stop loses the match anyway: nothing to lose
    return KOIKOI if u_koi > u_stop + weights[2] or hopeless else STOP


@njit(cache=True)
def _list_outcomes(plays, takes, field, pending, outs, acts) -> np.int64:
    """A row's card outcomes in the order of their tie-break numbers: plays (a capture, a
    card laid down, or the lower of two matches), takes, then the higher of two matches.
    ``outs``: played, taken, placed, captured; ``acts``: the action. Returns how many."""
    n = 0
    bits = plays
    while bits != _ZERO:
        card = lowest_index(bits)
        bits &= bits - _ONE
        bit = _BIT[card]
        matches = field & _MONTH_MASK[card]
        count = popcount(matches)
        taken = matches & (~matches + _ONE) if count == 2 else matches
        outs[0, n], outs[1, n] = bit, taken
        outs[2, n] = bit if count == 0 else _ZERO
        outs[3, n] = taken | bit if count > 0 else _ZERO
        acts[0, n] = card
        n += 1
    bits = takes
    while bits != _ZERO:
        card = lowest_index(bits)
        bits &= bits - _ONE
        bit = _BIT[card]
        outs[0, n], outs[1, n], outs[2, n], outs[3, n] = _ZERO, bit, _ZERO, bit | pending
        acts[0, n] = CHOOSE_OFFSET + card
        n += 1
    bits = plays
    while bits != _ZERO:
        card = lowest_index(bits)
        bits &= bits - _ONE
        matches = field & _MONTH_MASK[card]
        if popcount(matches) == 2:
            high = matches & ~(matches & (~matches + _ONE))
            outs[0, n], outs[1, n], outs[2, n], outs[3, n] = _BIT[card], high, _ZERO, \
                high | _BIT[card]
            acts[0, n] = card
            n += 1
    return n


@njit(cache=True)
def choose(vu, vi, plays, takes, can_stop, can_koikoi, noise, at_first, at_second, weights,
           params, masks, counts, table, forbidden, mask_bits, chances, unit,
           scratch) -> np.int64:
    """The expert's action from one view: the best card action of ``plays`` (cards to play,
    a bit set) and ``takes`` (field cards to take), else stop or koi-koi. Outcome i of the
    card actions (ascending) adds ``NOISE × noise[at_first + i]``, the second outcome j of
    the plays matching two field cards ``NOISE × noise[at_second + j]``."""
    bds = scratch[3]
    _breakdown_total(vu[VU_OPP_PILE], vi[VI_OPP_CALLED] != 0, params, masks, counts,
                     bds[MAX_OUT])
    if plays == _ZERO and takes == _ZERO:
        if can_stop and can_koikoi:
            return _decide(vu, vi, weights, params, masks, counts, table, forbidden, mask_bits,
                           chances, unit, scratch)
        return STOP if can_stop else KOIKOI
    floats, outs, acts = scratch[5], scratch[8], scratch[9]
    n = _list_outcomes(plays, takes, vu[VU_FIELD], _BIT[max(vi[VI_PENDING], 0)], outs, acts)
    n_first = popcount(plays) + popcount(takes)
    best, best_value = -1, -np.inf
    for start in range(0, n, MAX_OUT):
        size = min(MAX_OUT, n - start)
        _card_values(vu, vi, size, outs[:, start:start + size], weights, params, masks, counts,
                     table, forbidden, mask_bits, chances, unit, scratch)
        for o in range(size):
            i = start + o
            at = at_first + i if i < n_first else at_second + i - n_first
            value = floats[F_VALUE, o] + NOISE * noise[at]
            if value > best_value:
                best, best_value = acts[0, i], value
    return best


@njit(cache=True)
def _mask_bits(mask_row):
    plays, takes = _ZERO, _ZERO
    for c in range(48):
        if mask_row[c]:
            plays |= _ONE << _U(c)
        if mask_row[CHOOSE_OFFSET + c]:
            takes |= _ONE << _U(c)
    return plays, takes


@njit(cache=True)
def _two_matches(plays, field) -> np.int64:
    """Plays that match two field cards: each has a second outcome."""
    n = 0
    while plays != _ZERO:
        card = lowest_index(plays)
        plays &= plays - _ONE
        if popcount(field & _MONTH_MASK[card]) == 2:
            n += 1
    return n


@njit(cache=True)
def count_outcomes(vu, masks_legal, starts) -> np.int64:
    """Where each row's tie-break numbers start (``starts`` (N, 2): its card actions, its
    second outcomes) and how many the batch takes."""
    n_first, n_second = 0, 0
    for g in range(vu.shape[0]):
        plays, takes = _mask_bits(masks_legal[g])
        starts[g, 0] = n_first
        starts[g, 1] = n_second
        n_first += popcount(plays) + popcount(takes)
        n_second += _two_matches(plays, vu[g, VU_FIELD])
    for g in range(vu.shape[0]):
        starts[g, 1] += n_first
    return n_first + n_second


@njit(cache=True)
def act_on_views(vu, vi, masks_legal, starts, noise, weights, params, masks, counts, table,
                 forbidden, mask_bits, chances, unit, scratch_arrays, out) -> None:
    """The expert's action for every view under its legal-action mask row (98 bools)."""
    for g in range(vu.shape[0]):
        plays, takes = _mask_bits(masks_legal[g])
        out[g] = choose(vu[g], vi[g], plays, takes, masks_legal[g, STOP],
                        masks_legal[g, KOIKOI], noise, starts[g, 0], starts[g, 1], weights,
                        params, masks, counts, table, forbidden, mask_bits, chances, unit,
                        scratch_arrays)


@njit(cache=True)
def record_action(s, noise_word, score_scale, rounds, vu, vi, noise, weights, params, masks,
                  counts, table, forbidden, mask_bits, chances, unit, scratch_arrays) -> np.int64:
    """The expert's move in a game record from its mover's view, with tie-break numbers
    hashed from ``noise_word`` (the rollout policy)."""
    record_view(s, score_scale, rounds, vu, vi)
    plays, takes = _ZERO, _ZERO
    phase = s.phase
    if phase == PLAY:
        plays = vu[VU_HAND]
    elif phase != DECIDE:
        takes = vu[VU_FIELD] & _MONTH_MASK[s.pending]
    n = popcount(plays) + popcount(takes) + _two_matches(plays, vu[VU_FIELD])
    for k in range(n):
        noise_word = splitmix64(noise_word)
        noise[k] = (noise_word >> _U(11)) * (1.0 / 9007199254740992.0)
    return choose(vu, vi, plays, takes, phase == DECIDE, phase == DECIDE, noise, 0,
                  popcount(plays) + popcount(takes), weights, params, masks, counts, table,
                  forbidden, mask_bits, chances, unit, scratch_arrays)
