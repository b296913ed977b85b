"""Koi-koi decision values: branch rollouts, fair resampling, features, regret, summaries."""

from __future__ import annotations

import numpy as np
import pytest

from agents.analysis.koikoi_value import (
    DecisionPoints,
    choices_of,
    collect_decision_points,
    decision_features,
    estimate_decision_value,
    mean_ci,
    play_with,
    regret,
    rollout_worlds,
    summarize,
    with_rules,
    yaku_names,
)
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import DECIDE, KOIKOI, STOP, KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import resolve_rules
from hanafuda_env.koikoi.scoring import PileTotals
from tests.helpers.envs import FirstLegal


class RandomPolicy:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.where(mask, self.rng.random(mask.shape), -1.0).argmax(axis=1)


# Decider (seat 0, the dealer): crane, curtain, moon (sanko 5) + five plain ribbons (tan 1).
SANKO_TAN6 = [0, 8, 28, 13, 17, 25, 42, 21]
OPP_PILE = [1, 5, 2, 6]  # two red poetry ribbons: the pine and plum ones; cherry's (9) is out


def hand_built(own_pile=SANKO_TAN6, opp_pile=OPP_PILE, rules=None, opp_called=0,
               round_index=3, score=(10, -10)) -> KoiKoiCore:
    """One game at seat 0's koi-koi decision after 7 turns (4 by seat 0, 3 by seat 1)."""
    core = KoiKoiCore(1, rules, seed=0)
    rest = [c for c in range(48) if c not in own_pile and c not in opp_pile]
    hand0, hand1, field, stock = rest[:4], rest[4:9], rest[9:-17], rest[-17:]
    scorer_total = lambda pile: int(PileTotals(core.rules).totals(np.uint64(C.mask_of(pile))))  # noqa: E731
    core.hands[0] = [C.mask_of(hand0), C.mask_of(hand1)]
    core.field[0] = C.mask_of(field)
    core.piles[0] = [C.mask_of(own_pile), C.mask_of(opp_pile)]
    core.stock[0] = (list(own_pile) + list(opp_pile))[:7] + stock
    core.stock_pos[0] = 7
    core.dealer[0], core.mover[0], core.phase[0], core.pending[0] = 0, 0, DECIDE, -1
    core.koikoi_calls[0] = [0, opp_called]
    core.yaku_total[0] = [scorer_total(own_pile), scorer_total(opp_pile)]
    core.turn[0] = 7
    core.round_index[0] = round_index
    core.match_score[0] = score
    return core


def test_features_of_a_hand_built_decision() -> None:
    f = decision_features(hand_built())
    assert f["yaku_total"].tolist() == [6] and f["seven_plus"].tolist() == [False]
    assert f["stop_points"].tolist() == [6]
    assert f["own_cards"].tolist() == [4] and f["opp_cards"].tolist() == [5]
    assert f["turn"].tolist() == [7] and f["stock_left"].tolist() == [17]
    assert f["dealer"].tolist() == [True] and f["seat"].tolist() == [0]
    assert f["score_diff"].tolist() == [10] and f["rounds_left"].tolist() == [9]
    # the opponent needs only the cherry red ribbon (9) for akatan (5 points)
    assert f["opp_yaku_total"].tolist() == [0]
    assert f["opp_threat"].tolist() == [5] and f["opp_outs"].tolist() == [1]
    assert yaku_names()[f["opp_threat_yaku"][0]] == "akatan"
    # decider: sake cup gives hanami + tsukimi (+10); rain man, phoenix, 3 free ribbons too
    assert f["own_gain"].tolist() == [10] and f["own_outs"].tolist() == [6]
    # once the decider holds the cherry ribbon, the opponent's board is harmless
    g = decision_features(hand_built(own_pile=SANKO_TAN6 + [9]))
    assert g["opp_threat"].tolist() == [0] and g["opp_outs"].tolist() == [0]
    assert g["opp_threat_yaku"].tolist() == [-1]
    assert g["yaku_total"].tolist() == [7] and g["seven_plus"].tolist() == [True]
    with pytest.raises(ValueError, match="not at a koi-koi decision"):
        decision_features(KoiKoiCore(2, seed=0))


