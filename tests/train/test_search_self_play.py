"""Search self-play for a value network: the decisions are the player's own games (its moves,
their positions and outcomes), the targets its moves where the expert would not play them,
and the imitation trainer adds them to the expert's decisions."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.expert import ExpertAgent
from agents.bots.registry import PRETRAINED_VALUE
from agents.bots.search import SearchAgent
from agents.train.config import ConfigError
from agents.train.imitation import (
    ImitationConfig,
    ImitationTrainer,
    collect_expert_decisions,
    played_targets,
    train_imitation,
)
from hanafuda_env.koikoi.rules import resolve_rules

RULES = resolve_rules("nintendo")


class LastLegal:
    """A player with no randomness: its move is its last legal action."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


def test_a_players_decisions_are_its_own_moves_in_its_own_games() -> None:
    player = LastLegal()
    data = collect_expert_decisions(RULES, 600, seed=3, n_envs=16, player=player)
    assert np.array_equal(data["action"], player.act(data["obs"], data["mask"]))
    assert data["mask"][np.arange(len(data["action"])), data["action"]].all()
    expert = collect_expert_decisions(RULES, 600, seed=3, n_envs=16)
    assert not np.array_equal(data["obs"], expert["obs"])  # other moves, other positions
    # the player's moves the expert rates lower are learned alone
    targets = played_targets(data)
    rows = np.arange(len(targets))
    off = ~data["ties"][rows, data["action"]]
    assert off.any() and (~off).any()
    assert (targets[off].sum(1) == 1).all() and targets[rows, data["action"]].all()
    assert np.array_equal(targets[~off], data["ties"][~off])
    assert np.array_equal(played_targets(expert), expert["ties"])


def test_a_search_whose_gate_never_opens_plays_its_experts_moves() -> None:
    prior = ExpertAgent(RULES, seed=5)
    search = SearchAgent(RULES, seed=1, worlds=4, rollout="fast", confidence=1e9,
                         evaluator=str(PRETRAINED_VALUE), depth=2, prior=prior)
    data = collect_expert_decisions(RULES, 300, seed=4, n_envs=8, player=search)
    assert data["ties"][np.arange(len(data["action"])), data["action"]].all()


def test_a_prior_needs_only_to_act() -> None:
    with pytest.raises(TypeError, match="a prior is a checkpoint path or an agent with act"):
        SearchAgent(RULES, prior=42)
    with pytest.raises(ConfigError, match="search_play_decisions must be an integer >= 0"):
        ImitationConfig(rules={"rounds": 1}, search_play_decisions=-1, progress_bar=False)


def test_an_imitation_run_learns_values_from_expert_and_search_self_play(tmp_path) -> None:
    base = dict(rules={"rounds": 1}, decisions=300, held_out=100, n_envs=16, epochs=1,
                batch_size=64, network={"architecture": "mlp", "hidden": 16, "layers": 1},
                policy_coef=0.0, eval_matches=0, best_opponent=None, progress_bar=False,
                search_worlds=4, search_rollout="fast", search_confidence=0.5,
                search_evaluator=str(PRETRAINED_VALUE), search_depth=2,
                search_play_decisions=200)
    cfg = ImitationConfig(**base)
    train, _ = ImitationTrainer(cfg, tmp_path / "a").collect()
    assert len(train["action"]) == 500
    assert not (train["targets"] & ~train["mask"]).any() and train["targets"].any(1).all()
    again, _ = ImitationTrainer(cfg, tmp_path / "b").collect()  # the same seed, the same data
    for key in train:
        assert np.array_equal(train[key], again[key]), key
    summary = train_imitation(cfg, run_dir=tmp_path / "run")
    assert 0 <= summary["play/overridden"] < 1 and summary["play/per_second"] > 0
    assert np.isfinite(summary["value/explained_variance"])
