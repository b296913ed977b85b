"""What a finished round is worth to a learner: its points, or its change in match-win chance.

A match is won by the total, not by any one round, so round points are only a proxy: a
+10 koi-koi gamble that loses -2 four times in five is worth points on average and still
loses matches. The ``"match_win"`` reward pays each round the change in a seat's
**match value** ``V = P(win) - P(lose)`` (a draw counts as neither), read off a normal
approximation of the rest of the match:

    V(margin, rounds_left) = erf(margin / (sigma * unit * sqrt(2 * rounds_left)))

where ``margin`` is the seat's points won minus the opponent's so far and ``sigma`` the
spread of one round's margin (about 10 points in Nintendo play between the baselines). The
round that ends a match pays the true result instead (+1 win, 0 draw, -1 loss). The
rewards of a match therefore add up to its result exactly — the shaping is
potential-based — while every round still gets a dense, score-aware signal: a lead is
worth protecting late in a match, a gamble is worth taking when behind.
"""

from __future__ import annotations

from math import erf, sqrt

import numpy as np

from .env_options import match_boundaries
from .results import MatchResults, RoundResults
from .rules import RuleSet

REWARD_KINDS = ("points", "match_win")
DEFAULT_ROUND_SIGMA = 10.0  # one round's margin spread, in units of points.extra_card


def check_reward(kind: str, sigma: float) -> None:
    if kind not in REWARD_KINDS:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_KINDS))}, "
                         f"got {kind!r}")
    if not isinstance(sigma, (int, float)) or not sigma > 0:
        raise ValueError(f"round_sigma must be a positive number, got {sigma!r}")


def match_value(margin: float, rounds_left: int, scale: float) -> float:
    """Seat's ``P(win) - P(lose)`` with this margin and ``rounds_left`` rounds to play;
    ``scale`` is one round's spread in points. With no round left the sign decides."""
    if rounds_left <= 0:
        return float(np.sign(margin))
    return erf(margin / (scale * sqrt(2.0 * rounds_left)))


def match_win_rewards(rounds: RoundResults, matches: MatchResults, match_over: np.ndarray,
                      margin_now: np.ndarray, round_index_now: np.ndarray, rules: RuleSet,
                      sigma: float) -> np.ndarray:
    """(K, 2) zero-sum match-value changes of a step's or a reset's round rows
    (chronological per game).

    ``margin_now`` is seat 0's margin in each game's match in progress *after* the step (the
    core's zero-sum ``match_score[:, 0]``) and ``round_index_now`` its finished rounds; rows
    of a game's first match, if it ended, take its final margin and result from ``matches``.
    Rows of a later match that began and ended inside the step (a dealt hand yaku in
    one-round matches) have no decision and get 0.
    """
    out = np.zeros((len(rounds), 2), dtype=np.float64)
    scale = sigma * rules.points.extra_card
    gains = rounds.reward[:, 0].astype(np.float64)
    for g in np.unique(rounds.game):
        rows = np.flatnonzero(rounds.game == g)
        index = rounds.round_index[rows]
        if match_over[g]:
            end, start = match_boundaries(index.tolist(), int(round_index_now[g]))
            first = np.flatnonzero(matches.game == g)[0]  # the match played in this step
            winner = matches.winner[first]
            result = 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0
            _fill(out, rows[:end], index[:end], gains[rows[:end]],
                  float(matches.scores[first, 0]), rules.rounds, scale, result)
            rows, index = rows[start:], index[start:]
        _fill(out, rows, index, gains[rows], float(margin_now[g]), rules.rounds, scale, None)
    return out


def _fill(out: np.ndarray, rows: np.ndarray, index: np.ndarray, gains: np.ndarray,
          final_margin: float, n_rounds: int, scale: float, result: float | None) -> None:
    """Rewards of consecutive rounds of one match whose margin after the last is known;
    ``result`` (the match's) replaces the value after the last row when the match ended."""
    after = final_margin - (gains.sum() - np.cumsum(gains))
    for k, (row, i) in enumerate(zip(rows, index)):
        value_before = match_value(after[k] - gains[k], n_rounds - int(i), scale)
        if result is not None and k == len(rows) - 1:
            value_after = result
        else:
            value_after = match_value(after[k], n_rounds - int(i) - 1, scale)
        out[row, 0] = value_after - value_before
        out[row, 1] = -out[row, 0]
