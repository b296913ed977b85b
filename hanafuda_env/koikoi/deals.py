"""What a deal is: where a 48-card order puts its cards, the reset options both engines take,
and the checks that refuse a deal or a seat the rules would not play (shared by the
vectorized core, the plain game and the envs, so both engines refuse the same input)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.common.seeding import is_integer
from hanafuda_env.koikoi.rules import RuleSet
from hanafuda_env.koikoi.scoring import month_counts

HAND_SIZE, FIELD_SIZE, STOCK_SIZE = 8, 8, 24
# Where a dealt deck order puts its cards (``reset``'s ``deck`` option, every shuffle).
DEALER_HAND, OTHER_HAND = slice(0, HAND_SIZE), slice(HAND_SIZE, 2 * HAND_SIZE)
FIELD_CARDS = slice(2 * HAND_SIZE, 2 * HAND_SIZE + FIELD_SIZE)
STOCK_CARDS = slice(FIELD_CARDS.stop, FIELD_CARDS.stop + STOCK_SIZE)

RESET_OPTIONS = ("dealer", "deck")


def ids_to_bits(card_ids: np.ndarray) -> np.ndarray:
    """(…, n) card ids → (…,) 48-bit card sets."""
    return np.bitwise_or.reduce(C.CARD_BITS[card_ids], axis=-1)


def has_full_month(field: np.ndarray) -> np.ndarray:
    """(n,) bool: the field holds all four cards of some month (a deal to redo, §2.1)."""
    return (month_counts(field) == 4).any(axis=1)


def redeal_reason(decks: np.ndarray, rules: RuleSet) -> list[str | None]:
    """Per deck (n, 48): what makes the rules deal it again — all four cards of a month on
    the field (§2.1) or, with ``redeal_hand_four``, in a hand (§2.10) — or None."""
    parts = [("field", FIELD_CARDS)]
    if rules.redeal_hand_four:
        parts += [("dealer's hand", DEALER_HAND), ("other hand", OTHER_HAND)]
    reasons: list[str | None] = [None] * len(decks)
    for where, cards in reversed(parts):
        bits = ids_to_bits(decks[:, cards])
        for g in np.flatnonzero(has_full_month(bits)):
            reasons[g] = f"all four cards of a month in the {where} ({C.describe(int(bits[g]))})"
    return reasons


def must_redeal(decks: np.ndarray, rules: RuleSet) -> np.ndarray:
    """(n,) bool: the rules deal these (n, 48) orders again (see :func:`redeal_reason`)."""
    redeal = has_full_month(ids_to_bits(decks[:, FIELD_CARDS]))
    if rules.redeal_hand_four:
        redeal |= has_full_month(ids_to_bits(decks[:, DEALER_HAND]))
        redeal |= has_full_month(ids_to_bits(decks[:, OTHER_HAND]))
    return redeal


def check_option_names(options: dict) -> None:
    """Reset options are ``dealer`` and ``deck`` in both engines; anything else is named."""
    unknown = set(options) - set(RESET_OPTIONS)
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(map(repr, sorted(unknown)))}; "
                         f"allowed: {', '.join(RESET_OPTIONS)}")


def check_orders(deck: np.ndarray | Sequence[int] | Sequence[Sequence[int]], n_games: int,
                 what: str = "deck") -> np.ndarray:
    """One 48-card order for all games or one per game, as an (n_games, 48) view, refused by
    name unless each holds every card id once."""
    deck = np.asarray(deck)
    if deck.shape not in ((C.NUM_CARDS,), (n_games, C.NUM_CARDS)):
        raise ValueError(f"{what} must have shape (48,) or ({n_games}, 48), got {deck.shape}")
    deck = np.broadcast_to(deck, (n_games, C.NUM_CARDS))
    if deck.dtype.kind not in "iu" or not (
            np.sort(deck, axis=1) == np.arange(C.NUM_CARDS)).all():
        raise ValueError(f"{what} must hold each card id 0..47 exactly once, as integers")
    return deck


def check_decks(deck: np.ndarray | Sequence[int] | Sequence[Sequence[int]], n_games: int,
                rules: RuleSet) -> np.ndarray:
    """A ``deck`` reset option (one order for all games or one per game) as (n_games, 48)
    int8 orders, refused by name unless each is a deal the rules would play."""
    deck = check_orders(deck, n_games)
    redeal = must_redeal(deck, rules)
    if redeal.any():
        g = int(np.flatnonzero(redeal)[0])
        raise ValueError(f"game {g}: the given deck puts {redeal_reason(deck[g:g + 1], rules)[0]}"
                         f"; such a deal is redealt by the rules, so give another deck")
    return deck.astype(np.int8)


def check_seat(value: object, what: str, none_ok: bool = False) -> int | None:
    """One seat, 0 or 1, as an int (True or 1.0 are refused); None too where ``none_ok``."""
    if value is None and none_ok:
        return None
    if not is_integer(value) or value not in (0, 1):
        allowed = "0, 1 or None" if none_ok else "0 or 1"
        raise ValueError(f"{what} must be {allowed}, got {value!r}")
    return int(value)


def check_seats(value: int | Sequence[int] | np.ndarray, n_games: int, what: str
                ) -> np.ndarray:
    """A seat (0 or 1) for every game, or one per game, as an (n_games,) array."""
    given = np.asarray(value)
    if given.dtype.kind not in "iu" or given.shape not in ((), (n_games,)) \
            or not np.isin(given, (0, 1)).all():
        raise ValueError(f"{what} must be 0 or 1, or a list of {n_games} of them (one per "
                         f"game), got {value!r}")
    return np.broadcast_to(given, (n_games,))
