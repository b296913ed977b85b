"""Fixtures several test folders share."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest

NO_RAY = "Ray is not installed (pip install -e '.[ray]'); its tests are skipped"


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    """A local Ray of two CPUs for the session's Ray tests (CPU only, no dashboard), shut
    down after them; its workers import this checkout (``agents.eval.ray_tasks.init_ray``)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip(NO_RAY)
    import ray

    from agents.eval.ray_tasks import init_ray

    started = not ray.is_initialized()
    init_ray(num_cpus=2)
    yield ray
    if started:
        ray.shutdown()