@pytest.mark.parametrize("mode", ["true", "resampled", "hand_known"])
def test_stop_branch_scores_exactly_what_the_rules_give(mode: str) -> None:
    cases = [  # (own pile, rules, opponent called koi-koi, round points of a stop)
        (SANKO_TAN6, None, 0, 6),
        (SANKO_TAN6 + [33], None, 0, 14),  # sixth ribbon: 7 points, doubled (§2.5)
        (SANKO_TAN6 + [33], {"multiple_koikoi": True}, 1, 28),  # and the opponent's koi-koi
        (SANKO_TAN6 + [33], {"seven_point_doubling": False}, 0, 7),
    ]
    for own, rules, called, expected in cases:
        core = hand_built(own, rules=rules, opp_called=called)
        assert decision_features(core)["stop_points"].tolist() == [expected]
        values = estimate_decision_value(core, FirstLegal(), n_rollouts=6, mode=mode, seed=1,
                                         horizon="round")
        assert (values.samples_points[0] == expected).all()
        assert values["points_stop_ci"][0].tolist() == [expected, expected]
    mixed = estimate_decision_value(hand_built(), FirstLegal(), n_rollouts=4, mode=mode,
                                    horizon="round", opponent=RandomPolicy(0))
    assert (mixed.samples_points[0] == 6).all()
    plain = with_rules(hand_built(SANKO_TAN6 + [33]), {"seven_point_doubling": False})
    values = estimate_decision_value(plain, FirstLegal(), n_rollouts=2, mode=mode, horizon="round")
    assert (values.samples_points[0] == 7).all()  # the same position, scored without the step


class Recorder(FirstLegal):
    """Remembers the hands it was shown, to check who plays which seat."""

    def __init__(self) -> None:
        self.hands: list[np.ndarray] = []

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.hands.append(C.bool_to_bits(obs[:, :48] > 0.5))
        return super().act(obs, mask)


def test_the_opponent_agent_plays_the_deciders_opponent() -> None:
    core = hand_built()
    policy, opponent = Recorder(), Recorder()
    estimate_decision_value(core, policy, n_rollouts=1, mode="true", horizon="round",
                            opponent=opponent)
    # after koi-koi seat 1 moves first: the opponent agent sees seat 1's hand
    assert opponent.hands[0].tolist() == [int(core.hands[0, 1])]
    assert all(int(core.hands[0, 1]) not in h.tolist() for h in policy.hands)


def test_stop_on_the_last_round_decides_the_match() -> None:
    core = hand_built(round_index=11, score=(3, -3))  # ahead, and a stop adds 6 (zero-sum)
    values = estimate_decision_value(core, RandomPolicy(3), n_rollouts=8, seed=2)
    assert (values.samples_match[0] == 1.0).all()
    level = estimate_decision_value(hand_built(round_index=11, score=(-6, 6)), RandomPolicy(3),
                                    n_rollouts=8, seed=2)
    assert (level.samples_match[0] == 0.5).all()  # 12 behind, a stop for 6: a drawn match
    behind = estimate_decision_value(hand_built(round_index=11, score=(-7, 7)), RandomPolicy(3),
                                     n_rollouts=8, seed=2)
    assert (behind.samples_match[0] == 0.0).all()
    assert np.isin(values.samples_match[1], [0.0, 0.5, 1.0]).all()


@pytest.fixture(scope="module")
def points() -> DecisionPoints:
    return collect_decision_points(RandomPolicy(7), FirstLegal(), n_games=12, seed=4)


