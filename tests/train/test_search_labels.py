"""Search labels: the expert's tie set unless the search's best move beats the expert's by
more than the confidence asks, always a legal move, also from a search whose rollouts a value
network ends; the imitation trainer learns them."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.registry import PRETRAINED_VALUE
from agents.train.config import ConfigError
from agents.train.imitation import ImitationConfig, collect_expert_decisions, train_imitation
from agents.train.search_labels import search_labels
from hanafuda_env.koikoi.rules import resolve_rules


def test_labels_keep_the_expert_unless_the_search_is_sure() -> None:
    rules = resolve_rules("nintendo")
    data = collect_expert_decisions(rules, 400, seed=4, n_envs=16)
    sure = search_labels(data, rules, worlds=8, rollout="fast", confidence=1.0, seed=1)
    loose = search_labels(data, rules, worlds=8, rollout="fast", confidence=0.0, seed=1)
    for labels in (sure, loose):
        targets, values = labels["targets"], labels["values"]
        assert not (targets & ~data["mask"]).any() and targets.any(1).all()
        kept = ~labels["overridden"]
        assert np.array_equal(targets[kept], data["ties"][kept])
        rows = np.flatnonzero(labels["overridden"])
        assert (targets[rows].sum(1) == 1).all()
        chosen = targets[rows].argmax(1)
        assert (values[rows, chosen] > values[rows, data["action"][rows]]).all()
        assert np.array_equal(np.isnan(values).all(1), data["mask"].sum(1) == 1)
    # a stricter confidence overrides a subset of what a looser one does
    assert not (sure["overridden"] & ~loose["overridden"]).any()
    assert loose["overridden"].sum() > sure["overridden"].sum() > 0


def test_labels_from_a_search_with_a_value_network_are_legal_and_its_own() -> None:
    rules = resolve_rules("nintendo")
    data = collect_expert_decisions(rules, 300, seed=6, n_envs=16)
    full = search_labels(data, rules, worlds=8, rollout="fast", confidence=0.0, seed=2)
    cut = search_labels(data, rules, worlds=8, rollout="fast", confidence=0.0, seed=2,
                        evaluator=str(PRETRAINED_VALUE), depth=2)
    assert not (cut["targets"] & ~data["mask"]).any() and cut["targets"].any(1).all()
    searched = ~np.isnan(full["values"])
    assert np.array_equal(searched, ~np.isnan(cut["values"]))
    assert not np.array_equal(full["values"][searched], cut["values"][searched])
    assert np.abs(cut["values"][searched]).max() <= 1.5  # match values, not points


def test_a_search_depth_needs_its_evaluator() -> None:
    base = dict(rules={"rounds": 1}, decisions=300, held_out=100, progress_bar=False)
    with pytest.raises(ConfigError, match="needs search_evaluator"):
        ImitationConfig(**base, labels="search", search_depth=3)
    with pytest.raises(ConfigError, match="search_depth must be an integer >= 1"):
        ImitationConfig(**base, search_evaluator="value.pt", search_depth=0)
    with pytest.raises(ConfigError, match="search_evaluator must be a checkpoint path"):
        ImitationConfig(**base, search_evaluator=3)


def test_an_imitation_run_learns_search_labels_from_a_clone(tmp_path) -> None:
    net = {"architecture": "card_graph", "width": 8, "global_width": 16, "blocks": 1}
    base = dict(rules={"rounds": 1}, decisions=300, held_out=100, n_envs=16, epochs=1,
                batch_size=64, eval_matches=2, eval_opponents=["random"],
                best_opponent="random", network=net, progress_bar=False)
    train_imitation(ImitationConfig(**base), run_dir=tmp_path / "clone")
    clone = str(tmp_path / "clone" / "checkpoints" / "latest.pt")
    summary = train_imitation(ImitationConfig(**base, labels="search", search_worlds=8,
                                              search_confidence=0.5,
                                              init_checkpoint=clone), run_dir=tmp_path / "s")
    assert 0 < summary["labels/overridden"] < 1 and summary["labels/per_second"] > 0
