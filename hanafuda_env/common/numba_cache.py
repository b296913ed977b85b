"""Where Numba caches the compiled kernels: a folder keyed by the kernels' source.

Numba recompiles a cached function when its own file changes, not when a compiled function
it calls (or a constant it reads) from another file does, so an edit to such a file would
keep playing the old machine code. The package's ``__init__`` therefore points
``numba.config.CACHE_DIR`` at a folder named by a hash of every source file that compiled
code is built from (the modules that use Numba and, transitively, the package modules they
import at their top level): any edit there starts a fresh cache, and going back to an old
source finds its cache again. It must run before the first ``@njit(cache=True)`` function
is defined: Numba picks a function's cache folder when its dispatcher is created.

A ``NUMBA_CACHE_DIR`` the user set (or a Numba config file's) is used as it is. The folder
is ``hanafuda_env/__pycache__/numba/<hash>`` where the package is writable (a checkout, a
virtual environment), else ``$XDG_CACHE_HOME/hanafuda_env/numba/<hash>`` (``~/.cache``);
beside the one in use, the few last used are kept and older ones removed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
# Keyed folders kept besides the current one (the last used): going back a few edits, or
# between two branches, finds its machine code; a removed folder only costs a recompile.
KEEP = 4
# ``from hanafuda_env.x import a, b`` at a module's top level (parenthesised lists included):
# the imports whose names compiled code can read.
_TOP_IMPORT = re.compile(r"^from[ \t]+(hanafuda_env(?:\.\w+)*)[ \t]+import[ \t]+"
                         r"(\([^)]*\)|[^\n]*)", re.MULTILINE)
_COMMENT = re.compile(r"#[^\n]*")
_USES_NUMBA = re.compile(r"^(?:from|import)[ \t]+numba\b", re.MULTILINE)


def kernel_sources(package: Path = PACKAGE) -> list[Path]:
    """The package's source files compiled code is built from: those that use Numba, and the
    package modules they import at their top level, transitively."""
    paths, texts = {}, {}  # by dotted name, a package by its __init__'s
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        paths[name], texts[name] = path, path.read_text(encoding="utf-8")
    todo = [name for name, text in texts.items() if _USES_NUMBA.search(text)]
    found: set[str] = set()
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        for match in _TOP_IMPORT.finditer(texts[name]):
            module = match.group(1)
            names = re.findall(r"\w+", _COMMENT.sub("", match.group(2)))
            todo += [m for m in (module, *(f"{module}.{n}" for n in names)) if m in texts]
    return sorted(paths[name] for name in found)


def source_key(package: Path = PACKAGE) -> str:
    """A short hash of the kernel sources' paths (within the package) and contents."""
    digest = hashlib.sha256()
    for path in kernel_sources(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def candidate_parents(package: Path = PACKAGE) -> list[Path]:
    """Folders that hold the keyed cache folders, in order of preference."""
    user_cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                  ".cache")
    return [package / "__pycache__" / "numba", Path(user_cache) / "hanafuda_env" / "numba"]


def keyed_cache_dir(package: Path = PACKAGE, parents: list[Path] | None = None) -> Path | None:
    """The cache folder for the package's current kernel sources, made and marked as used
    now, the least recently used of its siblings beyond :data:`KEEP` removed; None when no
    candidate folder is writable (Numba's own choice stands then)."""
    key = source_key(package)
    for parent in candidate_parents(package) if parents is None else parents:
        folder = parent / key
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not os.access(folder, os.W_OK | os.X_OK):
                continue
            os.utime(folder)
        except OSError:
            continue
        prune(parent, keep=folder)
        return folder
    return None


def prune(parent: Path, keep: Path) -> None:
    """Remove the keyed folders of ``parent`` beyond the :data:`KEEP` last used (``keep``
    stays). A process still using a removed folder recompiles into it."""
    try:
        others = [p for p in parent.iterdir() if p.is_dir() and p != keep]
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in others[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


def use_keyed_cache() -> str:
    """Point Numba's cache at :func:`keyed_cache_dir` unless a cache folder is already
    configured; the folder in use ('' for Numba's default beside the sources)."""
    from numba.core import config

    if not config.CACHE_DIR:
        try:
            folder = keyed_cache_dir()
        except OSError:  # sources that cannot be read (a zipped install): Numba's default
            folder = None
        if folder is not None:
            config.CACHE_DIR = str(folder)
    return config.CACHE_DIR
