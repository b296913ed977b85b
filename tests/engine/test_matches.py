"""Whole matches of the core (RULES.md §2.7, §2.8): rounds counted and closed, drawn matches,
the target score counted in points scored, and the round limit of a target-score match. On
the fixed decks and the two-game driver of ``tests/helpers/scenarios.py``."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.koikoi.core import (
    STOP,
    KoiKoiCore,
)
from tests.helpers.scenarios import (
    EXHAUST,
    QUIET,
    SANKO_T5,
    Duo,
    pairs_deck,
    play_pairs,
    script,
)


# ------------------------------------------------------------------ matches
def test_match_ends_after_three_rounds() -> None:
    """Random legal play: rounds are numbered 0, 1, 2 and every third one closes the match."""
    n = 16
    core = KoiKoiCore(n, {"rounds": 3}, seed=5)
    rng = np.random.default_rng(5)
    index = np.zeros(n, dtype=int)
    score = np.zeros((n, 2), dtype=int)
    matches = np.zeros(n, dtype=int)
    rounds, out = core.reset(seed=5).rounds, None
    for _step in range(1000):
        finished: dict[int, list[list[int]]] = {}
        for k in range(len(rounds)):
            g = int(rounds.game[k])
            assert rounds.round_index[k] == index[g] and rounds.reward[k].sum() == 0
            score[g] += rounds.reward[k]
            index[g] += 1
            if index[g] == 3:
                finished.setdefault(g, []).append(score[g].tolist())
                index[g], score[g] = 0, 0
        if out is not None:
            assert out.match_over.tolist() == [g in finished for g in range(n)]
            for m in range(len(out.matches.game)):
                g = int(out.matches.game[m])
                s = finished[g].pop(0)
                assert out.matches.scores[m].tolist() == s and out.matches.rounds[m] == 3
                assert out.matches.winner[m] == (0 if s[0] > s[1] else 1 if s[1] > s[0] else -1)
                matches[g] += 1
            assert not any(finished.values())
        assert (core.round_index == index).all() and (core.match_score == score).all()
        if (matches > 0).all():
            return
        mask = core.legal_action_mask()
        out = core.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        rounds = out.rounds
    raise AssertionError("matches did not finish")


def test_drawn_match_with_equal_totals() -> None:
    deck, dp, op = pairs_deck(*QUIET, inert=EXHAUST)
    duo = Duo(deck, {"rounds": 1})
    out, _ = play_pairs(duo, script(dp, op, 16))
    assert out.match_over.all()
    assert out.matches.winner.tolist() == [-1, -1]
    assert out.matches.scores.tolist() == [[0, 0], [0, 0]]
    assert out.matches.rounds.tolist() == [1, 1]
    assert (duo.core.round_index == 0).all()


@pytest.mark.parametrize(("target", "over"), [(5, True), (6, False)])
def test_target_score_ends_the_match(target: int, over: bool) -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck, {"target_score": target})
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert out.match_over.tolist() == [over, over]
    if over:
        assert out.matches.game.tolist() == [0, 1]
        assert out.matches.winner.tolist() == [0, 1]  # the dealer's seat
        assert out.matches.scores.tolist() == [[5, -5], [-5, 5]]
        assert out.matches.rounds.tolist() == [1, 1]
        assert (duo.core.match_score == 0).all() and (duo.core.round_index == 0).all()
    else:
        assert (duo.core.round_index == 1).all()


def test_target_score_counts_points_scored_not_the_net_score() -> None:
    """RULES §2.8: the first to *reach* the target wins; points lost in the match's other
    rounds do not count against it."""
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck, {"target_score": 8})
    # Rounds played so far: the dealer scored 3, the other player 6 (net: dealer -3).
    duo.core.points_won[:] = [[3, 6], [6, 3]]
    duo.core.match_score[:] = [[-3, 3], [3, -3]]
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert out.match_over.tolist() == [True, True]  # dealer: 3 + 5 = 8 points scored
    assert out.matches.winner.tolist() == [0, 1]
    assert out.matches.scores.tolist() == [[2, -2], [-2, 2]]  # reported as net totals
    assert (duo.core.points_won == 0).all()


def test_rounds_cap_a_target_score_match() -> None:
    """Decision on §2.8's "rounds, or target_score": a target nobody reaches leaves the match
    to end after ``rounds`` rounds, on the higher total."""
    core = KoiKoiCore(32, {"target_score": 10**6, "rounds": 3}, seed=4)
    core.reset(seed=4)
    rng = np.random.default_rng(4)
    finished = []
    while len(finished) < 32:
        out = core.step(core.sample_legal_actions(rng))
        finished += out.matches.rounds.tolist()
    assert finished[:32] == [3] * 32
