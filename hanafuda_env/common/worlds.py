"""Worlds a player cannot tell apart, for search by determinisation: the cards that player
cannot see (the other hand and the undrawn stock) dealt anew, batched over games on the
core's arrays (hands as 48-bit sets, the stock as card ids, top first). Used by
:meth:`KoiKoiCore.resample_hidden <hanafuda_env.koikoi.core.KoiKoiCore.resample_hidden>` and
:meth:`~hanafuda_env.koikoi.core.KoiKoiCore.shuffle_stock`."""

from __future__ import annotations

import numpy as np

from hanafuda_env.common import cards as C

ZERO, ONE = np.uint64(0), np.uint64(1)
_CARD_SHIFTS = np.arange(C.NUM_CARDS, dtype=np.uint64)


def undrawn_slots(stock: np.ndarray, stock_pos: np.ndarray) -> np.ndarray:
    """(k, stock size) bool: the stock slots still to be drawn."""
    return np.arange(stock.shape[1]) >= stock_pos[:, None]


def deal_hidden(hand: np.ndarray, stock: np.ndarray, stock_pos: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(hand, stock)`` with the cards of ``hand`` and of the undrawn stock shuffled among
    themselves, sizes kept, every arrangement equally likely; drawn slots stay."""
    undrawn = undrawn_slots(stock, stock_pos)
    stock_bits = np.bitwise_or.reduce(np.where(undrawn, C.CARD_BITS[stock], ZERO), axis=1)
    hidden = (((hand | stock_bits)[:, None] >> _CARD_SHIFTS) & ONE).astype(bool)  # (k, 48)
    # the hidden cards in a random order, first in each row (the seen ones sort last)
    shuffled = np.argsort(np.where(hidden, rng.random(hidden.shape), 2.0), axis=1)
    n_hand = np.bitwise_count(hand).astype(np.intp)
    to_hand = np.arange(C.NUM_CARDS) < n_hand[:, None]
    new_hand = np.bitwise_or.reduce(np.where(to_hand, C.CARD_BITS[shuffled], ZERO), axis=1)
    # undrawn slot j takes the (j - stock_pos)-th hidden card after the hand's
    source = np.clip(n_hand[:, None] + np.arange(stock.shape[1]) - stock_pos[:, None], 0,
                     C.NUM_CARDS - 1)
    new_stock = np.where(undrawn, np.take_along_axis(shuffled, source, axis=1), stock)
    return new_hand, new_stock.astype(stock.dtype)


def shuffle_undrawn(stock: np.ndarray, stock_pos: np.ndarray, rng: np.random.Generator
                    ) -> np.ndarray:
    """``stock`` with its undrawn slots in a random order (drawn slots stay)."""
    undrawn = undrawn_slots(stock, stock_pos)
    # drawn slots keep their place (keys below 0, in order); undrawn ones sort at random
    keys = np.where(undrawn, rng.random(undrawn.shape), np.arange(stock.shape[1]) - 1e9)
    return np.take_along_axis(stock, np.argsort(keys, axis=1), axis=1)
