"""The expert's estimates: card chances are probabilities, and its whole-batch tricks (a chance
table, count tails of all yaku masks at once, acquisition chances, yaku events) equal plain
card-by-card references."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.expert.card_model import (
    ROW_OF_CARD,
    card_chances,
    chance_table,
    month_nibbles,
)
from hanafuda_env.koikoi.rules import resolve_rules
from hanafuda_env.koikoi.scoring import batch_scorer, month_counts, round_points, yaku_table
from tests.helpers.expert_reference import NumpyExpert, count_tails


# ------------------------------------------------------------------ card chances
def test_card_chances_are_probabilities_and_dead_cards_are_nobodys():
    # all of pine except the crane is in piles: the crane (in hand) can never be captured
    hand = np.array([C.mask_of([0, 4, 8])], dtype=np.uint64)
    field = np.array([C.mask_of([5, 9])], dtype=np.uint64)
    seen = C.mask_of([0, 4, 8, 5, 9, 1, 2, 3])
    unseen = np.array([C.ALL_CARDS & ~seen], dtype=np.uint64)
    mine, theirs = card_chances(hand, field, unseen, np.array([3]))
    assert ((mine >= 0) & (theirs >= 0) & (mine + theirs <= 1 + 1e-12)).all()
    assert mine[0, 0] == 0 and theirs[0, 0] == 0
    assert mine[0, 5] > theirs[0, 5]  # a field card my hand can take next turn
    assert (mine[0, [1, 2, 3]] == 0).all()  # cards in piles are left to the caller


# ------------------------------------------------------------------ expert, fast paths
# The expert values every candidate with whole-batch tricks (a chance table, count tails of
# all yaku masks at once). These tests pin them to plain card-by-card references.
def plain_count_distribution(a: np.ndarray) -> np.ndarray:
    """(N, k) independent chances -> (N, k + 1) distribution of how many happen."""
    dist = np.zeros((len(a), a.shape[1] + 1))
    dist[:, 0] = 1.0
    for j in range(a.shape[1]):
        p = a[:, j:j + 1]
        shifted = dist[:, :-1] * p
        dist *= 1.0 - p
        dist[:, 1:] += shifted
    return dist


def random_chances(rng, shape) -> np.ndarray:
    a = rng.random(shape)
    a[rng.random(shape) < 0.2] = 0.0  # dead cards and the other pile
    a[rng.random(shape) < 0.1] = 1.0  # a certain draw
    return a


@pytest.mark.parametrize("k, cap", [(1, 1), (3, 3), (6, 6), (10, 5), (25, 10), (4, 0)])
def test_count_tails_match_a_card_by_card_distribution(k, cap):
    rng = np.random.default_rng(k * 100 + cap)
    a = random_chances(rng, (300, k))
    reference = np.cumsum(plain_count_distribution(a)[:, ::-1], axis=1)[:, ::-1]  # P(>= r)
    tails = count_tails(a.T, cap)  # (cap + 1, N)
    np.testing.assert_allclose(tails.T, reference[:, :cap + 1], rtol=0, atol=1e-12)
    # masks side by side, padded with zero chances, as the expert runs them
    padded = np.zeros((k + 2, 2, 300))
    padded[:k, 0], padded[:k - 1, 1] = a.T, a.T[:-1]
    both = count_tails(padded, cap)
    np.testing.assert_allclose(both[:, 0], tails, rtol=0, atol=1e-12)
    np.testing.assert_allclose(both[:, 1], count_tails(a.T[:-1], cap), rtol=0, atol=1e-12)


def random_places(rng, n: int) -> list[np.ndarray]:
    """Hand, field, unseen, my pile and the opponent's pile of n random card layouts."""
    place = rng.choice(5, size=(n, 48), p=rng.dirichlet(np.ones(5)))
    return [C.bool_to_bits(place == k) for k in range(5)]


def test_chance_table_gives_card_chances_exactly():
    rng = np.random.default_rng(3)
    hand, field, unseen, _, _ = random_places(rng, 2000)
    overlapping = [C.bool_to_bits(rng.random((500, 48)) < 0.3) for _ in range(3)]  # odd obs
    hand, field, unseen = (np.concatenate([a, b]) for a, b in zip((hand, field, unseen),
                                                                   overlapping))
    turns = rng.integers(0, 9, 2500)
    nib = month_nibbles(hand, field, unseen)
    code = (nib[0] | nib[1] << np.uint64(4) | nib[2] << np.uint64(8)).astype(np.intp)
    looked_up = np.take(chance_table(), code + turns * 4096, axis=2).reshape(2, 48, -1)
    mine, theirs = card_chances(hand, field, unseen, turns)
    np.testing.assert_array_equal(looked_up[0][ROW_OF_CARD].T, mine)
    np.testing.assert_array_equal(looked_up[1][ROW_OF_CARD].T, theirs)


