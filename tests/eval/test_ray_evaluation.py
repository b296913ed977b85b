"""Evaluations as Ray tasks give the local path's results for the same seed: a head-to-head
(its waves of matches, game records included), a league, the koi-koi decision values and
``evaluate.py --ray``; Ray's workers need the agents' seeds to restart their streams."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from agents.analysis.koikoi_value import collect_decision_points, estimate_decision_value
from agents.bots.registry import make_agent
from agents.eval.league import round_robin
from agents.eval.matches import play_matches
from hanafuda_cli import evaluate
from tests.conftest import NO_RAY

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)

TIMINGS = ("act_seconds", "moves_per_second", "seconds")


def without_timings(tree: Any) -> Any:
    """A result with its clock readings left out (they differ from run to run)."""
    if isinstance(tree, dict):
        return {k: without_timings(v) for k, v in tree.items() if k not in TIMINGS}
    if isinstance(tree, list):
        return [without_timings(v) for v in tree]
    return tree


def test_a_head_to_head_on_ray_equals_the_local_one(local_ray) -> None:
    """Four waves of stochastic agents (the expert's tie-breaks, random's moves): the same
    figures, move counts and koi-koi statistics."""
    results = [play_matches(make_agent("expert", seed=7), make_agent("random", seed=8), 60,
                            seed=3, batch=16, agent_seeds=(7, 8), workers=workers)
               for workers in (0, 2)]
    local, on_ray = results
    assert local["a"]["moves"] > 0 and local["wins"] > local["losses"]
    assert without_timings(on_ray) == without_timings(local)


def test_ray_workers_need_the_agents_seeds(local_ray) -> None:
    with pytest.raises(ValueError, match="needs agent_seeds"):
        play_matches(make_agent("random"), make_agent("greedy"), 4, workers=2)
    with pytest.raises(ValueError, match="positive number of Ray workers"):
        play_matches(make_agent("random"), make_agent("greedy"), 4, agent_seeds=(0, 1),
                     workers=-1)


def test_a_league_on_ray_equals_the_local_one(local_ray) -> None:
    leagues = [round_robin([make_agent(name) for name in ("random", "greedy", "expert")], 24,
                           seed=5, batch=8, workers=workers) for workers in (0, 2)]
    assert without_timings(leagues[1]) == without_timings(leagues[0])
    assert leagues[0]["elo"]["expert"] > leagues[0]["elo"]["random"]


def test_decision_values_on_ray_equal_the_local_ones(local_ray) -> None:
    points = collect_decision_points(make_agent("expert"), make_agent("greedy"), 30, seed=3,
                                     until="round")
    values = [estimate_decision_value(points, make_agent("expert", seed=5), n_rollouts=6,
                                      seed=2, horizon="round", max_batch=6 * 2 * 5,
                                      agent_seeds=(5, 6), workers=workers)
              for workers in (0, 2)]
    assert len(points) > 10  # three chunks of five points or more
    assert (values[1].samples_points == values[0].samples_points).all()
    with pytest.raises(ValueError, match="needs agent_seeds"):
        estimate_decision_value(points, make_agent("expert"), n_rollouts=2, workers=2)


def test_evaluate_cli_with_ray_prints_and_writes_the_local_figures(local_ray, tmp_path,
                                                                    capsys) -> None:
    outputs = []
    for name, extra in (("local", []), ("ray", ["--ray", "2"])):
        path = tmp_path / f"{name}.json"
        assert evaluate.main(["expert", "greedy", "--matches", "40", "--batch", "16",
                              "--seed", "4", "--json", str(path), *extra]) == 0
        printed = [line for line in capsys.readouterr().out.splitlines()
                   if "per second" not in line and not line.strip().startswith("(")
                   and str(path) not in line]
        outputs.append((printed, without_timings(json.loads(path.read_text()))))
    assert outputs[1] == outputs[0]
