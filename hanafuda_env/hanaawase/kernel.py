"""The compiled Hana-awase rules (RULES.md §3) on the Koi-Koi kernel's design and parts.

A game is one :data:`~hanafuda_env.hanaawase.state.HA_STATE_DTYPE` record. The turn is
Koi-Koi's (§2.2), so this kernel reuses :mod:`~hanafuda_env.koikoi.kernel`'s compiled pieces on its
records: ``place_card`` (lay down, capture, or wait for a choice), ``legal_bits`` (the legal
actions as a bit set), the seeded ``shuffle_deck`` and the table breakdown ``pile_breakdown``
(its piles are scored once, at the round's end); the yaku table is compiled by the same
``yaku_arrays`` and, for the observations' totals, packed by
:func:`~hanafuda_env.koikoi.score_lookup.pack_lookup`. What is Hana-awase's own is here: the deal
for N players (§3.1), the turn passing around the table, and the round's scoring, dealer and
match end (§3.2–3.4). The batch loops are the ones both games share
(:mod:`~hanafuda_env.koikoi.loops`); this module registers Hana-awase's move, deal, rollout
policies and round scores in them for its records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numba import from_dtype, njit
from numba.extending import overload

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import U64, ZERO, card_bit, lowest_index, popcount, splitmix64
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.hanaawase.scoring import (
    ARASHI,
    FUKE_LIMIT,
    HAND_YAKU_POINTS,
    HATCHO_LIMITS,
    HATCHO_POINTS,
    NANA_KASU,
    ROKU_KASU,
    WILLOW,
    hanaawase_yaku_table,
    yaku_names,
)
from hanafuda_env.hanaawase.state import (
    HA_RESULT_DTYPE,
    HA_STATE_DTYPE,
    HAND_YAKU_NANA,
    HAND_YAKU_NONE,
    HAND_YAKU_ROKU,
    MAX_YAKU_COLUMNS,
)
from hanafuda_env.koikoi import loops
from hanafuda_env.koikoi.kernel import (
    bits_of,
    deal_word,
    full_month,
    legal_bits,
    pile_breakdown,
    place_card,
    shuffle_deck,
    yaku_arrays,
)
from hanafuda_env.koikoi.loops import GREEDY, RANDOM, pick_bit, uniform
from hanafuda_env.koikoi.score_lookup import pack_lookup
from hanafuda_env.koikoi.state import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    MATCH_OVER,
    PLAY,
    ROUND_OVER,
)

_DEALER_SALT = U64(2000 * 0x9E3779B97F4A7C15 % (1 << 64))
_CHAFF = U64(C.CHAFF_CARDS)
_WILLOW, _ARASHI = U64(WILLOW), U64(ARASHI)
_NANA_POINTS, _ROKU_POINTS = HAND_YAKU_POINTS[NANA_KASU], HAND_YAKU_POINTS[ROKU_KASU]

# The parameter vector (compile_hanaawase): these indices into it.
(P_PLAYERS, P_HAND, P_FIELD, P_STOCK, P_ROUNDS, P_REDEAL, P_NANA, P_ROKU, P_HATCHO,
 P_NAGASHI, P_ARASHI, P_FUKE, P_PAR, P_N_YAKU) = range(14)
N_PARAMS = 14


@dataclass(frozen=True)
class CompiledHanaawase:
    """A Hana-awase rule set as the kernel reads it: the parameters, each card's points, the
    pile yaku table (masks (1, n, 4) and counts (1, n, 6)) and the breakdown's column names
    (the pile yaku, then nana-kasu, roku-kasu and hatcho)."""

    params: np.ndarray
    card_points: np.ndarray
    yaku_masks: np.ndarray
    yaku_counts: np.ndarray
    yaku_names: tuple[str, ...]
    score_lookup: np.ndarray  # the table packed by score_lookup.pack_lookup (observations)
    # what the shared batch loops (koikoi.loops) pass to Hana-awase's move, deal and policies
    ctx: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ctx", (self.params, self.yaku_masks, self.yaku_counts,
                                         self.card_points))


@lru_cache(maxsize=64)
def compile_hanaawase(rules: HanaawaseRules) -> CompiledHanaawase:
    table = hanaawase_yaku_table(rules)
    masks, counts = yaku_arrays((table,))
    params = np.zeros(N_PARAMS, dtype=np.int64)
    for index, value in ((P_PLAYERS, rules.num_players), (P_HAND, rules.hand_size),
                         (P_FIELD, rules.field_size), (P_STOCK, rules.stock_size),
                         (P_ROUNDS, rules.rounds), (P_REDEAL, rules.redeal_field_four),
                         (P_NANA, rules.nana_kasu), (P_ROKU, rules.roku_kasu),
                         (P_HATCHO, rules.hatcho), (P_NAGASHI, rules.yaku_nagashi),
                         (P_ARASHI, rules.arashi), (P_FUKE, rules.fuke), (P_PAR, rules.par),
                         (P_N_YAKU, len(table))):
        params[index] = int(value)
    names = yaku_names(rules)
    assert len(names) <= MAX_YAKU_COLUMNS
    return CompiledHanaawase(params, np.array(rules.card_points, dtype=np.int64), masks, counts,
                             names, pack_lookup((table,)))


# ------------------------------------------------------------------------------------ deals
@njit(cache=True)
def _first_dealer(s, players) -> np.int8:
    """A uniformly drawn seat for a match's first dealer (the deal counter does not move)."""
    return np.int8((splitmix64(deal_word(s) + _DEALER_SALT) >> U64(32)) % U64(players))


