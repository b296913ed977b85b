"""Game and seat indices checked before the compiled kernel sees them.

The kernel reads its arrays without bounds checks (that is what keeps it fast), so an index
past the batch reads or writes memory that is not a game's, and a negative one quietly
means a game from the end. Every public method that takes an index passes it through
:func:`check_index` first: an integer (not a bool or a float) in ``0..size - 1``.
"""

from __future__ import annotations

from typing import Any

from hanafuda_env.common.seeding import is_integer

__all__ = ["check_index", "check_optional_seat"]


def check_index(value: Any, size: int, what: str = "game") -> int:
    """``value`` as an int in ``0..size - 1``; a TypeError for a non-integer (a bool, a
    float, a string) and an IndexError for one out of range, both naming the range."""
    if value.__class__ is int and 0 <= value < size:
        return value
    allowed = f"0..{size - 1}" if size > 1 else "0"
    if not is_integer(value):
        raise TypeError(f"{what} must be an integer index in {allowed}, got {value!r} "
                        f"({type(value).__name__})")
    if not 0 <= int(value) < size:
        raise IndexError(f"{what} {int(value)} is out of range: allowed {allowed}")
    return int(value)


def check_optional_seat(value: Any, seats: int, what: str = "viewer") -> int | None:
    """None (no one in particular) or a seat index in ``0..seats - 1``."""
    return None if value is None else check_index(value, seats, what)
