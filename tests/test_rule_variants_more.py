"""Rule options (RULES.md §2.8, §2.9) beyond what test_rules.py and test_rounds.py check: every
yes/no option refuses a non-boolean, the numeric options take exactly their documented range,
and the plain one-game engine (``KoiKoiGame``, the PettingZoo and Gymnasium envs' engine)
ends rounds by each ``on_exhaustion`` mode as the rule book says, from fixed decks, with
either seat dealing. The core is checked on the same decks in test_rounds.py; the game was
only compared with it in random play, which rarely reaches these endings."""

from __future__ import annotations

from typing import Any

import pytest
from scenarios import (
    EXHAUST,
    QUIET,
    TAN_T13,
    TAN_T13_KASU_T14,
    TAN_T14,
    D,
    pairs_deck,
    script,
)

from hanafuda_env.core import DECIDE, KOIKOI, PLAY
from hanafuda_env.game import GameStepOutcome, KoiKoiGame
from hanafuda_env.rules import NINTENDO, TEN_BASE, RuleError, RuleSet

BOOL_OPTIONS = ("sake_cup_is_chaff", "hanami_tsukimi", "rain_washes_sake",
                "seven_point_doubling", "koikoi_doubling", "multiple_koikoi")


# ------------------------------------------------------------------ option checks
@pytest.mark.parametrize("option", BOOL_OPTIONS)
@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_every_yes_no_option_refuses_anything_but_a_boolean(option: str, bad: Any) -> None:
    """A YAML typo ("yes" quoted, 1) must fail loudly rather than switch a rule on."""
    with pytest.raises(RuleError, match=option):
        RuleSet.from_dict({option: bad})
    assert getattr(RuleSet.from_dict({option: True}), option) is True
    assert getattr(RuleSet.from_dict({option: False}), option) is False


def test_target_score_must_be_reachable_by_scoring() -> None:
    """§2.8 target_score: "the first to reach it wins"; 0 would end every match at once."""
    for bad in (0, -1, True, 2.5):
        with pytest.raises(RuleError, match="target_score"):
            NINTENDO.replace(target_score=bad)
    assert NINTENDO.replace(target_score=1).target_score == 1
    assert NINTENDO.replace(target_score=None).target_score is None


def test_exhaustion_points_may_be_zero_but_not_negative() -> None:
    """The set value of 親権/つかず (§2.8) is a non-negative number of points: 0 is a rule
    set (a dealer's win worth nothing), -1 is not."""
    rules = NINTENDO.replace(on_exhaustion="dealer-wins", exhaustion_points=0)
    assert rules.exhaustion_points == 0
    for bad in (-1, 1.5, "6"):
        with pytest.raises(RuleError, match="exhaustion_points"):
            NINTENDO.replace(exhaustion_points=bad)


# ------------------------------------------------------------------ the plain game
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
