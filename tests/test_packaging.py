"""``pip install .`` gives working commands outside the checkout: the wheel holds every
package, the shipped network, the configs and the web page, and its ``hanafuda-*`` commands
train, evaluate and play from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_the_listed_packages_are_the_folders() -> None:
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts)
               for top in ("hanafuda_env", "agents", "hanafuda_cli")
               for p in (ROOT / top).rglob("__init__.py")}
    assert set(listed["packages"]) == on_disk | {"agents.train.configs"}
    assert listed["package-dir"] == {"agents.train.configs": "configs"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel installed into a folder of its own (dependencies from this environment)."""
    where = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", str(ROOT),
                    "-w", str(where / "dist")], check=True, capture_output=True, cwd=where)
    wheel, = (where / "dist").glob("*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--target", str(where / "site"), str(wheel)],
                   check=True, capture_output=True, cwd=where)
    return where


def run(installed: Path, command: str, *args: str) -> subprocess.CompletedProcess:
    work = installed / "work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(installed / "site"),
           "NUMBA_CACHE_DIR": str(installed / "numba")}
    return subprocess.run([sys.executable, str(installed / "site" / "bin" / command), *args],
                          cwd=work, env=env, capture_output=True, text=True, timeout=900)


def test_the_installed_commands_run_outside_the_checkout(installed: Path) -> None:
    where = run(installed, "hanafuda-play", "--help")
    assert where.returncode == 0 and "usage: hanafuda-play" in where.stdout
    assert "ppo" in where.stdout  # the shipped network is a bot by name
    code = ("import hanafuda_env, agents.train.config as c, agents.bots.registry as r;"
            "print(hanafuda_env.__file__); print(c.CONFIGS)")
    env = {**os.environ, "PYTHONPATH": str(installed / "site")}
    paths = subprocess.run([sys.executable, "-c", code], cwd=installed, env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(p).is_relative_to(installed / "site") for p in paths), paths

    evaluated = run(installed, "hanafuda-evaluate", "ppo", "random", "--matches", "2",
                    "--rounds", "1")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "ppo" in evaluated.stdout

    trained = run(installed, "hanafuda-train", "--config", "smoke", "--run-dir", "run",
                  "total_decisions=2048")
    assert trained.returncode == 0, trained.stderr
    assert (installed / "work" / "run" / "checkpoints" / "latest.pt").is_file()
