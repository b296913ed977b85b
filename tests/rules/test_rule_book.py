"""The rule book's golden cases: the engines against RULES.md, clause by clause; each test
names its section.

Round tests play one fixed *pairs deck* (``tests.helpers.scenarios.pairs_deck``: every turn
plays a card whose month is not on the field and draws its month mate, so each turn captures
exactly its pair) in both engines at once — the plain ``KoiKoiGame`` and a one-game
``KoiKoiCore`` — with either seat dealing. They check the decision offered after every turn
and the finished round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    DECIDE,
    KOIKOI,
    PLAY,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.koikoi.game import GameStepOutcome, KoiKoiGame
from hanafuda_env.koikoi.rules import TEN_BASE
from tests.helpers.scenarios import (
    EXHAUST,
    LAST_SANKO,
    LAST_SANKO_OTHER,
    QUIET,
    TAN_T13,
    TAN_T13_KASU_T14,
    TAN_T14,
    D,
    N,
    make_deck,
    pairs_deck,
    script,
)

Pairs = tuple[list[tuple[int, int]], list[tuple[int, int]]]
Trace = dict[int, tuple[int, int]]  # turn -> (phase after the turn, the mover's yaku total)


def seat(who: str, dealer: int) -> int:
    return dealer if who == D else 1 - dealer


def play_round(pairs: Pairs, rules: Any, decisions: dict[int, int], inert: tuple[int, ...],
               dealer: int, turns: int = 16) -> tuple[Trace, dict | None]:
    """Play up to ``turns`` pair turns in both engines, answering ``decisions`` (turn ->
    STOP/KOIKOI). Returns the trace and the finished round's record (None: not over)."""
    deck, dp, op = pairs_deck(*pairs, inert=inert)
    game = KoiKoiGame(rules, seed=5, options={"deck": deck, "dealer": dealer})
    core = KoiKoiCore(1, rules, seed=5)
    core.reset(seed=5, options={"deck": deck, "dealer": dealer})
    trace: Trace = {}
    for t, (who, card, _) in enumerate(script(dp, op, turns), start=1):
        mover = seat(who, dealer)
        assert game.phase == PLAY and game.mover == mover, t
        actions = [card] + ([decisions[t]] if t in decisions else [])
        for k, action in enumerate(actions):
            out = game.step(action)
            core_out = core.step(np.array([action]))
            assert game.state_dict()["phase"] == int(core.phase[0])
            assert list(out.reward) == core_out.reward[0].tolist()
            if k == 0:
                trace[t] = (game.phase, game.yaku_total[mover])
            if out.round_over:
                assert t == turns, f"the round ended early, at turn {t}"
                row = out.rounds[0]
                assert core_out.rounds.records()[0] == row  # both engines agree
                if len(out.rounds) == 1:  # §2.1: the winner deals next; no winner: passes
                    nxt = row["winner"] if row["winner"] >= 0 else 1 - dealer
                    assert game.dealer == int(core.dealer[0]) == nxt == game.mover
                return trace, row
        assert game.phase == PLAY, f"turn {t}: a decision was offered but not scripted"
    return trace, None


def check_row(row: dict | None, dealer: int, *, winner: str, base: int, multiplier: int,
              reason: str, turns: int, calls: tuple[int, int], yaku: dict[str, int]) -> None:
    """The round record, with ``calls`` given as (dealer's, other's)."""
    assert row is not None, "the round did not end"
    w = seat(winner, dealer)
    points = base * multiplier
    reward = [0, 0]
    reward[w], reward[1 - w] = points, -points
    by_seat = [0, 0]
    by_seat[dealer], by_seat[1 - dealer] = calls
    assert (row["winner"], row["base"], row["multiplier"], row["points"]) == (
        w, base, multiplier, points)
    assert row["reward"] == reward and row["reason"] == reason and row["turns"] == turns
    assert row["koikoi_calls"] == by_seat and row["yaku"] == yaku and row["dealer"] == dealer


DEALERS = pytest.mark.parametrize("dealer", [0, 1])


