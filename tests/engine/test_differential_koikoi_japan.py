"""The KoiKoi-Japan options (RULES.md §2.10) against the plain reference beyond the random
play of test_differential.py (which plays each option alone and the preset): winners with
four calls or more, and the scoring of random piles by both yaku tables (before and after a
koi-koi call)."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.rules import RuleSet
from hanafuda_env.koikoi.scoring import PileTotals, score_yaku
from tests.engine.test_differential import KOIKOI_JAPAN_VARIANTS, run_against_reference
from tests.reference import to_mask, yaku_points


def test_four_and_more_own_calls_multiply_as_in_the_reference() -> None:
    """Koi-koi at every decision: winners with four calls or more (rare in random play)."""
    coverage = run_against_reference(RuleSet.from_dict({"preset": "koikoi-japan"}), seed=11,
                                     n_games=64, n_steps=400, koikoi_bias=1.0)
    assert coverage["own_call_multiplier"], coverage


@pytest.mark.parametrize("changes", [v[1] for v in KOIKOI_JAPAN_VARIANTS[:5]],
                         ids=[v[0] for v in KOIKOI_JAPAN_VARIANTS[:5]])
def test_scoring_matches_reference_before_and_after_a_call(changes: dict) -> None:
    rules = RuleSet.from_dict(changes)
    rng = np.random.default_rng(5)
    special = np.array(sorted(C.ids_of(C.BRIGHTS | C.POETRY_RIBBONS | C.INO_SHIKA_CHO
                                       | C.SAKE_CUP | C.ANIMALS | C.RIBBONS)))
    piles = []
    for _ in range(2000):
        pile = set(rng.choice(special, rng.integers(0, len(special) + 1), replace=False).tolist())
        pile |= set(rng.choice(48, rng.integers(0, 20), replace=False).tolist())
        piles.append(pile)
    masks = np.array([to_mask(p) for p in piles], dtype=np.uint64)
    scorer = PileTotals(rules)
    for called in (False, True):
        flags = np.full(len(piles), called)
        totals, breakdown = scorer.totals(masks, flags), scorer.breakdown(masks, flags)
        for k, pile in enumerate(piles):
            mine = yaku_points(pile, rules, called)
            from_table = {n: int(p) for n, p in zip(scorer.names, breakdown[k]) if p}
            assert from_table == mine, f"pile {sorted(pile)}, called {called}"
            assert {n: p for n, p in score_yaku(pile, rules, called).items() if p} == mine
            assert int(totals[k]) == sum(mine.values())
