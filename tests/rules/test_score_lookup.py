"""The lookup scorer the kernel calls at every turn's end gives the yaku table's totals:
for every rule variant that changes the table's shape, both tables (before and after a
koi-koi call) and Hana-awase's table, on piles of every size."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.hanaawase.scoring import hanaawase_yaku_table
from hanafuda_env.koikoi.rules import KOIKOI_JAPAN, NINTENDO, TEN_BASE, RuleSet
from hanafuda_env.koikoi.score_lookup import (
    MAX_GROUP_ENTRIES,
    group_atoms,
    lookup_totals,
    merged_groups,
    pack_lookup,
    yaku_groups,
)
from hanafuda_env.koikoi.scoring import Yaku, score_pile, yaku_table


def _variants() -> list[RuleSet]:
    rules = [NINTENDO, TEN_BASE, KOIKOI_JAPAN]
    for combined, animals, ribbons, chaff in itertools.product(
            ("combined-10", "combined-15", "combined-plus-each", "separate"), (False, True),
            (False, True), (False, True)):
        rules.append(NINTENDO.replace(
            akatan_aotan=combined, tane_with_ino_shika_cho=animals,
            tan_with_poetry_ribbons=ribbons, sake_cup_is_chaff=chaff,
            rain_washes_sake=animals != ribbons, hanami_tsukimi=combined != "separate" or chaff,
            sake_after_koikoi=3 if chaff else None))
    return rules


VARIANTS = _variants()


def _piles(n: int, seed: int) -> np.ndarray:
    """Piles of every size, yaku cards drawn more often so that every yaku appears."""
    rng = np.random.default_rng(seed)
    weight = np.ones(48)
    weight[[*C.ids_of(C.BRIGHTS), *C.ids_of(C.ANIMALS), *C.ids_of(C.RIBBONS)]] = 4.0
    weight /= weight.sum()
    piles = np.zeros(n, dtype=np.uint64)
    for i, size in enumerate(rng.integers(0, 49, size=n)):
        piles[i] = C.mask_of(rng.choice(48, size=int(size), replace=False, p=weight).tolist())
    return piles


PILES = _piles(3000, 2026)


def _check(tables: tuple[tuple[Yaku, ...], ...]) -> None:
    lookup = pack_lookup(tables)
    out = np.zeros(len(PILES), dtype=np.int64)
    for t, table in enumerate(tables):
        lookup_totals(PILES, t, lookup, out)
        expected = [sum(score_pile(int(p), table).values()) for p in PILES]
        assert out.tolist() == expected


@pytest.mark.parametrize("rules", VARIANTS, ids=[f"variant{i}" for i in range(len(VARIANTS))])
def test_lookup_totals_equal_the_yaku_table(rules: RuleSet) -> None:
    _check((yaku_table(rules, False), yaku_table(rules, True)))


@pytest.mark.parametrize("nagashi", [False, True])
def test_lookup_totals_equal_hanaawase_table(nagashi: bool) -> None:
    rules = HanaawaseRules(yaku_nagashi=nagashi)
    _check((hanaawase_yaku_table(rules),))


def test_every_yaku_table_that_can_be_built_is_exact_on_its_extremes() -> None:
    full, empty = np.uint64((1 << 48) - 1), np.uint64(0)
    for rules in VARIANTS:
        tables = (yaku_table(rules, False), yaku_table(rules, True))
        lookup = pack_lookup(tables)
        out = np.zeros(2, dtype=np.int64)
        for t, table in enumerate(tables):
            lookup_totals(np.array([full, empty]), t, lookup, out)
            assert out.tolist() == [sum(score_pile(int(full), table).values()), 0]


@pytest.mark.parametrize("rules", VARIANTS[:6])
def test_groups_are_closed_under_exclusion_and_cover_every_yaku(rules: RuleSet) -> None:
    table = yaku_table(rules)
    names = [y.name for y in table]
    groups = yaku_groups(table)
    assert sorted(i for g in groups for i in g) == list(range(len(table)))
    group_of = {i: k for k, g in enumerate(groups) for i in g}
    for i, y in enumerate(table):
        for other in y.excluded_by:
            if other in names:
                assert group_of[names.index(other)] == group_of[i]
    for members, atoms in merged_groups(table):
        assert np.prod([a.bit_count() + 1 for a in atoms]) <= MAX_GROUP_ENTRIES
        covered = 0
        for atom in atoms:
            assert atom & covered == 0  # atoms are disjoint
            covered |= atom
        read = 0
        for i in members:
            read |= table[i].extra_mask | table[i].forbidden
            for mask, _ in table[i].conditions:
                read |= mask
        assert covered == read


def test_atoms_split_the_ribbons_by_the_masks_that_read_them() -> None:
    table = yaku_table(NINTENDO)
    ribbons = [i for i, y in enumerate(table) if y.name in ("akatan_aotan", "akatan", "aotan",
                                                            "tan")]
    atoms = group_atoms(table, ribbons)
    assert sorted(atoms) == sorted([C.RED_POETRY_RIBBONS, C.BLUE_RIBBONS,
                                    C.RIBBONS & ~C.POETRY_RIBBONS])
