"""The search with a learned evaluation: a rollout cut after ``depth`` moves is worth the
match value at its round's start plus the evaluator's value from the mover's view (negated
for the opponent), a finished round its own value; a prior network gives the move the gate
keeps; the shipped value network ranks moves as full expert rollouts do; bad settings are
named."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.policy import CheckpointError, PolicyAgent
from agents.bots.registry import PRETRAINED_DISTILLED, PRETRAINED_VALUE, make_agent
from agents.bots.search import SearchAgent, world_values
from hanafuda_env.envs.rewards import match_values
from hanafuda_env.koikoi.core import ROUND_OVER
from hanafuda_env.koikoi.observation import encode_observations
from tests.helpers.scenarios import random_play


class ConstantValue:
    """An evaluator that rates every position ``value`` for its mover, and records them."""

    def __init__(self, value: float):
        self.constant, self.seen = value, []

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mask.argmax(1)

    def value(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.seen.append(obs)
        return np.full(len(obs), self.constant, dtype=np.float32)


def test_a_cut_rollout_is_valued_from_the_movers_view_and_a_finished_one_by_its_end() -> None:
    core = random_play(64, 7, seed=3)
    agent = SearchAgent(core.rules, seed=0, worlds=4, evaluator=ConstantValue(0.25), depth=3,
                        value_scale=0.5)
    core.rollout("expert", "round", seed=1, max_decisions=3)
    values = agent._values(core)
    live = core.phase < ROUND_OVER
    assert live.any() and (~live).any()
    start = match_values(core.match_score[:, 0].astype(np.float64),
                         core.rules.rounds - core.round_index.astype(np.int64), agent.scale)
    sign = np.where(core.mover == 0, 1.0, -1.0)
    np.testing.assert_allclose(values[live], (start + sign * 0.25 / 0.5)[live])
    np.testing.assert_array_equal(values[~live],
                                  world_values(core, core.rules, "match", agent.scale)[~live])
    seen = np.concatenate(agent.evaluator.seen)
    np.testing.assert_array_equal(seen, encode_observations(core)[live])


def test_the_prior_networks_move_is_kept_unless_a_move_stands_out() -> None:
    core = random_play(24, 9, seed=2)
    obs, mask = encode_observations(core), core.legal_action_mask()
    prior = PolicyAgent.load(PRETRAINED_DISTILLED)
    always_prior = SearchAgent(core.rules, seed=1, worlds=8, confidence=1e9, prior=prior,
                               evaluator=ConstantValue(0.0), depth=2)
    assert np.array_equal(always_prior.act(obs, mask), prior.act(obs, mask))


def test_the_shipped_value_network_ranks_moves_as_full_expert_rollouts_do() -> None:
    core = random_play(48, 5, seed=11)
    obs, mask = encode_observations(core), core.legal_action_mask()
    full = SearchAgent(core.rules, seed=3, worlds=64, confidence=None)
    cut = SearchAgent(core.rules, seed=3, worlds=64, confidence=None,
                      evaluator=PRETRAINED_VALUE, depth=2)
    full.act(obs, mask)
    cut.act(obs, mask)
    pairs = [(a - a.mean(), b - b.mean()) for a, b in
             zip(full.last_search.values, cut.last_search.values) if len(a) > 1]
    a, b = (np.concatenate(side) for side in zip(*pairs))
    assert np.corrcoef(a, b)[0, 1] > 0.6  # the same moves look good, by far


def test_netsearch_is_a_built_in_bot_with_its_budget_on_the_command_line() -> None:
    agent = make_agent("netsearch:worlds=8,depth=2", seed=0)
    assert isinstance(agent, SearchAgent) and agent.worlds == 8 and agent.depth == 2
    assert isinstance(agent.evaluator, PolicyAgent) and isinstance(agent.base, PolicyAgent)
    core = random_play(8, 4, seed=5)
    mask = core.legal_action_mask()
    chosen = agent.act(encode_observations(core), mask)
    assert mask[np.arange(len(chosen)), chosen].all()


def test_bad_evaluation_settings_are_named(tmp_path) -> None:
    with pytest.raises(ValueError, match="depth .* needs an evaluator"):
        SearchAgent(depth=3)
    with pytest.raises(ValueError, match="depth must be None or a positive integer"):
        SearchAgent(evaluator=ConstantValue(0.0), depth=0)
    with pytest.raises(ValueError, match="value must be 'match'"):
        SearchAgent(evaluator=ConstantValue(0.0), value="points")
    with pytest.raises(ValueError, match="leave prior out"):
        SearchAgent(prior=ConstantValue(0.0), confidence=None)
    with pytest.raises(ValueError, match="value_scale must be a number > 0"):
        SearchAgent(evaluator=ConstantValue(0.0), value_scale=0)
    with pytest.raises(TypeError, match="a checkpoint path or an agent with act and value"):
        SearchAgent(evaluator=42)
    broken = tmp_path / "value.pt"
    broken.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError):
        SearchAgent(evaluator=str(broken), depth=2)
