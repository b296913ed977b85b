"""Numba's cache follows the kernels' sources (hanafuda_env.common.numba_cache): importing the
package points it at a folder keyed by them, so an edit to a compiled callee in another file
starts a fresh cache, while a folder the user set is kept. Checked on a copy of the package,
imported in fresh processes; nothing is compiled."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hanafuda_env.common import numba_cache
from tests.helpers.paths import ROOT

CHOSEN = "import hanafuda_env, numba; print(numba.config.CACHE_DIR)"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package's sources, without any cache."""
    shutil.copytree(ROOT / "hanafuda_env", tmp_path / "hanafuda_env",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def chosen(where: Path, **env: str) -> Path:
    """The cache folder a fresh process that imports the copy at ``where`` chooses."""
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    environ.update(PYTHONPATH=str(where), **env)
    done = subprocess.run([sys.executable, "-c", CHOSEN], cwd=where, env=environ,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


def test_an_edit_to_a_callee_in_another_file_starts_a_fresh_cache(copy: Path) -> None:
    first = chosen(copy)
    assert first.parent == copy / "hanafuda_env" / "__pycache__" / "numba" and first.is_dir()
    bits = copy / "hanafuda_env" / "common" / "bits.py"  # compiled helpers the kernels call
    source = bits.read_text()
    bits.write_text(source + "# an edit\n")
    edited = chosen(copy)
    assert edited != first and edited.parent == first.parent
    text = copy / "hanafuda_env" / "render" / "text.py"  # no compiled code reads it
    text.write_text(text.read_text() + "# an edit\n")
    assert chosen(copy) == edited
    bits.write_text(source)
    assert chosen(copy) == first, "the old sources find their cache again"


def test_a_cache_folder_the_user_set_is_kept(copy: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    assert chosen(copy, NUMBA_CACHE_DIR=str(mine)) == mine
    assert not (copy / "hanafuda_env" / "__pycache__" / "numba").exists()


def test_a_read_only_package_caches_in_the_user_cache_folder(copy: Path,
                                                             tmp_path: Path) -> None:
    (copy / "hanafuda_env" / "__pycache__").write_text("")  # no folder can be made there
    folder = chosen(copy, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert folder.parent == tmp_path / "xdg" / "hanafuda_env" / "numba" and folder.is_dir()


def test_the_key_covers_the_compiled_sources_and_what_they_import() -> None:
    names = {p.relative_to(numba_cache.PACKAGE).as_posix()
             for p in numba_cache.kernel_sources()}
    assert {"koikoi/kernel.py", "koikoi/expert/kernel.py", "hanaawase/kernel.py",
            "common/bits.py", "common/cards.py", "koikoi/state.py"} <= names
    assert not {n for n in names if n.startswith("render/")}


def test_only_the_last_used_keyed_folders_are_kept(tmp_path: Path) -> None:
    parent = tmp_path / "numba"
    now = time.time()
    for age in range(1, 8):
        old = parent / f"old{age}"
        old.mkdir(parents=True)
        os.utime(old, (now - 3600 * age, now - 3600 * age))
    (tmp_path / "blocked").write_text("")  # the first choice cannot be made: the next
    folder = numba_cache.keyed_cache_dir(parents=[tmp_path / "blocked" / "numba", parent])
    kept = {p.name for p in parent.iterdir()}
    assert folder == parent / numba_cache.source_key()
    assert kept == {folder.name, *(f"old{age}" for age in range(1, numba_cache.KEEP + 1))}
