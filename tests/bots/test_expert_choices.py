"""The expert's choices. Captures: it completes a yaku over a richer capture and takes the
card the opponent needs. Koi-koi decisions follow the rule set: a stop is worth its §2.5 score
(doubled when the opponent called koi-koi), after its own koi-koi the opponent's win counts
double, both hands running out is worth what ``on_exhaustion`` pays (§2.6, §2.8, §2.9), on the
match's last round a stop that wins the match is taken and one that cannot is not, and its
decisions do not change with the unit points are counted in. And it beats the other
baselines."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.eval.matches import (
    play_matches,
)
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import (
    DECIDE,
    KOIKOI,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.koikoi.expert import kernel as K
from hanafuda_env.koikoi.expert import race as R
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import NINTENDO, resolve_rules
from hanafuda_env.koikoi.scoring import PileTotals
from tests.helpers.observations import make_obs, mask_for

# ---------------------------------------------- koi-koi decisions in hand-built games
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
    totals = PileTotals(core.rules).totals(np.array([C.mask_of(own_pile), C.mask_of(opp_pile)],
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
    it loses anyway, so the expert calls koi-koi. The lead counts once: the difference of
    the two zero-sum scores is twice the lead, and read so, 3 behind would look like 6.)"""
    assert expert_choice(at_decision(SANKO, [45, 46], score_diff=-3, rounds_left=1)) == STOP
    assert expert_choice(at_decision(SANKO, [45, 46], score_diff=-6, rounds_left=1)) == KOIKOI


def test_expert_prices_the_opponents_win_after_its_own_koikoi_at_double() -> None:
    """After a koi-koi the opponent moves next, and if it makes yaku first it scores double
    (§2.5: the loser called koi-koi). The opponent here is one card from akatan."""
    core = at_decision(SANKO, [1, 5, 3], score_diff=0, rounds_left=6)
    doubled_floats, doubled_scores = koikoi_race(core, me_called=True)
    plain_floats, plain_scores = koikoi_race(core, me_called=False)
    assert doubled_floats[K.F_WIN_OPP] > 0 and doubled_floats[K.F_P_OPP] > 0
    np.testing.assert_allclose(doubled_scores, 2 * plain_scores)
    np.testing.assert_allclose(doubled_floats[K.F_WIN_OPP], 2 * plain_floats[K.F_WIN_OPP])


def view_of(core: KoiKoiCore) -> tuple[K.ExpertRules, np.ndarray, np.ndarray]:
    """The compiled expert's arrays and the view of game 0's player to move."""
    expert = K.expert_rules(core.rules)
    vu, vi = np.empty((1, K.N_VU), np.uint64), np.empty((1, K.N_VI), np.int64)
    K.views_from_observations(encode_observations(core)[:1], expert.score_unit, expert.rounds,
                              vu, vi)
    return expert, vu[0], vi[0]


def koikoi_race(core: KoiKoiCore, me_called: bool) -> tuple[np.ndarray, np.ndarray]:
    """The race after a koi-koi in game 0 (``me_called``: whether the opponent's win counts
    my call): its per-outcome floats and the opponent's score for each way to improve."""
    expert, vu, vi = view_of(core)
    scratch = K.new_scratch(expert)
    bds, sets, totals = scratch[3], scratch[6], scratch[7]
    sets[0, 0], sets[1, 0], sets[2, 0] = vu[K.VU_HAND], vu[K.VU_FIELD], vu[K.VU_OWN_PILE]
    totals[0, 0] = R.breakdown_total(vu[K.VU_OWN_PILE], True, expert.params, expert.masks,
                                      expert.counts, bds[0])
    R.breakdown_total(vu[K.VU_OPP_PILE], vi[K.VI_OPP_CALLED] != 0, expert.params,
                       expert.masks, expert.counts, bds[K.MAX_OUT])
    R.race(vu, vi, 1, sets, totals, vi[K.VI_OWN_HAND_N], False, me_called,
            vi[K.VI_OWN_CALLS] + 1, expert.params, expert.masks, expert.counts, expert.table,
            expert.forbidden, expert.mask_bits, expert.chances, scratch)
    return scratch[5][:, 0].copy(), scratch[2][3].copy()


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
    ({"preset": "koikoi-japan"}, True, 3, 2, True, False, 1),  # §2.10: the dealer's point,
    ({"preset": "koikoi-japan"}, False, 0, 0, False, True, -1),  # koi-koi called or not
    ({OPEN: "highest-total", "own_koikoi_bonus": True}, True, 3, 1, True, False, 4),  # +1 call
]


@pytest.mark.parametrize(("rules", "dealer", "mine", "theirs", "me_called", "they_called",
                          "value"), EXHAUSTION_VALUES)
