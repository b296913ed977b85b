"""The compiled Koi-Koi rules: one Numba kernel for one game and for a batch.

Every rule is a small ``@njit`` function on one game's record (:data:`state.STATE_DTYPE`);
:mod:`hanafuda_env.koikoi.batch` loops them over the games, so batch 1 and batch 8192 run the same
machine code. A rule set enters as data (:func:`compile_rules`): an ``int64`` parameter
vector and the yaku table as mask and count arrays, one table for a player who has not
called koi-koi and one for a player who has (they differ only with ``sake_after_koikoi``).

Rounds end: :func:`apply_move` stops a game at its round's end (phase ``ROUND_OVER`` or
``MATCH_OVER``) and writes its result row; :func:`deal_one` deals the next round (a new match
after ``MATCH_OVER``), and a dealt hand yaku ends that round at once, with a row too.

Deals hash the game's seed and deal counter (splitmix64), so a game deals the same cards
alone, in any batch and after a fork. The machine code is cached on disk (``cache=True``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numba import njit

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import GOLDEN, ONE, U64, ZERO, card_bit, popcount, splitmix64
from hanafuda_env.common.results import (
    END_EXHAUSTION_WIN,
    END_HAND_YAKU,
    END_KOIKOI_WIN,
    END_LAST_CARD,
    END_NO_GAME,
    END_STOP,
)
from hanafuda_env.koikoi.deals import STOCK_SIZE
from hanafuda_env.koikoi.rules import CHOICES, QUIET_EXHAUSTION_WINNER, RuleSet
from hanafuda_env.koikoi.score_lookup import lookup_total, pack_lookup
from hanafuda_env.koikoi.scoring import CALL_BONUS_LIMIT, SEVEN_POINTS, Yaku, yaku_table
from hanafuda_env.koikoi.state import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    DECIDE,
    MATCH_OVER,
    MAX_YAKU,
    PLAY,
    ROUND_OVER,
    STOP,
)

_COIN_SALT = U64(1000 * 0x9E3779B97F4A7C15 % (1 << 64))
MONTH_OF_CARD = C.MONTH_MASK_OF_CARD.copy()
_NIBBLE_LOW = U64(int("1" * 12, 16))  # bit 0 of every month's nibble

# The parameter vector of a rule set (compile_rules): these indices into it.
(P_SEVEN_DOUBLING, P_KOIKOI_MULTIPLIER, P_MULTIPLE_KOIKOI, P_OWN_BONUS, P_EXHAUSTION,
 P_QUIET_WINNER, P_EXHAUSTION_POINTS, P_HAND_YAKU, P_TESHI, P_KUTTSUKI, P_REDEAL_HAND_FOUR,
 P_WINNER_DEALS, P_ROUNDS, P_TARGET, P_STAKE, P_N_YAKU) = range(16)
N_PARAMS = 16
EXHAUSTION_CODES = {name: i for i, name in enumerate(CHOICES["on_exhaustion"])}
HIGHEST_TOTAL, DEALER_ALWAYS = EXHAUSTION_CODES["highest-total"], EXHAUSTION_CODES[
    "dealer-wins-always"]
HAND_YAKU_CODES = {"none": 0, "teshi": 1, "teshi+kuttsuki": 2}
# Columns of the yaku arrays: masks (uint64) and counts (int64) per yaku.
Y_NEED_MASK_A, Y_NEED_MASK_B, Y_EXTRA_MASK, Y_FORBIDDEN = range(4)
Y_NEED_A, Y_NEED_B, Y_EXTRA_OVER, Y_EXTRA_POINTS, Y_POINTS, Y_EXCLUDERS = range(6)


@dataclass(frozen=True)
class CompiledRules:
    """A rule set as the kernel reads it. ``yaku_masks`` (2, n, 4) and ``yaku_counts``
    (2, n, 6): per table (0: before a koi-koi call, 1: after), per yaku, the columns above."""

    params: np.ndarray
    yaku_masks: np.ndarray
    yaku_counts: np.ndarray
    yaku_names: tuple[str, ...]  # the table's yaku, then teshi and kuttsuki
    score_lookup: np.ndarray  # both tables as score_lookup.pack_lookup packs them

    # what the shared batch loops (koikoi.loops) pass to Koi-Koi's move and deal: the
    # lookup is the game's ``extra``
    ctx: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ctx", (self.params, self.yaku_masks, self.yaku_counts,
                                         self.score_lookup))


def yaku_arrays(tables: tuple[tuple[Yaku, ...], ...]) -> tuple[np.ndarray, np.ndarray]:
    """Yaku tables (the same names in each) as the ``masks`` (T, n, 4) and ``counts``
    (T, n, 6) arrays that :func:`pile_breakdown` reads; any game's yaku table compiles here."""
    names = tuple(y.name for y in tables[0])
    n = len(names)
    masks = np.zeros((len(tables), n, 4), dtype=np.uint64)
    counts = np.zeros((len(tables), n, 6), dtype=np.int64)
    for t, table in enumerate(tables):
        for i, y in enumerate(table):
            for k, (mask, needed) in enumerate(y.conditions):
                masks[t, i, Y_NEED_MASK_A + k] = mask
                counts[t, i, Y_NEED_A + k] = needed
            masks[t, i, Y_EXTRA_MASK] = y.extra_mask
            masks[t, i, Y_FORBIDDEN] = y.forbidden
            counts[t, i, Y_EXTRA_OVER] = y.extra_over
            counts[t, i, Y_EXTRA_POINTS] = y.extra_points
            counts[t, i, Y_POINTS] = y.points
            counts[t, i, Y_EXCLUDERS] = sum(1 << names.index(e) for e in y.excluded_by
                                            if e in names)
    return masks, counts


