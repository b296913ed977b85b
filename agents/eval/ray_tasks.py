"""Evaluations on Ray: the waves of ``play_matches`` and of a league's pairs as Ray tasks.

Imported only when ``workers`` (``evaluate.py --ray N``) asks for Ray, so the default path
never imports it. A wave is the unit: its matches, decks and seats are those of the local
path (they follow the match index), its agents restart their streams at the wave
(``agent_seeds``, :func:`agents.eval.matches.wave_seed`), and the tallies come back merged
in match order, so the results are the local path's (timings aside).

:func:`init_ray` starts or joins Ray so that its worker processes import this checkout:
a local instance gets the checkout on ``PYTHONPATH``; a cluster (``address``, or the
``RAY_ADDRESS`` variable) gets the checkout uploaded as the job's ``working_dir``.
:func:`ordered_map` is what the trainer's and the analysis's Ray paths share with this one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.bots.base import AgentLike
from agents.eval.matches import MatchTally, n_waves, play_waves, summarize_matches
from hanafuda_env.rules import RuleSet

ROOT = Path(__file__).resolve().parents[2]  # the checkout: agents/ and hanafuda_env/ are here
# What a cluster job's upload leaves out: environments, runs, caches and git's objects.
UPLOAD_EXCLUDES = [".git", ".venv", ".venv-*", "runs", "build", "**/__pycache__", "*.pt"]


def import_ray() -> Any:
    """The ``ray`` module, or an error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError("Ray is not installed: pip install -e '.[ray]' (plain ray 2.60, "
                          "not RLlib)") from None
    return ray


def check_workers(workers: Any, what: str = "workers") -> int:
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"{what} must be a positive number of Ray workers, got {workers!r}")
    return workers


def init_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Start (or join) Ray unless this process already did; returns the module.

    ``address`` None starts a local instance (``num_cpus`` of it) or joins the one named by
    ``RAY_ADDRESS`` or started on this machine by ``ray start --head``."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    if address is not None or os.environ.get("RAY_ADDRESS"):
        runtime_env: dict[str, Any] = {"working_dir": str(ROOT), "excludes": UPLOAD_EXCLUDES}
    else:
        paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(paths)}}
    ray.init(address=address, num_cpus=num_cpus, include_dashboard=False,
             runtime_env=runtime_env, logging_level="warning")
    return ray


def cpus_per_worker(workers: int) -> float:
    """CPUs each of ``workers`` Ray workers asks for: one, or a share of the cluster's CPUs
    when there are fewer (so 4 workers start on a 2-core machine)."""
    ray = import_ray()
    total = float(ray.cluster_resources().get("CPU", 1.0))
    return max(0.01, min(1.0, total / workers))


def ordered_map(function: Callable[..., Any], calls: Sequence[tuple], workers: int) -> list:
    """``[function(*args) for args in calls]`` as Ray tasks, at most ``workers`` at a time,
    the results in the order of ``calls``. ``function`` must be a module's top-level
    function (workers import it by name); ObjectRefs among the arguments are resolved."""
    ray = init_ray()
    remote = ray.remote(num_cpus=cpus_per_worker(workers))(function)
    results: list[Any] = [None] * len(calls)
    running: dict[Any, int] = {}
    for index, args in enumerate(calls):
        if len(running) >= workers:
            _collect_one(ray, running, results)
        running[remote.remote(*args)] = index
    while running:
        _collect_one(ray, running, results)
    return results


def _collect_one(ray: Any, running: dict[Any, int], results: list[Any]) -> None:
    [ready], _ = ray.wait(list(running), num_returns=1)
    results[running.pop(ready)] = ray.get(ready)


def play_wave_task(agents: tuple[AgentLike, AgentLike], n_matches: int, rules: RuleSet,
                   seed: int, batch: int, wave: int, agent_seeds: tuple[int, int],
                   records: bool) -> MatchTally:
    """One wave of ``play_matches``, in a Ray worker."""
    return play_waves(agents[0], agents[1], n_matches, rules, seed, batch, [wave],
                      agent_seeds, records)


def play_waves_on_ray(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSet,
                      seed: int, batch: int, agent_seeds: tuple[int, int] | None,
                      records: bool, workers: int) -> MatchTally:
    """Every wave of ``play_matches`` as a Ray task; the merged tally."""
    check_workers(workers)
    if agent_seeds is None:
        raise ValueError("play_matches(workers=...) needs agent_seeds: each Ray task restarts "
                         "the agents' random streams at its wave (evaluate.py passes "
                         "(seed, seed + 1))")
    ray = init_ray()
    agents = ray.put((agent_a, agent_b))
    calls = [(agents, n_matches, rules, seed, batch, wave, tuple(agent_seeds), records)
             for wave in range(n_waves(n_matches, batch))]
    return MatchTally.merged(ordered_map(play_wave_task, calls, workers))


def play_pairs_on_ray(agents: Sequence[AgentLike], pairings: Sequence[tuple[int, int]],
                      n_matches: int, rules: RuleSet, seed: int, batch: int, workers: int
                      ) -> list[dict[str, Any]]:
    """A league's pairs: each pair's waves as Ray tasks, seeded as ``round_robin`` seeds
    them; one ``play_matches`` result per pair, in the order of ``pairings``."""
    check_workers(workers)
    ray = init_ray()
    waves = n_waves(n_matches, batch)
    shared = {pair: ray.put((agents[pair[0]], agents[pair[1]])) for pair in pairings}
    calls = [(shared[pair], n_matches, rules, seed, batch, wave, (seed, seed + 1), False)
             for pair in pairings for wave in range(waves)]
    tallies = ordered_map(play_wave_task, calls, workers)
    return [summarize_matches(MatchTally.merged(tallies[p * waves:(p + 1) * waves]),
                              agents[i].name, agents[j].name, rules, seed, batch)
            for p, (i, j) in enumerate(pairings)]
