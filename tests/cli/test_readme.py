"""README's Python examples run as printed (so the first thing a user pastes works)."""

from __future__ import annotations

import re

import pytest

from tests.helpers.paths import ROOT

README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index: int) -> None:
    names: dict = {}
    exec(compile(BLOCKS[index], f"README.md python block {index}", "exec"), names)