@lru_cache(maxsize=128)
def compile_rules(rules: RuleSet) -> CompiledRules:
    """The kernel's arrays for ``rules`` (cached: a rule set is frozen)."""
    tables = (yaku_table(rules, False), yaku_table(rules, True))
    names = tuple(y.name for y in tables[0])
    n = len(names)
    masks, counts = yaku_arrays(tables)
    params = np.zeros(N_PARAMS, dtype=np.int64)
    quiet = QUIET_EXHAUSTION_WINNER[rules.on_exhaustion]
    params[P_SEVEN_DOUBLING] = rules.seven_point_doubling
    params[P_KOIKOI_MULTIPLIER] = rules.koikoi_multiplier
    params[P_MULTIPLE_KOIKOI] = rules.multiple_koikoi
    params[P_OWN_BONUS] = rules.own_koikoi_bonus
    params[P_EXHAUSTION] = EXHAUSTION_CODES[rules.on_exhaustion]
    params[P_QUIET_WINNER] = -1 if quiet is None else quiet
    params[P_EXHAUSTION_POINTS] = rules.exhaustion_points
    params[P_HAND_YAKU] = HAND_YAKU_CODES[rules.hand_yaku]
    params[P_TESHI] = rules.points.teshi
    params[P_KUTTSUKI] = rules.points.kuttsuki
    params[P_REDEAL_HAND_FOUR] = rules.redeal_hand_four
    params[P_WINNER_DEALS] = rules.next_dealer == "winner"
    params[P_ROUNDS] = rules.rounds
    params[P_TARGET] = -1 if rules.target_score is None else rules.target_score
    params[P_STAKE] = -1 if rules.starting_points is None else rules.starting_points
    params[P_N_YAKU] = n
    assert n + 2 <= MAX_YAKU
    return CompiledRules(params, masks, counts, names + ("teshi", "kuttsuki"),
                         pack_lookup(tables))


# ---------------------------------------------------------------------------------- months
@njit(cache=True, inline="always")
def full_month(bits: np.uint64) -> bool:
    """A month with all four cards in the set (§2.1 redeal, §2.3 teshi)."""
    return (bits & (bits >> ONE) & (bits >> U64(2)) & (bits >> U64(3)) & _NIBBLE_LOW) != ZERO


