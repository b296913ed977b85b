"""Saved states are checked on load: a state no game could reach is refused with an error
naming the field, and the engine keeps the state it had; a good one continues exactly."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.state import STATE_DTYPE, STATE_FIELDS, State, StateError, check_state
from tests.helpers.scenarios import random_play


def played(n: int = 4, steps: int = 7, seed: int = 3) -> KoiKoiCore:
    return random_play(n, steps, seed)


def test_the_state_dataclass_documents_every_field_of_the_records() -> None:
    assert STATE_FIELDS == STATE_DTYPE.names
    core = played()
    view = State.of(core.records)
    for name in STATE_FIELDS:
        assert getattr(view, name).shape[0] == core.n_games
        assert np.shares_memory(getattr(view, name), core.records)


def test_a_saved_state_loads_and_continues_exactly() -> None:
    core = played()
    saved = core.state_dict()
    twin = KoiKoiCore(core.n_games, seed=99)
    twin.load_state_dict(saved)
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(40):
        a = core.step(core.sample_legal_actions(rng_a))
        b = twin.step(twin.sample_legal_actions(rng_b))
        assert np.array_equal(a.reward, b.reward)
    assert np.array_equal(core.records, twin.records)


def corrupt(field: str, value, game: int = 1) -> dict:
    state = played().state_dict()
    state[field] = np.array(state[field])
    state[field][game] = value
    return state


@pytest.mark.parametrize(("field", "value", "words"), [
    ("phase", 9, "phase"),
    ("stock_pos", 25, "stock_pos"),
    ("stock_pos", -1, "stock_pos"),
    ("dealer", 2, "dealer"),
    ("mover", -1, "mover"),
    ("pending", 60, "pending"),
    ("stock", [0] * 24, "every card exactly once"),
])
def test_an_impossible_state_is_refused_by_name(field: str, value, words: str) -> None:
    core = played()
    before = core.records.copy()
    with pytest.raises(StateError, match=words):
        core.load_state_dict(corrupt(field, value))
    assert np.array_equal(core.records, before)  # nothing changed


def test_a_duplicated_or_missing_card_is_refused() -> None:
    core = played()
    state = core.state_dict()
    field = state["field"].copy()
    field[0] |= state["hands"][0, 0]  # a hand's cards also on the field
    with pytest.raises(StateError, match="exactly once"):
        core.load_state_dict({**state, "field": field})
    hands = state["hands"].copy()
    hands[0, 0] &= hands[0, 0] - np.uint64(1)  # a card gone
    with pytest.raises(StateError, match="exactly once"):
        core.load_state_dict({**state, "hands": hands})


def test_float_fields_missing_fields_and_wrong_shapes_are_refused() -> None:
    core = played()
    state = core.state_dict()
    with pytest.raises(StateError, match="'hands' must hold integers"):
        core.load_state_dict({**state, "hands": state["hands"].astype(np.float64)})
    with pytest.raises(StateError, match="missing \\['turn'\\]"):
        core.load_state_dict({k: v for k, v in state.items() if k != "turn"})
    with pytest.raises(StateError, match="shape"):
        core.load_state_dict({**state, "turn": state["turn"][:2]})
    with pytest.raises(StateError, match="outside int8"):
        core.load_state_dict({**state, "phase": state["phase"].astype(np.int64) + 300})
    with pytest.raises(StateError, match="holds 4 games, expected 3"):
        KoiKoiCore(3, seed=0).load_state_dict(core.records)


def test_the_one_game_engine_refuses_a_corrupt_pickle() -> None:
    game = KoiKoiGame(seed=1)
    state = game.__getstate__()
    records = state["records"].copy()
    records["phase"] = 7
    with pytest.raises(StateError, match="phase"):
        KoiKoiGame.__new__(KoiKoiGame).__setstate__({**state, "records": records})
    assert np.array_equal(check_state(game.records), game.records)
