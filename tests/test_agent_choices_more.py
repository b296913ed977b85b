"""Choices of the baseline agents where a documented rule alone decides the move.

The greedy agent values captures by card points (bright 20, animal 10, ribbon 5, chaff 1)
and, with nothing to capture, lays down its least valuable card; test_agents.py covers a
bright against a chaff pair, these tell ribbons from chaff, check the move made without a
capture and what each candidate move captures (§2.2). The expert's koi-koi inputs follow the
rule set: a stop is worth its §2.5 score (doubled when the opponent called koi-koi), after its
own koi-koi the opponent's win counts double, both hands running out is worth what
``on_exhaustion`` pays (§2.6, §2.8, §2.9), on the match's last round a stop that wins the
match is taken and one that cannot is not, and its decisions do not change with the unit
points are counted in.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from scenarios import make_deck

from agents.bots.base import decode
from agents.bots.baselines import GreedyAgent, card_outcomes, card_points
from agents.bots.expert import ExpertAgent
from hanafuda_env import cards as C
from hanafuda_env.core import CHOOSE_PLAYED, DECIDE, KOIKOI, STOP, KoiKoiCore
from hanafuda_env.observation import encode_observations
from hanafuda_env.rules import NINTENDO, resolve_rules


def dealt(hand: list[int], other: list[int], field: list[int]) -> KoiKoiCore:
    """One game at the dealer's (seat 0) first move; neither hand holds a hand yaku."""
    core = KoiKoiCore(1, "nintendo", seed=0)
    start = core.reset(seed=0, options={"deck": make_deck(hand, other, field), "dealer": 0})
    assert len(start.rounds) == 0 and core.mover[0] == 0
    return core


def greedy_moves(core: KoiKoiCore, seeds: int = 6) -> set[int]:
    """The greedy agent's first moves over several seeds (ties break at random)."""
    obs, mask = encode_observations(core), core.legal_action_mask()
    return {int(GreedyAgent(seed=s).act(obs, mask)[0]) for s in range(seeds)}


def test_card_points_are_the_hana_awase_values() -> None:
    """Bright 20, animal 10, ribbon 5, chaff 1 (RULES.md §3.2); the deck totals 264."""
    ids = {"bright": 0, "animal": 4, "ribbon": 9, "chaff": 10}
    bits = np.array([C.mask_of([c]) for c in ids.values()], dtype=np.uint64)
    assert card_points(bits).tolist() == [20.0, 10.0, 5.0, 1.0]
    assert card_points(np.uint64(C.ALL_CARDS)) == 264.0


def test_greedy_takes_a_ribbon_over_a_chaff_pair() -> None:
    """The cherry chaff takes the cherry ribbon (5 + 1 = 6), worth more than the bush clover
    chaff taking a chaff (1 + 1 = 2); no other hand card matches the field."""
    hand = [10, 26, 0, 4, 12, 16, 20, 46]
    field = [9, 27, 29, 31, 33, 35, 37, 41]
    other = [1, 5, 13, 17, 21, 25, 28, 32]
    core = dealt(hand, other, field)
    assert greedy_moves(core) == {10}


def test_greedy_without_a_capture_lays_down_its_least_valuable_card() -> None:
    """No hand card's month is on the field: the agent parts with its one chaff card (1
    point), keeping the brights, animals and ribbons."""
    hand = [0, 1, 4, 8, 9, 12, 16, 19]  # months 1-5: two brights, three animals, two ribbons
    field = [20, 21, 24, 28, 32, 36, 40, 44]  # months 6-12
    other = [2, 3, 5, 6, 7, 10, 11, 13]
    core = dealt(hand, other, field)
    mask = core.legal_action_mask()[0]
    assert np.flatnonzero(mask).tolist() == hand  # only plays, none of them a capture
    assert greedy_moves(core) == {19}


def test_card_outcomes_capture_as_rule_2_2_says() -> None:
    """What each candidate move would capture, lay down and take from the field (§2.2): no
    match lays the card down; one match takes it; two give one outcome per field card (the
    choice comes next); three take all four; a take after a two-match play captures the
    chosen card with the waiting one."""
    hand = [10, 26, 30, 46, 0, 4, 12, 16]
    field = [8, 9, 24, 25, 27, 29, 36, 41]  # cherry: 2, bush clover: 3, susuki: 1
    other = [1, 5, 13, 17, 20, 32, 37, 42]
    core = dealt(hand, other, field)

    def outcomes(actions: list[int]) -> list[tuple[int, list[int], list[int], list[int]]]:
        view = decode(encode_observations(core), core.rules)
        out = card_outcomes(view, np.zeros(len(actions), dtype=np.int64),
                            np.array(actions, dtype=np.int64))
        return sorted((int(a), C.ids_of(int(c)), C.ids_of(int(p)), C.ids_of(int(t)))
                      for a, c, p, t in zip(out.action, out.captured, out.placed, out.taken))

    assert outcomes([10, 26, 30, 46]) == [
        (10, [8, 10], [], [8]), (10, [9, 10], [], [9]),
        (26, [24, 25, 26, 27], [], [24, 25, 27]),
        (30, [29, 30], [], [29]),
        (46, [], [46], []),
    ]
    core.step(np.array([10]))  # two cherries on the field: the choice waits
    assert core.phase[0] == CHOOSE_PLAYED and core.pending[0] == 10
    assert outcomes([48 + 8, 48 + 9]) == [(56, [8, 10], [], [8]), (57, [9, 10], [], [9])]