@njit(cache=True, inline="always")
def bits_of(order, start, stop) -> np.uint64:
    bits = ZERO
    for i in range(start, stop):
        bits |= card_bit(order[i])
    return bits


# ---------------------------------------------------------------------------------- scoring
@njit(cache=True, inline="always")
def _standing(pile, table, masks, counts, n_yaku) -> np.int64:
    """Bit y set: yaku y's cards are in the pile, none of its forbidden ones."""
    stands = 0
    for y in range(n_yaku):
        if (pile & masks[table, y, Y_FORBIDDEN]) == ZERO \
                and popcount(pile & masks[table, y, Y_NEED_MASK_A]) >= counts[table, y, Y_NEED_A] \
                and popcount(pile & masks[table, y, Y_NEED_MASK_B]) >= counts[table, y, Y_NEED_B]:
            stands |= 1 << y
    return stands


@njit(cache=True, inline="always")
def _points(pile, table, y, masks, counts, stands) -> np.int64:
    """Yaku y's points in the pile: 0 unless it stands and no yaku replacing it does."""
    if (stands >> y) & 1 == 0 or (stands & counts[table, y, Y_EXCLUDERS]) != 0:
        return 0
    extra = popcount(pile & masks[table, y, Y_EXTRA_MASK]) - counts[table, y, Y_EXTRA_OVER]
    return counts[table, y, Y_POINTS] + counts[table, y, Y_EXTRA_POINTS] * max(extra, 0)


@njit(cache=True)
def pile_breakdown(pile, table, masks, counts, n_yaku, out) -> None:
    """Each yaku's points in the pile under table 0 (no call) or 1 (called koi-koi), into
    ``out[:n_yaku]`` (result rows; a turn's total comes from ``score_lookup``)."""
    stands = _standing(pile, table, masks, counts, n_yaku)
    for y in range(n_yaku):
        out[y] = _points(pile, table, y, masks, counts, stands)


@njit(cache=True, inline="always")
def round_score(total, loser_called, winner_calls, params):
    """(base, multiplier) of a win with this yaku total (§2.5, §2.10)."""
    factor = 2 if total >= SEVEN_POINTS and params[P_SEVEN_DOUBLING] else 1
    if loser_called:
        factor *= params[P_KOIKOI_MULTIPLIER]
    if params[P_OWN_BONUS]:
        if winner_calls > CALL_BONUS_LIMIT:
            return total, factor * (winner_calls - 2)
        return total + winner_calls, factor
    return total, factor


@njit(cache=True)
def hand_yaku(hand, params):
    """(points, is_teshi) of a dealt hand's hand yaku, points 0 if none (§2.3; a hand that
    is both scores the one worth more, teshi on a tie)."""
    kind = params[P_HAND_YAKU]
    if kind == 0:
        return 0, False
    teshi = params[P_TESHI] if full_month(hand) else 0
    kuttsuki = 0
    if kind == 2:
        odd = (hand ^ (hand >> ONE) ^ (hand >> U64(2)) ^ (hand >> U64(3))) & _NIBBLE_LOW
        if odd == ZERO and popcount(hand) == 8:
            kuttsuki = params[P_KUTTSUKI]
    if teshi >= kuttsuki:
        return teshi, True
    return kuttsuki, False


# ------------------------------------------------------------------------------------ deals
@njit(cache=True)
def deal_word(s) -> np.uint64:
    return splitmix64(s.seed ^ splitmix64(s.deal_count))


@njit(cache=True)
def _coin(s) -> np.int8:
    """A fair seat for the first dealer of a match (the deal counter does not advance)."""
    return np.int8((splitmix64(deal_word(s) + _COIN_SALT) >> U64(40)) & ONE)


