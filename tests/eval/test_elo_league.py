"""Elo ratings and the round-robin league. The fit is checked on tables small enough to solve
by hand (with two agents the Bradley-Terry strengths are in the ratio of their prior-smoothed
scores, so the rating gap is 400 log10 of that ratio) and on large synthetic tables, where one
virtual game more or less hardly moves the ratings; a league pair plays the same head to
head whatever the other agents."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.eval.league import fit_elo, round_robin
from agents.eval.matches import play_matches
from hanafuda_env.koikoi.rules import resolve_rules

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


# ----------------------------------------------------- large tables and leagues
SHORT = resolve_rules("nintendo").replace(rounds=3)


def test_elo_orders_a_synthetic_league_and_recovers_a_known_gap():
    names = ["random", "weak", "strong"]
    games = np.full((3, 3), 1000.0)
    np.fill_diagonal(games, 0)
    rate = np.array([[0, 0.3, 0.05], [0.7, 0, 0.2], [0.95, 0.8, 0]])
    elo = fit_elo(names, rate * games, games)
    assert elo["random"] == pytest.approx(1000.0)
    assert elo["strong"] > elo["weak"] > elo["random"]
    pair = fit_elo(["a", "b"], np.array([[0, 760.0], [240.0, 0]]), np.full((2, 2), 1000.0))
    assert pair["a"] - pair["b"] == pytest.approx(400 * np.log10(760.5 / 240.5), abs=0.5)
    assert sum(pair.values()) / 2 == pytest.approx(1500.0)
    even = fit_elo(["x", "y", "z"], games / 2, games)
    assert max(even.values()) - min(even.values()) < 1e-6


def test_round_robin_gives_a_table_and_finite_ratings():
    agents = [RandomAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=1), GreedyAgent(SHORT, seed=2)]
    league = round_robin(agents, 6, SHORT, seed=1)
    assert league["agents"] == ["random", "greedy", "greedy#2"]
    table = league["score_table"]
    for a in league["agents"]:
        for b in league["agents"]:
            if a != b:
                assert table[a][b] + table[b][a] == pytest.approx(1.0)
    assert league["elo"]["random"] == 1000.0 and all(np.isfinite(list(league["elo"].values())))
    assert len(league["pairs"]) == 3
    assert [(p["a"]["name"], p["b"]["name"]) for p in league["pairs"]] == [
        ("random", "greedy"), ("random", "greedy#2"), ("greedy", "greedy#2")]
    json.dumps(league)


def test_a_league_pair_plays_as_the_same_head_to_head_whatever_the_other_agents():
    def league(order):
        agents = {"random": RandomAgent(SHORT, seed=9), "greedy": GreedyAgent(SHORT, seed=9),
                  "expert": ExpertAgent(SHORT, seed=9)}
        return round_robin([agents[name] for name in order], 6, SHORT, seed=1)["pairs"]

    alone = play_matches(GreedyAgent(SHORT, seed=1), ExpertAgent(SHORT, seed=2), 6, SHORT, 1)
    keys = ("wins", "draws", "losses", "points_per_round")
    for order in (["random", "greedy", "expert"], ["greedy", "expert", "random"]):
        (pair,) = [p for p in league(order) if (p["agent_a"], p["agent_b"]) == ("greedy",
                                                                                  "expert")]
        assert {k: pair[k] for k in keys} == {k: alone[k] for k in keys}
