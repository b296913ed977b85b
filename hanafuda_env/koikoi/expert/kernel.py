"""The expert heuristic compiled: its card rule and koi-koi rule on one player's view.

:class:`agents.bots.expert.ExpertAgent` describes the heuristic (a card model, the yaku race,
koi-koi as match-win chances). It lives here, below the agents, because the kernel's rollouts
play it as a compiled policy (``batch.EXPERT``) without returning to Python per move; the
agent calls the same functions on the views it decodes from observations.

Each candidate outcome is valued by the race of :mod:`hanafuda_env.koikoi.expert.race` (who
improves their yaku total first); this module lists the outcomes, compares them, decides
koi-koi or stop by match-win chances, and offers the batch entry points.

It works on *views* of what the player to move sees (:mod:`hanafuda_env.koikoi.expert.views`, whose
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

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index, popcount, splitmix64
from hanafuda_env.koikoi.expert.card_model import CARD_MODEL, chance_table
from hanafuda_env.koikoi.expert.race import (
    F_EXHAUST,
    F_P_ME,
    F_P_OPP,
    F_POT_ME,
    F_POT_OPP,
    F_VALUE,
    F_WIN_ME,
    F_WIN_OPP,
    LANES,
    MAX_NEED,
    MAX_OUT,
    N_FLOATS,
    T_EXCLUDERS,
    T_EXTRA_POINTS,
    T_EXTRA_SLOT,
    T_FLOOR,
    T_NEED_A,
    T_POINTS,
    T_REPLACES,
    T_SLOT_A,
    breakdown_total,
    points,
    race,
)
from hanafuda_env.koikoi.expert.views import (  # noqa: F401  (the views are part of this module's interface)
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
from hanafuda_env.koikoi.kernel import P_STAKE, compile_rules
from hanafuda_env.koikoi.observation import score_unit
from hanafuda_env.koikoi.rules import RuleSet
from hanafuda_env.koikoi.scoring import yaku_table
from hanafuda_env.koikoi.state import (
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    MAX_YAKU,
    PLAY,
    STOP,
)

# The expert's tunable weights, in the order of the ``weights`` array the functions take.
WEIGHT_NAMES = ("potential", "round_sigma", "koikoi_margin")
DEFAULT_WEIGHTS = {"potential": 0.4,  # weight of expected yaku gains beyond the race
                   "round_sigma": 6.0,  # spread of one round's result, in rule units
                   "koikoi_margin": 0.0}  # match-win chance koi-koi must gain over a stop
MADE_BONUS = 1000.0  # in rule units: making yaku now outranks every other outcome
NOISE = 1e-9  # tie-break noise per outcome

MAX_OUTCOMES = 3 * 48  # a mask row's most: every play, take and second outcome

_BIT = C.CARD_BITS.copy()
_MONTH_MASK = C.MONTH_MASK_OF_CARD.copy()
_ALL = U64(C.ALL_CARDS)
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
    chances: np.ndarray  # card_model.chance_table, a row (8,) per code: _rows_of
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
                       np.array(masks, dtype=np.uint64), _rows_of(chances), rules.point_unit,
                       score_unit(rules), rules.rounds)


def _rows_of(chances: np.ndarray) -> np.ndarray:
    """The chance table as one row per placement code (mine for the four cards, then
    theirs): a month's lookup reads one cache line, not eight."""
    rows = np.ascontiguousarray(chances.transpose(2, 0, 1).reshape(chances.shape[2], 8))
    rows.flags.writeable = False
    return rows


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
    chances = np.zeros((0, 8))
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
    count asked), per-outcome floats, card sets (per lane) and totals, a row's outcome
    list and its outcomes' values. Lane o is my side after outcome o, lane MAX_OUT + o the
    opponent's."""
    return (np.zeros((48, LANES)), np.zeros((n_masks, MAX_NEED + 1, LANES)),
            np.zeros((4, n_events)), np.zeros((MAX_OUT + 1, MAX_YAKU), dtype=np.int64),
            np.zeros((n_masks, LANES + 1), dtype=np.int64), np.zeros((N_FLOATS, MAX_OUT)),
            np.zeros((4, LANES), dtype=np.uint64), np.zeros((2, MAX_OUT), dtype=np.int64),
            np.zeros((4, MAX_OUTCOMES), dtype=np.uint64),
            np.zeros((2, MAX_OUTCOMES), dtype=np.int64), np.zeros(MAX_OUTCOMES))