@njit(cache=True)
def shuffle_deck(s, order, work) -> None:
    """The next shuffle of the game's seed: the card ids sorted by 48 hashed keys (distinct:
    splitmix64 is a bijection). The keys are uniform, so a counting pass on their top 6 bits
    leaves the ids nearly sorted and an insertion sort finishes in about linear time.
    ``work``: 48 + 64 scratch words."""
    word = deal_word(s)
    s.deal_count += ONE
    keys = work[:48]
    starts = work[48:112]
    for b in range(64):
        starts[b] = ZERO
    for i in range(48):
        keys[i] = splitmix64(word + U64(i) * GOLDEN)
        starts[keys[i] >> U64(58)] += ONE
    at = ZERO
    for b in range(64):
        n = starts[b]
        starts[b] = at
        at += n
    for i in range(48):
        b = keys[i] >> U64(58)
        order[starts[b]] = i
        starts[b] += ONE
    for i in range(1, 48):
        card = order[i]
        key = keys[card]
        j = i - 1
        while j >= 0 and keys[order[j]] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = card


@njit(cache=True)
def must_redeal(order, params) -> bool:
    """A month complete on the field (§2.1) or, with ``redeal_hand_four``, in a hand."""
    if full_month(bits_of(order, 16, 24)):
        return True
    return params[P_REDEAL_HAND_FOUR] != 0 and (
        full_month(bits_of(order, 0, 8)) or full_month(bits_of(order, 8, 16)))


@njit(cache=True)
def deal_one(s, params, masks, counts, deck, row, order, work) -> bool:
    """Deal the next round (a new match after MATCH_OVER): ``deck`` (48 ids) or, if its first
    entry is negative, the next shuffle. True when a hand yaku ended the round at once.
    ``order`` (48 int64) and ``work`` (112 uint64): scratch."""
    if s.phase == MATCH_OVER:
        s.match_score[0] = 0
        s.match_score[1] = 0
        s.points_won[0] = 0
        s.points_won[1] = 0
        s.round_index = 0
        s.dealer = _coin(s)
    if deck[0] >= 0:
        for i in range(48):
            order[i] = deck[i]
    else:
        shuffle_deck(s, order, work)
        while must_redeal(order, params):
            shuffle_deck(s, order, work)
    dealer = s.dealer
    s.hands[dealer] = bits_of(order, 0, 8)
    s.hands[1 - dealer] = bits_of(order, 8, 16)
    s.field = bits_of(order, 16, 24)
    for i in range(STOCK_SIZE):
        s.stock[i] = order[24 + i]
    s.stock_pos = 0
    for seat in range(2):
        s.piles[seat] = ZERO
        s.koikoi_calls[seat] = 0
        s.yaku_total[seat] = 0
    s.mover = dealer
    s.phase = PLAY
    s.pending = -1
    s.turn = 0
    first, first_teshi = hand_yaku(s.hands[dealer], params)
    second, second_teshi = hand_yaku(s.hands[1 - dealer], params)
    if first <= 0 and second <= 0:
        return False
    winner = dealer if first > 0 else 1 - dealer
    points = first if first > 0 else second
    teshi = first_teshi if first > 0 else second_teshi
    # Decision (§2.5 scores every win): a hand yaku worth 7 or more doubles.
    base, multiplier = round_score(points, False, 0, params)
    _clear(row)
    row.yaku[params[P_N_YAKU] + (0 if teshi else 1)] = base
    _finish(s, params, winner, base, multiplier, END_HAND_YAKU, row)
    return True


# ---------------------------------------------------------------------------------- a move
@njit(cache=True, inline="always")
def legal_bits(s):
    """The legal actions of the player to move as a bit set, and the action id of bit 0
    (no bits once the round is over)."""
    phase = s.phase
    if phase == PLAY:
        return s.hands[s.mover], 0
    if phase == CHOOSE_PLAYED or phase == CHOOSE_DRAWN:
        return s.field & MONTH_OF_CARD[s.pending], CHOOSE_OFFSET
    if phase == DECIDE:
        return U64(3), STOP  # stop and koi-koi
    return ZERO, 0


