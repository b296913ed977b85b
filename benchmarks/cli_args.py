"""Option checks the benchmark scripts share.

A bad option should be a usage error (exit status 2, one line naming the bad value and what
is allowed) raised before any slow work starts, never a traceback from deep inside a run.
The scripts import this module by name: Python puts the folder of the script it runs
(``benchmarks/``) first on the path.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

# The command lines' shared helpers (``cli/``) sit beside train.py, which is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.bots.registry import BASELINES, folder_hint, is_baseline_name  # noqa: E402
from hanafuda_cli.arguments import (  # noqa: E402, F401  (the scripts import them from here)
    HelpFormatter,
    non_negative_int,
    positive_float,
    positive_int,
    seed_int,
)
from hanafuda_env.koikoi.rules import resolve_rules  # noqa: E402


def make_parser(doc: str | None) -> argparse.ArgumentParser:
    """A parser described by the first line of a script's docstring, defaults shown."""
    description = doc.strip().splitlines()[0] if doc else None
    return argparse.ArgumentParser(description=description, formatter_class=HelpFormatter)


def positive_int_list(text: str) -> list[int]:
    """Comma-separated positive integers, e.g. batch sizes ``64,256,1024``."""
    items = [item.strip() for item in text.split(",")]
    wanted = "positive integers (separated by spaces or commas)"
    if not all(items):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    try:
        return [positive_int(item) for item in items]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None


class JoinLists(argparse.Action):
    """For ``nargs="+"`` options typed by a comma-list parser: every script takes lists
    both ways, ``--batches 64 256``, ``--batches 64,256`` or a mix, into one flat list."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, [item for value in values for item in value])


def agent_spec(text: str) -> str:
    """A baseline name or an existing checkpoint file (as ``make_agent`` takes them)."""
    if is_baseline_name(text) or os.path.isfile(text):
        return text
    raise argparse.ArgumentTypeError(
        f"unknown agent {text!r}: not a baseline ({', '.join(BASELINES)}) "
        f"nor an existing checkpoint file{folder_hint(text)}")


def agent_list(text: str) -> list[str]:
    """Comma-separated agents, e.g. ``expert,greedy``."""
    return [agent_spec(item.strip()) for item in text.split(",")]


def agent_pairs(text: str) -> list[tuple[str, str]]:
    """Comma-separated ``A:B`` pairs of agents, e.g. ``expert:random,greedy:random``."""
    pairs = []
    for item in text.split(","):
        parts = item.strip().split(":")
        if len(parts) != 2 or not all(parts):
            raise argparse.ArgumentTypeError(
                f"each pair must look like A:B (e.g. expert:greedy), got {item.strip()!r}")
        pairs.append((agent_spec(parts[0]), agent_spec(parts[1])))
    return pairs


def rule_spec(text: str) -> str:
    """A rule preset name or YAML file that resolves; kept as given, for printing."""
    try:
        resolve_rules(text)
    except (ValueError, OSError) as error:
        raise argparse.ArgumentTypeError(one_line(error)) from None
    return text


def one_line(error: BaseException) -> str:
    """An error's message on a single line (YAML errors span several); a file that cannot
    be read says which and why, without the errno."""
    if isinstance(error, OSError) and error.filename is not None:
        return f"cannot read {error.filename}: {error.strerror}"
    return " ".join(str(error).split())


@contextmanager
def usage_errors(parser: argparse.ArgumentParser,
                 kinds: tuple[type[BaseException], ...] = (ValueError, OSError)
                 ) -> Iterator[None]:
    """Turns the project's setup errors (RuleError, ConfigError, CheckpointError: all
    ValueErrors; a missing file) into a usage error. Wrap setup only, never the timed
    work, so a bug there still shows its traceback."""
    try:
        yield
    except kinds as error:
        parser.error(one_line(error))


def run_main(main: Callable[[], int | None]) -> int:
    """A script's exit status: ``main``'s, or 130 after Ctrl-C, which ends a benchmark with a
    line instead of a traceback (what was already printed stands)."""
    try:
        return main() or 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
