"""Whole Koi-Koi rounds from fixed decks, checked move by move against RULES.md §2.1–2.8.

Each scenario plays one deck in two games at once, the dealer in seat 0 in one and in
seat 1 in the other, so seat mix-ups in the vectorized core fail here.
``tests/helpers/scenarios.py`` holds that driver and the decks.
"""

from __future__ import annotations

import pytest

from hanafuda_env.common.results import (
    END_EXHAUSTION_WIN,
    END_KOIKOI_WIN,
    END_LAST_CARD,
    END_NO_GAME,
    END_STOP,
)
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    PLAY,
    STOP,
)
from hanafuda_env.koikoi.rules import NINTENDO, TEN_BASE
from hanafuda_env.koikoi.scoring import score_yaku
from tests.helpers.scenarios import (
    AOTAN_T6_MORE_T8,
    AOTAN_T6_SANKO_T7,
    EXHAUST,
    INERT,
    LAST_SANKO,
    LAST_SANKO_OTHER,
    QUIET,
    SANKO_T5,
    SANKO_T5_AOTAN_T6,
    SANKO_T5_SAKE_T7,
    SANKO_T5_SAKE_T7_AOTAN_T8,
    TAKE,
    TAN_T13,
    TAN_T13_KASU_T14,
    TAN_T14,
    D,
    Duo,
    N,
    check_round,
    make_deck,
    pairs_deck,
    play_pairs,
    script,
)


# ----------------------------------------------------------- capture mechanics
def test_two_match_choices_and_captures_by_the_drawn_card() -> None:
    deck = make_deck([2, 10, 4, 12, 16, 20, 36, 44], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [3, 6, 14, 11, 30])
    duo = Duo(deck)
    assert len(duo.dealt) == 0
    duo.expect(D, PLAY, field=[0, 1, 8, 9, 28, 29, 32, 33], pile_D=[], pile_N=[],
               hand_D=[2, 10, 4, 12, 16, 20, 36, 44], hand_N=[5, 13, 17, 21, 24, 37, 40, 45])
    # T1: the played pine chaff matches two pines: the dealer chooses the crane
    out = duo.step(2)
    assert not out.reward.any() and not out.round_over.any()
    duo.expect(D, CHOOSE_PLAYED, {TAKE + 0, TAKE + 1}, pending=2,
               field=[0, 1, 8, 9, 28, 29, 32, 33], pile_D=[], hand_D=[10, 4, 12, 16, 20, 36, 44])
    assert (duo.core.stock_pos == 0).all()
    duo.step(TAKE + 0)
    # ...then the drawn pine chaff (3) captures the other pine (1)
    duo.expect(N, PLAY, field=[8, 9, 28, 29, 32, 33], pile_D=[0, 1, 2, 3], pile_N=[])
    assert (duo.core.stock_pos == 1).all()
    # T2: the plum ribbon matches nothing and stays; the drawn plum chaff captures it
    duo.step(5)
    duo.expect(D, PLAY, field=[8, 9, 28, 29, 32, 33], pile_N=[5, 6],
               hand_N=[13, 17, 21, 24, 37, 40, 45])
    # T3: cherry chaff matches two cherries; the dealer takes the ribbon; the drawn
    # wisteria chaff matches nothing and stays on the field
    duo.step(10)
    duo.expect(D, CHOOSE_PLAYED, {TAKE + 8, TAKE + 9}, pending=10)
    duo.step(TAKE + 9)
    duo.expect(N, PLAY, field=[8, 14, 28, 29, 32, 33], pile_D=[0, 1, 2, 3, 9, 10])
    # T4: wisteria ribbon captures the wisteria chaff; drawn cherry chaff captures the curtain
    duo.step(13)
    duo.expect(D, PLAY, field=[28, 29, 32, 33], pile_N=[5, 6, 8, 11, 13, 14])
    # T5: the warbler stays; the drawn susuki chaff matches two: the dealer chooses the geese
    duo.step(4)
    duo.expect(D, CHOOSE_DRAWN, {TAKE + 28, TAKE + 29}, pending=30, field=[4, 28, 29, 32, 33],
               hand_D=[12, 16, 20, 36, 44])
    out = duo.step(TAKE + 29)
    assert not out.reward.any()
    duo.expect(N, PLAY, field=[4, 28, 32, 33], pile_D=[0, 1, 2, 3, 9, 10, 29, 30])
    assert (duo.core.stock_pos == 5).all() and (duo.core.turn == 5).all()


