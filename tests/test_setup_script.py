"""scripts/setup.sh installs the project quietly: setuptools' boxes about an editable install
(and about the data folders that look like packages) are hidden by the warning filter the
script gives pip, and nothing else is. The same editable install runs into a folder of its
own, with and without that filter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT


def setup_filter() -> str:
    """The ``PYTHONWARNINGS`` entries setup.sh sets for its editable install."""
    lines = [line for line in (ROOT / "scripts" / "setup.sh").read_text().splitlines()
             if line.startswith("QUIET_BUILD")]
    done = subprocess.run(["bash", "-c", "\n".join([*lines, 'printf %s "$QUIET_BUILD"'])],
                          capture_output=True, text=True, check=True)
    return done.stdout


def editable_install(target: Path, warnings: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    if warnings is not None:
        env["PYTHONWARNINGS"] = warnings
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                           "--disable-pip-version-check", "--no-deps", "--no-build-isolation",
                           "--target", str(target), "-e", str(ROOT)],
                          capture_output=True, text=True, env=env, cwd=target.parent,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_setup_hides_setuptools_editable_install_boxes(tmp_path: Path) -> None:
    assert "Editable installation" in setup_filter()
    plain = editable_install(tmp_path / "plain", None)
    assert "Editable installation" in plain, "the box the filter is there to hide"
    assert editable_install(tmp_path / "quiet", setup_filter()).strip() == ""
