"""Dealing: random deals never show four cards of a month on the field and are thrown back
before any hand yaku is looked at; a hand yaku (teshi, kuttsuki; RULES.md §2.3) ends its round
at the deal, with the options and rule sets that score it, also inside ``reset`` and in the
step that ends the round before it. On the fixed decks and the two-game driver of
``tests/helpers/scenarios.py``."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.common.results import (
    END_HAND_YAKU,
    END_STOP,
)
from hanafuda_env.koikoi.core import (
    MATCH_OVER,
    PLAY,
    ROUND_OVER,
    STOP,
    IllegalActionError,
    KoiKoiCore,
)
from hanafuda_env.koikoi.deals import ids_to_bits, must_redeal
from hanafuda_env.koikoi.rules import NINTENDO, TEN_BASE
from hanafuda_env.koikoi.scoring import hand_yaku_points, month_counts
from tests.helpers.scenarios import (
    HAND_CASES,
    PLAIN_FIELD,
    SANKO_T5,
    D,
    Duo,
    cards,
    make_deck,
    pairs_deck,
    play_pairs,
    script,
    seeded_decks,
)


# ----------------------------------------------------------------- random deals
def test_random_deals_never_show_four_of_a_month() -> None:
    core = KoiKoiCore(4000, {"hand_yaku": "none"}, seed=2024)
    assert (month_counts(core.field).max(axis=1) < 4).all()
    everything = core.hands[:, 0] | core.hands[:, 1] | core.field
    for seat in (0, 1):
        assert (np.bitwise_count(core.hands[:, seat]) == 8).all()
    assert (np.bitwise_count(everything) == 24).all()
    for g in range(0, 4000, 397):  # hands, field and stock hold the deck once
        assert sorted(C.ids_of(int(everything[g])) + core.stock[g].tolist()) == list(range(48))
    redealt = core.deal_count > 1
    assert redealt.sum() >= 3  # p ≈ 0.4 % per deal: some deals were really thrown back
    # the first dealer is a fair coin, and the dealer moves first
    assert 0.45 < core.dealer.mean() < 0.55
    assert (core.mover == core.dealer).all() and (core.phase == PLAY).all()


def test_shuffles_are_the_argsort_of_the_seed_hashes() -> None:
    core = KoiKoiCore(64, {"hand_yaku": "none"}, seed=5, autoreset=False)
    first = seeded_decks(core.seeds, 0)
    plain = ~must_redeal(first, core.rules)
    dealer = core.dealer.astype(np.intp)
    for g in np.flatnonzero(plain):
        assert cards(core.hands[g, dealer[g]]) == set(first[g, :8].tolist())
        assert cards(core.field[g]) == set(first[g, 16:24].tolist())
        assert core.stock[g].tolist() == first[g, 24:].tolist()
    assert (core.deal_count[plain] == 1).all()


def test_redeal_comes_before_the_hand_yaku_check() -> None:
    """A seed whose first shuffle shows four of a month on the field and a hand yaku in a
    hand: that deal is thrown back, and no round ends at the deal."""
    candidates = np.arange(300_000, dtype=np.uint64)
    first = seeded_decks(candidates, 0)
    second = seeded_decks(candidates, 1)
    hands = np.stack([ids_to_bits(first[:, :8]), ids_to_bits(first[:, 8:16])], axis=1)
    held = (hand_yaku_points(hands, NINTENDO) > 0).any(axis=1)
    second_plain = ~must_redeal(second, NINTENDO) & (hand_yaku_points(np.stack(
        [ids_to_bits(second[:, :8]), ids_to_bits(second[:, 8:16])], axis=1), NINTENDO) == 0
    ).all(axis=1)
    found = np.flatnonzero(must_redeal(first, NINTENDO) & held & second_plain)
    assert len(found), "no seed among the candidates deals the case"
    seed = int(candidates[found[0]])
    core = KoiKoiCore(1, seed=0)
    dealt = core.reset(seed=[seed], options={"dealer": 0})
    assert len(dealt.rounds) == 0 and not dealt.match_over.any()
    assert core.deal_count[0] == 2
    assert cards(core.hands[0, 0]) == set(second[found[0], :8].tolist())
    assert cards(core.field[0]) == set(second[found[0], 16:24].tolist())


def test_round_end_then_hand_yaku_deal_in_one_step() -> None:
    """A round ends and the next deal holds a teshi: with autoreset both rounds come back
    from one step; without, the step ends the round and each deal_next reports its own."""
    deck, dp, op = pairs_deck(*SANKO_T5)
    # game seeds whose first shuffle gives the dealer (seat g in game g) a teshi, and whose
    # second shuffle holds no hand yaku
    candidates = np.arange(20_000, dtype=np.uint64)
    first, second = seeded_decks(candidates, 0), seeded_decks(candidates, 1)
    dealer_teshi = (month_counts(ids_to_bits(first[:, :8])) == 4).any(axis=1) & (
        hand_yaku_points(ids_to_bits(first[:, 8:16]), NINTENDO) == 0)
    calm = (hand_yaku_points(np.stack([ids_to_bits(second[:, :8]),
                                       ids_to_bits(second[:, 8:16])], axis=1), NINTENDO) == 0
            ).all(axis=1)
    good = dealer_teshi & calm & ~must_redeal(first, NINTENDO) & ~must_redeal(second, NINTENDO)
    seeds = candidates[np.flatnonzero(good)[:2]].tolist()
    duo = Duo(deck)
    duo.core.reset(seed=seeds, options={"deck": deck, "dealer": [0, 1]})
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    r = out.rounds
    for g in (0, 1):
        rows = np.flatnonzero(r.game == g)
        assert r.reason[rows].tolist() == [END_STOP, END_HAND_YAKU]
        assert r.round_index[rows].tolist() == [0, 1]
        assert r.points[rows].tolist() == [5, 6]
        assert r.winner[rows].tolist() == [g, g]  # the dealer won and dealt the teshi to itself
        assert out.reward[g, g] == 11 and out.reward[g, 1 - g] == -11
    assert duo.core.round_index.tolist() == [2, 2]
    assert (duo.core.phase == PLAY).all() and (duo.core.deal_count == 2).all()

    stopping = Duo(deck)
    stopping.core = KoiKoiCore(2, seed=0, autoreset=False)
    stopping.core.reset(seed=seeds, options={"deck": deck, "dealer": [0, 1]})
    out, _ = play_pairs(stopping, script(dp, op, 5), {5: STOP})
    assert out.rounds.reason.tolist() == [END_STOP, END_STOP]
    assert (stopping.core.phase == ROUND_OVER).all()
    with pytest.raises(IllegalActionError, match="round is over"):
        stopping.core.step(np.array([STOP, STOP]))
    dealt = stopping.core.deal_next()
    assert dealt.rounds.reason.tolist() == [END_HAND_YAKU] * 2
    assert dealt.rounds.points.tolist() == [6, 6] and (stopping.core.phase == ROUND_OVER).all()
    again = stopping.core.deal_next()
    assert len(again.rounds) == 0 and (stopping.core.phase == PLAY).all()
    assert stopping.core.round_index.tolist() == [2, 2]
    assert stopping.core.match_score.tolist() == duo.core.match_score.tolist()


def test_target_score_at_the_deal_counts_points_scored() -> None:
    """Three hand yaku in a row: the dealer 6, the other 6, the dealer 6 again. The dealer has
    scored 12 = the target (though the net score is only 6), so the third deal ends the
    match."""
    teshi = make_deck(*HAND_CASES["dealer-teshi"][:3])
    other = make_deck(*HAND_CASES["other-kuttsuki"][:3])
    core = KoiKoiCore(2, {"target_score": 12}, seed=0, autoreset=False)
    dealt = [core.reset(seed=0, options={"deck": teshi, "dealer": [0, 1]})]
    dealt += [core.deal_next(decks=other), core.deal_next(decks=other)]
    for g in (0, 1):  # the winner deals: then the first player, then the other one
        assert [int(d.rounds.winner[g]) for d in dealt] == [g, 1 - g, g]
        assert all(int(d.rounds.reason[g]) == END_HAND_YAKU for d in dealt)
    assert [d.match_over.tolist() for d in dealt] == [[False, False]] * 2 + [[True, True]]
    m = dealt[-1].matches
    assert m.game.tolist() == [0, 1] and m.winner.tolist() == [0, 1]
    assert m.rounds.tolist() == [3, 3] and m.scores.tolist() == [[6, -6], [-6, 6]]
    assert (core.phase == MATCH_OVER).all() and core.points_won.tolist() == [[12, 6], [6, 12]]
    core.deal_next(decks=make_deck([0, 4, 8, 12, 16, 20, 24, 37],
                                   [5, 9, 13, 17, 28, 32, 38, 41], PLAIN_FIELD))
    assert (core.round_index == 0).all() and (core.points_won == 0).all()
    assert (core.phase == PLAY).all()


# -------------------------------------------------------------------- hand yaku
@pytest.mark.parametrize("case", list(HAND_CASES))
def test_hand_yaku_ends_the_round_at_the_deal(case: str) -> None:
    dealer_hand, other_hand, field, winner, column = HAND_CASES[case]
    duo = Duo(make_deck(dealer_hand, other_hand, field), seed=11)
    r, core = duo.dealt, duo.core
    assert sorted(r.game.tolist()) == [0, 1]
    for g in (0, 1):
        k = int(np.flatnonzero(r.game == g)[0])
        seat = duo.seat(winner, g)
        assert (r.winner[k], r.base[k], r.points[k], r.reason[k]) == (seat, 6, 6, END_HAND_YAKU)
        assert r.reward[k, seat] == 6 and r.reward[k, 1 - seat] == -6 and r.turns[k] == 0
        assert {n: int(v) for n, v in zip(r.yaku_names, r.yaku[k]) if v} == {column: 6}
        # the next round is dealt from the seed, with the winner dealing
        assert core.round_index[g] == 1 and core.dealer[g] == seat
        assert core.match_score[g, seat] == 6 and core.phase[g] == PLAY
        assert core.mover[g] == seat and not core.piles[g].any()


def test_ten_base_teshi_scores_50_and_kuttsuki_nothing() -> None:
    dealer_hand, other_hand, field, _, _ = HAND_CASES["dealer-teshi"]
    duo = Duo(make_deck(dealer_hand, other_hand, field), TEN_BASE)
    assert duo.dealt.points.tolist() == [50, 50]
    dealer_hand, other_hand, field, _, _ = HAND_CASES["other-kuttsuki"]
    duo = Duo(make_deck(dealer_hand, other_hand, field), TEN_BASE)
    assert len(duo.dealt) == 0 and (duo.core.round_index == 0).all()


@pytest.mark.parametrize(("option", "case", "ends"), [
    ("none", "dealer-teshi", False), ("none", "other-kuttsuki", False),
    ("teshi", "other-kuttsuki", False), ("teshi", "dealer-teshi", True)])
def test_hand_yaku_options(option: str, case: str, ends: bool) -> None:
    dealer_hand, other_hand, field, _, _ = HAND_CASES[case]
    duo = Duo(make_deck(dealer_hand, other_hand, field), {"hand_yaku": option})
    assert len(duo.dealt) == (2 if ends else 0)
    if not ends:
        duo.expect(D, PLAY, hand_D=dealer_hand, hand_N=other_hand, field=field)
        assert (duo.core.round_index == 0).all()


@pytest.mark.parametrize("case", ["dealer-teshi", "other-kuttsuki"])
def test_one_round_match_that_ends_at_the_deal_is_reported(case: str) -> None:
    """reset reports the match a dealt hand yaku ends, as step would, and a new one starts."""
    dealer_hand, other_hand, field, winner, _ = HAND_CASES[case]
    duo = Duo(make_deck(dealer_hand, other_hand, field), {"rounds": 1})
    start, core = duo.start, duo.core
    assert len(start.rounds) == 2  # the new matches' deals hold no hand yaku
    assert start.match_over.tolist() == [True, True]
    m = start.matches
    assert m.game.tolist() == [0, 1] and m.rounds.tolist() == [1, 1]
    for g in (0, 1):
        seat = duo.seat(winner, g)
        assert m.winner[g] == seat
        assert m.scores[g].tolist() == start.reward[g].tolist() == duo.dealt.reward[g].tolist()
        assert m.scores[g, seat] == 6 and m.scores[g, 1 - seat] == -6
    assert (core.round_index == 0).all() and (core.match_score == 0).all()
    assert (core.points_won == 0).all() and (core.phase == PLAY).all()