# ----------------------------------------------------- §2.4 what "made yaku" means
# Dealer: curtain T1, sake cup T3 (hanami), rain man + swallow T5, then geese, cuckoo and
# the bridge: five animals (tane) on T11. The other captures nothing that makes yaku.
RAIN_REGAIN: Pairs = ([(8, 10), (32, 34), (40, 41), (29, 31), (12, 14), (16, 18)], [])


@DEALERS
@pytest.mark.parametrize(("washes", "t5_total", "base", "yaku"), [
    (True, 0, 1, {"tane": 1}),
    (False, 5, 6, {"hanami_zake": 5, "tane": 1}),
])
def test_falling_total_is_not_made_yaku_and_the_next_rise_is(
        dealer: int, washes: bool, t5_total: int, base: int, yaku: dict[str, int]) -> None:
    """§2.4 (compare with the mover's previous turn) and §2.8 rain_washes_sake: the rain man
    washes hanami after a koi-koi (total 5 -> 0): no decision, no round end; tane on T11 is
    a rise from 0 to 1, so the round ends there and the dealer wins 1, not 6."""
    trace, row = play_round(RAIN_REGAIN, {"rain_washes_sake": washes}, {3: KOIKOI},
                            (1, 6, 10, 12), dealer, turns=11)
    assert trace[3] == (DECIDE, 5)
    assert trace[5] == (PLAY, t5_total)
    assert trace[9] == (PLAY, t5_total)
    check_row(row, dealer, winner=D, base=base, multiplier=1, reason="yaku-after-koikoi",
              turns=11, calls=(1, 0), yaku=yaku)


# Dealer: crane, curtain, sake cup (hanami T5), moon + geese (sanko+hanami+tsukimi = 15 on
# T7), rain man + swallow on T9 (ame-shiko 7, the sake yaku washed), warbler, cuckoo: tane
# on T13. The other takes 4 ribbons, 8 chaff: no yaku.
NEW_YAKU_FALLING: Pairs = (
    [(0, 2), (8, 10), (32, 34), (28, 29), (40, 41), (4, 6), (12, 14)],
    [(30, 31), (3, 1), (7, 5), (18, 19), (35, 33), (43, 42)])


@DEALERS
def test_new_yaku_with_a_falling_total_offers_no_decision(dealer: int) -> None:
    """§2.4 "if it went up": ame-shiko appears on T9 but the total falls 15 -> 7 (rain washes
    the sake yaku), so nothing is offered; tane then lifts it to 8 > 7: a decision again.
    §2.5: 8 doubles to 16; the loser never called. (§2.4's "(a new yaku, ...)" gloss would
    offer a decision on T9; the total rule, which the engine follows, does not.)"""
    rules = {"rain_washes_sake": True, "multiple_koikoi": True}
    trace, row = play_round(NEW_YAKU_FALLING, rules, {5: KOIKOI, 7: KOIKOI, 13: STOP},
                            (6, 7, 10, 12), dealer, turns=13)
    assert [trace[t] for t in (5, 7, 9, 11, 13)] == [
        (DECIDE, 5), (DECIDE, 15), (PLAY, 7), (PLAY, 7), (DECIDE, 8)]
    check_row(row, dealer, winner=D, base=8, multiplier=2, reason="stop", turns=13,
              calls=(2, 0), yaku={"ame_shiko": 7, "tane": 1})


# ------------------------------------------------------ §2.5 the source's example
# Dealer: crane + akatan, curtain + akatan, moon (sanko, 2 ribbons, T5), then wisteria,
# iris, bush-clover ribbons (5 ribbons: tan, T11) and the chrysanthemum ribbon (6, T13).
SANKO_TAN: Pairs = (
    [(0, 1), (8, 9), (28, 30), (13, 14), (17, 18), (25, 26), (33, 34)],
    [(2, 3), (6, 7), (10, 11), (15, 12), (19, 16), (27, 24)])


