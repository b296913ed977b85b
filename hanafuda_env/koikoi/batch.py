"""Koi-Koi in the shared batch loops of :mod:`~hanafuda_env.koikoi.loops`: its move, deal,
rollout policies and round points, registered for its :data:`~hanafuda_env.koikoi.state.STATE_DTYPE`
record. A rollout's policies are uniformly random, greedy for card points, the expert
heuristic of :mod:`hanafuda_env.koikoi.expert.kernel` on the mover's view, or ``fast``, the
cheap linear policy fitted to the expert (:mod:`hanafuda_env.koikoi.expert.fast`), which
reads only the rule set's arrays and so needs no ``policy_data``.

Its ``extra`` is the rule set's packed score lookup (:mod:`~hanafuda_env.koikoi.score_lookup`),
which scores every turn's end; a rollout's ``policy_data`` is :func:`rollout_policy_data`'s
tuple, the expert's arguments and work arrays.
"""

from __future__ import annotations

import numpy as np
from numba import from_dtype, njit
from numba.extending import overload

from hanafuda_env.common import cards as C
from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index, popcount, splitmix64
from hanafuda_env.koikoi import loops
from hanafuda_env.koikoi.expert import fast as F
from hanafuda_env.koikoi.expert import kernel as E
from hanafuda_env.koikoi.kernel import MONTH_OF_CARD, apply_move, deal_one, legal_bits
from hanafuda_env.koikoi.loops import EXPERT, FAST, GREEDY, RANDOM, pick_bit, uniform
from hanafuda_env.koikoi.state import (
    CHOOSE_OFFSET,
    DECIDE,
    PLAY,
    RESULT_DTYPE,
    STATE_DTYPE,
    STOP,
)

POLICIES = {"random": RANDOM, "greedy": GREEDY, "expert": EXPERT, "fast": FAST}
_KIND_MASKS = np.array([C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS], dtype=np.uint64)
_KIND_POINTS = np.array([20.0, 10.0, 5.0, 1.0])  # the greedy agent's card points


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


def rollout_policy_data(expert: tuple) -> tuple:
    """A rollout's ``policy_data``: the expert's arguments (``expert_kernel.rollout_arguments``, or
    ``NO_EXPERT``) and its work arrays."""
    return (expert, np.empty(E.N_VU, np.uint64), np.empty(E.N_VI, np.int64), np.empty(16))


# ------------------------------------------------- Koi-Koi's part of the shared loops
_RECORD = from_dtype(STATE_DTYPE)


def _koikoi(record_type) -> bool:
    return record_type == _RECORD


@overload(loops.play_move, inline="always")
def _play_move(s, action, params, masks, counts, extra, row):
    if _koikoi(s):
        return lambda s, action, params, masks, counts, extra, row: apply_move(
            s, action, params, masks, counts, extra, row)
    return None


@overload(loops.deal_round, inline="always")
def _deal_round(s, params, masks, counts, extra, deck, row, order, work):
    if _koikoi(s):
        return lambda s, params, masks, counts, extra, deck, row, order, work: deal_one(
            s, params, masks, counts, deck, row, order, work)
    return None


@overload(loops.add_round, inline="always")
def _add_round(totals, g, row):
    if row == from_dtype(RESULT_DTYPE):
        def add(totals, g, row):
            totals[g, 0] += row.reward[0]
            totals[g, 1] += row.reward[1]
        return add
    return None


@overload(loops.next_word, inline="always")
def _next_word(s, word):
    if _koikoi(s):
        return lambda s, word: word + ONE  # a counter: the policies hash it into a stream
    return None


@overload(loops.policy_action, inline="always")
def _policy_action(s, policy, word, params, masks, counts, extra):
    if not _koikoi(s):
        return None

    def act(s, policy, word, params, masks, counts, extra):
        if policy == GREEDY:
            return greedy_action(s, splitmix64(word))
        if policy == FAST:
            return F.record_action(s, params, masks, counts, extra)
        bits, offset = legal_bits(s)
        return pick_bit(bits, offset, uniform(word))
    return act


@overload(loops.expert_action)
def _expert_action(s, word, params, masks, counts, policy_data):
    if not _koikoi(s):
        return None

    def act(s, word, params, masks, counts, policy_data):
        expert, vu, vi, noise = policy_data
        score_scale, rounds, weights, table, forbidden, mask_bits, chances, unit, scratch = expert
        return E.record_action(s, splitmix64(word), score_scale, rounds, vu, vi, noise, weights,
                               params, masks, counts, table, forbidden, mask_bits, chances,
                               unit, scratch)
    return act
