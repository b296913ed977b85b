"""Hana-awase evaluation: seats rotated over the same decks, intervals over decks, the same
figures for the same seed, and a league over a pool larger than the table."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.hanaawase import HanaawaseExpert, HanaawaseGreedy, HanaawaseRandom
from agents.eval.hanaawase_matches import hanaawase_league, play_hanaawase_matches


def test_identical_agents_on_rotated_seats_score_the_same_on_average() -> None:
    rows = play_hanaawase_matches([HanaawaseGreedy(seed=0, name=f"g{k}") for k in range(3)],
                                  30, seed=4)
    means = [row["mean_score"]["mean"] for row in rows]
    # greedy is deterministic up to ties: every agent plays every seat of every deck once
    assert max(means) - min(means) < 6.0
    assert abs(sum(means)) < 1e-9, "three players: scores are zero-sum"
    assert all(row["matches"] == 90 and row["rounds"] == 270 for row in rows)
    places = [row["first_place"]["value"] for row in rows]
    assert sum(places) == pytest.approx(1.0)


def test_the_same_seed_gives_the_same_figures() -> None:
    def run(seed: int) -> list[float]:
        agents = [HanaawaseRandom(seed=1), HanaawaseGreedy(seed=2), HanaawaseRandom(seed=3),
                  HanaawaseGreedy(seed=4)]
        return [row["mean_score"]["mean"] for row in
                play_hanaawase_matches(agents, 6, {"num_players": 4}, seed=seed)]
    assert run(5) == run(5)
    assert run(5) != run(6)


def test_intervals_hold_the_mean_and_a_league_ranks_the_pool() -> None:
    rows = play_hanaawase_matches([HanaawaseExpert(seed=1), HanaawaseRandom(seed=2)], 20,
                                  {"num_players": 2}, seed=1)
    for row in rows:
        score = row["mean_score"]
        assert score["low"] < score["mean"] < score["high"]
        assert 0.0 <= row["first_place"]["low"] <= row["first_place"]["high"] <= 1.0
    pool = [HanaawaseRandom(seed=1), HanaawaseExpert(seed=2), HanaawaseGreedy(seed=3),
            HanaawaseRandom(seed=4, name="random2")]
    table = hanaawase_league(pool, 4, {"num_players": 3}, seed=2)
    assert [row["agent"] for row in table][-1].startswith("random")
    assert {row["agent"] for row in table[:2]} == {"expert", "greedy"}
    assert all(row["matches"] == 3 * 4 * 3 for row in table), "each agent is in 3 of 4 tables"
    with pytest.raises(ValueError, match="needs 3 agents"):
        play_hanaawase_matches(pool[:2], 2)
    assert np.isfinite([row["mean_score"] for row in table]).all()
