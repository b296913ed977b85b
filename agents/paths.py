"""What the command lines and the trainer say about paths: the checkpoint to give where a
folder was named, and why a results file cannot be written. Files themselves are written
atomically by :mod:`hanafuda_env.common.files`."""

from __future__ import annotations

import os
from pathlib import Path


def folder_hint(spec: str) -> str:
    """For an error about ``spec``: the checkpoint to give when it names a run folder."""
    if not os.path.isdir(spec):
        return ""
    for inside in ("checkpoints/latest.pt", "latest.pt"):
        if os.path.isfile(os.path.join(spec, inside)):
            return f" ({spec!r} is a folder; its policy: {os.path.join(spec, inside)})"
    return f" ({spec!r} is a folder, not a checkpoint file)"


def output_path_problem(name: str, inputs: list[str], overwrite: bool) -> str | None:
    """Why results could not (or should not) be written to the file ``name``, for a CLI to
    check before its long work starts: the work is not lost to a typo, no user file is
    replaced unasked (``overwrite`` allows it) and none of the ``inputs`` (the files the work
    reads: the checkpoints played, the rule file) ever is."""
    if not name:
        return "needs a file name"
    if name.endswith(("/", os.sep)):
        return "ends in a path separator; give a file name"
    path = Path(name)
    if path.is_dir():
        return "is a folder; give a file name"
    if path.exists():
        read = [spec for spec in inputs if Path(spec).exists() and Path(spec).samefile(path)]
        if read:
            return ("is a file this command reads (a checkpoint played or the rule file); give "
                    "another file name")
        if not overwrite:
            return "already exists; give a new file name, or --overwrite to replace it"
    for parent in path.absolute().parents:
        if parent.exists():
            return None if parent.is_dir() else f"cannot be made: {parent} is a file"
    return None


def folder_problem(name: str) -> str | None:
    """Why ``name`` cannot take a command's output files: they go into a new or empty folder,
    so no file already there is replaced or mixed up with them."""
    if not name:
        return "needs a folder name"
    path = Path(name)
    if path.exists() and not path.is_dir():
        return "is a file; give a new or empty folder"
    if path.is_dir() and any(path.iterdir()):
        return "is a folder that already holds files; give a new or empty folder"
    for parent in path.absolute().parents:
        if parent.exists():
            return None if parent.is_dir() else f"cannot be made: {parent} is a file"
    return None
