"""States that no game reaches are refused on load by the field at fault, and the engine
keeps the state it had: a choose phase without its two choices, a hand emptied mid-round,
turn counts out of step with the hands, scores no round makes, round counts past the
match. Every state the engines reach in play still loads."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.hanaawase.core import HanaawaseCore
from hanafuda_env.hanaawase.state import check_hanaawase_state
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.state import CHOOSE_PLAYED, DECIDE, PLAY, StateError, check_state
from tests.helpers.scenarios import random_play


def played() -> KoiKoiCore:
    return random_play(6, 9, 3)


def refused(core: KoiKoiCore, state: dict, field: str, words: str = "") -> None:
    before = core.records.copy()
    with pytest.raises(StateError, match=rf"state field '{field}'.*{words}"):
        core.load_state_dict(state)
    assert np.array_equal(core.records, before)


def in_play(core: KoiKoiCore) -> int:
    return int(np.flatnonzero(core.phase == PLAY)[0])


def test_a_choose_phase_whose_pending_card_matches_no_field_card_is_refused() -> None:
    core = played()
    state = core.state_dict()
    g = in_play(core)
    mover = int(state["mover"][g])
    lone = next(c for c in C.ids_of(int(state["hands"][g, mover]))
                if not int(state["field"][g]) & int(C.MONTH_MASK_OF_CARD[c]))
    state["hands"][g, mover] &= ~np.uint64(1 << lone)
    state["pending"][g], state["phase"][g] = lone, CHOOSE_PLAYED
    refused(core, state, "pending", "exactly two field cards")


def test_a_hand_emptied_mid_round_is_refused() -> None:
    core = played()
    state = core.state_dict()
    g = in_play(core)
    mover = int(state["mover"][g])
    state["piles"][g, mover] |= state["hands"][g, mover]  # every card still held once
    state["hands"][g, mover] = 0
    refused(core, state, "hands", "turn count")


def test_turn_counts_out_of_step_with_the_game_are_refused() -> None:
    core = played()
    g = in_play(core)
    state = core.state_dict()
    state["mover"][g] ^= 1
    refused(core, state, "mover", "whose turn")
    state = core.state_dict()
    drawn = int(state["stock"][g, state["stock_pos"][g]])
    state["stock_pos"][g] += 1
    state["field"][g] |= np.uint64(1 << drawn)  # the card drawn lies on the field
    refused(core, state, "stock_pos", "cards drawn")


@pytest.mark.parametrize(("field", "value", "words"), [
    ("yaku_total", [-3, 0], "must not be negative"),
    ("points_won", [-1, 0], "must not be negative"),
    ("match_score", [5, 0], "zero-sum"),
    ("round_index", 32767, "must be 0..12"),
    ("round_index", 12, "below 12"),
    ("turn", 17, "must be 0..16"),
])
def test_scores_and_counts_no_round_makes_are_refused(field: str, value, words: str) -> None:
    core = played()
    state = core.state_dict()
    state[field][in_play(core)] = value
    refused(core, state, field, words)


def test_the_rules_bound_the_match_a_state_is_in() -> None:
    core = KoiKoiCore(2, {"preset": "nintendo", "target_score": 10}, seed=1)
    state = core.state_dict()
    state["points_won"][0] = [10, 0]
    state["match_score"][0] = [10, -10]
    refused(core, state, "points_won", "target score 10")
    lenient = KoiKoiCore(2, seed=1)
    lenient.load_state_dict(state)


def test_a_koikoi_decision_needs_a_finished_turn_and_cards_to_play_on() -> None:
    core = played()
    state = core.state_dict()
    g = in_play(core)
    state["phase"][g] = DECIDE
    refused(core, state, "(mover|turn|hands)")


def test_the_one_game_engine_refuses_the_same_states() -> None:
    game = KoiKoiGame(seed=4)
    records = game.records.copy()
    records["yaku_total"][0] = [-1, 0]
    with pytest.raises(StateError, match="'yaku_total'"):
        KoiKoiGame.__new__(KoiKoiGame).__setstate__({**game.__getstate__(),
                                                     "records": records})


@pytest.mark.parametrize("field, value, words", [
    ("turn", 300, "must be 0..21"), ("round_index", 3, "below 3"), ("round_index", 9, "0..3"),
])
def test_hanaawase_refuses_turns_and_rounds_no_game_reaches(field: str, value,
                                                            words: str) -> None:
    core = HanaawaseCore(3, num_players=3, seed=0)
    state = core.state_dict()
    state["records"] = state["records"].copy()
    state["records"][field][1] = value
    before = core.records.copy()
    with pytest.raises(StateError, match=rf"state field '{field}'.*{words}"):
        core.load_state_dict(state)
    assert np.array_equal(core.records, before)


def test_the_vector_env_refuses_a_carry_that_is_no_finite_reward() -> None:
    env = KoiKoiVectorEnv(3, seed=0)
    env.reset(seed=0)
    before = env.state_dict()
    for carry, words in ((np.full((3, 2), np.nan), "finite"),
                         (np.full((3, 2), np.inf), "finite"),
                         (np.array([["a", "b"]] * 3), "numbers")):
        with pytest.raises(StateError, match=f"'carry'.*{words}"):
            env.load_state_dict({**before, "carry": carry})
        assert all(np.array_equal(v, env.state_dict()[k]) for k, v in before.items())


@pytest.mark.parametrize("rules", [{"preset": "nintendo"}, {"preset": "koikoi-japan"},
                                   {"preset": "ten-base", "multiple_koikoi": True,
                                    "target_score": 15, "rounds": 3}])
def test_every_state_of_play_loads(rules: dict) -> None:
    rng = np.random.default_rng(5)
    for autoreset in (True, False):
        core = KoiKoiCore(32, rules, seed=2, autoreset=autoreset)
        for _ in range(150):
            if core.round_over.any() and not autoreset:
                core.deal_next()
                continue
            core.step(core.sample_legal_actions(rng))
            check_state(core.records, 32, core.rules)


@pytest.mark.parametrize("players", [2, 3, 5, 7])
def test_every_hanaawase_state_of_play_loads(players: int) -> None:
    core = HanaawaseCore(32, num_players=players, seed=3, autoreset=True)
    rng = np.random.default_rng(players)
    for _ in range(150):
        core.step(core.sample_legal_actions(rng))
        check_hanaawase_state(core.records, core.rules, 32)
