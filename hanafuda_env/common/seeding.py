"""Seeds: one integer gives every game its own random stream, and seed values are checked.

A core's game ``i`` seeded with ``seed`` plays the stream ``game_seeds(seed, n)[i]``, which
does not depend on the batch size ``n``; the deals of a game are ``splitmix64`` hashes of
its seed and its deal count (``KoiKoiCore._shuffled_decks``), so a game can be forked,
replayed alone or stepped in any batch and deal the same cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_U64 = np.uint64
MIX1, MIX2, GOLDEN = _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB), _U64(0x9E3779B97F4A7C15)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """Counter-based hash: per-game random streams that do not depend on the batch."""
    z = np.asarray(x, dtype=_U64) + GOLDEN
    z = (z ^ (z >> _U64(30))) * MIX1
    z = (z ^ (z >> _U64(27))) * MIX2
    return z ^ (z >> _U64(31))


def game_seeds(seed: int, n_games: int) -> np.ndarray:
    """Seeds of games 0..n-1 from one integer; game i's seed does not depend on n."""
    return splitmix64(splitmix64(np.full(n_games, seed, dtype=_U64)) ^ np.arange(n_games,
                                                                                dtype=_U64))


def lone_game_seeds(seeds: Any) -> np.ndarray:
    """The game seed of each game seeded alone with ``seeds[i]``: ``game_seeds(s, 1)[0]``."""
    return splitmix64(splitmix64(np.asarray(seeds, dtype=_U64)))  # ^ index 0 is a no-op


def is_integer(value: Any) -> bool:
    """A Python or NumPy integer, not a bool (a count, a seed or an action id)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seed_value(seed: Any, what: str = "seed", allow_none: bool = False) -> int | None:
    """``seed`` as an int (or None, if allowed), else a ValueError naming the allowed range."""
    if seed is None and allow_none:
        return None
    if not is_integer(seed) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"{what} must be {'None or ' if allow_none else ''}an integer in "
                         f"0 .. 2**64 - 1, got {seed!r}")
    return int(seed)
