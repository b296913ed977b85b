"""Every config in configs/ loads as its trainer's config, and the from-scratch one keeps
every hand-written bot out of training."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.train.config import HanaawaseConfig, PPOConfig
from agents.train.expert_iteration import ExItConfig
from agents.train.imitation import ImitationConfig

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_each_config_loads_as_its_trainers(path) -> None:
    spec = PPOConfig.spec(path)
    if spec.get("game") == "hanaawase":
        HanaawaseConfig.from_dict(spec)
    elif spec.get("algorithm") == "imitation":
        cfg = ImitationConfig.from_dict(spec)
        if cfg.init_checkpoint is not None:  # a shipped start point, in the checkout
            assert (path.parents[1] / cfg.init_checkpoint).is_file()
    elif "algorithm" in spec:
        ExItConfig.from_dict(spec)
    else:
        PPOConfig.from_dict(spec)


def test_the_from_scratch_config_has_no_teacher() -> None:
    cfg = PPOConfig.load(CONFIGS[0].parent / "scratch.yaml")
    assert cfg.warmstart_decisions == 0 and cfg.init_checkpoint is None
    assert cfg.baselines == ["random"] and cfg.best_opponent is None
    assert {"greedy", "expert"} <= set(cfg.eval_opponents)  # measured against, not trained on
