"""The Hana-awase trainer: a short run writes its events and checkpoints, resumes where it
stopped to the same result as an unbroken run, refuses bad config keys by name, and its
advantages follow GAE over the learner's own decisions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.registry import make_hanaawase_agent
from agents.train.config import ConfigError
from agents.train.hanaawase_ppo import HanaawaseConfig, HanaawaseTrainer
from agents.train.hanaawase_run import train_hanaawase
from hanafuda_env.hanaawase.core import HanaawaseCore

TINY = dict(num_envs=8, total_decisions=8 * 7 * 4, hidden=16, layers=1, eval_every=2,
            eval_decks=2, checkpoint_every=1, snapshot_every=1, progress_bar=False,
            opponents=["self", "past", "greedy"], warmstart_decisions=60)


def weights(run: Path, name: str = "latest.pt") -> list[torch.Tensor]:
    payload = torch.load(run / "checkpoints" / name, weights_only=True)
    return [payload["model"][k] for k in sorted(payload["model"])]


def test_a_short_run_logs_checkpoints_and_resumes_to_the_same_weights(tmp_path: Path) -> None:
    whole = train_hanaawase(HanaawaseConfig(**TINY), run_dir=tmp_path / "whole")
    assert whole["charts/SPS"] > 0 and "losses/approx_kl" in whole
    assert "eval/mean_score_vs_expert" in whole
    run = Path(whole["run_dir"])
    assert list(run.glob("events.out.tfevents.*")) and (run / "checkpoints/best.pt").is_file()
    best = make_hanaawase_agent(str(run / "checkpoints/best.pt"), {"num_players": 3})
    core = HanaawaseCore(4, num_players=3, seed=0)
    mask = core.legal_action_mask()
    assert mask[np.arange(4), best.act(core.observe(), mask)].all()
    train_hanaawase(HanaawaseConfig(**TINY), run_dir=tmp_path / "split", stop_after=2)
    resumed = train_hanaawase(None, resume=tmp_path / "split")
    assert resumed["run_dir"] == str(tmp_path / "split")
    for a, b in zip(weights(run), weights(tmp_path / "split")):
        assert torch.equal(a, b), "an interrupted and resumed run ends as an unbroken one"
    with pytest.raises(ConfigError, match="already complete"):
        train_hanaawase(None, resume=tmp_path / "split")
    with pytest.raises(ConfigError, match="only total_decisions, progress_bar may change"):
        train_hanaawase(None, resume=tmp_path / "split", changes={"num_envs": 4})


def test_bad_config_keys_and_values_are_named() -> None:
    with pytest.raises(ConfigError, match="unknown config key.*'n_envs'.*allowed keys: game"):
        HanaawaseConfig.from_dict({"game": "hanaawase", "n_envs": 4})
    with pytest.raises(ConfigError, match="opponents"):
        HanaawaseConfig(opponents=["expret"])
    with pytest.raises(ConfigError, match="num_envs"):
        HanaawaseConfig(num_envs=0)
    with pytest.raises(Exception, match="unknown Hana-awase option 'fukee'"):
        HanaawaseConfig(rules={"fukee": True})


def test_advantages_are_gae_over_each_games_learner_decisions() -> None:
    trainer = HanaawaseTrainer(HanaawaseConfig(**{**TINY, "num_envs": 2}))
    lam = trainer.cfg.gae_lambda
    batch = {"game": np.array([0, 1, 0, 1, 0]), "value": np.array([0.1, 0.2, 0.3, 0.4, 0.5],
                                                                   dtype=np.float32),
             "reward": np.array([0, 0, 0, 1.0, 2.0], dtype=np.float32),
             "end": np.array([False, False, False, True, True])}
    adv, ret = trainer._gae(batch)
    # game 0: decisions 0, 2, 4 (round ends at 4 with reward 2)
    d4 = 2.0 - 0.5
    d2 = 0.0 + 0.5 - 0.3
    d0 = 0.0 + 0.3 - 0.1
    assert adv[4] == pytest.approx(d4)
    assert adv[2] == pytest.approx(d2 + lam * d4)
    assert adv[0] == pytest.approx(d0 + lam * (d2 + lam * d4))
    assert adv[3] == pytest.approx(1.0 - 0.4)
    assert ret == pytest.approx(adv + batch["value"])
