"""The KoiKoi-Japan rules (RULES.md §2.10): each option alone, the preset, and golden rounds.

The rounds are played from a pairs deck (``tests.helpers.scenarios``): every turn captures
exactly the pair it plays and draws, so each player's yaku can be read off the script below.
Both engines play each script, with either seat dealing.
"""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import KOIKOI, STOP, KoiKoiCore
from hanafuda_env.koikoi.deals import check_decks
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.rules import KOIKOI_JAPAN, NINTENDO, RuleError, resolve_rules
from hanafuda_env.koikoi.scoring import round_points, round_score, score_yaku
from tests.helpers.scenarios import Duo, pairs_deck, play_pairs, script

JP = KOIKOI_JAPAN
# Dealer: deer+maple blue, curtain+cherry red, sake cup+chrysanthemum blue (hanami),
# moon+geese (tsukimi), crane+pine red (sanko), butterflies+peony blue (aotan, tan),
# phoenix+paulownia chaff (shiko), boar+bush clover ribbon (ino-shika-cho, tane).
DEALER_PAIRS = [(36, 37), (8, 9), (32, 33), (28, 29), (0, 1), (20, 21), (44, 45), (24, 25)]
# The other player: two chaff a turn, so kasu stands from its fifth turn (10 chaff) on.
OTHER_PAIRS = [(38, 39), (10, 11), (34, 35), (30, 31), (2, 3), (22, 23), (46, 47), (26, 27)]
INERT_MONTHS = (2, 4, 5, 11)
# script index (dealer's turn k is 2k - 1, the other's 2k) of each player's turns
D3, D4, D5, D6, D7, N5, N6, N7 = 5, 7, 9, 11, 13, 10, 12, 14


def deck_and_script(turns: int = 16):
    deck, dp, op = pairs_deck(DEALER_PAIRS, OTHER_PAIRS, inert=INERT_MONTHS)
    return deck, script(dp, op, turns)


def run(turns: int, decisions: dict[int, int], rules=JP):
    """Both engines through the script; (core outcome, plain-engine rows per dealer seat)."""
    deck, moves = deck_and_script(turns)
    duo = Duo(deck, rules)
    out, _ = play_pairs(duo, moves, decisions)
    game_rows = []
    for dealer in (0, 1):  # the plain engine on the same deck and moves
        game = KoiKoiGame(rules, seed=4, options={"deck": deck, "dealer": dealer})
        rows = []
        for t, (_, play, _) in enumerate(moves, start=1):
            step = game.step(play)
            if t in decisions:
                step = game.step(decisions[t])
            rows += step.rounds
        game_rows.append(rows)
    return duo, out, game_rows


def core_row(out, g: int) -> dict:
    return out.rounds.records()[int(np.flatnonzero(out.rounds.game == g)[0])]


# ---------------------------------------------------------------------- yaku (§2.10)
def test_tane_and_ino_shika_cho_both_count_and_further_animals_count_once() -> None:
    pile = [24, 36, 20, 32, 29]  # boar, deer, butterflies, sake cup, geese
    assert score_yaku(pile, JP) == {"ino_shika_cho": 5, "tane": 1}
    assert score_yaku(pile, NINTENDO) == {"ino_shika_cho": 7}  # +1 per further animal
    alone = NINTENDO.replace(tane_with_ino_shika_cho=True)
    assert score_yaku(pile, alone) == {"ino_shika_cho": 5, "tane": 1}


def test_all_six_poetry_ribbons_score_22() -> None:
    ribbons = [1, 5, 9, 21, 33, 37]
    assert score_yaku(ribbons, JP) == {"akatan_aotan": 10, "akatan": 5, "aotan": 5, "tan": 2}
    assert score_yaku(ribbons, NINTENDO) == {"akatan_aotan": 10}
    assert score_yaku([1, 5, 9, 13, 17], JP) == {"akatan": 5, "tan": 1}
    assert score_yaku([1, 5, 9, 13, 17], NINTENDO) == {"akatan": 7}
    each = NINTENDO.replace(akatan_aotan="combined-plus-each")
    assert score_yaku(ribbons, each) == {"akatan_aotan": 10, "akatan": 8, "aotan": 8}


def test_sake_yaku_are_worth_one_and_three_after_their_holders_koikoi() -> None:
    pile = [8, 28, 32]  # curtain, moon, sake cup
    assert score_yaku(pile, JP) == {"hanami_zake": 1, "tsukimi_zake": 1}
    assert score_yaku(pile, JP, called=True) == {"hanami_zake": 3, "tsukimi_zake": 3}
    assert score_yaku(pile, NINTENDO, called=True) == {"hanami_zake": 5, "tsukimi_zake": 5}


