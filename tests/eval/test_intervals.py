"""The evaluator's confidence intervals against values worked out independently: Wilson for a
rate, a t interval over pairs of matches for points, and a rate interval that widens when the
two matches of a pair agree."""

from __future__ import annotations

import numpy as np
import pytest

from agents.eval.stats import (
    Z95,
    pair_mean_interval,
    pair_rate_interval,
    t_quantile,
    wilson_interval,
)


def test_wilson_interval_matches_known_values():
    # 8 of 10: the Wilson 95% interval is about [0.490, 0.943]
    w = wilson_interval(8, 10)
    assert w["value"] == 0.8
    assert w["low"] == pytest.approx(0.490, abs=1e-3) and w["high"] == pytest.approx(0.943,
                                                                                      abs=1e-3)


def test_pair_mean_interval_is_a_t_interval_over_pairs_and_has_none_for_one_pair():
    # pairs of one unit each: 1, 2, 3, 4: mean 2.5, sd 1.291; t(0.975, 3) = 3.182 -> 2.054
    m = pair_mean_interval(np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4))
    assert m["mean"] == 2.5 and m["high"] - m["mean"] == pytest.approx(2.054, rel=0.01)
    for df, exact in [(1, 12.706), (2, 4.303), (7, 2.365), (30, 2.042), (1000, 1.962)]:
        assert t_quantile(Z95, df) == pytest.approx(exact, rel=0.01 if df >= 3 else 1e-4)
    one = pair_mean_interval(np.array([5.0]), np.array([2]))  # one pair: no spread to see
    assert one["mean"] == 2.5 and np.isnan(one["low"]) and np.isnan(one["high"])
    # equal pair sizes: the interval of the pair means, not of the rounds inside them
    points, rounds = np.array([10.0, -4.0, 6.0, 0.0]), np.full(4, 24)
    ratio = pair_mean_interval(points, rounds)
    plain = pair_mean_interval(points / 24, np.ones(4))
    assert ratio["mean"] == pytest.approx(plain["mean"])
    assert ratio["high"] == pytest.approx(plain["high"]) and ratio["pairs"] == 4


def test_rate_interval_widens_when_the_matches_of_a_pair_agree():
    pair = np.arange(400) // 2
    split = np.tile([1.0, 0.0], 200)  # every pair one win, one loss: no pair variance
    same = np.repeat(np.tile([1.0, 0.0], 100), 2)  # both matches of a pair alike
    t_shrink = (Z95 / t_quantile(Z95, 199)) ** 2  # 200 pairs: 199 degrees of freedom
    free = pair_rate_interval(split, pair)
    assert free["value"] == 0.5 and free["effective_matches"] == pytest.approx(400 * t_shrink)
    plain = wilson_interval(200, 400)
    assert plain["low"] - 0.001 < free["low"] < plain["low"]  # never narrower than plain
    tied = pair_rate_interval(same, pair)
    assert tied["effective_matches"] == pytest.approx(199 * t_shrink)  # one match per pair
    assert tied["high"] - tied["low"] > 1.35 * (free["high"] - free["low"])
    few = pair_rate_interval(np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0]), np.arange(6) // 2)
    assert few["effective_matches"] < 6 * (Z95 / 4.303) ** 2 + 1e-9  # 3 pairs: t with 2 df
