"""Training with rollouts on Ray workers (``ray_workers``): a run of either game writes its
events and checkpoints and resumes to the same run, a worker killed mid-run is replaced and
the update goes on unchanged, the workers play games of their own, the settings are checked,
and the default path never imports Ray."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.bots.policy import load_checkpoint
from agents.train.config import ConfigError, HanaawaseConfig, PPOConfig
from agents.train.run import train
from tests.conftest import NO_RAY
from tests.helpers.paths import ROOT, SMOKE

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)


def _config(**overrides) -> PPOConfig:
    return PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "ray_workers": 2,
                                "eval_interval": 0, **overrides})


@needs_ray
def test_a_ray_run_logs_checkpoints_and_resumes_to_the_same_run(local_ray, tmp_path) -> None:
    cfg = _config(total_decisions=3 * 32 * 32, checkpoint_interval=1, snapshot_interval=1)
    summary = train(cfg, run_dir=tmp_path / "straight")
    assert summary["charts/SPS"] > 0
    assert list((tmp_path / "straight").glob("events.out.tfevents.*"))
    train(cfg, run_dir=tmp_path / "split", stop_after=1)
    stopped = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")
    assert stopped["update"] == 1 and len(stopped["ray_workers"]) == 2
    train(cfg, resume=tmp_path / "split")
    a = load_checkpoint(tmp_path / "straight" / "checkpoints" / "latest.pt")
    b = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")
    assert a["update"] == b["update"] == 3 and a["global_step"] == 3 * 32 * 32
    for name, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][name]), name
    assert [(e["name"], e["score"], e["elo"]) for e in a["pool"]["entries"]] == [
        (e["name"], e["score"], e["elo"]) for e in b["pool"]["entries"]]


@needs_ray
def test_a_hanaawase_ray_run_resumes_to_the_same_run(local_ray, tmp_path) -> None:
    """Hana-awase's tables play on the workers as Koi-Koi's games do."""
    cfg = HanaawaseConfig(n_envs=8, total_decisions=8 * 21 * 3, hidden=8, layers=1,
                          ray_workers=2, eval_interval=0, checkpoint_interval=1,
                          snapshot_interval=1, baselines=["greedy"], progress_bar=False)
    summary = train(cfg, run_dir=tmp_path / "straight")
    assert summary["charts/SPS"] > 0 and "charts/mean_score" in summary
    train(cfg, run_dir=tmp_path / "split", stop_after=1)
    assert len(load_checkpoint(tmp_path / "split/checkpoints/latest.pt")["ray_workers"]) == 2
    train(None, resume=tmp_path / "split")
    a = load_checkpoint(tmp_path / "straight" / "checkpoints" / "latest.pt")
    b = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")
    assert a["update"] == b["update"] == 3
    for name, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][name]), name


def _three_updates(cfg: PPOConfig, run_dir: Path, kill_before: int | None = None) -> list:
    """Three rollouts and updates of a trainer on Ray workers; worker 1 is killed before
    rollout ``kill_before``."""
    from agents.train.run import make_trainer

    trainer = make_trainer(cfg, run_dir)
    steps = []
    try:
        for update in range(3):
            if update == kill_before:
                local_ray_module().kill(trainer.rollouts.workers[1])
                with pytest.warns(UserWarning, match="worker 1 died in update 2"):
                    buf, stats = trainer.collect()
            else:
                buf, stats = trainer.collect()
            steps.append((buf, trainer.learn(buf), trainer.pool.state_dict()))
        assert trainer.rollouts.replaced == (kill_before is not None)
    finally:
        trainer.close()
    return steps


def local_ray_module():
    import ray

    return ray


@needs_ray
def test_a_killed_worker_is_replaced_and_the_update_goes_on(local_ray, tmp_path) -> None:
    """The replacement starts from the worker's seed and its state at the update's start
    and plays its share again: the run is the one no worker died in."""
    cfg = _config(baselines=["random", "greedy"])
    reference = _three_updates(cfg, tmp_path / "a")
    killed = _three_updates(cfg, tmp_path / "b", kill_before=1)
    for (buf_a, metrics_a, pool_a), (buf_b, metrics_b, pool_b) in zip(reference, killed):
        assert buf_a.keys() == buf_b.keys()
        for key in buf_a:
            np.testing.assert_array_equal(buf_a[key], buf_b[key], err_msg=key)
        assert metrics_a == metrics_b and pool_a == pool_b
    buf = reference[0][0]
    half = buf["obs"].shape[1] // 2  # worker 0's games, then worker 1's
    assert not np.array_equal(buf["obs"][:, :half], buf["obs"][:, half:])
    assert sum(e["rounds"] for e in reference[-1][2]["entries"]) > 0  # the pool was credited


def test_ray_settings_are_checked_before_anything_runs() -> None:
    with pytest.raises(ConfigError, match=r"n_envs \(32\) must be a multiple of ray_workers"):
        _config(ray_workers=3)
    with pytest.raises(ConfigError, match="ray_workers must be an integer >= 0"):
        _config(ray_workers=-1)
    with pytest.raises(ConfigError, match="give ray_workers=N"):
        _config(ray_workers=0, ray_address="auto")
    with pytest.raises(ConfigError, match="ray_address must be"):
        _config(ray_address=5)


def test_the_default_paths_never_import_ray() -> None:
    code = ("import sys, evaluate, train, agents.train.run, agents.analysis.koikoi_value\n"
            "from agents.train.koikoi import KoiKoiTrainer as Trainer\n"
            "from agents.train.config import PPOConfig\n"
            "Trainer(PPOConfig(n_envs=4, n_steps=2, n_minibatches=1, hidden=8, layers=1, "
            "progress_bar=False), '').collect()\n"
            "assert 'ray' not in sys.modules, 'ray was imported'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
