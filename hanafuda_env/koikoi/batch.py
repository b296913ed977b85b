"""Batch loops over the kernel's rule functions, and rollouts played inside the kernel.

Every function takes the whole batch (a :data:`state.STATE_DTYPE` array) and writes into
arrays the caller owns, so Python is entered once per batch step, not per game. A rollout
plays forked games to the end of their round or match with a compiled policy (uniformly
random, greedy for card points, or the expert heuristic of :mod:`hanafuda_env.koikoi.expert.kernel`
on the mover's view) without returning to Python per move: what search bots call. Its random
numbers are splitmix64 hashes of a seed, the game's index in the batch and a move counter:
reproducible by seed, and every fork of one game rolls out its own future.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index, popcount, splitmix64
from hanafuda_env.koikoi.expert.kernel import N_VI, N_VU, record_action
from hanafuda_env.koikoi.kernel import MONTH_OF_CARD, apply_move, deal_one, is_legal, legal_bits
from hanafuda_env.koikoi.state import (
    CHOOSE_OFFSET,
    DECIDE,
    PLAY,
    RESULT_DTYPE,
    ROUND_OVER,
    STOP,
)

RANDOM, GREEDY, EXPERT = 0, 1, 2
POLICIES = {"random": RANDOM, "greedy": GREEDY, "expert": EXPERT}
_KIND_MASKS = np.array([C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS], dtype=np.uint64)
_KIND_POINTS = np.array([20.0, 10.0, 5.0, 1.0])  # the greedy agent's card points


@njit(cache=True)
def step_games(records, actions, params, masks, counts, rows, row_games, n_results, slots,
               autoreset) -> np.int64:
    """One action per game. Returns -1 - g for the first game g whose action is illegal (then
    no game changed), else the number of result rows written: ``rows[k]`` is a finished
    round of game ``row_games[k]`` (``n_results[g]`` per game). With ``autoreset`` a game's
    next rounds are dealt while it has written fewer than ``slots`` rows (a dealt hand yaku
    writes one); a game left over then waits for ``deal_games``."""
    n = records.shape[0]
    for g in range(n):
        if not is_legal(records[g], actions[g]):
            return -1 - g
    shuffled = np.full(48, -1, np.int64)
    order, work = np.empty(48, np.int64), np.empty(112, np.uint64)
    k = 0
    for g in range(n):
        s = records[g]
        n_results[g] = 0
        if not apply_move(s, actions[g], params, masks, counts, rows[k]):
            continue
        row_games[k] = g
        k += 1
        n_results[g] = 1
        while autoreset and n_results[g] < slots:
            if not deal_one(s, params, masks, counts, shuffled, rows[k], order, work):
                break
            row_games[k] = g
            k += 1
            n_results[g] += 1
    return k


@njit(cache=True)
def step_one(records, g, action, params, masks, counts, rows) -> np.int64:
    """One move in game ``g`` (the one-game engine's step): -1 if it is illegal (nothing
    changed), 1 if it ended the round (its row in ``rows[0]``), else 0."""
    s = records[g]
    if not is_legal(s, action):
        return -1
    return 1 if apply_move(s, action, params, masks, counts, rows[0]) else 0


@njit(cache=True)
def deal_games(records, games, decks, params, masks, counts, rows, row_games, n_results
               ) -> np.int64:
    """Deal the next round in each listed game (``decks`` (len(games), 48): an order, or -1s
    for a shuffle); a hand yaku ends it at once and writes a row as ``step_games`` does.
    Returns the number of rows."""
    order, work = np.empty(48, np.int64), np.empty(112, np.uint64)
    k = 0
    for i in range(games.shape[0]):
        g = games[i]
        n_results[g] = 0
        if deal_one(records[g], params, masks, counts, decks[i], rows[k], order, work):
            row_games[k] = g
            k += 1
            n_results[g] = 1
    return k


@njit(cache=True)
def legal_masks(records, out) -> None:
    """(B, 98) bool: the actions allowed to the player to move (none once a round ended)."""
    for g in range(records.shape[0]):
        s = records[g]
        for a in range(out.shape[1]):
            out[g, a] = False
        bits, offset = legal_bits(s)
        while bits != ZERO:
            out[g, offset + lowest_index(bits)] = True
            bits &= bits - ONE


@njit(cache=True)
def legal_ids(records, g, out) -> np.int64:
    """The legal actions of game ``g`` into ``out`` (ascending); returns how many."""
    bits, offset = legal_bits(records[g])
    n = 0
    while bits != ZERO:
        out[n] = offset + lowest_index(bits)
        bits &= bits - ONE
        n += 1
    return n


@njit(cache=True, inline="always")
def pick_bit(bits, offset, uniform) -> np.int64:
    """The legal action that a uniform number in [0, 1) picks (-1 when none is legal)."""
    count = popcount(bits)
    if count == 0:
        return -1
    for _ in range(int(uniform * count)):
        bits &= bits - ONE
    return offset + lowest_index(bits)


@njit(cache=True)
def sample_actions(records, uniforms, out) -> None:
    """A uniformly random legal action per game from one uniform number each."""
    for g in range(records.shape[0]):
        bits, offset = legal_bits(records[g])
        out[g] = pick_bit(bits, offset, uniforms[g])


@njit(cache=True, inline="always")
def uniform(word) -> float:
    return (splitmix64(word) >> U64(11)) * (1.0 / 9007199254740992.0)


# ------------------------------------------------------------------------------- rollouts
@njit(cache=True, inline="always")
def _card_points(bits) -> float:
    total = 0.0
    for k in range(4):
        total += _KIND_POINTS[k] * popcount(bits & _KIND_MASKS[k])
    return total


@njit(cache=True)
def greedy_action(s, noise_word) -> np.int64:
    """The greedy agent's move (``agents.bots.baselines.GreedyAgent``): the capture worth the
    most card points now (a card matching two field cards is worth its better capture),
    else the least valuable card laid down; always stop; ties broken by the hash word."""
    phase = s.phase
    if phase == DECIDE:
        return STOP
    best, best_value = -1, -1e18
    if phase == PLAY:
        bits = s.hands[s.mover]
        while bits != ZERO:
            card = lowest_index(bits)
            bits &= bits - ONE
            bit = ONE << U64(card)
            matches = s.field & MONTH_OF_CARD[card]
            n = popcount(matches)
            if n == 0:
                value = -0.01 * _card_points(bit)
            elif n == 2:
                low = matches & (~matches + ONE)
                value = max(_card_points(low | bit), _card_points((matches & ~low) | bit))
            else:
                value = _card_points(matches | bit)
            noise_word = splitmix64(noise_word)
            value += 1e-3 * ((noise_word >> U64(11)) * (1.0 / 9007199254740992.0))
            if value > best_value:
                best, best_value = card, value
        return best
    pending = ONE << U64(s.pending)
    bits = s.field & MONTH_OF_CARD[s.pending]
    while bits != ZERO:
        card = lowest_index(bits)
        bits &= bits - ONE
        noise_word = splitmix64(noise_word)
        value = _card_points((ONE << U64(card)) | pending) + 1e-3 * (
            (noise_word >> U64(11)) * (1.0 / 9007199254740992.0))
        if value > best_value:
            best, best_value = CHOOSE_OFFSET + card, value
    return best


@njit(cache=True)
def rollout_games(records, params, masks, counts, policies, seed, whole_match, rewards,
                  decisions, expert) -> None:
    """Play every game to its round's end (``whole_match``: its match's end, dealing the
    rounds between) with the policy of each seat (``policies`` (2,): RANDOM, GREEDY or
    EXPERT). Adds each finished round's zero-sum points to ``rewards`` (B, 2) and counts the
    moves in ``decisions`` (B,). A game already at its end is left as it is. ``expert``:
    the expert's arguments (``expert_kernel.rollout_arguments``)."""
    score_scale, rounds, weights, table, forbidden, mask_bits, chances, unit, scratch = expert
    vu, vi = np.empty(N_VU, np.uint64), np.empty(N_VI, np.int64)
    noise = np.empty(16)
    row = np.zeros(1, RESULT_DTYPE)[0]
    shuffled = np.full(48, -1, np.int64)
    order, work = np.empty(48, np.int64), np.empty(112, np.uint64)
    for g in range(records.shape[0]):
        s = records[g]
        word = splitmix64(U64(seed) ^ splitmix64(U64(g)))
        if s.phase >= ROUND_OVER:
            continue
        while True:
            word += ONE
            policy = policies[s.mover]
            if policy == GREEDY:
                action = greedy_action(s, splitmix64(word))
            elif policy == EXPERT:
                action = record_action(s, splitmix64(word), score_scale, rounds, vu, vi, noise,
                                       weights, params, masks, counts, table, forbidden,
                                       mask_bits, chances, unit, scratch)
            else:
                bits, offset = legal_bits(s)
                action = pick_bit(bits, offset, uniform(word))
            decisions[g] += 1
            if not apply_move(s, action, params, masks, counts, row):
                continue
            rewards[g, 0] += row.reward[0]
            rewards[g, 1] += row.reward[1]
            while whole_match and s.phase == ROUND_OVER:  # hand yaku end at the deal
                if deal_one(s, params, masks, counts, shuffled, row, order, work):
                    rewards[g, 0] += row.reward[0]
                    rewards[g, 1] += row.reward[1]
            if s.phase >= ROUND_OVER:
                break
