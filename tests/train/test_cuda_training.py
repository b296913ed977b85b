"""The trainer's CUDA path: PPO's update on the GPU equals the CPU's update of the same
rollout (to float tolerance), leaves the learner on the CPU for the next rollout, and a CUDA
run writes checkpoints that load and play on the CPU. Skipped where torch sees no CUDA GPU."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from agents.bots.policy import load_checkpoint
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import PPOConfig
from agents.train.koikoi import KoiKoiTrainer
from agents.train.run import train as run_training
from tests.helpers.paths import SMOKE

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _config(device: str) -> PPOConfig:
    return PPOConfig.from_dict({"n_envs": 16, "n_steps": 24, "hidden": 32, "layers": 2,
                                "warmstart_decisions": 0, "eval_interval": 0,
                                "baselines": ["random"], "progress_bar": False,
                                "update_epochs": 2, "device": device})


def test_a_cuda_update_equals_the_cpu_update_and_hands_the_learner_back(tmp_path: Path
                                                                        ) -> None:
    on_cpu = KoiKoiTrainer(_config("cpu"), tmp_path / "cpu")
    on_gpu = KoiKoiTrainer(_config("cuda"), tmp_path / "gpu")
    buf, _ = on_cpu.collect()
    gpu_buf, _ = on_gpu.collect()  # the same seed's rollout, played on the CPU as well
    for key, value in buf.items():
        assert (gpu_buf[key] == value).all(), key
    cpu_losses = on_cpu.learn(buf)
    gpu_losses = on_gpu.learn(gpu_buf)
    for (name, cpu_weight), gpu_weight in zip(on_cpu.network.state_dict().items(),
                                              on_gpu.network.state_dict().values()):
        assert gpu_weight.device.type == "cpu", name  # rollouts play on the CPU
        torch.testing.assert_close(gpu_weight, cpu_weight, atol=1e-4, rtol=1e-3)
    for state in on_gpu.optimizer.state.values():
        assert all(v.device.type == "cpu" for v in state.values() if torch.is_tensor(v))
    assert gpu_losses["losses/policy_loss"] == pytest.approx(cpu_losses["losses/policy_loss"],
                                                             abs=1e-4)


def test_a_cuda_run_writes_checkpoints_that_play_on_the_cpu(tmp_path: Path) -> None:
    settings = {**yaml.safe_load(SMOKE.read_text()), "device": "cuda", "total_decisions": 4096,
                "warmstart_decisions": 1024, "eval_interval": 0, "progress_bar": False}
    run_training(PPOConfig.from_dict(settings), run_dir=tmp_path / "run")
    checkpoint = tmp_path / "run" / "checkpoints" / "latest.pt"
    weights = load_checkpoint(checkpoint)
    assert all(t.device.type == "cpu" for t in weights["model"].values())
    agent = make_agent(str(checkpoint))
    result = play_matches(agent, make_agent("random"), 4, seed=3)
    assert result["wins"] + result["draws"] + result["losses"] == 4
