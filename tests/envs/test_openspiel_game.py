"""Koi-Koi as an OpenSpiel game: it passes OpenSpiel's random-simulation checks, its chance
nodes deal what the game then plays, returns are the kernel's zero-sum match scores, a
resampled state looks the same to its player, and OpenSpiel's ISMCTS plays it."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
import hanafuda_env.envs.openspiel_game  # noqa: E402,F401 - registers python_koikoi
from hanafuda_env.common import cards as C  # noqa: E402
from hanafuda_env.koikoi.observation import OBS_DIM  # noqa: E402


def play_to_a_decision(state, rng: np.random.RandomState):
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[rng.randint(len(outcomes))][0])
    return state


@pytest.mark.parametrize("params", [{"rounds": 1}, {"rounds": 2, "rules": "koikoi-japan"},
                                    {"rounds": 2, "rules": "ten-base"}])
def test_openspiels_random_simulation_checks_pass(params) -> None:
    game = pyspiel.load_game("python_koikoi", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_chance_deals_the_cards_the_game_plays_and_returns_are_the_match_score() -> None:
    game = pyspiel.load_game("python_koikoi", {"rounds": 1})
    rng = np.random.RandomState(3)
    for _ in range(5):
        state = game.new_initial_state()
        assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the first dealer
        dealer = 1
        state.apply_action(dealer)
        turned = []
        while state.is_chance_node():
            card = state.chance_outcomes()[rng.randint(len(state.chance_outcomes()))][0]
            turned.append(card)
            state.apply_action(card)
        deal = turned[-48:]  # a deal thrown back is followed by another
        assert sorted(deal) == list(range(48))
        inner = state.game_state
        if not state.is_terminal():
            assert inner.hands[dealer] == C.mask_of(deal[:8]) and inner.dealer == dealer
            assert inner.field == C.mask_of(deal[16:24])
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        returns = state.returns()
        assert returns == [float(v) for v in state.game_state.match_score]
        assert sum(returns) == 0.0


def test_a_resampled_state_looks_the_same_to_its_player() -> None:
    game = pyspiel.load_game("python_koikoi", {"rounds": 1})
    rng = np.random.RandomState(5)
    state = play_to_a_decision(game.new_initial_state(), rng)
    moved = 0
    for k in range(20):
        player = state.current_player()
        world = state.resample_from_infostate(player, lambda k=k: (k + 0.5) / 20)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions()
        other = 1 - player
        moved += world.game_state.hands[other] != state.game_state.hands[other]
    assert moved > 10
    assert len(state.information_state_tensor(0)) == OBS_DIM


def test_openspiels_ismcts_plays_koikoi_to_the_end() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_koikoi", {"rounds": 1})
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                           uct_c=2.0, max_simulations=20, random_state=rng)
    for seat in (0, 1):
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randint(len(outcomes))][0])
            elif state.current_player() == seat:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                moves += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert sum(state.returns()) == 0.0 and moves > 0


def test_openspiels_evaluation_tools_play_one_round_and_whole_matches() -> None:
    from open_spiel.python.algorithms import evaluate_bots

    rng = np.random.RandomState(1)
    for rounds in (1, 3):
        game = pyspiel.load_game("python_koikoi", {"rounds": rounds})
        bots = [pyspiel.make_uniform_random_bot(0, 1), pyspiel.make_uniform_random_bot(1, 2)]
        for _ in range(3):
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
            assert sum(returns) == 0.0
            assert abs(returns[0]) <= game.max_utility()
