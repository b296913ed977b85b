"""Yaku scoring as a table (RULES.md §2.3, §2.5, §2.9).

A yaku is data: the card counts it needs (``conditions``), the cards whose presence cancels
it (``forbidden``), the yaku that replace it (``excluded_by``), its base points and the
points each further card adds. :func:`yaku_table` builds the Koi-Koi table of a rule set;
the same machinery would score any game whose yaku are card-count patterns (Hana-awase,
RULES.md §3, has no table yet).

Three scorers read one table: :func:`score_yaku` (one pile, plain Python, a name → points
dict), :class:`BatchScorer` (uint64 piles in a NumPy batch, totals or a breakdown, for agents
and analysis) and the engine's compiled scorer (``kernel.compile_rules`` turns the table into
the mask and count arrays that ``kernel.pile_breakdown`` reads, and
``score_lookup.pack_lookup`` into the tables of a pile's total at every turn's end).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.rules import RuleSet, resolve_rules


@dataclass(frozen=True)
class Yaku:
    name: str
    points: int
    conditions: tuple[tuple[int, int], ...]  # (card mask, at least this many of them)
    extra_mask: int = 0  # each card of this set beyond ``extra_over`` adds ``extra_points``
    extra_over: int = 0
    extra_points: int = 0
    excluded_by: tuple[str, ...] = ()  # yaku that replace this one when they stand
    forbidden: int = 0  # holding any of these cards cancels the yaku


YAKU_NAMES = (
    "goko", "shiko", "ame_shiko", "sanko", "ino_shika_cho", "akatan_aotan", "akatan",
    "aotan", "hanami_zake", "tsukimi_zake", "tane", "tan", "kasu",
)  # fmt: skip

NON_RAIN_BRIGHTS = C.BRIGHTS & ~C.RAIN_MAN


@lru_cache(maxsize=128)
def yaku_table(rules: RuleSet, called: bool = False) -> tuple[Yaku, ...]:
    """The Koi-Koi yaku of a rule set, in the fixed order of ``YAKU_NAMES`` (absent omitted),
    for a player who has (``called``) or has not called koi-koi in the round: only
    ``sake_after_koikoi`` tells the two apart."""
    p = rules.points
    extra = p.extra_card
    chaff = C.CHAFF_CARDS | (C.SAKE_CUP if rules.sake_cup_is_chaff else 0)
    # A yaku's further cards add points unless a count yaku beside it counts them (§2.10).
    animal_extra = 0 if rules.tane_with_ino_shika_cho else extra
    ribbon_extra = 0 if rules.tan_with_poetry_ribbons else extra
    table = [
        Yaku("goko", p.goko, ((C.BRIGHTS, 5),)),
        Yaku("shiko", p.shiko, ((NON_RAIN_BRIGHTS, 4),), excluded_by=("goko",)),
        Yaku("ame_shiko", p.ame_shiko, ((C.BRIGHTS, 4), (C.RAIN_MAN, 1)),
             excluded_by=("goko",)),
        Yaku("sanko", p.sanko, ((NON_RAIN_BRIGHTS, 3),),
             excluded_by=("goko", "shiko", "ame_shiko")),
        Yaku("ino_shika_cho", p.ino_shika_cho, ((C.INO_SHIKA_CHO, 3),), C.ANIMALS, 3,
             animal_extra),
    ]
    combined = rules.akatan_aotan != "separate"
    if combined:
        table.append(Yaku("akatan_aotan", rules.combined_ribbon_points,
                          ((C.POETRY_RIBBONS, 6),), C.RIBBONS, 6, ribbon_extra))
    replaced = ("akatan_aotan",) if rules.akatan_aotan in ("combined-10", "combined-15") else ()
    table += [
        Yaku("akatan", p.akatan, ((C.RED_POETRY_RIBBONS, 3),), C.RIBBONS, 3, ribbon_extra,
             excluded_by=replaced),
        Yaku("aotan", p.aotan, ((C.BLUE_RIBBONS, 3),), C.RIBBONS, 3, ribbon_extra,
             excluded_by=replaced),
    ]
    if rules.hanami_tsukimi:
        washed = C.RAIN_MAN if rules.rain_washes_sake else 0
        raised = called and rules.sake_after_koikoi is not None
        hanami = rules.sake_after_koikoi if raised else p.hanami_zake
        tsukimi = rules.sake_after_koikoi if raised else p.tsukimi_zake
        table += [
            Yaku("hanami_zake", hanami, ((C.CURTAIN, 1), (C.SAKE_CUP, 1)), forbidden=washed),
            Yaku("tsukimi_zake", tsukimi, ((C.MOON, 1), (C.SAKE_CUP, 1)), forbidden=washed),
        ]
    beside_animals = () if rules.tane_with_ino_shika_cho else ("ino_shika_cho",)
    beside_ribbons = () if rules.tan_with_poetry_ribbons else ("akatan", "aotan",
                                                                "akatan_aotan")
    table += [
        Yaku("tane", p.tane, ((C.ANIMALS, 5),), C.ANIMALS, 5, extra, excluded_by=beside_animals),
        Yaku("tan", p.tan, ((C.RIBBONS, 5),), C.RIBBONS, 5, extra, excluded_by=beside_ribbons),
        Yaku("kasu", p.kasu, ((chaff, 10),), chaff, 10, extra),
    ]
    return tuple(table)


def _stands(yaku: Yaku, pile: int) -> bool:
    return (pile & yaku.forbidden) == 0 and all(
        (pile & mask).bit_count() >= needed for mask, needed in yaku.conditions
    )


def score_pile(pile: int, table: tuple[Yaku, ...]) -> dict[str, int]:
    """Yaku name → points for one pile given as a 48-bit set, after every exclusion."""
    standing = {y.name for y in table if _stands(y, pile)}
    result = {}
    for y in table:
        if y.name in standing and not standing.intersection(y.excluded_by):
            extra_cards = max(0, (pile & y.extra_mask).bit_count() - y.extra_over)
            result[y.name] = y.points + y.extra_points * extra_cards
    return result


def score_yaku(card_ids: Iterable[int], rules: RuleSet | str | None = None,
               called: bool = False) -> dict[str, int]:
    """Yaku name → points for one capture pile, following RULES.md §2.3 and the variants;
    ``called``: its holder has called koi-koi in the round."""
    return score_pile(C.mask_of(card_ids), yaku_table(resolve_rules(rules), called))


def yaku_total(card_ids: Iterable[int], rules: RuleSet | str | None = None,
               called: bool = False) -> int:
    return sum(score_yaku(card_ids, rules, called).values())


class BatchScorer:
    """Vectorized scoring of many piles with one yaku table.

    Each distinct card mask of the table is counted once per pile (``bitwise_count``, rows
    laid out mask-major so every row is contiguous); each yaku is then a handful of
    whole-batch comparisons. This sits in the core's hot path (every turn end).
    """

    def __init__(self, table: tuple[Yaku, ...]):
        self.table = table
        self.names = tuple(y.name for y in table)
        masks: list[int] = []

        def slot(mask: int) -> int:
            if mask not in masks:
                masks.append(mask)
            return masks.index(mask)

        index = {name: i for i, name in enumerate(self.names)}
        # per yaku: (conditions as (slot, needed), extra slot, forbidden, excluder indices)
        self._plan = [
            (tuple((slot(m), n) for m, n in y.conditions), slot(y.extra_mask),
             np.uint64(y.forbidden), tuple(index[e] for e in y.excluded_by if e in index))
            for y in table
        ]
        self._masks = np.array(masks, dtype=np.uint64)[:, None]

    def _columns(self, piles: np.ndarray) -> list[np.ndarray]:
        flat = np.asarray(piles, dtype=np.uint64).reshape(-1)
        counts = np.bitwise_count(self._masks & flat).astype(np.int16)  # (masks, n)
        stands = []
        for conditions, _, forbidden, _ in self._plan:
            ok = counts[conditions[0][0]] >= conditions[0][1]
            for s, needed in conditions[1:]:
                ok &= counts[s] >= needed
            if forbidden:
                ok &= (flat & forbidden) == 0
            stands.append(ok)
        columns = []
        for y, ok, (_, extra_slot, _, excluders) in zip(self.table, stands, self._plan):
            for e in excluders:
                ok = ok & ~stands[e]
            points = y.points
            if y.extra_points:
                points = points + y.extra_points * np.maximum(counts[extra_slot] - y.extra_over, 0)
            columns.append(np.where(ok, points, 0).astype(np.int32))
        return columns

    def breakdown(self, piles: np.ndarray) -> np.ndarray:
        """(…,) uint64 piles → (…, n_yaku) int32 points per yaku in ``self.names`` order."""
        shape = np.shape(piles)
        return np.stack(self._columns(piles), axis=-1).reshape(*shape, len(self.table))

    def totals(self, piles: np.ndarray) -> np.ndarray:
        """(…,) uint64 piles → (…,) int32 yaku totals."""
        columns = self._columns(piles)
        total = columns[0].copy()
        for column in columns[1:]:
            total += column
        return total.reshape(np.shape(piles))


@lru_cache(maxsize=128)
def batch_scorer(rules: RuleSet, called: bool = False) -> BatchScorer:
    return BatchScorer(yaku_table(rules, called))


class PileTotals:
    """Yaku totals and breakdowns of a rule set's piles, each scored by the table of whether
    its holder has called koi-koi (one table, and one pass, unless ``sake_after_koikoi``)."""

    def __init__(self, rules: RuleSet):
        self.plain = batch_scorer(rules)
        self.after_call = (batch_scorer(rules, True) if rules.sake_after_koikoi is not None
                           else None)
        self.names = self.plain.names

    def totals(self, piles: np.ndarray, called: np.ndarray | bool = False) -> np.ndarray:
        if self.after_call is None:
            return self.plain.totals(piles)
        return np.where(called, self.after_call.totals(piles), self.plain.totals(piles))

    def breakdown(self, piles: np.ndarray, called: np.ndarray | bool = False) -> np.ndarray:
        if self.after_call is None:
            return self.plain.breakdown(piles)
        return np.where(np.asarray(called)[..., None], self.after_call.breakdown(piles),
                        self.plain.breakdown(piles))


SEVEN_POINTS = 7  # §2.5: a base of 7 or more doubles (with ``seven_point_doubling``)
CALL_BONUS_LIMIT = 3  # §2.10: up to three own calls add a point each; from four they multiply


def round_score(total: int | np.ndarray, loser_called_koikoi: bool | np.ndarray,
                rules: RuleSet, winner_calls: int | np.ndarray = 0
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(base, multiplier)`` of a win with this yaku total (§2.5, §2.10); the round pays
    their product. The base is the total, plus the winner's own calls where
    ``own_koikoi_bonus`` adds up to three; the multiplier holds the doublings and, from four
    own calls, their count minus 2."""
    total = np.asarray(total, dtype=np.int32)
    factor = np.where((total >= SEVEN_POINTS) & rules.seven_point_doubling, 2, 1)
    factor = np.where(loser_called_koikoi, factor * rules.koikoi_multiplier, factor)
    base = total
    if rules.own_koikoi_bonus:
        calls = np.asarray(winner_calls, dtype=np.int32)
        many = calls > CALL_BONUS_LIMIT
        base = np.where(many, total, total + calls)
        factor = np.where(many, factor * (calls - 2), factor)
    return base.astype(np.int32), np.asarray(factor, dtype=np.int32)


