"""Evaluation statistics checked against answers worked out independently. Elo fitting on
tables small enough to solve by hand: with two agents the Bradley-Terry strengths are in the
ratio of their (prior-smoothed) scores, so the rating gap is 400 log10 of that ratio
(test_evaluation.py checks large tables, where one virtual game more or less hardly moves the
ratings). The koi-koi figures of play_matches against the finished rounds themselves."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from agents.bots.baselines import RandomAgent
from agents.eval import matches as evaluation
from agents.eval.league import fit_elo
from agents.eval.matches import play_matches
from hanafuda_env.core import KOIKOI, KoiKoiCore

ONE_GAME = np.array([[0.0, 1.0], [1.0, 0.0]])


def gap(elo: dict[str, float]) -> float:
    return elo["a"] - elo["b"]


def test_each_pair_that_played_gets_one_virtual_draw() -> None:
    """a beat b in their only game; the prior adds one drawn game (half a point each), so a
    scored 1.5 and b 0.5: odds 3:1, a gap of 400 log10 3 = 190.8 points."""
    elo = fit_elo(["a", "b"], np.array([[0.0, 1.0], [0.0, 0.0]]), ONE_GAME)
    assert gap(elo) == pytest.approx(400 * math.log10(3), abs=1e-2)
    assert elo["a"] + elo["b"] == pytest.approx(3000.0)  # no "random": mean 1500


def test_prior_games_scale_the_virtual_draws() -> None:
    """Without a prior, 3 wins in 4 games is again odds 3:1; two virtual draws turn a single
    win into 2 : 1."""
    elo = fit_elo(["a", "b"], np.array([[0.0, 3.0], [1.0, 0.0]]), 4 * ONE_GAME, prior_games=0)
    assert gap(elo) == pytest.approx(400 * math.log10(3), abs=1e-2)
    elo = fit_elo(["a", "b"], np.array([[0.0, 1.0], [0.0, 0.0]]), ONE_GAME, prior_games=2)
    assert gap(elo) == pytest.approx(400 * math.log10(2), abs=1e-2)


def test_the_random_agent_anchors_the_scale_at_1000() -> None:
    """With an agent named random, it is rated 1000 and the others relative to it."""
    elo = fit_elo(["random", "b"], np.array([[0.0, 0.0], [1.0, 0.0]]), ONE_GAME)
    assert elo["random"] == 1000.0
    assert elo["b"] == pytest.approx(1000.0 + 400 * math.log10(3), abs=1e-2)


# ------------------------------------------------------------------ koi-koi statistics
class Caller:
    """Random legal cards, and koi-koi at every decision."""

    name = "caller"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        cards = np.where(mask, self.rng.random(mask.shape), -1.0).argmax(axis=1)
        return np.where(mask[:, KOIKOI], KOIKOI, cards)


def test_a_koikoi_pays_off_only_when_the_caller_wins_that_round(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """play_matches' koi-koi figures against the rounds themselves: ``rounds_called`` counts
    the rounds an agent called koi-koi in, ``paid_off`` those of them it won. One-round
    matches in one wave: game j is match j, A sits at seat j % 2, and each game's first
    finished round is its match."""
    finished = []

    class Recording(KoiKoiCore):
        def reset(self, *args: Any, **kwargs: Any) -> Any:
            out = super().reset(*args, **kwargs)
            finished.append(out.rounds)
            return out

        def step(self, actions: Any) -> Any:
            out = super().step(actions)
            finished.append(out.rounds)
            return out

    monkeypatch.setattr(evaluation, "KoiKoiCore", Recording)
    n = 40
    result = play_matches(Caller(), RandomAgent(seed=1), n, {"rounds": 1}, seed=0, batch=n)
    first: dict[int, tuple[int, list[int]]] = {}
    for rounds in finished:
        for g, winner, calls in zip(rounds.game, rounds.winner, rounds.koikoi_calls):
            first.setdefault(int(g), (int(winner), calls.tolist()))
    assert sorted(first) == list(range(n))
    for side, seat_of in (("a", lambda j: j % 2), ("b", lambda j: 1 - j % 2)):
        called = [j for j in range(n) if first[j][1][seat_of(j)] > 0]
        won = [j for j in called if first[j][0] == seat_of(j)]
        stats = result[side]["koikoi"]
        assert (stats["rounds_called"], stats["paid_off"]) == (len(called), len(won))
    a = result["a"]["koikoi"]
    assert a["calls"] == a["decisions"] > 0 and 0 < a["paid_off"] < a["rounds_called"]


def test_elo_refuses_agents_no_games_link() -> None:
    """c played nobody, and a-b never met d-e: their ratings would be arbitrary, so the fit
    names them instead of inventing numbers; a chain a-b-c is enough."""
    games = np.zeros((3, 3))
    games[0, 1] = games[1, 0] = 4
    with pytest.raises(ValueError, match="no games link c to a"):
        fit_elo(["a", "b", "c"], games / 2, games)
    games[1, 2] = games[2, 1] = 4
    assert len(fit_elo(["a", "b", "c"], games / 2, games)) == 3
    apart = np.kron(np.eye(2), np.ones((2, 2))) * 6
    with pytest.raises(ValueError, match="link c, d to a"):
        fit_elo(["a", "b", "c", "d"], apart / 2, apart)
    with pytest.raises(ValueError, match="3x3 tables"):
        fit_elo(["a", "b", "c"], ONE_GAME, ONE_GAME)