@njit(cache=True)
def deal_one(s, params, deck, order, work) -> None:
    """Deal the next round (a new match after MATCH_OVER) from ``deck`` (48 ids) or, if its
    first entry is negative, the next shuffle (dealt again while a month lies complete on the
    field, §3.1). The dealer's hand comes first in the order, then each seat's around the
    table, the field, and the stock. ``order`` (48 int64) and ``work`` (112 uint64): scratch."""
    players, hand, field = params[P_PLAYERS], params[P_HAND], params[P_FIELD]
    if s.phase == MATCH_OVER:
        for p in range(s.match_score.shape[0]):
            s.match_score[p] = 0
        s.round_index = 0
        s.dealer = _first_dealer(s, players)
    dealt = players * hand
    if deck[0] >= 0:
        for i in range(48):
            order[i] = deck[i]
    else:
        shuffle_deck(s, order, work)
        while params[P_REDEAL] and full_month(bits_of(order, dealt, dealt + field)):
            shuffle_deck(s, order, work)
    for p in range(s.hands.shape[0]):
        s.hands[p] = ZERO
        s.piles[p] = ZERO
        s.declared[p] = ZERO
        s.hand_yaku[p] = HAND_YAKU_NONE
    for k in range(players):
        seat = (s.dealer + k) % players
        cards = bits_of(order, k * hand, (k + 1) * hand)
        s.hands[seat] = cards
        chaff = popcount(cards & _CHAFF)
        if params[P_NANA] and chaff == 7:
            s.hand_yaku[seat] = HAND_YAKU_NANA
            s.declared[seat] = cards & _CHAFF
        elif params[P_ROKU] and chaff == 6:
            s.hand_yaku[seat] = HAND_YAKU_ROKU
            s.declared[seat] = cards & _CHAFF
    s.field = bits_of(order, dealt, dealt + field)
    for i in range(params[P_STOCK]):
        s.stock[i] = order[dealt + field + i]
    for i in range(params[P_STOCK], s.stock.shape[0]):
        s.stock[i] = 0
    s.stock_pos = 0
    s.mover = s.dealer
    s.phase = PLAY
    s.pending = -1
    s.turn = 0


