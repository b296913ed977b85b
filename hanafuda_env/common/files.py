"""Files written atomically: a temporary file in the same folder, then a rename.

A reader (or a crash) never sees half a file, and what was there before stays intact until
the new content is complete.
"""

from __future__ import annotations

import errno
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; an OSError (a full disk, say) names ``path``
    and leaves what was there before."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _written_temporary(path, data, _mode_for(path))
    try:
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _naming(error, path) from error
        raise


def _written_temporary(path: Path, data: bytes, mode: int) -> str:
    """A temporary file beside ``path`` holding all of ``data`` on disk (its path); an
    OSError names ``path``, and no temporary file is left."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise _naming(error, path) from error
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _naming(error, path) from error
        raise
    return tmp


def _naming(error: OSError, path: Path) -> OSError:
    """``error`` as an OSError of the same kind (errno) that names the file that could not
    be written: a write's own error names no file, or only the temporary one."""
    if error.errno is None:
        return OSError(f"cannot write {str(path)!r}: {error}")
    reason = error.strerror or os.strerror(error.errno)
    if error.errno == errno.ENOSPC:
        reason += " (the disk is full; nothing was written)"
    return OSError(error.errno, f"cannot write the file: {reason}", str(path))


_UMASK = os.umask(0)  # reading the umask means setting it: once, at import
os.umask(_UMASK)


def _mode_for(path: Path) -> int:
    """A replaced file keeps its permissions; a new one gets the usual ones (umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def atomic_create_text(path: str | Path, text: str) -> None:
    """Create ``path`` with all of ``text`` in one step, or FileExistsError if it exists:
    of two writers, one gets the file; a kill leaves no empty or partial one (a hard link of
    a complete temporary file; where the file system has none, an exclusive create)."""
    path = Path(path)
    tmp = _written_temporary(path, text.encode("utf-8"), 0o666 & ~_UMASK)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:  # no hard links here
            with open(path, "xb") as handle:
                handle.write(text.encode("utf-8"))
    except OSError as error:
        if isinstance(error, FileExistsError):
            raise
        raise _naming(error, path) from error
    finally:
        Path(tmp).unlink(missing_ok=True)


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, data: Any) -> None:
    """Standard JSON: NumPy numbers as numbers, NaN and infinities (an interval from one
    match, say) as null."""
    plain = json.loads(json.dumps(data, default=float))
    atomic_write_text(path, json.dumps(_finite(plain), indent=2, allow_nan=False) + "\n")


def _finite(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _finite(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_finite(v) for v in tree]
    if isinstance(tree, float) and not math.isfinite(tree):
        return None
    return tree