NO_EXPERT = _placeholder()


@njit(cache=True)
def match_chance(margin, sigma, stake) -> float:
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
        total += p * match_chance(diff + sign * scores[e], sigma, stake)
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
        totals[0, o] = breakdown_total(sets[2, o], own_called, params, masks, counts, bds[o])
    my_calls = vi[VI_OWN_CALLS]
    race(vu, vi, n, sets, totals, vi[VI_OWN_HAND_N] - (1 if phase == PLAY else 0),
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
            stop = float(points(total, opp_called, my_calls, params))
            value = MADE_BONUS * unit + stop + 1e-3 * value
        floats[F_VALUE, o] = value


@njit(cache=True)
def _decide_chances(vu, vi, weights, params, masks, counts, table, forbidden, mask_bits,
                    chances, unit, scratch) -> tuple[float, float]:
    """The match-win chances after a stop and after a koi-koi: a stop banks the score; a
    koi-koi leads to each way of improving (its own score), to the opponent scoring, or to
    the hands running out, with the race's chances."""
    events, bds, floats, sets, totals = scratch[2], scratch[3], scratch[5], scratch[6], \
        scratch[7]
    sets[0, 0], sets[1, 0], sets[2, 0] = vu[VU_HAND], vu[VU_FIELD], vu[VU_OWN_PILE]
    totals[0, 0] = breakdown_total(vu[VU_OWN_PILE], True, params, masks, counts, bds[0])
    race(vu, vi, 1, sets, totals, vi[VI_OWN_HAND_N], False, True, vi[VI_OWN_CALLS] + 1,
          params, masks, counts, table, forbidden, mask_bits, chances, scratch)
    opp_called = vi[VI_OPP_CALLED] != 0
    stop = float(points(vi[VI_OWN_TOTAL], opp_called, vi[VI_OWN_CALLS], params))
    diff = float(vi[VI_SCORE_DIFF])
    later = max(vi[VI_ROUNDS_LEFT] - 1, 0)
    sigma = weights[1] * unit * math.sqrt(later) + 1e-6
    stake = params[P_STAKE]
    u_stop = match_chance(diff + stop, sigma, stake)
    p_me, p_opp = floats[F_P_ME, 0], floats[F_P_OPP, 0]
    p_none = min(max(1.0 - p_me - p_opp, 0.0), 1.0)
    u_mine = _weighted_chance(events[0], events[1], diff, 1.0, sigma, stake)
    u_theirs = _weighted_chance(events[2], events[3], diff, -1.0, sigma, stake)
    u_koi = (p_me * u_mine + p_opp * u_theirs
             + p_none * match_chance(diff + floats[F_EXHAUST, 0], sigma, stake))
    return u_stop, u_koi


@njit(cache=True)
def _decision_values(u_stop, u_koi, margin) -> tuple[float, float]:
    """What the expert compares for stop and koi-koi: the match-win chances, the stop's
    raised by ``margin``; a stop that loses the match anyway is worth less than any
    koi-koi (nothing to lose)."""
    hopeless = u_stop < 1e-9
    return (-1.0 if hopeless else u_stop + margin), u_koi


@njit(cache=True)
def _decide(vu, vi, weights, params, masks, counts, table, forbidden, mask_bits, chances, unit,
            scratch) -> np.int64:
    """Stop or koi-koi, whichever :func:`_decision_values` ranks higher (stop on a tie)."""
    u_stop, u_koi = _decide_chances(vu, vi, weights, params, masks, counts, table, forbidden,
                                    mask_bits, chances, unit, scratch)
    stop, koikoi = _decision_values(u_stop, u_koi, weights[2])
    return KOIKOI if koikoi > stop else STOP


@njit(cache=True)
def _list_outcomes(plays, takes, field, pending, outs, acts) -> np.int64:
    """A row's card outcomes in the order of their tie-break numbers: plays (a capture, a
    card laid down, or the lower of two matches), takes, then the higher of two matches.
    ``outs``: played, taken, placed, captured; ``acts``: the action. Returns how many."""
    n = 0
    bits = plays
    while bits != ZERO:
        card = lowest_index(bits)
        bits &= bits - ONE
        bit = _BIT[card]
        matches = field & _MONTH_MASK[card]
        count = popcount(matches)
        taken = matches & (~matches + ONE) if count == 2 else matches
        outs[0, n], outs[1, n] = bit, taken
        outs[2, n] = bit if count == 0 else ZERO
        outs[3, n] = taken | bit if count > 0 else ZERO
        acts[0, n] = card
        n += 1
    bits = takes
    while bits != ZERO:
        card = lowest_index(bits)
        bits &= bits - ONE
        bit = _BIT[card]
        outs[0, n], outs[1, n], outs[2, n], outs[3, n] = ZERO, bit, ZERO, bit | pending
        acts[0, n] = CHOOSE_OFFSET + card
        n += 1
    bits = plays
    while bits != ZERO:
        card = lowest_index(bits)
        bits &= bits - ONE
        matches = field & _MONTH_MASK[card]
        if popcount(matches) == 2:
            high = matches & ~(matches & (~matches + ONE))
            outs[0, n], outs[1, n], outs[2, n], outs[3, n] = _BIT[card], high, ZERO, \
                high | _BIT[card]
            acts[0, n] = card
            n += 1
    return n


@njit(cache=True)
def _outcome_values(vu, vi, plays, takes, weights, params, masks, counts, table, forbidden,
                    mask_bits, chances, unit, scratch) -> np.int64:
    """The value of every card outcome of ``plays`` and ``takes`` (in
    :func:`_list_outcomes`' order) into ``scratch[10]``, its action into ``scratch[9][0]``;
    returns how many."""
    floats, outs, acts, values = scratch[5], scratch[8], scratch[9], scratch[10]
    n = _list_outcomes(plays, takes, vu[VU_FIELD], _BIT[max(vi[VI_PENDING], 0)], outs, acts)
    for start in range(0, n, MAX_OUT):
        size = min(MAX_OUT, n - start)
        _card_values(vu, vi, size, outs[:, start:start + size], weights, params, masks, counts,
                     table, forbidden, mask_bits, chances, unit, scratch)
        for o in range(size):
            values[start + o] = floats[F_VALUE, o]
    return n


@njit(cache=True)
def _opponent_breakdown(vu, vi, params, masks, counts, scratch) -> None:
    """The opponent's yaku breakdown, which the race reads from the last breakdown row."""
    breakdown_total(vu[VU_OPP_PILE], vi[VI_OPP_CALLED] != 0, params, masks, counts,
                    scratch[3][MAX_OUT])


@njit(cache=True)
def choose(vu, vi, plays, takes, can_stop, can_koikoi, noise, at_first, at_second, weights,
           params, masks, counts, table, forbidden, mask_bits, chances, unit,
           scratch) -> np.int64:
    """The expert's action from one view: the best card action of ``plays`` (cards to play,
    a bit set) and ``takes`` (field cards to take), else stop or koi-koi. Outcome i of the
    card actions (ascending) adds ``NOISE × noise[at_first + i]``, the second outcome j of
    the plays matching two field cards ``NOISE × noise[at_second + j]``."""
    _opponent_breakdown(vu, vi, params, masks, counts, scratch)
    if plays == ZERO and takes == ZERO:
        if can_stop and can_koikoi:
            return _decide(vu, vi, weights, params, masks, counts, table, forbidden, mask_bits,
                           chances, unit, scratch)
        return STOP if can_stop else KOIKOI
    n = _outcome_values(vu, vi, plays, takes, weights, params, masks, counts, table,
                        forbidden, mask_bits, chances, unit, scratch)
    acts, values = scratch[9], scratch[10]
    n_first = popcount(plays) + popcount(takes)
    best, best_value = -1, -np.inf
    for i in range(n):
        at = at_first + i if i < n_first else at_second + i - n_first
        value = values[i] + NOISE * noise[at]
        if value > best_value:
            best, best_value = acts[0, i], value
    return best


@njit(cache=True)
def action_values(vu, vi, mask_row, weights, params, masks, counts, table, forbidden,
                  mask_bits, chances, unit, scratch, out) -> None:
    """What the expert compares at one decision, per action (``out``, 98 floats; -inf
    where illegal): a card action's best outcome in round points (plus ``MADE_BONUS``
    units when it makes yaku), or stop's and koi-koi's match-win chances as
    :func:`_decision_values` ranks them; a forced action is worth 0. The expert plays the
    highest (its tie-break noise aside), so the actions within a rounding error of the
    highest are the moves it rates as good as its own."""
    out[:] = -np.inf
    plays, takes = _mask_bits(mask_row)
    _opponent_breakdown(vu, vi, params, masks, counts, scratch)
    if plays == ZERO and takes == ZERO:
        if mask_row[STOP] and mask_row[KOIKOI]:
            u_stop, u_koi = _decide_chances(vu, vi, weights, params, masks, counts, table,
                                            forbidden, mask_bits, chances, unit, scratch)
            out[STOP], out[KOIKOI] = _decision_values(u_stop, u_koi, weights[2])
        elif mask_row[STOP] or mask_row[KOIKOI]:
            out[STOP if mask_row[STOP] else KOIKOI] = 0.0
        return
    n = _outcome_values(vu, vi, plays, takes, weights, params, masks, counts, table,
                        forbidden, mask_bits, chances, unit, scratch)
    acts, values = scratch[9], scratch[10]
    for i in range(n):
        out[acts[0, i]] = max(out[acts[0, i]], values[i])


@njit(cache=True)
def _mask_bits(mask_row):
    plays, takes = ZERO, ZERO
    for c in range(48):
        if mask_row[c]:
            plays |= ONE << U64(c)
        if mask_row[CHOOSE_OFFSET + c]:
            takes |= ONE << U64(c)
    return plays, takes


@njit(cache=True)
def _two_matches(plays, field) -> np.int64:
    """Plays that match two field cards: each has a second outcome."""
    n = 0
    while plays != ZERO:
        card = lowest_index(plays)
        plays &= plays - ONE
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
def values_on_views(vu, vi, masks_legal, weights, params, masks, counts, table, forbidden,
                    mask_bits, chances, unit, scratch_arrays, out) -> None:
    """:func:`action_values` for every view (``out``: (N, 98))."""
    for g in range(vu.shape[0]):
        action_values(vu[g], vi[g], masks_legal[g], weights, params, masks, counts, table,
                      forbidden, mask_bits, chances, unit, scratch_arrays, out[g])


@njit(cache=True)
def record_action(s, noise_word, score_scale, rounds, vu, vi, noise, weights, params, masks,
                  counts, table, forbidden, mask_bits, chances, unit, scratch_arrays) -> np.int64:
    """The expert's move in a game record from its mover's view, with tie-break numbers
    hashed from ``noise_word`` (the rollout policy)."""
    record_view(s, score_scale, rounds, vu, vi)
    plays, takes = ZERO, ZERO
    phase = s.phase
    if phase == PLAY:
        plays = vu[VU_HAND]
    elif phase != DECIDE:
        takes = vu[VU_FIELD] & _MONTH_MASK[s.pending]
    n = popcount(plays) + popcount(takes) + _two_matches(plays, vu[VU_FIELD])
    for k in range(n):
        noise_word = splitmix64(noise_word)
        noise[k] = (noise_word >> U64(11)) * (1.0 / 9007199254740992.0)
    return choose(vu, vi, plays, takes, phase == DECIDE, phase == DECIDE, noise, 0,
                  popcount(plays) + popcount(takes), weights, params, masks, counts, table,
                  forbidden, mask_bits, chances, unit, scratch_arrays)