def test_both_choices_in_one_turn() -> None:
    deck = make_deck([2, 4, 12, 16, 20, 36, 44, 41], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [10])
    duo = Duo(deck)
    duo.step(2)
    duo.step(TAKE + 1)
    duo.expect(D, CHOOSE_DRAWN, {TAKE + 8, TAKE + 9}, pending=10,
               field=[0, 8, 9, 28, 29, 32, 33], pile_D=[1, 2])
    assert (duo.core.stock_pos == 1).all() and (duo.core.turn == 0).all()
    duo.step(TAKE + 8)
    duo.expect(N, PLAY, field=[0, 9, 28, 29, 32, 33], pile_D=[1, 2, 8, 10], pile_N=[])
    assert (duo.core.turn == 1).all()


def test_yaku_is_checked_after_the_draw_phase() -> None:
    """The played card completes hanami, but the decision comes only after the drawn card's
    choice, and counts the tsukimi that the draw adds (§2.4)."""
    deck = make_deck([10, 32, 4, 12, 16, 20, 36, 44], [5, 1, 21, 24, 37, 40, 45, 2],
                     [8, 33, 28, 29, 13, 17, 25, 47], [41, 6, 30])
    duo = Duo(deck)
    duo.step(10)  # takes the curtain; the drawn swallow stays
    duo.step(5)  # plum ribbon stays; the drawn plum chaff takes it
    duo.expect(D, PLAY, pile_D=[8, 10], pile_N=[5, 6], field=[13, 17, 25, 28, 29, 33, 41, 47])
    out = duo.step(32)  # sake cup takes the blue ribbon: hanami stands already
    assert not out.round_over.any()
    duo.expect(D, CHOOSE_DRAWN, {TAKE + 28, TAKE + 29}, pending=30, pile_D=[8, 10, 32, 33])
    duo.step(TAKE + 28)
    duo.expect(D, DECIDE, {STOP, KOIKOI}, pile_D=[8, 10, 28, 30, 32, 33])
    out = duo.step(STOP)
    check_round(duo, out, winner=D, base=10, multiplier=2, reason=END_STOP, turns=3,
                yaku={"hanami_zake": 5, "tsukimi_zake": 5})


def test_three_matches_are_all_captured() -> None:
    deck = make_deck([3, 4, 12, 16, 24, 40, 44, 21], [5, 13, 17, 25, 37, 41, 45, 28],
                     [0, 1, 2, 8, 9, 10, 20, 36], [22, 11])
    duo = Duo(deck)
    duo.step(3)  # played card takes all three pines, no choice
    duo.expect(N, PLAY, field=[8, 9, 10, 36], pile_D=[0, 1, 2, 3, 20, 22])
    duo.step(5)  # plum stays; the drawn cherry chaff takes all three cherries
    duo.expect(D, PLAY, field=[5, 36], pile_N=[8, 9, 10, 11])


# ------------------------------------------------------- scripted pair rounds
def case(name, pairs, turns, decisions, rules=None, inert=INERT, **expect):
    return pytest.param(pairs, turns, decisions, rules, inert, expect, id=name)


def exhaustion(name, pairs, rules, decisions=None, calls=(0, 0), winner=None, base=0,
               multiplier=1):
    reason = END_NO_GAME if winner is None else END_EXHAUSTION_WIN
    return case(name, pairs, 16, decisions or {}, rules, EXHAUST, winner=winner, base=base,
                multiplier=multiplier, reason=reason, calls=calls)