@DEALERS
@pytest.mark.parametrize(("changes", "decisions", "turns", "base", "multiplier", "yaku"), [
    ({}, {5: KOIKOI, 11: STOP}, 11, 6, 1, {"sanko": 5, "tan": 1}),
    ({}, {5: KOIKOI, 11: KOIKOI, 13: STOP}, 13, 7, 2, {"sanko": 5, "tan": 2}),
    ({"seven_point_doubling": False}, {5: KOIKOI, 11: KOIKOI, 13: STOP}, 13, 7, 1,
     {"sanko": 5, "tan": 2}),
])
def test_sanko_plus_tan_six_then_seven_doubles(
        dealer: int, changes: dict, decisions: dict[int, int], turns: int, base: int,
        multiplier: int, yaku: dict[str, int]) -> None:
    """§2.5 example: sanko (5) + tan of 5 ribbons (1) = 6 points; one more ribbon makes 7,
    which doubles to 14 (§2.8 seven_point_doubling off: 7). Multiple koi-koi lets the
    dealer be asked again; the winner's own calls never double (only the loser's)."""
    rules = {"multiple_koikoi": True, **changes}
    trace, row = play_round(SANKO_TAN, rules, decisions, (6, 10, 11, 12), dealer, turns)
    assert trace[5] == (DECIDE, 5) and trace[7] == trace[9] == (PLAY, 5)
    check_row(row, dealer, winner=D, base=base, multiplier=multiplier, reason="stop",
              turns=turns, calls=(len(decisions) - 1, 0), yaku=yaku)


# ------------------------------------------------------------ §2.4, §2.8 koi-koi rights
# Dealer: sanko on T5; the other: aotan on T6; the dealer's T7 adds hanami + tsukimi.
BOTH_CALL: Pairs = ([(0, 2), (8, 10), (28, 30), (32, 34)], [(21, 23), (33, 35), (37, 39)])
# The same, the dealer's T7 takes the rain man instead (ten-base has no sake yaku).
BOTH_CALL_RAIN: Pairs = ([(0, 2), (8, 10), (28, 30), (40, 41)],
                         [(21, 23), (33, 35), (37, 39)])
BOTH_CALL_CASES = {
    # §2.4 default: the right is shared; after the dealer's koi-koi the other's aotan ends
    # the round at once, doubled by the loser's call
    "shared-right": (BOTH_CALL, None, {5: KOIKOI}, 6, N, 5, 2, "yaku-after-koikoi", (1, 0),
                     {"aotan": 5}),
    # §2.8 multiple_koikoi Decision: the other may call too, the dealer may call again;
    # 15 >= 7 doubles, the loser called: doubled once more (4x)
    "multiple": (BOTH_CALL, {"multiple_koikoi": True}, {5: KOIKOI, 6: KOIKOI, 7: STOP}, 7, D,
                 15, 4, "stop", (1, 1), {"sanko": 5, "hanami_zake": 5, "tsukimi_zake": 5}),
    # §2.9: the same calls in ten-base: sanko 60 -> ame-shiko 80, no doubling at all
    "ten-base": (BOTH_CALL_RAIN, "ten-base", {5: KOIKOI, 6: KOIKOI, 7: STOP}, 7, D, 80, 1,
                 "stop", (1, 1), {"ame_shiko": 80}),
}


@DEALERS
@pytest.mark.parametrize("name", list(BOTH_CALL_CASES))
def test_koikoi_calls_by_both_players(dealer: int, name: str) -> None:
    """§2.4 shared right vs §2.8 multiple_koikoi / §2.9: who may decide after a koi-koi,
    and how the calls double the winner's points (§2.5 step 3: doubled once)."""
    pairs, rules, decisions, turns, winner, base, mult, reason, calls, yaku = (
        BOTH_CALL_CASES[name])
    trace, row = play_round(pairs, rules, decisions, (2, 4, 5, 7), dealer, turns)
    assert trace[5][0] == DECIDE
    assert trace[6][0] == (DECIDE if 6 in decisions else PLAY)
    check_row(row, dealer, winner=winner, base=base, multiplier=mult, reason=reason,
              turns=turns, calls=calls, yaku=yaku)