@njit(cache=True, inline="always")
def is_legal(s, action) -> bool:
    bits, offset = legal_bits(s)
    bit = action - offset
    return 0 <= bit < 48 and (bits >> U64(bit)) & ONE != ZERO


@njit(cache=True, inline="always")
def apply_move(s, action, params, masks, counts, lookup, row) -> bool:
    """Apply a legal action of the player to move; True when the round ended (row filled).
    Turn ends score the mover's pile by the ``lookup`` tables (:mod:`score_lookup`)."""
    phase = s.phase
    mover = s.mover
    start = s.piles[mover]  # the turn's end scores the pile again only if it grew
    if phase == PLAY:
        s.hands[mover] ^= card_bit(action)
        if place_card(s, action, mover, CHOOSE_PLAYED):
            return False
        return _draw(s, mover, start, params, masks, counts, lookup, row)
    if phase == DECIDE:
        if action == STOP:
            return _end_by_yaku(s, mover, END_STOP, params, masks, counts, row)
        s.koikoi_calls[mover] += 1
        # the raised sake yaku count from the call on (§2.10): the next turn starts from them
        s.yaku_total[mover] = lookup_total(s.piles[mover], 1, lookup)
        return _pass_turn(s, mover, params, masks, counts, row)
    taken = card_bit(action - CHOOSE_OFFSET)  # a field card for the pending one
    s.field ^= taken
    s.piles[mover] |= taken | card_bit(s.pending)
    s.pending = -1
    if phase == CHOOSE_PLAYED:
        return _draw(s, mover, start, params, masks, counts, lookup, row)
    return _end_turn(s, mover, start, params, masks, counts, lookup, row)


@njit(cache=True, inline="always")
def place_card(s, card, mover, choose_phase) -> bool:
    """Lay a played or drawn card down, capture with it, or (two matches) wait for the
    mover's choice; True when a choice is awaited (§2.2)."""
    bit = card_bit(card)
    matches = s.field & MONTH_OF_CARD[card]
    n = popcount(matches)
    if n == 0:
        s.field |= bit
    elif n == 2:
        s.phase = choose_phase
        s.pending = card
        return True
    else:
        s.field &= ~matches
        s.piles[mover] |= matches | bit
    return False


@njit(cache=True, inline="always")
def _draw(s, mover, start, params, masks, counts, lookup, row) -> bool:
    """Turn over the top of the stock and place it like a played card (§2.2)."""
    card = s.stock[min(s.stock_pos, STOCK_SIZE - 1)]
    s.stock_pos += 1
    if place_card(s, card, mover, CHOOSE_DRAWN):
        return False
    return _end_turn(s, mover, start, params, masks, counts, lookup, row)


@njit(cache=True, inline="always")
def _end_turn(s, mover, start, params, masks, counts, lookup, row) -> bool:
    """End-of-turn yaku check (§2.4): decide, win, or pass the turn. The pile is scored
    again only if this move added to it (``start``: the mover's pile when the move began):
    a turn that captured nothing keeps its total."""
    previous = s.yaku_total[mover]
    total = previous
    if s.piles[mover] != start:
        total = lookup_total(s.piles[mover], 1 if s.koikoi_calls[mover] > 0 else 0, lookup)
        s.yaku_total[mover] = total
    s.turn += 1
    if total > previous:
        called_before = s.koikoi_calls[0] + s.koikoi_calls[1] > 0
        if s.hands[mover] != ZERO and (params[P_MULTIPLE_KOIKOI] or not called_before):
            s.phase = DECIDE
            return False
        reason = END_KOIKOI_WIN if called_before else END_LAST_CARD
        return _end_by_yaku(s, mover, reason, params, masks, counts, row)
    return _pass_turn(s, mover, params, masks, counts, row)


@njit(cache=True, inline="always")
def _pass_turn(s, mover, params, masks, counts, row) -> bool:
    s.phase = PLAY
    s.mover = 1 - mover
    if s.hands[0] != ZERO or s.hands[1] != ZERO:
        return False
    _exhaustion(s, params, masks, counts, row)
    return True