# ---------------------------------------------------------------------------------- a move
@njit(cache=True, inline="always")
def apply_move(s, action, params, card_points, masks, counts, row) -> bool:
    """Apply a legal action of the player to move; True when the round ended (row filled)."""
    mover = s.mover
    if s.phase == PLAY:
        s.hands[mover] ^= card_bit(action)
        if place_card(s, action, mover, CHOOSE_PLAYED):
            return False
        return _draw(s, mover, params, card_points, masks, counts, row)
    taken = card_bit(action - CHOOSE_OFFSET)
    s.field ^= taken
    s.piles[mover] |= taken | card_bit(s.pending)
    s.pending = -1
    if s.phase == CHOOSE_PLAYED:
        return _draw(s, mover, params, card_points, masks, counts, row)
    return _end_turn(s, params, card_points, masks, counts, row)


@njit(cache=True, inline="always")
def _draw(s, mover, params, card_points, masks, counts, row) -> bool:
    card = s.stock[min(s.stock_pos, params[P_STOCK] - 1)]
    s.stock_pos += 1
    if place_card(s, card, mover, CHOOSE_DRAWN):
        return False
    return _end_turn(s, params, card_points, masks, counts, row)


@njit(cache=True, inline="always")
def _end_turn(s, params, card_points, masks, counts, row) -> bool:
    """Pass the turn around the table; the round ends when every hand is empty (§3.1)."""
    s.turn += 1
    s.phase = PLAY
    s.mover = (s.mover + 1) % params[P_PLAYERS]
    if s.turn < params[P_PLAYERS] * params[P_HAND]:
        return False
    _score_round(s, params, card_points, masks, counts, row)
    return True


# ---------------------------------------------------------------------------------- scoring
@njit(cache=True)
def card_total(pile, card_points) -> np.int64:
    total = 0
    bits = pile
    while bits != ZERO:
        card = lowest_index(bits)
        total += card_points[card]
        bits &= bits - U64(1)
    return total


@njit(cache=True)
def _score_round(s, params, card_points, masks, counts, row) -> None:
    """Score the round into ``row`` (§3.2–3.4), move the match score and the dealer (the top
    scorer; a tie to the first of them in turn order from the dealer; a void round keeps
    the dealer), and close the round or the match."""
    players, n_yaku = params[P_PLAYERS], params[P_N_YAKU]
    cancelled = False
    for p in range(players):
        pile = s.piles[p]
        if (params[P_NAGASHI] and pile & _WILLOW == _WILLOW) or (
                params[P_ARASHI] and pile & _ARASHI == _ARASHI):
            cancelled = True
    void = False
    yaku_sum = 0
    for p in range(row.yaku.shape[0]):
        row.card_points[p] = 0
        row.yaku_total[p] = 0
        row.score[p] = 0
        row.piles[p] = s.piles[p]
        row.match_scores[p] = 0
        for y in range(row.yaku.shape[1]):
            row.yaku[p, y] = 0
    for p in range(players):
        pile = s.piles[p]
        points = card_total(pile, card_points)
        row.card_points[p] = points
        if params[P_FUKE] and points <= FUKE_LIMIT:
            void = True
        if cancelled:
            continue
        pile_breakdown(pile, 0, masks, counts, n_yaku, row.yaku[p])
        if s.hand_yaku[p] == HAND_YAKU_NANA:
            row.yaku[p, n_yaku] = _NANA_POINTS
        elif s.hand_yaku[p] == HAND_YAKU_ROKU:
            row.yaku[p, n_yaku + 1] = _ROKU_POINTS
        position = (p - s.dealer) % players
        if params[P_HATCHO] and popcount(pile) <= HATCHO_LIMITS[position]:
            row.yaku[p, n_yaku + 2] = HATCHO_POINTS
        total = 0
        for y in range(n_yaku + 3):
            total += row.yaku[p, y]
        row.yaku_total[p] = total
        yaku_sum += total
    row.round_index = s.round_index
    row.dealer = s.dealer
    row.void = void
    row.cancelled = cancelled
    best = -1
    best_score = 0
    for k in range(players):
        p = (s.dealer + k) % players
        if not void:
            row.score[p] = (row.card_points[p] - params[P_PAR] + row.yaku_total[p] * players
                            - yaku_sum)
        s.match_score[p] += row.score[p]
        if best < 0 or row.score[p] > best_score:
            best, best_score = p, row.score[p]
    for p in range(row.rank.shape[0]):
        row.rank[p] = 0
        row.match_ranks[p] = 0
    _ranks(row.score, players, row.rank)
    if not void:
        s.dealer = best
    row.next_dealer = s.dealer
    s.round_index += 1
    over = s.round_index >= params[P_ROUNDS]
    s.phase = MATCH_OVER if over else ROUND_OVER
    row.match_over = over
    row.match_rounds = s.round_index if over else 0
    if over:
        for p in range(players):
            row.match_scores[p] = s.match_score[p]
        _ranks(row.match_scores, players, row.match_ranks)


