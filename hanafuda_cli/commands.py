"""Commands the CLIs print for the user to type next (resume a run, open TensorBoard).

They name this environment's programs: a virtual environment's Python and TensorBoard are
not on PATH unless it is activated, and a bare ``python`` there may lack torch.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def program(name: str) -> str:
    """``name`` ("python", "tensorboard") as the user can type it to get the one beside this
    Python: the bare name when PATH finds that very file, else its path (relative to the
    working folder when inside it); the bare name when there is none."""
    here = Path(sys.executable)
    path = here if name == "python" else here.with_name(name)
    if not path.exists():
        return name
    found = shutil.which(name)
    if found is not None and Path(found).absolute() == path.absolute():  # not resolved: a
        return name  # venv's python links to the base one but is not the same program
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def train_command(*args: str) -> str:
    """The command that trains with ``ARGS``, as this one was started: ``hanafuda-train
    ARGS`` for the installed command, else ``python train.py ARGS`` with this Python."""
    started = Path(sys.argv[0]).name
    if started == "hanafuda-train":
        return " ".join([started, *map(str, args)])
    script = sys.argv[0] if started == "train.py" else "train.py"
    return " ".join([program("python"), script, *map(str, args)])