# ------------------------------------------------------------------ the expert
SANKO = [0, 8, 28, 2]  # crane, curtain, moon (sanko, 5) and a pine chaff


def at_decision(own_pile: list[int], opp_pile: list[int], rules: Any = None,
                score_diff: int = 0, rounds_left: int = 1, opp_called: bool = False,
                dealer: int = 0, hand_n: int = 5) -> KoiKoiCore:
    """One game with seat 0 at its koi-koi decision, ``hand_n`` cards in each hand and the
    turns taken so far reflected in the stock; ``score_diff`` is seat 0's match lead."""
    core = KoiKoiCore(1, resolve_rules(rules).replace(rounds=12), seed=0)
    rest = [c for c in range(48) if c not in own_pile + opp_pile]
    drawn = 2 * (8 - hand_n)  # one stock card per turn taken
    hand0, hand1 = rest[:hand_n], rest[hand_n:2 * hand_n]
    left = rest[2 * hand_n:]
    field, stock = left[:len(left) - (24 - drawn)], left[len(left) - (24 - drawn):]
    core.hands[0] = [C.mask_of(hand0), C.mask_of(hand1)]
    core.field[0] = C.mask_of(field)
    core.piles[0] = [C.mask_of(own_pile), C.mask_of(opp_pile)]
    core.stock[0] = [*(own_pile + opp_pile + rest)[:drawn], *stock]  # drawn cards: captured
    core.stock_pos[0] = drawn
    core.dealer[0], core.mover[0], core.phase[0], core.pending[0] = dealer, 0, DECIDE, -1
    core.koikoi_calls[0] = [0, int(opp_called)]
    totals = core._scorer.totals(np.array([C.mask_of(own_pile), C.mask_of(opp_pile)],
                                          dtype=np.uint64))
    core.yaku_total[0] = totals
    core.round_index[0] = 12 - rounds_left
    core.match_score[0] = [score_diff, -score_diff]  # zero-sum: seat 0's lead
    return core


def expert_choice(core: KoiKoiCore) -> int:
    return int(ExpertAgent(core.rules).act(encode_observations(core),
                                           core.legal_action_mask())[0])


def test_expert_stop_counts_the_doubling_the_opponents_koikoi_earns() -> None:
    """Last round, 8 behind, sanko (5). The opponent's koi-koi doubles a stop to 10 (§2.5):
    the stop wins the match and is taken. Without that call the stop (5) loses the match for
    sure, so the expert plays on (multiple_koikoi lets it decide after the opponent's call)."""
    rules = {"multiple_koikoi": True}
    assert expert_choice(at_decision(SANKO, [1, 5, 4], rules, -8, opp_called=True)) == STOP
    assert expert_choice(at_decision(SANKO, [1, 5, 4], rules, -8, opp_called=False)) == KOIKOI


def test_expert_gambles_when_no_result_of_the_round_can_save_the_match() -> None:
    """Last round, 100 behind: stopping loses for sure and so does almost any koi-koi; with
    nothing to lose the expert calls koi-koi."""
    assert expert_choice(at_decision(SANKO, [1, 5, 4], score_diff=-100)) == KOIKOI


def test_expert_takes_a_stop_that_wins_the_match_on_its_last_round() -> None:
    """4 behind with a 5-point stop: on the last round the stop wins the match, so the expert
    stops. (With a round still to come, the same position is worth a koi-koi to it: the last
    round is what decides here.)"""
    assert expert_choice(at_decision(SANKO, [45, 46], score_diff=-4, rounds_left=1)) == STOP
    assert expert_choice(at_decision(SANKO, [45, 46], score_diff=-4, rounds_left=2)) == KOIKOI


