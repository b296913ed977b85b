"""Starting a script that a test then interrupts with Ctrl-C (SIGINT), once it says it is ready.

A shell starts background jobs (``pytest … &``, ``nohup``) with SIGINT ignored, and a Python
that starts with SIGINT ignored never turns it into KeyboardInterrupt: the script would shrug
the test's Ctrl-C off. The child gets SIGINT's default action back before Python starts.

A test sends the signal only after the script has printed the line that says it reached the
part under test (``wait_for_line``), never after a fixed sleep: the line proves the script
is there, whatever the machine's load."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Callable
from typing import IO, Any


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def popen_interruptible(args: list[str], **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen`` whose child takes SIGINT as a terminal's Ctrl-C.

    Give ``bufsize=0`` (and no ``text``) for pipes that ``wait_for_line`` reads: it then reads
    them byte by byte, so nothing after the line it waits for is held back from a later
    ``communicate``."""
    return subprocess.Popen(args, preexec_fn=_default_sigint, **kwargs)


def wait_for_line(process: subprocess.Popen, stream: IO[bytes], ready: Callable[[str], bool],
                  timeout: float = 120.0) -> list[str]:
    """Read ``stream`` (an unbuffered pipe of ``process``) line by line until a line for which
    ``ready`` is true; return the lines read, that one last. A process that ends first, or
    prints no such line within ``timeout`` seconds (it is then killed), fails the test with
    what it printed."""
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    lines: list[str] = []
    try:
        while True:
            raw = stream.readline()
            if not raw:
                rest = b"".join(s.read() for s in (process.stdout, process.stderr)
                                if s is not None and s is not stream)
                raise AssertionError(f"the process ended (or was killed after {timeout} s) "
                                     f"before the line it was waited for; it printed "
                                     f"{lines!r} {rest.decode(errors='replace')!r}")
            lines.append(raw.decode())
            if ready(lines[-1]):
                return lines
    finally:
        timer.cancel()
