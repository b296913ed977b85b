"""The batch loops both games run, written once: a step of every game, one game's step, the
deal of listed games, the legal actions of a batch, and rollouts inside the kernel.

A loop takes the whole batch (an array of one game's state records) and writes into arrays
the caller owns, so Python is entered once per batch step, not per game. What differs
between the games is reached through five small functions that each game's kernel module
registers for its own record type with :func:`numba.extending.overload` (Koi-Koi's in
:mod:`~hanafuda_env.koikoi.batch`, Hana-awase's in :mod:`~hanafuda_env.hanaawase.kernel`):

- ``play_move(s, action, RULES, row) -> bool``: apply a legal action; True when the round
  ended (its result in ``row``);
- ``deal_round(s, RULES, deck, row, order, work) -> bool``: deal the next round (``deck``, or
  the next shuffle when its first entry is negative); True when the deal itself ended the
  round (a Koi-Koi hand yaku; its result in ``row``);
- ``next_word(s, word)``, ``policy_action(s, policy, word, RULES)``: a rollout's random stream
  and its compiled policies RANDOM and GREEDY; ``expert_action(s, word, params, masks, counts,
  policy_data)``: Koi-Koi's EXPERT, whose arguments and work arrays are the ``policy_data``
  (passed only to the expert's moves: a call that takes a tuple of arrays costs a move's time);
- ``add_round(totals, g, row)``: add a finished round's points to game ``g``'s row of totals.

``RULES`` stands for the game's compiled rules, ``params, masks, counts, extra`` (its
``ctx``): the parameters, the yaku table's masks and counts, and what else the game reads
(Hana-awase's card points).
They are separate arrays, not one tuple, so that a call from Python types them quickly and
a move does not count references to every array of a tuple; each loop borrows them
(:func:`~hanafuda_env.common.borrow.borrowed`) so that the inlined rules it calls per move
bind them without atomic reference counts.
The legal actions are the same bit sets in both games (the turn is Koi-Koi's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index, popcount, splitmix64
from hanafuda_env.common.borrow import borrowed
from hanafuda_env.koikoi.kernel import is_legal, legal_bits
from hanafuda_env.koikoi.state import ROUND_OVER

RANDOM, GREEDY, EXPERT, FAST = 0, 1, 2, 3


# The game-specific steps; each game registers its implementation (see the module docstring).
def play_move(s, action, params, masks, counts, extra, row):  # pragma: no cover
    raise NotImplementedError("compiled only, for a game's record type")


def deal_round(s, params, masks, counts, extra, deck, row, order, work):  # pragma: no cover
    raise NotImplementedError("compiled only, for a game's record type")


def next_word(s, word):  # pragma: no cover
    raise NotImplementedError("compiled only, for a game's record type")


def policy_action(s, policy, word, params, masks, counts, extra):  # pragma: no cover
    raise NotImplementedError("compiled only, for a game's record type")


def expert_action(s, word, params, masks, counts, policy_data):  # pragma: no cover
    raise NotImplementedError("compiled only, for a game's record type")


def add_round(totals, g, row):  # pragma: no cover
    raise NotImplementedError("compiled only, for a game's record type")


# ------------------------------------------------------------------------------- steps
@njit(cache=True)
def step_games(records, actions, params, masks, counts, extra, rows, row_games, n_results,
               slots, autoreset, allow_wait) -> np.int64:
    """One action per game. Returns -1 - g for the first game g whose action is illegal (then
    no game changed), else the number of result rows written: ``rows[k]`` is a finished
    round of game ``row_games[k]`` (``n_results[g]`` per game). With ``autoreset`` a game's
    next rounds are dealt while it has written fewer than ``slots`` rows (a deal that ends
    the round writes one); a game left over then waits for :func:`deal_games`. With
    ``allow_wait`` a game whose round is over may be given -1: it waits."""
    params, masks, counts, extra = borrowed(params), borrowed(masks), borrowed(counts), \
        borrowed(extra)
    n = records.shape[0]
    for g in range(n):
        waiting = allow_wait and records[g].phase >= ROUND_OVER and actions[g] == -1
        if not waiting and not is_legal(records[g], actions[g]):
            return -1 - g
    shuffled = np.full(48, -1, np.int64)
    order, work = np.empty(48, np.int64), np.empty(112, np.uint64)
    k = 0
    for g in range(n):
        s = records[g]
        n_results[g] = 0
        if actions[g] == -1 or not play_move(s, actions[g], params, masks, counts, extra,
                                                     rows[k]):
            continue
        row_games[k] = g
        k += 1
        n_results[g] = 1
        while autoreset and n_results[g] < slots:
            if not deal_round(s, params, masks, counts, extra, shuffled, rows[k], order,
                              work):
                break
            row_games[k] = g
            k += 1
            n_results[g] += 1
    return k


@njit(cache=True)
def step_one(records, g, action, params, masks, counts, extra, rows) -> np.int64:
    """One move in game ``g`` (the one-game engines' step): -1 if it is illegal (nothing
    changed), 1 if it ended the round (its row in ``rows[0]``), else 0."""
    s = records[g]
    if not is_legal(s, action):
        return -1
    params, masks, counts, extra = borrowed(params), borrowed(masks), borrowed(counts), \
        borrowed(extra)
    return 1 if play_move(s, action, params, masks, counts, extra, rows[0]) else 0


@njit(cache=True)
def deal_games(records, games, decks, params, masks, counts, extra, rows, row_games,
               n_results) -> np.int64:
    """Deal the next round in each listed game (``decks`` (len(games), 48): an order, or -1s
    for a shuffle); a deal that ends the round at once writes a row as :func:`step_games`
    does. Returns the number of rows."""
    params, masks, counts, extra = borrowed(params), borrowed(masks), borrowed(counts), \
        borrowed(extra)
    order, work = np.empty(48, np.int64), np.empty(112, np.uint64)
    k = 0
    for i in range(games.shape[0]):
        g = games[i]
        n_results[g] = 0
        if deal_round(records[g], params, masks, counts, extra, decks[i], rows[k], order,
                      work):
            row_games[k] = g
            k += 1
            n_results[g] = 1
    return k


# ----------------------------------------------------------------------- legal actions
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
    """A uniform number in [0, 1) from a hash word."""
    return (splitmix64(word) >> U64(11)) * (1.0 / 9007199254740992.0)


# ---------------------------------------------------------------------------- rollouts
@njit(cache=True)
def rollout_games(records, params, masks, counts, extra, policy_data, policies, seed,
                  whole_match, limit, totals, decisions, rows) -> None:
    """Play every game to its round's end (``whole_match``: its match's end, dealing the
    rounds between) with the compiled policy of each seat (``policies``, one per seat), or
    until it has made ``limit`` moves in this call (``limit`` <= 0: no limit).
    Adds each finished round's points to ``totals[g]`` (:func:`add_round`) and counts the
    moves in ``decisions`` (B,). A game at its match's end, or (without ``whole_match``) at
    its round's end, is left as it is. Random numbers hash ``seed``, the game's index and a
    move counter: reproducible by seed, and every fork of one game rolls out its own future.
    ``rows``: a one-row result buffer."""
    params, masks, counts, extra = borrowed(params), borrowed(masks), borrowed(counts), \
        borrowed(extra)
    totals, decisions = borrowed(totals), borrowed(decisions)
    shuffled = np.full(48, -1, np.int64)
    order, work = np.empty(48, np.int64), np.empty(112, np.uint64)
    row = rows[0]
    for g in range(records.shape[0]):
        s = records[g]
        word = splitmix64(U64(seed) ^ splitmix64(U64(g)))
        while True:
            if s.phase == ROUND_OVER and whole_match:
                if deal_round(s, params, masks, counts, extra, shuffled, row, order, work):
                    add_round(totals, g, row)  # the round ended at its deal
                continue
            if s.phase >= ROUND_OVER or 0 < limit <= decisions[g]:
                break
            word = next_word(s, word)
            policy = policies[s.mover]
            if policy == EXPERT:  # the one policy that reads policy_data: only its moves pass it
                action = expert_action(s, word, params, masks, counts, policy_data)
            else:
                action = policy_action(s, policy, word, params, masks, counts, extra)
            decisions[g] += 1
            if play_move(s, action, params, masks, counts, extra, row):
                add_round(totals, g, row)
    return None