def round_points(base: int | np.ndarray, loser_called_koikoi: bool | np.ndarray,
                 rules: RuleSet, winner_calls: int | np.ndarray = 0) -> int | np.ndarray:
    """Round score of the winner from its yaku total (:func:`round_score`'s product);
    scalars or arrays."""
    base, factor = round_score(base, loser_called_koikoi, rules, winner_calls)
    score = base * factor
    return score if score.ndim else int(score)


def round_multiplier(base: int | np.ndarray, loser_called_koikoi: bool | np.ndarray,
                     rules: RuleSet, winner_calls: int | np.ndarray = 0) -> int | np.ndarray:
    """The factor a win's base is multiplied by (:func:`round_score`), for result records."""
    factor = round_score(base, loser_called_koikoi, rules, winner_calls)[1]
    return factor if factor.ndim else int(factor)


_MONTH_SHIFTS = np.arange(0, 48, 4, dtype=np.uint64)


def month_counts(hands: np.ndarray) -> np.ndarray:
    """(…,) uint64 sets → (…, 12) cards per month."""
    hands = np.asarray(hands, dtype=np.uint64)
    return np.bitwise_count((hands[..., None] >> _MONTH_SHIFTS) & np.uint64(0xF))


def hand_yaku_points(hands: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Points of the dealt hand's hand yaku (teshi, kuttsuki), 0 if none (§2.3)."""
    return hand_yaku(hands, rules)[0]


def hand_yaku(hands: np.ndarray, rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """``(points, is_teshi)`` of each dealt hand's hand yaku (§2.3); points 0 if none.

    Decision (RULES.md): a hand that is both teshi and kuttsuki scores once; four pairs
    means every month in the hand holds an even count (a four-of-a-month is two pairs). With
    custom points it scores as the one worth more (teshi on a tie): ``teshi: 0`` switches
    teshi off, not a kuttsuki that happens to hold a four-of-a-month.
    """
    per_month = month_counts(hands)
    zero = np.zeros(per_month.shape[:-1], dtype=np.int32)
    if rules.hand_yaku == "none":
        return zero, zero.astype(bool)
    teshi = np.where((per_month == 4).any(axis=-1), rules.points.teshi, zero)
    kuttsuki = zero
    if rules.hand_yaku == "teshi+kuttsuki":
        pairs = ((per_month % 2) == 0).all(axis=-1) & (per_month.sum(axis=-1) == 8)
        kuttsuki = np.where(pairs, rules.points.kuttsuki, zero)
    return np.maximum(teshi, kuttsuki), teshi >= kuttsuki
