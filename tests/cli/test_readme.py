"""README's Python examples run as printed (so the first thing a user pastes works). The RLlib
example needs RLlib's own environment: ``tests/envs/test_rllib.py`` runs it there."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.helpers.paths import ROOT

README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


def _has_rllib() -> bool:
    """RLlib with its dependencies (plain Ray ships RLlib's code but not them)."""
    if importlib.util.find_spec("ray") is None:
        return False
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index: int) -> None:
    if "from ray" in BLOCKS[index] and not _has_rllib():
        pytest.skip("the RLlib example runs in .venv-rllib (tests/envs/test_rllib.py)")
    names: dict = {}
    exec(compile(BLOCKS[index], f"README.md python block {index}", "exec"), names)
