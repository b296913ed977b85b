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

import math
from collections.abc import Sequence
from math import erf, sqrt
from typing import Any

import numpy as np
from numba import njit

from hanafuda_env.common.results import MatchResults, RoundResults
from hanafuda_env.envs.options import (
    RoundSplit,
    check_number,
    match_boundaries,
    one_of,
    reset_split,
)
from hanafuda_env.koikoi.rules import RuleSet

REWARD_KINDS = ("points", "match_win")
DEFAULT_ROUND_SIGMA = 10.0  # one round's margin spread, in the rules' point_unit
# The field of a round row (``records()`` format) that each reward kind pays, per seat.
ROW_FIELDS = {"points": "reward", "match_win": "match_win"}


def check_reward(kind: str, sigma: float) -> None:
    if kind not in REWARD_KINDS:
        raise ValueError(one_of("reward", kind, REWARD_KINDS))
    check_number("round_sigma", sigma, positive=True)


def match_value(margin: float, rounds_left: int, scale: float) -> float:
    """Seat's ``P(win) - P(lose)`` with this margin and ``rounds_left`` rounds to play;
    ``scale`` is one round's spread in points. With no round left the sign decides."""
    if rounds_left <= 0:
        return float(np.sign(margin))
    return erf(margin / (scale * sqrt(2.0 * rounds_left)))


@njit(cache=True)
def match_values(margins: np.ndarray, rounds_left: np.ndarray, scale: float) -> np.ndarray:
    """:func:`match_value` of many margins at once (1-d float64 margins, int64 rounds)."""
    out = np.empty(margins.shape[0])
    for i in range(margins.shape[0]):
        if rounds_left[i] <= 0:
            out[i] = np.sign(margins[i])
        else:
            out[i] = math.erf(margins[i] / (scale * math.sqrt(2.0 * rounds_left[i])))
    return out


def match_win_rewards(rounds: RoundResults, matches: MatchResults, match_over: np.ndarray,
                      margin_now: np.ndarray, round_index_now: np.ndarray, rules: RuleSet,
                      sigma: float) -> np.ndarray:
    """(K, 2) zero-sum match-value changes of a step's or a reset's round rows
    (chronological per game): :func:`game_match_win` for each game of the batch.

    ``margin_now`` is seat 0's margin in each game's match in progress *after* the step (the
    core's zero-sum ``match_score[:, 0]``) and ``round_index_now`` its finished rounds.
    """
    out = np.zeros((len(rounds), 2), dtype=np.float64)
    for g in np.unique(rounds.game):
        rows = np.flatnonzero(rounds.game == g)
        ended = None
        if match_over[g]:
            first = np.flatnonzero(matches.game == g)[0]  # the match played in this step
            ended = (float(matches.scores[first, 0]), int(matches.winner[first]))
        out[rows, 0] = game_match_win(rounds.round_index[rows].tolist(),
                                      rounds.reward[rows, 0].tolist(), ended,
                                      float(margin_now[g]), int(round_index_now[g]), rules,
                                      sigma)
    out[:, 1] = -out[:, 0]
    return out


def paid_rows(kind: str, sigma: float, rows: list[dict], matches: Sequence[dict],
              game: Any) -> list[dict]:
    """A single-game env's round rows of a step or reset, ready for its accounting: the
    field ``ROW_FIELDS[kind]`` of each holds what the round pays each seat.

    ``rows`` come chronological in ``RoundResults.records()`` format, as
    :class:`~hanafuda_env.koikoi.game.KoiKoiGame` reports them, ``matches`` are the matches that
    ended with them and ``game`` is the game after the step or reset. For ``"match_win"``
    each row gains ``"match_win"``: ``[seat 0, seat 1]``, what :func:`match_win_rewards`
    pays for the same rows.
    """
    if kind == "points" or not rows:
        return rows
    ended = (float(matches[0]["scores"][0]), int(matches[0]["winner"])) if matches else None
    values = game_match_win([r["round_index"] for r in rows], [r["reward"][0] for r in rows],
                            ended, game.match_score[0], game.round_index, game.rules, sigma)
    return [{**row, "match_win": [v, -v]} for row, v in zip(rows, values.tolist())]


def opening_rows(kind: str, sigma: float, episode: str, game: Any, dealt: Any
                 ) -> tuple[RoundSplit, list[dict]]:
    """The deals that open a single-game env's episode: ``dealt`` (a ``KoiKoiGame`` reset or
    ``deal_next``) and the deals after it while dealt hand yaku end rounds at once, paid
    (:func:`paid_rows`) and sorted into the episode's rows and those only reported; with the
    matches they ended."""
    more = game.deal_on()
    rows, matches = dealt.rounds + more.rounds, dealt.matches + more.matches
    paid = paid_rows(kind, sigma, rows, matches, game)
    return reset_split(paid, episode, game.round_index), matches


def round_end_rows(kind: str, sigma: float, episode: str, game: Any, out: Any
                   ) -> tuple[list[dict], list[dict], bool]:
    """A single-game env's step ``out`` that ended a round: in a "match" episode whose match
    goes on, the match's next round is dealt (and on, while hand yaku end them). Returns the
    rows paid (:func:`paid_rows`), the matches ended and whether the episode is over."""
    rows, matches, match_over = out.rounds, out.matches, out.match_over
    if episode == "match" and not match_over:
        more = game.deal_on(within_match=True)
        rows, matches, match_over = rows + more.rounds, matches + more.matches, more.match_over
    paid = paid_rows(kind, sigma, rows, matches, game)
    return paid, matches, episode == "round" or match_over


def game_match_win(round_index: Sequence[int], gains: Sequence[float],
                   ended: tuple[float, int] | None, margin_now: float, round_index_now: int,
                   rules: RuleSet, sigma: float) -> np.ndarray:
    """Seat 0's match-value change for each of one game's round rows of a step or a reset
    (chronological ``round_index`` and seat-0 points ``gains``).

    ``ended``: None, or the final seat-0 margin and the winner (-1 a draw) of the first match
    that ended with these rows — its rows pay up to its true result. Rows of the match in
    progress run up to ``margin_now`` (after ``round_index_now`` finished rounds). Rows of a
    later match that began and ended with them (a dealt hand yaku in one-round matches) had
    no decision and get 0.
    """
    out = np.zeros(len(round_index), dtype=np.float64)
    scale = sigma * rules.point_unit
    index, gains = list(round_index), np.asarray(gains, dtype=np.float64)
    start = 0
    if ended is not None:
        end, start = match_boundaries(index, round_index_now)
        final_margin, winner = ended
        result = 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0
        _fill(out, 0, index[:end], gains[:end], final_margin, rules.rounds, scale, result)
    _fill(out, start, index[start:], gains[start:], float(margin_now), rules.rounds, scale,
          None)
    return out


def _fill(out: np.ndarray, first: int, index: list[int], gains: np.ndarray,
          final_margin: float, n_rounds: int, scale: float, result: float | None) -> None:
    """Rewards of consecutive rounds of one match (``out[first:]``) whose margin after the
    last is known; ``result`` (the match's) replaces the value after the last row when the
    match ended."""
    after = final_margin - (gains.sum() - np.cumsum(gains))
    for k, i in enumerate(index):
        value_before = match_value(after[k] - gains[k], n_rounds - int(i), scale)
        if result is not None and k == len(index) - 1:
            value_after = result
        else:
            value_after = match_value(after[k], n_rounds - int(i) - 1, scale)
        out[first + k] = value_after - value_before