@pytest.mark.parametrize(("calls", "base", "multiplier"), [
    (0, 6, 1), (1, 7, 1), (2, 8, 1), (3, 9, 1), (4, 6, 2), (5, 6, 3), (7, 6, 5)])
def test_own_calls_add_up_to_three_points_then_multiply(calls, base, multiplier) -> None:
    assert tuple(int(v) for v in round_score(6, True, JP, calls)) == (base, multiplier)
    assert round_points(6, True, JP, calls) == base * multiplier


def test_no_seven_point_doubling_and_no_doubling_by_the_losers_calls() -> None:
    assert round_points(9, True, JP) == 9
    assert round_points(9, True, NINTENDO) == 36


# ------------------------------------------------------------------ the preset (§2.10)
def test_the_preset_is_the_listed_rules() -> None:
    rules = resolve_rules("koikoi-japan")
    assert rules is JP
    assert (rules.rounds, rules.starting_points, rules.hand_yaku) == (8, 30, "none")
    assert rules.redeal_hand_four and rules.multiple_koikoi and rules.own_koikoi_bonus
    assert not rules.seven_point_doubling and not rules.koikoi_doubling
    assert (rules.on_exhaustion, rules.exhaustion_points) == ("dealer-wins-always", 1)
    assert (rules.points.hanami_zake, rules.points.tsukimi_zake, rules.sake_after_koikoi) == (
        1, 1, 3)


@pytest.mark.parametrize(("option", "value", "words"), [
    ("sake_after_koikoi", -1, "'sake_after_koikoi' must be an integer from 0 to 1000"),
    ("sake_after_koikoi", 2.5, "'sake_after_koikoi' must be an integer"),
    ("starting_points", 0, "'starting_points' must be an integer from 1 to 1000000"),
    ("own_koikoi_bonus", "yes", "'own_koikoi_bonus' must be true or false"),
    ("redeal_hand_four", 1, "'redeal_hand_four' must be true or false"),
    ("tan_with_poetry_ribbons", None, "'tan_with_poetry_ribbons' must be true or false"),
    ("on_exhaustion", "dealer", "'dealer-wins-always'"),
    ("akatan_aotan", "both", "'combined-plus-each'"),
])
def test_bad_values_of_the_new_options_are_named(option, value, words) -> None:
    with pytest.raises(RuleError, match=words):
        NINTENDO.replace(**{option: value})


def test_a_hand_of_four_is_dealt_again_and_a_given_one_is_refused() -> None:
    head = [0, 1, 2, 3, 4, 6, 7, 8,  # the dealer's hand holds all of pine
            10, 11, 12, 14, 15, 16, 18, 19, 5, 9, 13, 17, 20, 24, 28, 32]
    deck = head + [c for c in range(48) if c not in head]
    check_decks(deck, 1, NINTENDO)  # a teshi there
    with pytest.raises(ValueError, match="all four cards of a month in the dealer's hand"):
        check_decks(deck, 1, JP)
    core = KoiKoiCore(512, JP, seed=0)
    for seed in range(3):  # one deal in about 120 holds a hand of four: of 1,536, none here
        core.reset(seed=seed)
        for hand in core.hands.reshape(-1).tolist():
            months = [C.DECK[c].month for c in C.ids_of(hand)]
            assert max(months.count(m) for m in set(months)) < 4


# ------------------------------------------------------------------ golden rounds
def test_hanami_at_one_point_stopped_at_once() -> None:
    duo, out, game_rows = run(D3, {D3: STOP})
    for g in (0, 1):
        row = core_row(out, g)
        assert (row["winner"], row["base"], row["multiplier"], row["points"]) == (g, 1, 1, 1)
        assert row["yaku"] == {"hanami_zake": 1} and row["reason"] == "stop"
        assert duo.core.dealer[g] == g  # the winner deals the next round
        assert game_rows[g] == [row | {"game": 0}]


def test_after_a_koikoi_the_sake_yaku_are_three_and_the_call_adds_a_point() -> None:
    duo, out, game_rows = run(D4, {D3: KOIKOI, D4: STOP})
    for g in (0, 1):
        row = core_row(out, g)
        assert row["yaku"] == {"hanami_zake": 3, "tsukimi_zake": 3}
        assert (row["base"], row["multiplier"], row["points"]) == (7, 1, 7)  # 6 + 1 call
        assert row["koikoi_calls"][g] == 1
        assert game_rows[g] == [row | {"game": 0}]