@njit(cache=True, inline="always")
def _end_by_yaku(s, winner, reason, params, masks, counts, row) -> bool:
    calls = s.koikoi_calls
    base, multiplier = round_score(s.yaku_total[winner], calls[1 - winner] > 0, calls[winner],
                                   params)
    _clear(row)
    pile_breakdown(s.piles[winner], 1 if calls[winner] > 0 else 0, masks, counts,
                   params[P_N_YAKU], row.yaku)
    _finish(s, params, winner, base, multiplier, reason, row)
    return True


@njit(cache=True, inline="always")
def _exhaustion(s, params, masks, counts, row) -> None:
    """Both hands ran out (§2.6, §2.8): the quiet-round winner, highest total, or no game."""
    _clear(row)
    called = s.koikoi_calls[0] + s.koikoi_calls[1] > 0
    rule = params[P_EXHAUSTION]
    if rule == HIGHEST_TOTAL and called:
        # Decision: the higher total wins and is scored like any win (§2.5 steps).
        totals = s.yaku_total
        top = s.dealer if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
        calls = s.koikoi_calls
        base, multiplier = round_score(totals[top], calls[1 - top] > 0, calls[top], params)
        pile_breakdown(s.piles[top], 1 if calls[top] > 0 else 0, masks, counts,
                       params[P_N_YAKU], row.yaku)
        _finish(s, params, top, base, multiplier, END_EXHAUSTION_WIN, row)
        return
    quiet = rule == DEALER_ALWAYS or (not called and s.yaku_total[0] <= 0
                                      and s.yaku_total[1] <= 0)
    offset = params[P_QUIET_WINNER]
    if quiet and offset >= 0:
        _finish(s, params, s.dealer ^ offset, params[P_EXHAUSTION_POINTS], 1,
                END_EXHAUSTION_WIN, row)
    else:
        _finish(s, params, -1, 0, 1, END_NO_GAME, row)


@njit(cache=True)
def _clear(row) -> None:
    for i in range(MAX_YAKU):
        row.yaku[i] = 0
    row.match_over = False
    row.match_winner = -1
    row.match_scores[0] = 0
    row.match_scores[1] = 0
    row.match_rounds = 0


@njit(cache=True)
def _finish(s, params, winner, base, multiplier, reason, row) -> None:
    """Record the round (``row.yaku`` already filled), move the match score and the dealer,
    and close the round (ROUND_OVER) or the match (MATCH_OVER)."""
    points = base * multiplier if winner >= 0 else 0
    seat = winner if winner >= 0 else 0
    row.round_index = s.round_index
    row.dealer = s.dealer
    row.winner = winner
    row.base = base
    row.multiplier = multiplier
    row.points = points
    row.reward[seat] = points
    row.reward[1 - seat] = -points
    row.reason = reason
    row.turns = s.turn
    for k in range(2):
        row.koikoi_calls[k] = s.koikoi_calls[k]
        row.piles[k] = s.piles[k]
        s.match_score[k] += row.reward[k]
    if winner >= 0:
        s.points_won[winner] += points
    if params[P_WINNER_DEALS] and winner >= 0:
        s.dealer = winner
    else:
        s.dealer = 1 - s.dealer
    s.round_index += 1
    target, stake = params[P_TARGET], params[P_STAKE]
    over = s.round_index >= params[P_ROUNDS]
    if target >= 0 and (s.points_won[0] >= target or s.points_won[1] >= target):
        over = True
    if stake >= 0 and (stake + s.match_score[0] <= 0 or stake + s.match_score[1] <= 0):
        over = True
    s.phase = MATCH_OVER if over else ROUND_OVER
    if over:
        score = s.match_score
        row.match_over = True
        row.match_winner = 0 if score[0] > score[1] else (1 if score[1] > score[0] else -1)
        row.match_scores[0] = score[0]
        row.match_scores[1] = score[1]
        row.match_rounds = s.round_index
