"""Confidence intervals for match results, where the two matches of a pair are correlated.

A pair of matches dealt the same decks (seats swapped) is the independent unit: rates and
means get intervals over pairs, with Student's t for few pairs and Wilson's score interval
for rates near 0 or 1.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: float, z: float = Z95) -> dict[str, float]:
    """Rate with its Wilson score interval (good at rates near 0 or 1 and small n)."""
    if n <= 0:
        return {"value": float("nan"), "low": 0.0, "high": 1.0}
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return {"value": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def pair_mean_interval(totals: np.ndarray, counts: np.ndarray,
                       z: float = Z95) -> dict[str, float]:
    """``sum(totals) / sum(counts)`` with a t interval that treats each entry (a pair of
    matches: its points, its matches or rounds) as one independent unit: the variance of a
    ratio of cluster sums. One pair has no interval (NaN bounds)."""
    totals = np.asarray(totals, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    units, size = len(totals), float(counts.sum())
    mean = float(totals.sum() / size) if size > 0 else float("nan")
    if units < 2 or size <= 0:
        return {"mean": mean, "low": float("nan"), "high": float("nan"),
                "se": float("nan"), "pairs": units}
    se = math.sqrt(units / (units - 1) * float(((totals - mean * counts) ** 2).sum())) / size
    half = t_quantile(z, units - 1) * se
    return {"mean": mean, "low": mean - half, "high": mean + half, "se": se, "pairs": units}


def pair_rate_interval(per_match: np.ndarray, pair: np.ndarray,
                       z: float = Z95) -> dict[str, float]:
    """A rate over matches (1 success, 0 failure, 1/2 a draw's share) with a Wilson interval
    on the effective number of matches, p (1 - p) / (pair variance of the rate), since
    matches of a pair are not independent; never more than the matches played (the pair
    variance of few pairs is itself noisy), and shrunk by (z / t)^2 for the pairs' degrees of
    freedom."""
    per_match = np.asarray(per_match, dtype=np.float64)
    n = len(per_match)
    if n == 0:
        return wilson_interval(0.0, 0, z)
    p = float(per_match.mean())
    pairs = pair_mean_interval(np.bincount(pair, per_match), np.bincount(pair), z)
    effective = float(n)
    if pairs["pairs"] >= 2:
        if pairs["se"] > 0 and 0 < p < 1:
            effective = min(effective, p * (1 - p) / pairs["se"] ** 2)
        effective *= (z / t_quantile(z, pairs["pairs"] - 1)) ** 2
    return {**wilson_interval(p * effective, effective, z), "effective_matches": effective}


def t_quantile(z: float, df: int) -> float:
    """Student's t quantile matching the normal quantile ``z`` (Cornish-Fisher expansion).
    At 95 % (``Z95``, what the reports use) it is exact for 1 and 2 degrees of freedom and
    within 1 % from 3; other levels are rougher at few degrees of freedom."""
    if math.isclose(z, Z95) and df <= 2:
        return (12.706204736, 4.302652730)[df - 1]
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))