def test_the_other_player_stops_and_the_dealers_calls_double_nothing() -> None:
    duo, out, game_rows = run(N5, {D3: KOIKOI, D4: KOIKOI, D5: KOIKOI, N5: STOP})
    for g in (0, 1):
        row = core_row(out, g)
        other = 1 - g
        assert (row["winner"], row["points"], row["yaku"]) == (other, 1, {"kasu": 1})
        assert row["koikoi_calls"][g] == 3 and row["koikoi_calls"][other] == 0
        assert duo.core.dealer[g] == other  # the other player deals next
        assert game_rows[g] == [row | {"game": 0}]


def test_four_own_calls_multiply_by_two_and_the_stake_ends_the_match() -> None:
    decisions = {D3: KOIKOI, D4: KOIKOI, D5: KOIKOI, N5: KOIKOI, D6: KOIKOI, N6: KOIKOI,
                 D7: STOP}
    duo, out, game_rows = run(D7, decisions)
    for g in (0, 1):
        row = core_row(out, g)
        assert row["yaku"] == {"shiko": 8, "aotan": 5, "hanami_zake": 3, "tsukimi_zake": 3,
                               "tan": 1}
        assert (row["base"], row["multiplier"], row["points"]) == (20, 2, 40)
        assert row["koikoi_calls"][g] == 4 and row["koikoi_calls"][1 - g] == 2
        assert game_rows[g] == [row | {"game": 0}]
    assert out.match_over.all()  # the other player has 30 - 40 = -10 points after round 1
    matches = out.matches
    assert matches.rounds.tolist() == [1, 1] and matches.winner.tolist() == [0, 1]
    assert duo.core.round_index.tolist() == [0, 0]  # a new match has begun


def test_five_calls_and_yaku_with_the_last_card_multiply_by_three() -> None:
    decisions = {D3: KOIKOI, D4: KOIKOI, D5: KOIKOI, N5: KOIKOI, D6: KOIKOI, N6: KOIKOI,
                 D7: KOIKOI, N7: KOIKOI}
    duo, out, game_rows = run(15, decisions)  # the dealer's eighth turn
    for g in (0, 1):
        row = core_row(out, g)
        assert row["reason"] == "yaku-after-koikoi"  # no decision with an empty hand
        assert (row["base"], row["multiplier"], row["points"]) == (27, 3, 81)
        assert row["yaku"]["ino_shika_cho"] == 5 and row["yaku"]["tane"] == 1
        assert game_rows[g] == [row | {"game": 0}]


# A round both players answer with koi-koi (one call each) until the cards run out.
EXHAUSTED_DECK = [32, 29, 39, 43, 20, 18, 6, 16, 14, 38, 13, 3, 11, 2, 26, 30, 5, 9, 33, 10,
                  0, 15, 36, 12, 19, 28, 22, 41, 8, 46, 27, 44, 25, 17, 31, 7, 42, 4, 45, 35,
                  40, 21, 47, 24, 1, 37, 34, 23]
EXHAUSTED_MOVES = [18, 3, 43, 11, 58, 20, 38, 29, 13, 60, 16, 2, 32, KOIKOI, 30, 6, 14, KOIKOI,
                   39, 26]


@pytest.mark.parametrize("dealer", [0, 1])
def test_both_hands_empty_after_koikoi_calls_give_the_dealer_one_point(dealer) -> None:
    core = KoiKoiCore(1, JP, seed=0)
    core.reset(seed=0, options={"deck": EXHAUSTED_DECK, "dealer": dealer})
    game = KoiKoiGame(JP, seed=0, options={"deck": EXHAUSTED_DECK, "dealer": dealer})
    for action in EXHAUSTED_MOVES:
        out = core.step(np.array([action]))
        step = game.step(action)
    row = out.rounds.records()[0]
    assert row["reason"] == "exhaustion-win" and row["koikoi_calls"] == [1, 1]
    assert (row["winner"], row["points"], row["turns"]) == (dealer, 1, 16)
    assert out.reward[0, dealer] == 1 and out.reward[0, 1 - dealer] == -1
    assert core.dealer[0] == dealer  # and deals again
    assert step.rounds == [row] and game.dealer == dealer
