"""The networks shipped in agents/bots/pretrained/: each plays by its name (``ppo``,
``clone``, ``distilled``, ``looped``) without training, loads only through the safe loader, stays
small, and keeps the config that trained it and its evaluation figures beside it; the
value network of ``netsearch`` predicts the expert's round outcomes on fresh games."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from agents.bots.policy import PolicyAgent, load_checkpoint
from agents.bots.registry import (
    PRETRAINED,
    PRETRAINED_CLONE,
    PRETRAINED_DISTILLED,
    PRETRAINED_LOOPED,
    PRETRAINED_VALUE,
    make_agent,
)
from agents.eval.matches import play_matches
from agents.train.config import PPOConfig
from agents.train.imitation import ImitationConfig, collect_expert_decisions, value_fit
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import resolve_rules
from tests.helpers.scenarios import random_play

SHIPPED = {"ppo": PRETRAINED, "clone": PRETRAINED_CLONE, "distilled": PRETRAINED_DISTILLED,
           "looped": PRETRAINED_LOOPED}


@pytest.mark.parametrize("name", SHIPPED)
def test_it_plays_legal_moves_by_name(name: str) -> None:
    agent = make_agent(name, seed=0)
    assert isinstance(agent, PolicyAgent) and agent.name == name
    core = random_play(64, 7, 3)
    mask = core.legal_action_mask()
    actions = agent.act(encode_observations(core), mask)
    assert mask[np.arange(64), actions].all()
    result = play_matches(agent, make_agent("random", seed=1), 8, seed=2)
    assert result["wins"] >= 6  # a trained network beats random play


@pytest.mark.parametrize("name", SHIPPED)
def test_the_file_is_a_small_policy_checkpoint_with_its_provenance(name: str) -> None:
    path = SHIPPED[name]
    assert path.stat().st_size < 5 * 2**20
    payload = load_checkpoint(path)  # digest and observation version checked
    assert "optimizer" not in payload and "pool" not in payload
    if name == "ppo":
        config = PPOConfig.load(path.with_suffix(".yaml"))
        assert config.hidden == payload["network"]["hidden"]
    else:
        config = ImitationConfig.from_dict(yaml.safe_load(path.with_suffix(".yaml").read_text()))
        assert config.network == payload["network"]
    figures = json.loads(path.with_suffix(".json").read_text())
    assert {"vs_expert", "vs_greedy", "vs_random", "command"} <= set(figures)
    assert 0.0 < figures["vs_expert"]["win_rate"] < 1.0


def test_the_value_network_predicts_round_outcomes_of_fresh_expert_games() -> None:
    payload = load_checkpoint(PRETRAINED_VALUE)
    config = ImitationConfig.from_dict(yaml.safe_load(PRETRAINED_VALUE.with_suffix(".yaml")
                                                      .read_text()))
    assert config.network == payload["network"] and config.policy_coef == 0
    figures = json.loads(PRETRAINED_VALUE.with_suffix(".json").read_text())
    assert 0.0 < figures["value_explained_variance"] < 1.0
    data = collect_expert_decisions(resolve_rules("nintendo"), 20_000, seed=77, n_envs=256)
    values = PolicyAgent.load(PRETRAINED_VALUE).value(data["obs"], data["mask"])
    fit = value_fit(values, data["return"])
    assert fit["value/explained_variance"] > 0.15  # far better than the mean outcome