def test_collected_points_are_decisions_with_their_features(points: DecisionPoints) -> None:
    assert len(points) > 20
    assert (points.snapshot.phase == DECIDE).all()
    again = decision_features(points.snapshot)
    for name, column in points.features.items():
        np.testing.assert_array_equal(again[name], column, err_msg=name)
    assert set(points.agent.tolist()) == {"random", "first"}
    first = points.agent == "first"
    assert (points.chosen[first] == STOP).all()  # the seat swap labels deciders right
    assert (points.chosen[~first] == KOIKOI).any() and (points.chosen[~first] == STOP).any()
    assert (choices_of(FirstLegal(), points) == STOP).all()
    rows = points.records()
    assert len(rows) == len(points) and rows[0]["chosen"] in ("stop", "koikoi")
    few = collect_decision_points(RandomPolicy(7), FirstLegal(), n_games=12, seed=4,
                                  max_points=5)
    assert len(few) == 5 and few.snapshot.n_games == 5
    sub = points.subset(points["seven_plus"])
    assert len(sub) == int(points["seven_plus"].sum())
    assert (sub["yaku_total"] >= 7).all()


def test_true_mode_with_a_deterministic_policy_repeats_itself(points: DecisionPoints) -> None:
    sub = points.subset(np.arange(12))
    stop_points = sub["stop_points"]
    true = estimate_decision_value(sub, FirstLegal(), n_rollouts=5, mode="true", seed=3,
                                   horizon="round")
    for b in (0, 1):
        spread = np.ptp(true.samples_points[b], axis=1)
        assert (spread == 0).all()
        ci = true[f"points_{'stop' if b == 0 else 'koikoi'}_ci"]
        assert (ci[:, 0] == ci[:, 1]).all()
    np.testing.assert_array_equal(true.samples_points[0], np.repeat(stop_points[:, None], 5, 1))
    fair = estimate_decision_value(sub, FirstLegal(), n_rollouts=5, mode="resampled", seed=3,
                                   horizon="round")
    assert (np.ptp(fair.samples_points[1], axis=1) > 0).any()  # hidden cards now vary


def test_resampling_is_invisible_to_the_decider(points: DecisionPoints) -> None:
    snap = points.subset(np.arange(10)).snapshot
    worlds = rollout_worlds(snap, np.arange(10), copies=6, mode="resampled", seed=5)
    seats = np.repeat(snap.mover, 6)
    before = np.repeat(encode_observations(snap), 6, axis=0)
    np.testing.assert_array_equal(encode_observations(worlds, seats), before)
    original = snap.fork(np.arange(10), copies=6)
    moved = 0
    for g in range(worlds.n_games):
        pos = int(worlds.stock_pos[g])
        parts = [int(worlds.hands[g, 0]), int(worlds.hands[g, 1]), int(worlds.field[g]),
                 int(worlds.piles[g, 0]), int(worlds.piles[g, 1]),
                 C.mask_of(worlds.stock[g, pos:].tolist())]
        assert sum(p.bit_count() for p in parts) == 48  # every card once
        assert np.bitwise_or.reduce(np.array(parts, np.uint64)) == C.ALL_CARDS
        other = 1 - int(seats[g])
        moved += int(worlds.hands[g, other] != original.hands[g, other])
        assert worlds.hands[g, 1 - other] == original.hands[g, 1 - other]
    assert moved > worlds.n_games // 2  # the opponent's hand really is redrawn
    same = rollout_worlds(snap, np.arange(10), copies=6, mode="true", seed=5)
    np.testing.assert_array_equal(same.hands, original.hands)


def test_intervals_shrink_with_more_rollouts(points: DecisionPoints) -> None:
    sub = points.subset(np.arange(10))
    width = {}
    for k in (8, 64):
        v = estimate_decision_value(sub, FirstLegal(), n_rollouts=k, mode="resampled", seed=9,
                                    horizon="round")
        ci = v["points_koikoi_ci"]
        width[k] = float(np.mean(ci[:, 1] - ci[:, 0]))
    assert width[64] > 0 and width[64] < 0.6 * width[8]
    mean, ci = mean_ci(np.array([[1.0, 1.0, 1.0], [0.0, 2.0, 4.0]]))
    assert mean.tolist() == [1.0, 2.0] and ci[0].tolist() == [1.0, 1.0]
    assert ci[1, 0] < 2.0 < ci[1, 1]


