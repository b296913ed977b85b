"""The statistics of koi-koi decision values, checked on hand-made rollout samples whose
answers are worked out by hand: the 95% interval of a mean (sample standard deviation), the
branch picked on a tie, and regret counted only where the difference is significant. The
tests of test_koikoi_value.py (in this folder) check the same functions on real rollouts,
where only relations between them (never their values) can be asserted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.analysis.koikoi_value import DecisionValues, mean_ci, regret, summarize
from agents.eval.stats import Z95
from hanafuda_env.koikoi.core import KOIKOI, STOP


def values_of(stop: list[list[float]], koikoi: list[list[float]]) -> DecisionValues:
    """Round-point samples per point (rows) and rollout (columns) of each branch."""
    points = np.array([stop, koikoi], dtype=np.float64)
    return DecisionValues("true", "round", points.shape[2], points, np.full(points.shape, np.nan))


def test_mean_interval_uses_the_sample_standard_deviation() -> None:
    """Samples 0 and 2: mean 1, sample sd sqrt(2), so the half width is z sqrt(2) / sqrt(2)."""
    mean, ci = mean_ci(np.array([[0.0, 2.0], [3.0, 3.0]]))
    np.testing.assert_allclose(mean, [1.0, 3.0])
    np.testing.assert_allclose(ci, [[1.0 - Z95, 1.0 + Z95], [3.0, 3.0]])
    # four samples 1, 2, 3, 4: sd 1.2910, half width z 1.2910 / 2
    mean, ci = mean_ci(np.array([[1.0, 2.0, 3.0, 4.0]]))
    half = Z95 * math.sqrt(5.0 / 3.0) / 2.0
    np.testing.assert_allclose(ci, [[2.5 - half, 2.5 + half]])
    # one sample says nothing about its spread
    _, ci = mean_ci(np.array([[5.0]]))
    assert ci[0, 0] == -math.inf and ci[0, 1] == math.inf


def test_best_branch_is_stop_on_a_tie() -> None:
    """A koi-koi that gains nothing on average is not worth its risk: ties go to STOP."""
    v = values_of(stop=[[2.0, 4.0], [1.0, 1.0], [5.0, 5.0]],
                  koikoi=[[0.0, 6.0], [4.0, 0.0], [6.0, 6.0]])
    np.testing.assert_allclose(v["points_diff"], [0.0, 1.0, 1.0])
    assert v.best().tolist() == [STOP, KOIKOI, KOIKOI]


def test_significant_regret_keeps_clear_mistakes_of_either_kind() -> None:
    """Point 0: koi-koi is clearly better and the agent stopped; point 1: stop is clearly
    better and the agent called koi-koi; point 2: too noisy to tell. Regret counts the first
    two in full, whichever side of zero the interval lies on, and the third only when
    significance is not asked for."""
    v = values_of(stop=[[0.0, 0.0, 0.0], [5.0, 5.0, 5.0], [0.0, 0.0, 0.0]],
                  koikoi=[[3.0, 4.0, 5.0], [1.0, 2.0, 0.0], [6.0, -6.0, 3.0]])
    chosen = np.array([STOP, KOIKOI, STOP])
    ci = v["points_diff_ci"]
    assert ci[0, 0] > 0 and ci[1, 1] < 0 and ci[2, 0] < 0 < ci[2, 1]
    np.testing.assert_allclose(regret(v, chosen), [4.0, 4.0, 1.0])
    np.testing.assert_allclose(regret(v, chosen, significant=True), [4.0, 4.0, 0.0])
    np.testing.assert_allclose(regret(v, v.best()), [0.0, 0.0, 0.0])


class Points:
    """The ``points[feature]`` access summarize() needs, with the agent's choices."""

    def __init__(self, features: dict[str, np.ndarray], chosen: np.ndarray) -> None:
        self.features, self.chosen = features, chosen

    def __getitem__(self, name: str) -> np.ndarray:
        return self.features[name]


def test_summary_groups_by_value_and_by_bins() -> None:
    """Per group: size, mean difference, share of points where koi-koi is better, share
    where the agent called it and its mean regret; bins are half-open [a, b)."""
    v = values_of(stop=[[0.0, 0.0], [2.0, 2.0], [0.0, 0.0], [1.0, 1.0]],
                  koikoi=[[2.0, 2.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0]])
    points = Points({"turn": np.array([1, 1, 5, 6])}, np.array([STOP, STOP, KOIKOI, KOIKOI]))
    s = summarize(points, v, "turn")  # type: ignore[arg-type]
    assert s["group"].tolist() == ["1", "5", "6"] and s["n"].tolist() == [2, 1, 1]
    np.testing.assert_allclose(s["diff"], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(s["koikoi_better"], [0.5, 1.0, 0.0])
    np.testing.assert_allclose(s["chose_koikoi"], [0.0, 1.0, 1.0])
    np.testing.assert_allclose(s["regret"], [1.0, 0.0, 0.0])
    binned = summarize(points, v, "turn", bins=[0, 5, 7])  # type: ignore[arg-type]
    assert binned["group"].tolist() == ["[0, 5)", "[5, 7)"]
    assert binned["n"].tolist() == [2, 2]
    np.testing.assert_allclose(binned["diff"], [0.0, 0.5])
    assert binned["low"][1] == pytest.approx(0.5 - Z95 * math.sqrt(0.5) / math.sqrt(2))