def test_expert_acquisition_matches_the_plain_formula():
    rng = np.random.default_rng(4)
    hand, field, unseen, pile, opp_pile = random_places(rng, 500)
    turns, draw_now = rng.integers(0, 9, 500), rng.random(500) < 0.5
    fast = NumpyExpert()._acquisition(hand, field, pile, opp_pile, unseen, turns, draw_now)
    a_me, a_opp = card_chances(hand, field, unseen, turns)
    n_unseen = np.maximum(np.bitwise_count(unseen), 1)[:, None]
    mates = month_counts(unseen)[:, C.CARD_MONTH - 1]
    hit = np.where(C.bits_to_bool(field), draw_now[:, None] * mates / n_unseen, 0.0)
    gone = C.bits_to_bool(pile | opp_pile)
    np.testing.assert_array_equal(fast[48], 0.0)
    np.testing.assert_allclose(fast[ROW_OF_CARD, 0].T, np.where(gone, 0, hit + (1 - hit) * a_me),
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast[ROW_OF_CARD, 1].T, np.where(gone, 0, (1 - hit) * a_opp),
                               rtol=0, atol=1e-15)


def plain_events(rules, pile, a, total, loser_called):
    """The yaku events of each pile, one yaku and one condition at a time: chance of
    improving, expected score if so, expected gain (a: (N, 48) chances, 1 in the pile)."""
    table, breakdown = yaku_table(rules), batch_scorer(rules).breakdown(pile)
    names = [y.name for y in table]
    probs, gains = [], []

    def tail(mask: int, need) -> np.ndarray:
        dist = plain_count_distribution(a[:, C.ids_of(mask)])
        tails = np.cumsum(dist[:, ::-1], axis=1)[:, ::-1]
        return tails[np.arange(len(pile)), np.minimum(need, dist.shape[1] - 1)] * (
            need < dist.shape[1])

    for i, y in enumerate(table):
        prob, met = np.ones(len(pile)), np.ones(len(pile), bool)
        for mask, need in y.conditions:
            met &= np.bitwise_count(pile & np.uint64(mask)) >= need
            prob = prob * tail(mask, np.full(len(pile), need))
        ok = (pile & np.uint64(y.forbidden)) == 0
        blocked = np.zeros(len(pile), bool)
        for e in y.excluded_by:
            if e in names:
                blocked |= breakdown[:, names.index(e)] > 0
        replaced = sum(breakdown[:, j] for j, z in enumerate(table) if y.name in z.excluded_by)
        probs.append(np.where(met & ok | blocked, 0.0, prob * ok))
        gains.append(np.maximum(y.points - replaced + np.zeros(len(pile)), y.extra_points or 1))
        if y.extra_points:
            held = np.bitwise_count(pile & np.uint64(y.extra_mask)).astype(np.intp)
            probs.append(np.where(breakdown[:, i] > 0, tail(y.extra_mask, held + 1), 0.0))
            gains.append(np.full(len(pile), y.extra_points))
    probs, gains = np.clip(np.stack(probs, axis=1), 0, 1), np.stack(gains, axis=1)
    score = round_points(total[:, None] + gains.astype(np.int64), loser_called[:, None], rules)
    q = 1.0 - np.prod(1.0 - probs, axis=1)
    win = (probs * score).sum(axis=1) / np.maximum(probs.sum(axis=1), 1e-12)
    return q, win, (probs * gains).sum(axis=1), probs, score


@pytest.mark.parametrize("rules", ["nintendo", "ten-base",
                                   {"rain_washes_sake": True, "sake_cup_is_chaff": False,
                                    "akatan_aotan": "combined-15"}])
def test_expert_events_match_a_plain_yaku_loop(rules):
    rules = resolve_rules(rules)
    rng = np.random.default_rng(5)
    n = 400
    # piles from sparse to rich, so yaku stand, grow, block and replace one another
    pile = C.bool_to_bits(rng.random((n, 48)) < rng.uniform(0.05, 0.7, (n, 1)))
    in_pile = C.bits_to_bool(pile)
    a = np.where(in_pile, 0.0, random_chances(rng, (n, 48)))
    chances = np.zeros((49, n))
    chances[ROW_OF_CARD] = a.T
    total = batch_scorer(rules).totals(pile).astype(np.int64)
    loser_called = rng.random(n) < 0.3
    fast = NumpyExpert(rules)._events(pile, chances, total, loser_called,
                                      batch_scorer(rules).breakdown(pile))
    plain = plain_events(rules, pile, np.where(in_pile, 1.0, a), total, loser_called)
    for got, want in zip(fast[:3], plain[:3]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast[3].T, plain[3], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(fast[4].T, plain[4])
    assert 0 < plain[0].mean() < 1 and (plain[3] > 0).mean() > 0.1  # not a vacuous check
