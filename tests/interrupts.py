"""Starting a script that a test then interrupts with Ctrl-C (SIGINT).

A shell starts background jobs (``pytest … &``, ``nohup``) with SIGINT ignored, and a Python
that starts with SIGINT ignored never turns it into KeyboardInterrupt: the script would shrug
the test's Ctrl-C off. The child gets SIGINT's default action back before Python starts."""

from __future__ import annotations

import signal
import subprocess
from typing import Any


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def popen_interruptible(args: list[str], **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen`` whose child takes SIGINT as a terminal's Ctrl-C."""
    return subprocess.Popen(args, preexec_fn=_default_sigint, **kwargs)
