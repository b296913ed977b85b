"""Argument types and the help layout shared by the command lines (evaluate, play and the
benchmarks).

A bad value is a usage error naming the value and what is allowed (``argparse`` prefixes the
option), raised while parsing, before any slow work starts.
"""

from __future__ import annotations

import argparse

from agents.bots.base import MAX_SEED


def _integer(text: str, low: int, high: int | None, wanted: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (counts of games, updates, states, worlds …)."""
    return _integer(text, 1, None, "a positive integer (1 or more)")


def non_negative_int(text: str) -> int:
    """An integer >= 0, for counts where 0 means "skip"."""
    return _integer(text, 0, None, "an integer >= 0")


def seed_int(text: str) -> int:
    """A seed in the range the agents and configs accept."""
    return _integer(text, 0, MAX_SEED, f"an integer from 0 to {MAX_SEED}")


def port_int(text: str) -> int:
    """A TCP port, 0 for one the system picks."""
    return _integer(text, 0, 65535, "a port from 0 to 65535")


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (a delay in seconds; 0 for none)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A number > 0 (seconds to measure for)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except ``None`` and ``False``: their help says what
    leaving the option out means, and "(default: None)" would only confuse."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)
