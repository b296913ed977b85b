"""Behaviour of the small data modules (results tables, cards, seeding) that a third mutation
audit found unpinned: records() copies every column faithfully, empty tables keep their
shapes, card-set helpers and seed checks."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env import cards as C
from hanafuda_env.core import KoiKoiCore
from hanafuda_env.results import END_NAMES, MatchResults, RoundResults
from hanafuda_env.seeding import check_seed_value


def _random_rounds(n_games: int = 32, steps: int = 150) -> RoundResults:
    """Every round finished by seeded random play in a batch of games."""
    core = KoiKoiCore(n_games, seed=0)
    core.reset(seed=0)
    rng = np.random.default_rng(0)
    parts = []
    for _ in range(steps):
        mask = core.legal_action_mask()
        out = core.step(np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1))
        if len(out.rounds):
            parts.append(out.rounds)
    return RoundResults.concat(parts, parts[0].yaku_names)


def test_records_copy_every_column_of_their_row() -> None:
    """records() rows hold the table's own values: base (before multipliers) apart from
    points, each seat's koi-koi calls in seat order, the turns played, and only the yaku
    that scored."""
    rounds = _random_rounds()
    records = rounds.records()
    assert len(records) == len(rounds) > 100
    # the sample exercises what could be confused
    assert (rounds.base != rounds.points).any()
    assert (rounds.koikoi_calls[:, 0] != rounds.koikoi_calls[:, 1]).any()
    assert (rounds.turns != rounds.round_index).any()
    assert (rounds.yaku == 0).any()
    for k, row in enumerate(records):
        assert row["game"] == rounds.game[k] and row["round_index"] == rounds.round_index[k]
        assert row["dealer"] == rounds.dealer[k] and row["winner"] == rounds.winner[k]
        assert row["base"] == rounds.base[k] and row["points"] == rounds.points[k]
        assert row["multiplier"] == rounds.multiplier[k]
        assert row["reward"] == rounds.reward[k].tolist()
        assert row["koikoi_calls"] == rounds.koikoi_calls[k].tolist()
        assert row["reason"] == END_NAMES[rounds.reason[k]]
        assert row["turns"] == rounds.turns[k]
        expected = {name: int(p) for name, p in zip(rounds.yaku_names, rounds.yaku[k]) if p}
        assert row["yaku"] == expected
        assert all(points > 0 for points in row["yaku"].values())


def test_empty_tables_keep_their_shapes() -> None:
    """Tables with no rows still have (0, 2) per-seat columns, so code can index them."""
    matches = MatchResults.concat([])
    assert matches.scores.shape == (0, 2) and len(matches.game) == 0
    rounds = RoundResults.empty(("a", "b", "c"))
    assert rounds.reward.shape == (0, 2) and rounds.koikoi_calls.shape == (0, 2)
    assert rounds.yaku.shape == (0, 3) and rounds.piles.shape == (0, 2)
    assert len(rounds) == 0 and rounds.records() == []


def test_mask_of_is_a_set_union() -> None:
    """mask_of holds each given card once, however often it is named."""
    assert C.mask_of([1, 1, 2]) == 0b110
    assert C.mask_of([0, 0, 0]) == 1
    assert C.mask_of([]) == 0
    assert C.ids_of(C.mask_of([47, 3, 3])) == [3, 47]


def test_describe_names_an_empty_set_with_a_dash() -> None:
    """An empty card set reads as "-" (never an empty string)."""
    assert C.describe(0) == "-"
    assert C.describe(C.mask_of([0, 47])) == "pine crane, paulownia chaff"


def test_seed_checks_refuse_none_unless_allowed() -> None:
    """None is a seed only where the caller allows it; a list of game seeds may not hold
    None."""
    with pytest.raises(ValueError, match="must be an integer"):
        check_seed_value(None)
    assert check_seed_value(None, allow_none=True) is None
    with pytest.raises(ValueError, match="every seed of the list"):
        KoiKoiCore(2).reset(seed=[1, None])
