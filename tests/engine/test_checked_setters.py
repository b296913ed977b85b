"""The one-game engine's state attributes check what is assigned as a loaded state is
checked: a value no game holds is a StateError naming the field, and the game keeps its
state; a value the game could hold is written."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.state import StateError


@pytest.mark.parametrize(("field", "value", "words"), [
    ("hands", [2**60, 0], "bits beyond the 48 cards"),
    ("hands", [2**70, 0], "must hold integers"),
    ("hands", [1, 2, 3], "shape"),
    ("phase", 9, "must be 0..5"),
    ("phase", 1.0, "must hold integers"),
    ("mover", True, "must hold integers"),
    ("stock_pos", -1, "must be 0..24"),
    ("yaku_total", [-1, 0], "must not be negative"),
    ("match_score", [3, 0], "zero-sum"),
    ("round_index", 2**15, "outside int16"),
    ("pending", 7, "must name a card in the choose phases"),
])
def test_a_value_no_game_holds_is_refused_by_name(field: str, value, words: str) -> None:
    game = KoiKoiGame(seed=1)
    before = game.records.copy()
    with pytest.raises(StateError, match=rf"'{field}'.*{words}"):
        setattr(game, field, value)
    assert np.array_equal(game.records, before)


def test_a_value_a_game_holds_is_written() -> None:
    game = KoiKoiGame(seed=1)
    game.yaku_total = [7, 2]
    game.match_score = np.array([-4, 4])
    game.seed = 2**64 - 1
    assert (game.yaku_total, game.match_score, game.seed) == ([7, 2], [-4, 4], 2**64 - 1)
    assert game.legal_actions()  # still a game to play


def test_fields_that_change_together_are_set_together() -> None:
    game = KoiKoiGame(seed=1)
    card = int(np.flatnonzero([game.field >> c & 1 for c in range(48)])[0])
    field, piles = game.field & ~(1 << card), [game.piles[0] | 1 << card, game.piles[1]]
    before = game.records.copy()
    with pytest.raises(StateError, match="exactly once"):
        game.field = field  # alone, the card is lost
    with pytest.raises(StateError, match=r"unknown state field\(s\) \['feild'\]"):
        game.set_fields(feild=field)
    assert np.array_equal(game.records, before)
    game.set_fields(field=field, piles=piles)
    assert (game.field, game.piles) == (field, piles)
