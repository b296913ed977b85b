"""Ray for the evaluations, the analysis and the trainer: started or joined, and tasks run in
order.

Imported only when ``workers`` (``evaluate.py --ray N``, ``ray_workers``) asks for Ray, so
the default path never imports Ray. :func:`init_ray` starts or joins Ray so that its worker
processes import this checkout: a local instance gets the checkout on ``PYTHONPATH``; a
cluster (``address``, or the ``RAY_ADDRESS`` variable) gets the checkout uploaded as the
job's ``working_dir``. :func:`ordered_map` runs a function over chunks of work as Ray tasks
and hands the results back in the chunks' order: ``play_matches`` and ``round_robin`` use
it for their waves of matches, ``estimate_decision_value`` for its chunks of decision
points, each chunk seeded as the local path seeds it, so the results are the local path's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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

    ``address`` None joins the Ray named by ``RAY_ADDRESS`` or started on this machine by
    ``ray start --head``, else starts a local one; ``num_cpus`` always starts a local one
    of that many CPUs (the tests' own)."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    if address not in (None, "local") or (address is None and os.environ.get("RAY_ADDRESS")):
        runtime_env: dict[str, Any] = {"working_dir": str(ROOT), "excludes": UPLOAD_EXCLUDES}
    else:
        paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(paths)}}
    if num_cpus is not None and address is None:
        address = "local"
    try:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False,
                 runtime_env=runtime_env, logging_level="warning")
    except ConnectionError as error:
        hint = ("" if os.environ.get("RAY_AUTH_MODE") else
                "; a cluster started by `ray start` uses token authentication (Ray >= 2.59): "
                "set RAY_AUTH_MODE=token for this process too (the token comes from "
                "RAY_AUTH_TOKEN or ~/.ray/auth_token, as `ray get-auth-token` shows)")
        raise ConnectionError(f"{error}{hint}") from None
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