@DEALERS
@pytest.mark.parametrize("rules", [None, {"multiple_koikoi": True},
                                   {"multiple_koikoi": True, "koikoi_doubling": False}])
@pytest.mark.parametrize(("pairs", "who", "turns"), [(LAST_SANKO, D, 15),
                                                      (LAST_SANKO_OTHER, N, 16)])
def test_yaku_with_an_empty_hand_wins_at_once(dealer: int, rules: Any, pairs: Pairs,
                                              who: str, turns: int) -> None:
    """§2.4 "koi-koi is offered only while the mover still holds a card ... in every rule
    set": sanko made with the last card (the dealer's turn 15, while the other still holds
    one, or the other's turn 16) is no decision; the mover wins 5 at once."""
    trace, row = play_round(pairs, rules, {}, (2, 4, 5, 7), dealer, turns)
    assert all(phase == PLAY for phase, _ in trace.values())
    check_row(row, dealer, winner=who, base=5, multiplier=1, reason="yaku-on-last-card",
              turns=turns, calls=(0, 0), yaku={"sanko": 5})


# ----------------------------------------------------- §2.8 hanami_tsukimi at play
@DEALERS
@pytest.mark.parametrize("on", [True, False])
def test_hanami_switch_decides_whether_yaku_is_made(dealer: int, on: bool) -> None:
    """§2.3 hanami-zake (curtain + sake cup = 5) and §2.8 hanami_tsukimi: with the option
    off, the same captures make no yaku and no decision is offered."""
    pairs: Pairs = ([(8, 10), (32, 34)], [])
    turns = 3 if on else 4
    trace, row = play_round(pairs, {"hanami_tsukimi": on}, {3: STOP} if on else {},
                            (2, 4, 5, 7), dealer, turns)
    if on:
        assert trace[3] == (DECIDE, 5)
        check_row(row, dealer, winner=D, base=5, multiplier=1, reason="stop", turns=3,
                  calls=(0, 0), yaku={"hanami_zake": 5})
    else:
        assert trace[3] == (PLAY, 0) and row is None


# ------------------------------------------------------------------ §2.7 a match
@pytest.mark.parametrize("rounds", [3, 6])
def test_short_match_lasts_its_rounds_and_the_higher_total_wins(rounds: int) -> None:
    """§2.7: 12 rounds, 3 or 6 selectable; the higher total wins, equal totals draw (-1).
    Rounds are numbered 0..rounds-1, hand-yaku rounds included, and the round rewards
    add up to the match score."""
    rng = np.random.default_rng(rounds)
    for seed in range(4):
        game = KoiKoiGame({"rounds": rounds}, seed=seed)
        rows = list(game.reset(seed=seed).rounds)
        matches: list[dict] = []
        while not matches:
            legal = game.legal_actions()
            action = STOP if game.phase == DECIDE else legal[int(rng.integers(len(legal)))]
            out = game.step(action)
            rows += out.rounds
            matches += out.matches
        rows = rows[:rounds]
        assert [r["round_index"] for r in rows] == list(range(rounds))
        match = matches[0]
        assert match["rounds"] == rounds
        score = [sum(r["reward"][s] for r in rows) for s in (0, 1)]
        assert match["scores"] == score and score[0] == -score[1]
        assert match["winner"] == (0 if score[0] > 0 else 1 if score[0] < 0 else -1)