@njit(cache=True, inline="always")
def _ranks(scores, players, out) -> None:
    """Each seat's rank: how many players scored more (0: first, shared on a tie)."""
    for p in range(players):
        above = 0
        for q in range(players):
            if scores[q] > scores[p]:
                above += 1
        out[p] = above


# ------------------------------------------- Hana-awase's part of the shared batch loops
@njit(cache=True)
def greedy_action(s, card_points, noise_word) -> np.int64:
    """The legal action capturing the most card points now (a played card's capture; a field
    choice's card), ties broken by the noise word; a card that captures nothing is the one
    worth least, so it is given away."""
    bits, offset = legal_bits(s)
    best, best_value = -1, -1e18
    k = 0
    while bits != ZERO:
        card = lowest_index(bits)
        bits &= bits - U64(1)
        if offset == 0:
            matches = s.field & C.MONTH_MASK_OF_CARD[card]
            if matches == ZERO:
                value = -float(card_points[card])
            elif popcount(matches) == 2:  # a choice follows: the better field card
                first = lowest_index(matches)
                second = lowest_index(matches & (matches - U64(1)))
                value = float(card_points[card] + max(card_points[first], card_points[second]))
            else:
                value = float(card_points[card] + card_total(matches, card_points))
        else:
            value = float(card_points[card])
        value += 1e-3 * uniform(noise_word + U64(k))
        k += 1
        if value > best_value:
            best, best_value = offset + card, value
    return best


POLICIES = {"random": RANDOM, "greedy": GREEDY}
_RECORD = from_dtype(HA_STATE_DTYPE)


def _hanaawase(record_type) -> bool:
    return record_type == _RECORD


@overload(loops.play_move, inline="always")
def _play_move(s, action, params, masks, counts, extra, row):
    if _hanaawase(s):
        return lambda s, action, params, masks, counts, extra, row: apply_move(
            s, action, params, extra, masks, counts, row)
    return None


@overload(loops.deal_round, inline="always")
def _deal_round(s, params, masks, counts, extra, deck, row, order, work):
    if not _hanaawase(s):
        return None

    def deal(s, params, masks, counts, extra, deck, row, order, work):
        deal_one(s, params, deck, order, work)
        return False  # a Hana-awase deal never ends the round
    return deal


@overload(loops.add_round, inline="always")
def _add_round(totals, g, row):
    if row == from_dtype(HA_RESULT_DTYPE):
        def add(totals, g, row):
            for p in range(totals.shape[1]):
                totals[g, p] += row.score[p]
        return add
    return None


@overload(loops.next_word, inline="always")
def _next_word(s, word):
    if _hanaawase(s):
        return lambda s, word: splitmix64(word)
    return None


@overload(loops.policy_action, inline="always")
def _policy_action(s, policy, word, params, masks, counts, extra):
    if not _hanaawase(s):
        return None

    def act(s, policy, word, params, masks, counts, extra):
        if policy == GREEDY:
            return greedy_action(s, extra, word)  # extra: the card points
        bits, offset = legal_bits(s)
        return pick_bit(bits, offset, uniform(word))
    return act


@overload(loops.expert_action)
def _expert_action(s, word, params, masks, counts, policy_data):
    if _hanaawase(s):  # no compiled expert: POLICIES never names one
        return lambda s, word, params, masks, counts, policy_data: -1
    return None
