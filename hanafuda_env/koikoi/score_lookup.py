"""A yaku table compiled into lookup tables: a pile's yaku total from a few popcounts and loads.

A yaku reads its pile only through card counts (``Yaku.conditions``, ``extra_mask``,
``forbidden``), and a yaku that replaces another reads the same kind of counts. So the yaku
split into *groups* closed under ``excluded_by``, and a group's points are a function of the
counts of its *atoms*: the cells of the Venn diagram of the masks its yaku read (the poetry
ribbons' group reads red poetry, blue and other ribbons as three atoms, whatever masks the
table names). A group's table holds its points for every combination of atom counts (its
key is their mixed-radix number), filled by scoring one pile per entry with
:func:`~hanafuda_env.koikoi.scoring.score_pile`, so the tables are exact by construction.
Groups are merged while the joint table stays small, which saves loads (the ribbons' yaku
share their atoms).

:func:`lookup_total` is the compiled scorer the kernel calls at every turn's end: about ten
popcounts against the thirteen yaku's forty-odd conditions and branches of the table's
per-yaku breakdown (``kernel.pile_breakdown``, which result rows use). Both tables of a rule set
(before and after a koi-koi call) are packed into one ``int64`` array, laid out as
:func:`pack_lookup` documents.
"""

from __future__ import annotations

from itertools import product

import numpy as np
from numba import njit

from hanafuda_env.common.bits import U64, popcount
from hanafuda_env.koikoi.scoring import Yaku, score_pile

MAX_GROUP_ENTRIES = 1024  # groups are merged while their joint table stays this small
HEADER = 4  # n_groups, n_atoms, start of the points, entries per table


def yaku_groups(table: tuple[Yaku, ...]) -> list[list[int]]:
    """The yaku (indices into ``table``) in groups closed under ``excluded_by``."""
    names = [y.name for y in table]
    group = list(range(len(table)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, y in enumerate(table):
        for name in y.excluded_by:
            if name in names:
                group[root(names.index(name))] = root(i)
    members: dict[int, list[int]] = {}
    for i in range(len(table)):
        members.setdefault(root(i), []).append(i)
    return list(members.values())


def group_atoms(table: tuple[Yaku, ...], members: list[int]) -> list[int]:
    """The atoms of a group: the cards its yaku read, split by which of their masks hold
    them (ascending by lowest card)."""
    masks = [m for i in members for m in (*(c for c, _ in table[i].conditions),
                                          table[i].extra_mask, table[i].forbidden) if m]
    cells: dict[tuple[bool, ...], int] = {}
    for card in range(48):
        bit = 1 << card
        signature = tuple(bool(m & bit) for m in masks)
        if any(signature):
            cells[signature] = cells.get(signature, 0) | bit
    return sorted(cells.values(), key=lambda atom: atom & -atom)


def _entries(atoms: list[int]) -> int:
    return int(np.prod([atom.bit_count() + 1 for atom in atoms]))


def merged_groups(table: tuple[Yaku, ...]) -> list[tuple[list[int], list[int]]]:
    """``(members, atoms)`` per group, after merging the pairs whose joint table is
    smallest while it holds at most :data:`MAX_GROUP_ENTRIES` entries."""
    groups = [(m, group_atoms(table, m)) for m in yaku_groups(table)]
    while len(groups) > 1:
        best = None
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                members = groups[i][0] + groups[j][0]
                atoms = group_atoms(table, members)
                size = _entries(atoms)
                if size <= MAX_GROUP_ENTRIES and (best is None or size < best[0]):
                    best = (size, i, j, members, atoms)
        if best is None:
            break
        _, i, j, members, atoms = best
        groups = [g for k, g in enumerate(groups) if k not in (i, j)] + [(sorted(members),
                                                                           atoms)]
    return groups


def _group_points(table: tuple[Yaku, ...], members: list[int], atoms: list[int]) -> np.ndarray:
    """The group's points for every atom-count combination; the first atom varies fastest."""
    subset = tuple(table[i] for i in members)
    cards = [[c for c in range(48) if atom >> c & 1] for atom in atoms]
    ranges = [range(len(c) + 1) for c in reversed(cards)]
    points = []
    for counts in product(*ranges):  # the last atom's count varies slowest
        pile = 0
        for atom_cards, k in zip(cards, reversed(counts)):
            for c in atom_cards[:k]:
                pile |= 1 << c
        points.append(sum(score_pile(pile, subset).values()))
    return np.array(points, dtype=np.int64)


def pack_lookup(tables: tuple[tuple[Yaku, ...], ...]) -> np.ndarray:
    """Yaku tables with the same names (a rule set's, before and after a call) as one
    ``int64`` array: ``[n_groups, n_atoms, points_start, entries_per_table]``, then per
    group ``(end of its atoms, offset of its table)``, per atom ``(mask, stride)``, then
    the points of every group's table, one block per yaku table."""
    groups = merged_groups(tables[0])
    header, atom_rows, blocks = [], [], [[] for _ in tables]
    offset = n_atoms = 0
    for members, atoms in groups:
        stride = 1
        for atom in atoms:
            atom_rows += [atom, stride]
            stride *= atom.bit_count() + 1
        n_atoms += len(atoms)
        header += [n_atoms, offset]
        for block, table in zip(blocks, tables):
            block.append(_group_points(table, members, atoms))
        offset += stride
    start = HEADER + len(header) + len(atom_rows)
    points = np.concatenate([np.concatenate(block) for block in blocks])
    return np.concatenate([np.array([len(groups), n_atoms, start, offset] + header + atom_rows,
                                    dtype=np.int64), points])


@njit(cache=True, inline="always")
def lookup_total(pile, table, lookup) -> np.int64:
    """Yaku total of a pile under yaku table 0 (no call) or 1 (called koi-koi). The indices
    are unsigned so that no load pays for a negative-index check."""
    n_groups = U64(lookup[0])
    atoms = U64(HEADER) + U64(2) * n_groups
    points = U64(lookup[2] + table * lookup[3])
    total = 0
    a = U64(0)
    for g in range(n_groups):
        group = U64(HEADER) + U64(2) * U64(g)
        key = points + U64(lookup[group + U64(1)])
        end = U64(lookup[group])
        while a < end:
            atom = atoms + U64(2) * a
            key += U64(popcount(pile & U64(lookup[atom]))) * U64(lookup[atom + U64(1)])
            a += U64(1)
        total += lookup[key]
    return total


@njit(cache=True)
def lookup_totals(piles, table, lookup, out) -> None:
    """:func:`lookup_total` of every pile of an array (uint64) into ``out`` (int64)."""
    for i in range(piles.shape[0]):
        out[i] = lookup_total(piles[i], table, lookup)