def test_values_do_not_depend_on_chunking(points: DecisionPoints) -> None:
    """Each point's worlds come from the seed and the point alone (a deterministic policy
    then gives identical values whatever ``max_batch`` is)."""
    sub = points.subset(np.arange(12))
    small, large = (estimate_decision_value(sub, FirstLegal(), n_rollouts=4, seed=9,
                                            horizon="round", max_batch=size)
                    for size in (8, 10**6))  # one point per chunk vs all at once
    np.testing.assert_array_equal(small.samples_points, large.samples_points)


def test_regret_and_summaries(points: DecisionPoints) -> None:
    sub = points.subset(np.arange(16))
    v = estimate_decision_value(sub, RandomPolicy(1), n_rollouts=6, seed=4, horizon="match",
                                max_batch=64)  # several chunks
    assert np.isfinite(v.samples_match).all()
    assert ((v.samples_match >= 0) & (v.samples_match <= 1)).all()
    for metric in ("points", "match"):
        lost = regret(v, sub.chosen, metric)
        assert (lost >= 0).all()
        sure = regret(v, sub.chosen, metric, significant=True)
        assert (sure <= lost).all() and (sure >= 0).all()
        ci = v[f"{metric}_diff_ci"]
        assert (sure[(ci[:, 0] <= 0) & (ci[:, 1] >= 0)] == 0).all()
        assert (regret(v, v.best(metric), metric) == 0).all()
        worse = np.where(v.best(metric) == STOP, KOIKOI, STOP)
        np.testing.assert_allclose(regret(v, worse, metric), np.abs(v[f"{metric}_diff"]))
    s = summarize(sub, v, "yaku_total")
    assert s["n"].sum() == len(sub)
    assert (s["regret"] >= 0).all()
    assert ((s["koikoi_better"] >= 0) & (s["koikoi_better"] <= 1)).all()
    binned = summarize(sub, v, "turn", bins=[0, 6, 12, 17], metric="match")
    assert binned["n"].sum() == len(sub)


def test_play_with_compaction_changes_nothing() -> None:
    core = KoiKoiCore(96, seed=11)
    agents = (FirstLegal(), FirstLegal())
    a = play_with(core.fork(np.arange(96)), agents, "match", compact=True)
    b = play_with(core.fork(np.arange(96)), agents, "match", compact=False)
    for name in ("round_reward", "round_winner", "match_winner", "match_scores"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.match_done.all() and a.round_done.all()
    assert (a.match_scores.sum(axis=1) == 0).all()
    winner = np.where(a.match_scores[:, 0] > 0, 0, np.where(a.match_scores[:, 0] < 0, 1, -1))
    np.testing.assert_array_equal(a.match_winner, winner)
    np.testing.assert_array_equal(a.round_reward[:, 0], -a.round_reward[:, 1])
    rules = resolve_rules(None)
    with pytest.raises(ValueError, match="until"):
        play_with(KoiKoiCore(2, rules, seed=0), agents, "forever")


def test_seven_plus_follows_the_rule_set() -> None:
    """Ten-base has no seven-point doubling: a 60-point sanko is not 'seven plus'."""
    core = KoiKoiCore(1, "ten-base", seed=0)
    core.piles[0] = [C.mask_of([0, 8, 28]), 0]
    core.yaku_total[0] = [60, 0]
    core.mover[0], core.phase[0] = 0, DECIDE
    features = decision_features(core)
    assert features["yaku_total"].tolist() == [60]
    assert features["seven_plus"].tolist() == [False]
    assert features["stop_points"].tolist() == [60]