OPEN = "on_exhaustion"
SCRIPTED = [
    case("stop", SANKO_T5, 5, {5: STOP}, winner=D, base=5, multiplier=1, reason=END_STOP,
         yaku={"sanko": 5}),
    case("stop-alternate-dealer", SANKO_T5, 5, {5: STOP}, {"next_dealer": "alternate"},
         winner=D, base=5, multiplier=1, reason=END_STOP),
    # sanko, hanami, tsukimi = 15 ≥ 7 doubles; the loser did not call koi-koi
    case("dealer-koikoi-dealer-wins", SANKO_T5_SAKE_T7, 7, {5: KOIKOI}, winner=D, base=15,
         multiplier=2, reason=END_KOIKOI_WIN, calls=(1, 0),
         yaku={"sanko": 5, "hanami_zake": 5, "tsukimi_zake": 5}),
    case("no-seven-point-doubling", SANKO_T5_SAKE_T7, 7, {5: KOIKOI},
         {"seven_point_doubling": False}, winner=D, base=15, multiplier=1,
         reason=END_KOIKOI_WIN, calls=(1, 0)),
    case("dealer-koikoi-other-wins", SANKO_T5_AOTAN_T6, 6, {5: KOIKOI}, winner=N, base=5,
         multiplier=2, reason=END_KOIKOI_WIN, calls=(1, 0), yaku={"aotan": 5}),
    case("no-koikoi-doubling", SANKO_T5_AOTAN_T6, 6, {5: KOIKOI}, {"koikoi_doubling": False},
         winner=N, base=5, multiplier=1, reason=END_KOIKOI_WIN, calls=(1, 0)),
    case("both-doublings", SANKO_T5_AOTAN_T6, 6, {5: KOIKOI}, {"points": {"aotan": 7}},
         winner=N, base=7, multiplier=4, reason=END_KOIKOI_WIN, calls=(1, 0),
         yaku={"aotan": 7}),
    case("other-koikoi-dealer-wins", AOTAN_T6_SANKO_T7, 7, {6: KOIKOI}, winner=D, base=5,
         multiplier=2, reason=END_KOIKOI_WIN, calls=(0, 1), yaku={"sanko": 5}),
    case("other-koikoi-other-wins", AOTAN_T6_MORE_T8, 8, {6: KOIKOI}, winner=N, base=6,
         multiplier=1, reason=END_KOIKOI_WIN, calls=(0, 1), yaku={"aotan": 6}),
    # sanko → koi-koi; tsukimi → asked again → koi-koi; the other's aotan → stop: x2 once
    case("multiple-koikoi", SANKO_T5_SAKE_T7_AOTAN_T8, 8, {5: KOIKOI, 7: KOIKOI, 8: STOP},
         {"multiple_koikoi": True}, winner=N, base=5, multiplier=2, reason=END_STOP,
         calls=(2, 0), yaku={"aotan": 5}),
    # no koi-koi is offered without a card in hand, even where many calls are allowed
    case("last-card-dealer", LAST_SANKO, 15, {}, winner=D, base=5, multiplier=1,
         reason=END_LAST_CARD, yaku={"sanko": 5}),
    case("last-card-other", LAST_SANKO_OTHER, 16, {}, winner=N, base=5, multiplier=1,
         reason=END_LAST_CARD, yaku={"sanko": 5}),
    case("last-card-ten-base", LAST_SANKO, 15, {}, TEN_BASE, winner=D, base=60, multiplier=1,
         reason=END_LAST_CARD, yaku={"sanko": 60}),
    case("last-card-other-ten-base", LAST_SANKO_OTHER, 16, {}, TEN_BASE, winner=N, base=60,
         multiplier=1, reason=END_LAST_CARD),
    exhaustion("quiet-no-game", QUIET, None),
    exhaustion("quiet-dealer-wins", QUIET, {OPEN: "dealer-wins"}, winner=D, base=6),
    exhaustion("quiet-dealer-wins-4", QUIET, {OPEN: "dealer-wins", "exhaustion_points": 4},
               winner=D, base=4),
    exhaustion("quiet-non-dealer-wins", QUIET, {OPEN: "non-dealer-wins"}, winner=N, base=6),
    exhaustion("quiet-highest-total", QUIET, {OPEN: "highest-total"}, winner=D, base=6),
    exhaustion("quiet-ten-base-oya-ken", QUIET, TEN_BASE, winner=D, base=50),
    # after an unanswered koi-koi the round is a no-game, except under highest-total
    exhaustion("koikoi-no-game", TAN_T13, None, {13: KOIKOI}, (1, 0)),
    exhaustion("koikoi-dealer-wins", TAN_T13, {OPEN: "dealer-wins"}, {13: KOIKOI}, (1, 0)),
    exhaustion("koikoi-non-dealer-wins", TAN_T13, {OPEN: "non-dealer-wins"}, {13: KOIKOI},
               (1, 0)),
    exhaustion("other-koikoi-non-dealer-wins", TAN_T14, {OPEN: "non-dealer-wins"},
               {14: KOIKOI}, (0, 1)),
    exhaustion("koikoi-highest-total", TAN_T13, {OPEN: "highest-total"}, {13: KOIKOI}, (1, 0),
               winner=D, base=1),
    exhaustion("other-koikoi-highest-total", TAN_T14, {OPEN: "highest-total"}, {14: KOIKOI},
               (0, 1), winner=N, base=1),
    # 10 : 10 in ten-base: the tie goes to the dealer
    exhaustion("ten-base-tie", TAN_T13_KASU_T14, TEN_BASE, {13: KOIKOI, 14: KOIKOI}, (1, 1),
               winner=D, base=10),
    # 1 : 1 goes to the dealer, scored with §2.5: the loser called koi-koi, x2
    exhaustion("highest-total-koikoi-doubling", TAN_T13_KASU_T14,
               {OPEN: "highest-total", "multiple_koikoi": True}, {13: KOIKOI, 14: KOIKOI},
               (1, 1), winner=D, base=1, multiplier=2),
    case("kasu-after-dealer-koikoi", TAN_T13_KASU_T14, 14, {13: KOIKOI}, None, EXHAUST,
         winner=N, base=1, multiplier=2, reason=END_KOIKOI_WIN, calls=(1, 0),
         yaku={"kasu": 1}),
]


