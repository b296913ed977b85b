"""scripts/export_policy.py: a training checkpoint becomes a policy-only file that plays the
same moves, with the run's config and evaluation figures beside it on request; a bad file is
refused by name."""

from __future__ import annotations

import json
import sys

import numpy as np
import torch
import yaml

from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent, load_checkpoint, save_checkpoint
from agents.train.config import PPOConfig
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from tests.helpers.paths import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from export_policy import main as export  # noqa: E402


def _training_checkpoint(run):
    torch.manual_seed(0)
    net = ActorCritic(hidden=16, layers=1)
    optimizer = torch.optim.Adam(net.parameters())
    (run / "checkpoints").mkdir(parents=True)
    spec = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text())
    spec["resolved_rules"] = {"rounds": 12}  # what a run folder's config.yaml holds besides
    (run / "config.yaml").write_text(yaml.safe_dump(spec))
    path = run / "checkpoints" / "latest.pt"
    save_checkpoint(path, {"model": net.state_dict(), "network": {"hidden": 16, "layers": 1},
                           "optimizer": optimizer.state_dict(), "update": 3, "global_step": 9})
    return path


def test_the_export_plays_the_same_moves_and_carries_its_figures(tmp_path, capsys) -> None:
    source = _training_checkpoint(tmp_path / "run")
    out = tmp_path / "policy.pt"
    assert export([str(source), str(out), "--figures", "2"]) == 0
    payload = load_checkpoint(out)
    assert "optimizer" not in payload and payload["update"] == 3
    core = KoiKoiCore(16, seed=1)
    obs, mask = encode_observations(core), core.legal_action_mask()
    assert np.array_equal(PolicyAgent.load(out).act(obs, mask),
                          PolicyAgent.load(source).act(obs, mask))
    spec = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    del spec["resolved_rules"]
    assert PPOConfig.load(out.with_suffix(".yaml")) == PPOConfig.from_dict(spec)
    figures = json.loads(out.with_suffix(".json").read_text())
    assert figures["matches"] == 2 and 0.0 <= figures["vs_expert"]["win_rate"] <= 1.0


def test_a_damaged_checkpoint_is_refused(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    assert export([str(bad), str(tmp_path / "out.pt")]) == 2
    assert "export_policy.py: error:" in capsys.readouterr().err
    assert not (tmp_path / "out.pt").exists()