def test_expert_reads_the_match_lead_once() -> None:
    """3 behind on the last round: the 5-point stop wins by 2, so the expert stops; 6 behind
    it loses anyway, so the expert calls koi-koi. (The observation once held the difference
    of the two zero-sum scores, twice the lead, and the expert saw 3 behind as 6.)"""
    assert expert_choice(at_decision(SANKO, [45, 46], score_diff=-3, rounds_left=1)) == STOP
    assert expert_choice(at_decision(SANKO, [45, 46], score_diff=-6, rounds_left=1)) == KOIKOI


def test_expert_prices_the_opponents_win_after_its_own_koikoi_at_double() -> None:
    """After a koi-koi the opponent moves next, and if it makes yaku first it scores double
    (§2.5: the loser called koi-koi). The opponent here is one card from akatan."""
    core = at_decision(SANKO, [1, 5, 3], score_diff=0, rounds_left=6)
    expert = ExpertAgent(core.rules)
    view = decode(encode_observations(core), core.rules)
    after = expert._koikoi_positions(view, np.array([0]))
    assert after.me_called.tolist() == [True]
    doubled = expert._race(view, after)
    plain = expert._race(view, dataclasses.replace(after, me_called=np.array([False])))
    assert doubled.win_opp[0] > 0 and doubled.p_opp[0] > 0
    np.testing.assert_allclose(doubled.score_opp, 2 * plain.score_opp)
    np.testing.assert_allclose(doubled.win_opp, 2 * plain.win_opp)


def test_expert_decisions_do_not_depend_on_the_point_unit() -> None:
    """A rule set whose every point value is ten times larger (as ten-base's are) is the same
    game in other units: the expert's round_sigma is in those units (``point_unit``), so it
    must decide every koi-koi alike, ties on the last round included (the lead comes back from
    the observation as a whole number of points). (Seven-point doubling is off: 7 is not
    rescaled.)"""
    unit = NINTENDO.replace(seven_point_doubling=False)
    tenfold = unit.replace(exhaustion_points=10 * unit.exhaustion_points, points={
        f.name: 10 * getattr(unit.points, f.name) for f in dataclasses.fields(unit.points)})
    for opp in ([1, 5, 3], [20, 24, 22], [45, 46], [4, 12, 16, 29]):
        for lead in (-10, -6, -5, -4, -3, 0, 10):
            for rounds_left in (1, 2, 6, 12):
                choices = [expert_choice(at_decision(SANKO, opp, rules, k * lead, rounds_left))
                           for rules, k in ((unit, 1), (tenfold, 10))]
                assert choices[0] == choices[1], (opp, lead, rounds_left)


OPEN = "on_exhaustion"
# (rules, dealer?, my total, their total, I called, they called) -> value of both hands
# running out, to me, in round points
EXHAUSTION_VALUES = [
    ({}, True, 0, 0, False, False, 0),  # §2.6 no-game
    ({OPEN: "dealer-wins"}, True, 0, 0, False, False, 6),  # §2.8 親権
    ({OPEN: "dealer-wins"}, False, 0, 0, False, False, -6),
    ({OPEN: "dealer-wins"}, True, 1, 0, True, False, 0),  # after a koi-koi: no-game
    ({OPEN: "non-dealer-wins"}, True, 0, 0, False, False, -6),  # §2.8 つかず
    ({OPEN: "non-dealer-wins"}, False, 0, 0, False, False, 6),
    ({OPEN: "highest-total", "exhaustion_points": 4}, True, 0, 0, False, False, 4),
    ({OPEN: "highest-total"}, False, 3, 1, False, True, 6),  # §2.9 higher total; x2 (§2.5)
    ({OPEN: "highest-total"}, False, 1, 3, True, False, -6),  # theirs, doubled by my call
    ({OPEN: "highest-total"}, True, 2, 2, True, False, 2),  # a tie is the dealer's
    ({OPEN: "highest-total"}, False, 2, 2, True, False, -4),  # the dealer's 2, x2: I called
    ({OPEN: "highest-total"}, False, 2, 2, False, True, -2),
    ({OPEN: "highest-total"}, True, 8, 1, True, False, 16),  # 7 or more doubles
]


@pytest.mark.parametrize(("rules", "dealer", "mine", "theirs", "me_called", "they_called",
                          "value"), EXHAUSTION_VALUES)
def test_expert_values_running_out_of_cards_as_the_rule_set_pays(
        rules: dict, dealer: bool, mine: int, theirs: int, me_called: bool,
        they_called: bool, value: int) -> None:
    """What the expert expects from both hands running out, from its own seat."""
    core = at_decision(SANKO, [1, 5, 4], rules, opp_called=they_called,
                       dealer=0 if dealer else 1)
    expert = ExpertAgent(core.rules)
    view = decode(encode_observations(core), core.rules)
    got = expert._exhaustion_value(view, np.array([0]), np.array([mine]),
                                   np.array([theirs]), np.array([me_called]))
    assert got.tolist() == [value]