def test_expert_values_running_out_of_cards_as_the_rule_set_pays(
        rules: dict, dealer: bool, mine: int, theirs: int, me_called: bool,
        they_called: bool, value: int) -> None:
    """What the expert expects from both hands running out, from its own seat."""
    core = at_decision(SANKO, [1, 5, 4], rules, opp_called=they_called,
                       dealer=0 if dealer else 1)
    expert, _, vi = view_of(core)
    got = R._exhaustion_value(mine, theirs, me_called, vi[K.VI_OPP_CALLED] != 0,
                              int(me_called), vi[K.VI_OPP_CALLS], vi[K.VI_DEALER] != 0,
                              expert.params)
    assert got == value


# --------------------------------------------------------------------- captures
def test_expert_completes_a_yaku_over_a_richer_capture():
    # own pile: curtain; field: sake cup, crane, phoenix. Taking the sake cup makes
    # hanami-zake (5 points); a greedy player takes a bright instead.
    hand, field = (33, 2, 46, 14), (32, 0, 44, 25)
    obs = make_obs(hand=hand, field=field, own=(8, 10), opp=(4, 6))
    legal = mask_for(hand)
    assert ExpertAgent(seed=0).act(obs, legal)[0] == 33
    assert GreedyAgent(seed=0).act(obs, legal)[0] in (2, 46)


def test_expert_takes_the_card_the_opponent_needs():
    # the opponent holds two red poetry ribbons; the third lies on the field next to a
    # chaff pair worth the same card points to a greedy player
    hand, field = (10, 47, 15, 23), (9, 45, 27, 31)
    obs = make_obs(hand=hand, field=field, own=(4, 6), opp=(1, 5, 2, 7))
    assert ExpertAgent(seed=0).act(obs, mask_for(hand))[0] == 10


# ---------------------------------- koi-koi decisions on hand-made observations
def test_expert_stops_when_stopping_wins_the_match():
    # last round, level scores: a 5-point stop wins the match; koi-koi could only lose it
    obs = make_obs(hand=(2, 14, 26), own=(8, 32, 10), opp=(1, 5, 4, 6), field=(9, 30),
                   own_total=5, phase=DECIDE, rounds_left=1)
    assert ExpertAgent().act(obs, mask_for((STOP, KOIKOI)))[0] == STOP


def test_expert_stops_on_a_doubled_score_with_the_opponent_close():
    # first round of 12: 7 points (doubled to 14), few cards left and the opponent one
    # card from akatan with that card on the field
    obs = make_obs(hand=(14, 26), own=(0, 8, 28, 29, 30, 31), opp=(1, 5, 2, 6, 20),
                   field=(9, 38), own_total=7, phase=DECIDE, rounds_left=12)
    assert ExpertAgent().act(obs, mask_for((STOP, KOIKOI)))[0] == STOP


def test_expert_calls_koikoi_when_a_stop_cannot_save_the_match():
    # last round, 20 points behind: stopping for 5 loses the match for sure
    obs = make_obs(hand=(2, 14, 26, 35, 39), own=(8, 32, 10), opp=(4, 6), field=(9, 30, 1),
                   own_total=5, phase=DECIDE, rounds_left=1, score_diff=-20)
    assert ExpertAgent().act(obs, mask_for((STOP, KOIKOI)))[0] == KOIKOI


NO_EXTRA = NINTENDO.replace(points={"extra_card": 0})


def test_the_expert_decides_alike_whether_further_cards_add_one_point_or_none() -> None:
    """Sanko (no further cards) 6 behind with 12 rounds left: a spread of 0 would make every
    round the last and the stop hopeless."""
    choices = []
    for rules in (NINTENDO, NO_EXTRA):
        core = KoiKoiCore(1, rules, seed=0)
        own, opp = [0, 8, 28, 2], [1, 5, 3]
        rest = [c for c in range(48) if c not in own + opp]
        core.hands[0] = [C.mask_of(rest[:5]), C.mask_of(rest[5:10])]
        core.field[0] = C.mask_of(rest[10:15])
        core.piles[0] = [C.mask_of(own), C.mask_of(opp)]
        core.stock[0] = [*(own + opp + rest[:-18]), *rest[-18:]][-24:]
        core.stock_pos[0] = 6
        core.mover[0], core.phase[0], core.pending[0] = 0, DECIDE, -1
        core.yaku_total[0] = [5, 0]
        core.match_score[0] = [-6, 6]
        obs = encode_observations(core)
        choices.append(int(ExpertAgent(rules).act(obs, core.legal_action_mask())[0]))
    assert choices[0] == choices[1]


# --------------------------------------------------------------------- strength
@pytest.mark.parametrize("rules", ["nintendo", "ten-base"])
def test_expert_beats_random_and_greedy(rules):
    rules = resolve_rules(rules).replace(rounds=3)
    expert = ExpertAgent(rules, seed=1)
    vs_random = play_matches(expert, RandomAgent(rules, seed=2), 200, rules, seed=3)
    vs_greedy = play_matches(expert, GreedyAgent(rules, seed=2), 400, rules, seed=4)
    assert vs_random["score_rate"]["low"] > 0.75, vs_random["score_rate"]
    assert vs_greedy["score_rate"]["low"] > 0.55, vs_greedy["score_rate"]
    assert vs_greedy["points_per_round"]["low"] > 0