# ------------------------------------------------------------- §2.2 a turn, plain game
def test_play_any_card_capture_is_compulsory_and_the_drawer_chooses() -> None:
    """§2.2: every hand card may be played, also one matching nothing while another could
    capture; the drawn card matching two field cards waits for the same player's choice;
    a single match is captured at once, with no choice."""
    field = [0, 8, 9, 21, 29, 33, 40, 44]
    deck = make_deck([2, 12, 16, 20, 24, 36, 45, 46], [5, 13, 17, 25, 37, 41, 42, 47],
                     field, [10])
    game = KoiKoiGame(None, seed=1, options={"deck": deck, "dealer": 1})
    assert game.mover == 1 and game.phase == PLAY
    assert game.legal_actions() == [2, 12, 16, 20, 24, 36, 45, 46]
    game.step(12)  # the cuckoo matches nothing (the pine chaff 2 could capture): it stays
    assert game.field >> 12 & 1 and game.piles == [0, 0]
    assert (game.phase, game.pending, game.mover) == (CHOOSE_DRAWN, 10, 1)
    assert game.legal_actions() == [CHOOSE_OFFSET + 8, CHOOSE_OFFSET + 9]
    out = game.step(CHOOSE_OFFSET + 8)
    assert C.ids_of(game.piles[1]) == [8, 10] and not out.round_over
    assert game.mover == 0 and game.phase == PLAY
    game.step(5)  # the other's turn (plum ribbon, then a draw)
    assert game.mover == 1 and game.turn == 2
    game.step(45)  # paulownia chaff: the phoenix is its single match, taken at once
    assert {8, 10, 44, 45} <= set(C.ids_of(game.piles[1]))


# --------------------------------------------------------------- §2.6 end of a round
@DEALERS
@pytest.mark.parametrize(("pairs", "decisions", "calls"), [(QUIET, {}, (0, 0)),
                                                           (TAN_T13, {13: KOIKOI}, (1, 0))])
def test_cards_used_up_is_a_no_game_and_the_deal_passes(
        dealer: int, pairs: Pairs, decisions: dict[int, int], calls: tuple[int, int]) -> None:
    """§2.6: both hands empty with nobody winning -> nobody scores and the dealer passes
    (checked in play_round), also after an unanswered koi-koi (001: a draw)."""
    trace, row = play_round(pairs, None, decisions, EXHAUST, dealer)
    assert row is not None and len(trace) == 16
    assert (row["winner"], row["points"], row["reward"], row["reason"]) == (
        -1, 0, [0, 0], "no-game")
    by_seat = [0, 0]
    by_seat[dealer], by_seat[1 - dealer] = calls
    assert row["koikoi_calls"] == by_seat and row["yaku"] == {}


# ---------------------------- §2.6, §2.8, §2.9 cards used up, in the plain game
def play_script(pairs, rules: Any, dealer: int, decisions: dict[int, int]) -> GameStepOutcome:
    """Play all 16 pair turns of an exhaustion deck on a KoiKoiGame; ``decisions`` answers
    the yaku made on a turn (every other turn must pass the move on)."""
    deck, dp, op = pairs_deck(*pairs, inert=EXHAUST)
    game = KoiKoiGame(rules, seed=3, options={"deck": deck, "dealer": dealer})
    turns = script(dp, op, 16)
    for t, (who, play, _) in enumerate(turns, start=1):
        assert game.phase == PLAY and game.mover == (dealer if who == D else 1 - dealer)
        out = game.step(play)
        if t in decisions:
            assert game.phase == DECIDE, t
            out = game.step(decisions[t])
        if t < len(turns):
            assert not out.round_over, t
    assert out.round_over
    return out


OPEN = "on_exhaustion"


