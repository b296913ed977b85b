"""The floor of a Koi-Koi decision, and the kernel's cost per decision measured against it.

The floor loop plays what no engine can skip: a uniformly random card from the mover's
hand and the turn's card moves (the played card, then the stock's top card, each laid down
or capturing its month's field cards, the lower of two), with no scoring, no choices, no
koi-koi and no result rows. The kernel's figures are process-time nanoseconds per decision
on the same fresh deals, so that a ratio to the floor says what the rules themselves cost
(scoring, phases, the policy) on any machine and any day.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from hanafuda_env.common.bits import ONE, U64, ZERO, card_bit, lowest_index, popcount, splitmix64
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.kernel import MONTH_OF_CARD
from hanafuda_env.koikoi.loops import uniform


@njit(cache=True)
def floor_loop(records, seed) -> np.int64:
    """Play every game's round to its hands' end with the floor's moves; the decisions made."""
    decisions = 0
    for g in range(records.shape[0]):
        s = records[g]
        word = splitmix64(U64(seed) ^ splitmix64(U64(g)))
        mover = s.mover
        hands = (s.hands[0], s.hands[1])
        field, piles, drawn = s.field, (s.piles[0], s.piles[1]), s.stock_pos
        while hands[0] != ZERO or hands[1] != ZERO:
            word += ONE
            bits = hands[mover]
            for _ in range(int(uniform(word) * popcount(bits))):
                bits &= bits - ONE
            card = lowest_index(bits)
            decisions += 1
            hand = hands[mover] ^ card_bit(card)
            pile = piles[mover]
            for placed in range(2):  # the played card, then the drawn one
                if placed == 1:
                    card = s.stock[drawn]
                    drawn += 1
                matches = field & MONTH_OF_CARD[card]
                if matches == ZERO:
                    field |= card_bit(card)
                else:
                    if popcount(matches) == 2:
                        matches &= ~matches + ONE  # the lower of two
                    field &= ~matches
                    pile |= matches | card_bit(card)
            hands = (hand, hands[1]) if mover == 0 else (hands[0], hand)
            piles = (pile, piles[1]) if mover == 0 else (piles[0], pile)
            mover = 1 - mover
        s.field, s.piles[0], s.piles[1] = field, piles[0], piles[1]
    return decisions


def fresh_deals(games: int, seed: int = 0) -> KoiKoiCore:
    return KoiKoiCore(games, seed=seed, autoreset=False)


def floor_ns(deals: KoiKoiCore, repeats: int = 20) -> float:
    """Process-time nanoseconds per decision of the floor loop on copies of ``deals``."""
    floor_loop(deals.records[:2].copy(), 0)  # compiles, if the cache is cold
    seconds = decisions = 0
    for k in range(repeats):
        records = deals.records.copy()
        start = time.process_time()
        decisions += floor_loop(records, k)
        seconds += time.process_time() - start
    return seconds / decisions * 1e9


def rollout_ns(deals: KoiKoiCore, policy: str, repeats: int = 20) -> float:
    """Process-time nanoseconds per decision of the kernel's rollouts of ``deals`` to the
    round's end (one ``rollout`` call per copy of the batch: the kernel's loop, not Python's)."""
    deals.fork(0).rollout(policy, "round")  # compiles, if the cache is cold
    seconds = decisions = 0
    for k in range(repeats):
        copy = deals.fork(np.arange(deals.n_games))
        start = time.process_time()
        decisions += int(copy.rollout(policy, "round", seed=k)[1].sum())
        seconds += time.process_time() - start
    return seconds / decisions * 1e9