@pytest.mark.parametrize(("pairs", "turns", "decisions", "rules", "inert", "expect"),
                         SCRIPTED)
def test_scripted_round(pairs, turns, decisions, rules, inert, expect) -> None:
    deck, dp, op = pairs_deck(*pairs, inert=inert)
    duo = Duo(deck, rules)
    out, piles = play_pairs(duo, script(dp, op, turns), decisions)
    check_round(duo, out, turns=turns, piles=piles, **expect)


def test_scenario_decks_score_as_designed() -> None:
    """The exhaustion decks' final piles, so the scripted cases above rest on known yaku."""
    finals = {}
    for name, pairs in (("quiet", QUIET), ("tan", TAN_T13), ("both", TAN_T13_KASU_T14)):
        _, dp, op = pairs_deck(*pairs, inert=EXHAUST)
        finals[name] = [{c for pair in side for c in pair} for side in (dp, op)]
    for rules in (NINTENDO, TEN_BASE):
        assert [score_yaku(p, rules) for p in finals["quiet"]] == [{}, {}]
    assert [score_yaku(p) for p in finals["tan"]] == [{"tan": 1}, {}]
    assert [score_yaku(p, TEN_BASE) for p in finals["both"]] == [{"tan": 10}, {"kasu": 10}]


def test_highest_total_win_reports_the_winners_yaku() -> None:
    """RoundResults.yaku holds "the winner's yaku points": a highest-total win has yaku."""
    deck, dp, op = pairs_deck(*TAN_T13, inert=EXHAUST)
    duo = Duo(deck, {OPEN: "highest-total"})
    out, _ = play_pairs(duo, script(dp, op, 16), {13: KOIKOI})
    check_round(duo, out, winner=D, base=1, multiplier=1, reason=END_EXHAUSTION_WIN, turns=16,
                calls=(1, 0), yaku={"tan": 1})