# (pairs, rules, decisions, winner: "dealer"/"other"/None, base, multiplier, koi-koi calls by
# dealer and other, yaku reported); expectations from RULES.md §2.6, §2.8, §2.9
EXHAUSTION = {
    # §2.6: both hands empty, nobody won: nobody scores
    "quiet-no-game": (QUIET, None, {}, None, 0, 1, (0, 0), {}),
    # §2.8 親権: the dealer scores the set value (6), or another one
    "quiet-dealer-wins": (QUIET, {OPEN: "dealer-wins"}, {}, "dealer", 6, 1, (0, 0), {}),
    "quiet-dealer-wins-3": (QUIET, {OPEN: "dealer-wins", "exhaustion_points": 3}, {},
                            "dealer", 3, 1, (0, 0), {}),
    # §2.8 つかず: the non-dealer scores 6
    "quiet-non-dealer-wins": (QUIET, {OPEN: "non-dealer-wins"}, {}, "other", 6, 1, (0, 0),
                              {}),
    # §2.9: nobody ever made yaku: oya-ken, 50
    "quiet-ten-base": (QUIET, TEN_BASE, {}, "dealer", 50, 1, (0, 0), {}),
    # §2.8: after an unanswered koi-koi the round is still a no-game
    "koikoi-dealer-wins": (TAN_T13, {OPEN: "dealer-wins"}, {13: KOIKOI}, None, 0, 1, (1, 0),
                           {}),
    "koikoi-non-dealer-wins": (TAN_T14, {OPEN: "non-dealer-wins"}, {14: KOIKOI}, None, 0, 1,
                               (0, 1), {}),
    # §2.9 highest-total: the higher yaku total wins with that total
    "koikoi-highest-total": (TAN_T13, {OPEN: "highest-total"}, {13: KOIKOI}, "dealer", 1, 1,
                             (1, 0), {"tan": 1}),
    "other-koikoi-highest-total": (TAN_T14, {OPEN: "highest-total"}, {14: KOIKOI}, "other",
                                   1, 1, (0, 1), {"tan": 1}),
    # §2.9: tan 10 against kasu 10, a tie: the dealer's; no koi-koi doubling in ten-base
    "ten-base-tie": (TAN_T13_KASU_T14, TEN_BASE, {13: KOIKOI, 14: KOIKOI}, "dealer", 10, 1,
                     (1, 1), {"tan": 10}),
    # 1 : 1 goes to the dealer and is scored as any win (§2.5): the loser called, x2
    "highest-total-doubling": (TAN_T13_KASU_T14, {OPEN: "highest-total",
                                                  "multiple_koikoi": True},
                               {13: KOIKOI, 14: KOIKOI}, "dealer", 1, 2, (1, 1), {"tan": 1}),
}


@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.parametrize("name", list(EXHAUSTION))
def test_plain_game_ends_exhausted_rounds_by_the_rule_set(name: str, dealer: int) -> None:
    """Each on_exhaustion mode, with both seats as dealer, in the engine the single-game envs
    play: winner, base, multiplier, zero-sum points, reason, calls and the winner's yaku."""
    pairs, rules, decisions, who, base, multiplier, calls, yaku = EXHAUSTION[name]
    out = play_script(pairs, rules, dealer, decisions)
    row = out.rounds[0]
    winner = -1 if who is None else dealer if who == "dealer" else 1 - dealer
    points = base * multiplier
    reward = [0, 0]
    if winner >= 0:
        reward[winner], reward[1 - winner] = points, -points
    assert (row["winner"], row["base"], row["multiplier"], row["points"]) == (
        winner, base, multiplier, points)
    assert row["reward"] == reward
    # the step's reward also holds any hand-yaku round dealt right after (§2.3)
    assert list(out.reward) == [sum(r["reward"][s] for r in out.rounds) for s in (0, 1)]
    assert row["reason"] == ("no-game" if winner < 0 else "exhaustion-win")
    assert row["koikoi_calls"] == ([calls[0], calls[1]] if dealer == 0 else [calls[1], calls[0]])
    assert row["yaku"] == yaku and row["turns"] == 16 and row["dealer"] == dealer


def test_plain_game_alternates_the_dealer_when_the_rule_says_so() -> None:
    """§2.8 next_dealer: "winner" (the dealer who won deals again) or "alternate"."""
    for rule, next_dealer in (("winner", 0), ("alternate", 1)):
        rules = {OPEN: "dealer-wins", "next_dealer": rule}
        deck, dp, op = pairs_deck(*QUIET, inert=EXHAUST)
        game = KoiKoiGame(rules, seed=4, options={"deck": deck, "dealer": 0})
        for _, play, _ in script(dp, op, 16):
            out = game.step(play)
        assert [r["winner"] for r in out.rounds] == [0]  # seed 4 deals no hand yaku next
        assert game.dealer == game.mover == next_dealer and game.round_index == 1
