"""Yaku totals and hand yaku of one game in plain Python ints, from per-rule-set tables.

:class:`~hanafuda_env.game.KoiKoiGame` scores a pile after every turn; a walk over the yaku
table (``scoring.score_pile``) would dominate its step, so each rule set's yaku are turned
once into look-up tables (:func:`game_tables`) and a pile's total is a few dict/list
look-ups keyed on its relevant bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from . import cards as C
from .rules import RuleSet
from .scoring import Yaku, score_pile, yaku_table

__all__ = ["GameTables", "PileScorer", "card_mask", "game_tables", "hand_points",
           "has_full_month"]

_NIBBLE_LOW = int("1" * 12, 16)  # bit 0 of every month's nibble


def has_full_month(cards: int) -> bool:
    """A month with all four cards in the set (the redeal test of §2.1, teshi of §2.3)."""
    return (cards & cards >> 1 & cards >> 2 & cards >> 3 & _NIBBLE_LOW) != 0


def card_mask(card_ids: list[int]) -> int:
    """The 48-bit set of these card ids (``cards.mask_of`` without its int conversions)."""
    bits = 0
    for card in card_ids:
        bits |= 1 << card
    return bits


def _relevant(yaku: tuple[Yaku, ...]) -> int:
    """Cards whose presence can change the points of these yaku."""
    bits = 0
    for y in yaku:
        bits |= y.forbidden | (y.extra_mask if y.extra_points else 0)
        for mask, _ in y.conditions:
            bits |= mask
    return bits


def _subsets(mask: int):
    sub = 0
    while True:
        yield sub
        sub = (sub - mask) & mask
        if sub == 0:
            return


def _scored(pile: int, yaku: tuple[Yaku, ...]) -> tuple[int, tuple[tuple[str, int], ...]]:
    points = score_pile(pile, yaku)
    return sum(points.values()), tuple((n, p) for n, p in points.items() if p)


class PileScorer:
    """Yaku of one pile from tables; agrees with ``score_pile`` / ``BatchScorer`` exactly.

    Yaku that replace one another (``excluded_by``) form groups whose points add up. A group
    resting on few cards becomes a dict over every subset of those cards; a group whose every
    yaku counts one single card set (kasu) becomes a list indexed by that count; anything
    else falls back to ``score_pile``. The total of a pile is then a few look-ups.
    """

    SMALL = 12  # cards a subset table may rest on (4,096 entries)

    def __init__(self, table: tuple[Yaku, ...]):
        self.order = {y.name: i for i, y in enumerate(table)}
        group = dict(self.order)
        for y in table:  # join the exclusion links (a dozen yaku: plain relabelling)
            for other in y.excluded_by:
                if other in group:
                    a, b = group[y.name], group[other]
                    for key, value in group.items():
                        if value == b:
                            group[key] = a
        groups: dict[int, tuple[Yaku, ...]] = {}
        for y in table:
            groups[group[y.name]] = groups.get(group[y.name], ()) + (y,)
        merged: list[tuple[tuple[Yaku, ...], int]] = []
        self.counted: list[tuple[int, list]] = []
        self.generic: list[tuple[Yaku, ...]] = []
        for ys in groups.values():
            rel = _relevant(ys)
            if rel.bit_count() <= self.SMALL:  # merge small groups while the union stays small
                for k, (mys, mrel) in enumerate(merged):
                    if (mrel | rel).bit_count() <= self.SMALL:
                        merged[k] = (mys + ys, mrel | rel)
                        break
                else:
                    merged.append((ys, rel))
            elif all(y.forbidden == 0 and (y.extra_mask == rel or not y.extra_points)
                     and all(m == rel for m, _ in y.conditions) for y in ys):
                cards = C.ids_of(rel)
                self.counted.append((rel, [_scored(card_mask(cards[:n]), ys)
                                           for n in range(len(cards) + 1)]))
            else:
                self.generic.append(ys)
        self.lookups = [(rel, {sub: _scored(sub, ys) for sub in _subsets(rel)})
                        for ys, rel in merged]
        self.total = self._total_function()

    def _total_function(self) -> Callable[[int], int]:
        lookups = [(rel, {k: v[0] for k, v in values.items()}) for rel, values in self.lookups]
        counted = [(rel, [v[0] for v in values]) for rel, values in self.counted]
        generic = self.generic
        if len(lookups) == 3 and len(counted) == 1 and not generic:  # the presets: unrolled
            (r0, d0), (r1, d1), (r2, d2) = lookups
            (r3, c3), = counted
            return lambda p: d0[p & r0] + d1[p & r1] + d2[p & r2] + c3[(p & r3).bit_count()]

        def total(pile: int) -> int:
            points = 0
            for rel, values in lookups:
                points += values[pile & rel]
            for rel, values in counted:
                points += values[(pile & rel).bit_count()]
            for ys in generic:
                points += _scored(pile, ys)[0]
            return points

        return total

    def breakdown(self, pile: int) -> dict[str, int]:
        """Yaku name -> points (non-zero only), in the table's order."""
        items: list[tuple[str, int]] = []
        for rel, values in self.lookups:
            items += values[pile & rel][1]
        for rel, values in self.counted:
            items += values[(pile & rel).bit_count()][1]
        for ys in self.generic:
            items += _scored(pile, ys)[1]
        items.sort(key=lambda item: self.order[item[0]])
        return dict(items)


@dataclass(frozen=True)
class GameTables:
    """What a rule set fixes for the whole game, computed once (see :func:`game_tables`)."""

    names: tuple[str, ...]  # yaku names (the core's yaku_names)
    scorer: PileScorer
    called_scorer: PileScorer  # for a player who called koi-koi (raised sake yaku, §2.10)
    hand_yaku: str
    teshi: int
    kuttsuki: int


@lru_cache(maxsize=64)
def game_tables(rules: RuleSet) -> GameTables:
    table = yaku_table(rules)
    names = tuple(y.name for y in table) + ("teshi", "kuttsuki")
    scorer = PileScorer(table)
    called = scorer if rules.sake_after_koikoi is None else PileScorer(yaku_table(rules, True))
    return GameTables(names, scorer, called, rules.hand_yaku, rules.points.teshi,
                      rules.points.kuttsuki)


def hand_points(hand: int, t: GameTables) -> tuple[int, str]:
    """``scoring.hand_yaku`` for one dealt hand of 8: its points (0 if none) and name."""
    if t.hand_yaku == "none":
        return 0, ""
    teshi = t.teshi if has_full_month(hand) else 0
    kuttsuki = 0
    if t.hand_yaku == "teshi+kuttsuki":
        odd = (hand ^ hand >> 1 ^ hand >> 2 ^ hand >> 3) & _NIBBLE_LOW
        if odd == 0 and hand.bit_count() == 8:
            kuttsuki = t.kuttsuki
    if teshi <= 0 and kuttsuki <= 0:
        return 0, ""
    return (teshi, "teshi") if teshi >= kuttsuki else (kuttsuki, "kuttsuki")
