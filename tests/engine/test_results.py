"""The result tables of rounds and matches: ``records()`` copies every column faithfully, and
empty tables keep their per-seat shapes."""

from __future__ import annotations

import numpy as np

from hanafuda_env.common.results import END_NAMES, MatchResults, RoundResults
from hanafuda_env.koikoi.core import KoiKoiCore


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
