"""The agent protocol every bot keeps: it plays only legal actions, in every phase and rule set,
checks its inputs, takes batches (an empty one too), is seeded; and ``decode`` reads an
observation back as whole cards and points (a waiting card, the rounds left, the lead)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.base import AgentLike, argmax_per_row, decode
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.bots.registry import BASELINES
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    DECIDE,
    PLAY,
    KoiKoiCore,
)
from hanafuda_env.koikoi.observation import (
    OBS_DIM,
    SCORE_CLIP,
    encode_observations,
    score_unit,
)
from hanafuda_env.koikoi.rules import resolve_rules
from tests.helpers.observations import make_obs, mask_for

AGENTS = (RandomAgent, GreedyAgent, ExpertAgent)


@pytest.mark.parametrize("rules", ["nintendo", "ten-base"])
def test_agents_only_choose_legal_actions_in_every_phase(rules):
    core = KoiKoiCore(64, rules, seed=11)
    agents = [cls(rules, seed=i) for i, cls in enumerate(AGENTS)]
    phases_seen = set()
    for step in range(220):
        obs, mask = encode_observations(core), core.legal_action_mask()
        phases_seen.update(np.unique(core.phase).tolist())
        chosen = []
        for agent in agents:
            actions = agent.act(obs, mask)
            assert actions.shape == (core.n_games,) and actions.dtype == np.int64
            assert mask[np.arange(core.n_games), actions].all(), agent.name
            chosen.append(actions)
        core.step(chosen[step % len(agents)])  # each agent steers the games in turn
    assert phases_seen == {PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE}


def test_agents_follow_the_protocol_and_check_inputs():
    for cls in AGENTS:
        agent = cls()
        assert isinstance(agent, AgentLike) and agent.name in BASELINES
        assert agent.act(np.zeros((0, OBS_DIM), np.float32), np.zeros((0, 98), bool)).shape == (0,)
        with pytest.raises(ValueError, match="obs must have shape"):
            agent.act(np.zeros((2, OBS_DIM - 1), np.float32), np.ones((2, 98), bool))
        with pytest.raises(ValueError, match="allows no action"):
            agent.act(np.zeros((1, OBS_DIM), np.float32), np.zeros((1, 98), bool))


def test_random_agent_is_seeded_and_spreads_over_legal_actions():
    obs = np.repeat(make_obs(hand=(2, 6, 14, 18), field=(0,)), 4000, axis=0)
    mask = np.repeat(mask_for((2, 6, 14, 18)), 4000, axis=0)
    a, b = RandomAgent(seed=3), RandomAgent(seed=3)
    first = a.act(obs, mask)
    assert (first == b.act(obs, mask)).all()
    counts = np.bincount(first, minlength=98)[[2, 6, 14, 18]]
    assert counts.sum() == 4000 and counts.min() > 850  # about 1000 each


def test_argmax_per_row_keeps_the_first_of_equal_values() -> None:
    """Ties go to the first candidate of the row (candidates come row-major); a row without
    candidates gets -1."""
    rows = np.array([0, 0, 0, 2, 2])
    actions = np.array([5, 7, 9, 2, 3])
    values = np.array([1.0, 3.0, 3.0, 4.0, 4.0])
    assert argmax_per_row(rows, actions, values, 3).tolist() == [7, -1, 2]


# ----------------------------------------------------------------------- decode
def test_decode_reads_back_a_real_observation():
    core = KoiKoiCore(8, "ten-base", seed=5)
    for _ in range(9):
        core.step(core.sample_legal_actions(np.random.default_rng(0)))
    view = decode(encode_observations(core), core.rules)
    mover = core.mover
    assert (view.hand == core.hands[np.arange(8), mover]).all()
    assert (view.own_pile == core.piles[np.arange(8), mover]).all()
    assert (view.own_total == core.yaku_total[np.arange(8), mover]).all()
    assert (view.opp_hand_n == np.bitwise_count(core.hands[np.arange(8), 1 - mover])).all()


def test_decode_reads_the_waiting_card_and_the_rounds_left() -> None:
    """decode gives pending -1 when no card waits (card 0 is the pine crane) and counts the
    rounds left in the rule set's own number of rounds."""
    rules = resolve_rules("nintendo").replace(rounds=6)
    crane_hand, other_hand = [0, 5, 9, 13, 17, 21, 25, 29], [6, 10, 14, 18, 22, 26, 30, 34]
    field = [1, 2, 36, 40, 44, 41, 37, 33]
    deck = crane_hand + other_hand + field + [
        c for c in range(48) if c not in set(crane_hand + other_hand + field)]
    core = KoiKoiCore(1, rules=rules, seed=0)
    core.reset(seed=0, options={"deck": deck, "dealer": 0})
    view = decode(encode_observations(core, np.array([0])), rules)
    assert view.pending.tolist() == [-1] and view.rounds_left.tolist() == [6]
    core.step(np.array([0]))  # the crane matches two pine cards: it waits for the choice
    view = decode(encode_observations(core, np.array([0])), rules)
    assert view.pending.tolist() == [0] and view.rounds_left.tolist() == [6]


@pytest.mark.parametrize("preset", ["nintendo", "ten-base"])
def test_the_decoded_lead_is_the_encoded_one_in_whole_points(preset: str) -> None:
    rules = resolve_rules(preset)
    clip = int(SCORE_CLIP * score_unit(rules))
    leads = np.arange(-clip, clip + 1, rules.point_unit)
    core = KoiKoiCore(len(leads), rules, seed=0)
    core.match_score[:] = np.stack([leads, -leads], axis=1)
    view = decode(encode_observations(core, 0), rules)
    assert view.score_diff.dtype.kind == "i"
    np.testing.assert_array_equal(view.score_diff, leads)
