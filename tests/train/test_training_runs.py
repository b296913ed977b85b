"""Training runs end to end through ``agents.train.run.train``: a resumed run equals an
uninterrupted one, the same seed gives the same run, best.pt follows the best evaluation, an
initial checkpoint replaces the warm start and must fit, match episodes train, a run folder is
never shared or left behind by a refused setting, and PPO from scratch beats random."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from agents.bots.policy import PolicyAgent, load_checkpoint
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import ConfigError, PPOConfig
from agents.train.run import train as run_training
from hanafuda_cli import train
from tests.helpers.paths import SMOKE

REPLACING_POOL = {"total_decisions": 16 * 8 * 12, "n_envs": 16, "n_steps": 8,
                  "max_snapshots": 1, "snapshot_interval": 1, "self_play_fraction": 0.0,
                  "baselines": ["random"], "warmstart_decisions": 0, "checkpoint_interval": 1}


@pytest.mark.parametrize(("extra", "split"), [
    ({}, 1), ({"critic": "privileged", "reward": "match_win"}, 1),
    (REPLACING_POOL, 7),  # split while games still play retired snapshots
])
def test_resumed_run_equals_uninterrupted_run(tmp_path, extra, split) -> None:
    overrides = {"total_decisions": 4096, "eval_interval": 0, "warmstart_decisions": 1024,
                 **extra}
    cfg = PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), **overrides})
    run_training(cfg, run_dir=tmp_path / "straight")
    run_training(cfg, run_dir=tmp_path / "split", stop_after=split)
    stopped = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")
    assert stopped["update"] == split
    if extra is REPLACING_POOL:
        assert any(entry["retired"] for entry in stopped["pool"]["entries"])
    run_training(cfg, resume=tmp_path / "split")
    a = load_checkpoint(tmp_path / "straight" / "checkpoints" / "latest.pt")
    b = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")
    for name, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][name]), name
    assert (a["critic"] is None) == (extra.get("critic", "shared") == "shared")
    for name, tensor in (a["critic"] or {}).items():
        assert torch.equal(tensor, b["critic"][name]), name


def test_same_seed_gives_the_same_run(tmp_path) -> None:
    base = {**yaml.safe_load(SMOKE.read_text()), "total_decisions": 2048, "eval_interval": 0}
    for name in ("a", "b"):
        run_training(PPOConfig.from_dict(base), run_dir=tmp_path / name)
    other = {**base, "seed": 2}
    run_training(PPOConfig.from_dict(other), run_dir=tmp_path / "c")
    weights = {n: load_checkpoint(tmp_path / n / "checkpoints" / "latest.pt")["model"]
               for n in "abc"}
    assert all(torch.equal(weights["a"][k], weights["b"][k]) for k in weights["a"])
    assert not all(torch.equal(weights["a"][k], weights["c"][k]) for k in weights["a"])


def test_best_checkpoint_follows_the_best_evaluation(tmp_path) -> None:
    cfg = PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "total_decisions": 8192,
                               "eval_interval": 1, "eval_matches": 4,
                               "best_opponent": "random"})
    run_training(cfg, run_dir=tmp_path / "run")
    best = load_checkpoint(tmp_path / "run" / "checkpoints" / "best.pt")
    history = load_checkpoint(tmp_path / "run" / "checkpoints" / "latest.pt")["history"]
    rates = [row["eval/win_rate_vs_random"] for row in history]
    assert best["win_rate"] == max(rates)
    assert best["update"] == 1 + rates.index(max(rates))  # the first evaluation that reached it
    assert PolicyAgent.load(tmp_path / "run" / "checkpoints" / "best.pt").name == "best"
    with pytest.raises(ValueError, match="best_opponent must be one of"):
        PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "best_opponent": "expert"})


def test_init_checkpoint_starts_from_its_weights_and_must_fit(tmp_path) -> None:
    base = {**yaml.safe_load(SMOKE.read_text()), "total_decisions": 1024, "eval_interval": 0}
    run_training(PPOConfig.from_dict(base), run_dir=tmp_path / "first")
    start = tmp_path / "first" / "checkpoints" / "latest.pt"
    cfg = PPOConfig.from_dict({**base, "init_checkpoint": str(start), "warmstart_decisions": 512,
                               "critic": "privileged"})
    from agents.train.koikoi import KoiKoiTrainer as Trainer

    trainer = Trainer(cfg, tmp_path / "second")
    assert trainer.warm_started  # the checkpoint replaces the warm start
    for name, tensor in load_checkpoint(start)["model"].items():
        assert torch.equal(trainer.network.state_dict()[name], tensor), name
    with pytest.raises(ValueError, match="holds a network"):
        Trainer(PPOConfig.from_dict({**base, "init_checkpoint": str(start), "hidden": 32}),
                tmp_path / "third")


def test_match_episodes_train_and_record_match_results(tmp_path) -> None:
    cfg = PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "episode": "match",
                               "rules": {"rounds": 1}, "total_decisions": 2048,
                               "eval_interval": 0, "self_play_fraction": 0.0})
    summary = run_training(cfg, run_dir=tmp_path / "m")
    payload = load_checkpoint(tmp_path / "m" / "checkpoints" / "latest.pt")
    assert payload["pool"]["entries"][0]["rounds"] > 0  # matches were recorded vs random
    assert summary["charts/rounds"] > 0


def _smoke(**changes) -> PPOConfig:
    return PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "eval_interval": 0,
                                "total_decisions": 1024, **changes})


def test_resuming_an_older_checkpoint_hides_the_lost_tail_in_tensorboard(tmp_path) -> None:
    """A run that died after update 3 but saved at update 2 logs update 3 again on resume;
    TensorBoard must show each step once."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = _smoke(total_decisions=4096, checkpoint_interval=2, warmstart_decisions=2048)
    run_dir = tmp_path / "run"
    run_training(cfg, run_dir=run_dir, stop_after=3)
    folder = run_dir / "checkpoints"
    (folder / "latest.pt").write_bytes((folder / "update_000002.pt").read_bytes())
    run_training(cfg, resume=run_dir)
    accumulator = EventAccumulator(str(run_dir))
    accumulator.Reload()
    steps = [event.step for event in accumulator.Scalars("charts/SPS")]
    assert steps == [1024, 2048, 3072, 4096]
    # the warm start's curve, on the same step axis, survives
    assert [e.step for e in accumulator.Scalars("imitation/accuracy")] == [1024, 2048]


def test_resume_needs_neither_the_start_weights_nor_the_opponent_files(tmp_path, capsys
                                                                        ) -> None:
    """Resume reads only the run folder: init_checkpoint may be gone, and an opponent given
    as a checkpoint (in the pool, in evaluations) plays the weights it had when the run
    started."""
    run_training(_smoke(), run_dir=tmp_path / "first")
    start = tmp_path / "start.pt"
    start.write_bytes((tmp_path / "first" / "checkpoints" / "latest.pt").read_bytes())
    rival = tmp_path / "rival.pt"
    rival.write_bytes(start.read_bytes())
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "gone"),
                       "init_checkpoint=" + str(tmp_path / "nothing.pt")]) == 2
    assert "init_checkpoint: checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "gone").exists()
    cfg = _smoke(init_checkpoint=str(start), baselines=[str(rival)], total_decisions=3072,
                 eval_opponents=[str(rival)], eval_interval=1, eval_matches=6)
    run_training(cfg, run_dir=tmp_path / "straight")
    run_training(cfg, run_dir=tmp_path / "split", stop_after=1)
    start.unlink()
    from agents.bots.policy import save_checkpoint

    changed = load_checkpoint(rival)  # the rival's file changes under the run
    changed["model"] = {k: v + 1.0 for k, v in changed["model"].items()}
    save_checkpoint(rival, {"model": changed["model"], "network": changed["network"]})
    run_training(cfg, resume=tmp_path / "split", stop_after=1)
    rival.unlink()  # ... and then goes away
    assert train.main(["--resume", str(tmp_path / "split")]) == 0
    a = load_checkpoint(tmp_path / "straight" / "checkpoints" / "latest.pt")
    b = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    evals = [[row[f"eval/points_per_round_vs_{rival}"] for row in run["history"]]
             for run in (a, b)]
    assert len(evals[0]) == 3 and evals[0] == evals[1]


# ------------------------------------------------------------------ run folders
def test_two_runs_given_the_same_new_folder_do_not_share_it(tmp_path, monkeypatch) -> None:
    from agents.train.config import claim_run_dir

    run_dir, real_mkdir = tmp_path / "run", Path.mkdir

    def mkdir_then_a_rival_claims_it(self: Path, *args, **kwargs) -> None:
        real_mkdir(self, *args, **kwargs)  # both runs found the folder new; the rival is first
        if self == run_dir:
            (run_dir / "config.yaml").write_text("rival")

    monkeypatch.setattr(Path, "mkdir", mkdir_then_a_rival_claims_it)
    with pytest.raises(ConfigError, match="not an empty folder"):
        claim_run_dir(_smoke(), run_dir)
    assert (run_dir / "config.yaml").read_text() == "rival"
    monkeypatch.undo()
    mine = claim_run_dir(_smoke(), tmp_path / "mine")
    assert [p.name for p in mine.iterdir()] == ["config.yaml"]


def test_a_setting_rejected_by_the_trainer_leaves_no_folder(tmp_path) -> None:
    run_training(_smoke(), run_dir=tmp_path / "first")
    start = tmp_path / "first" / "checkpoints" / "latest.pt"
    with pytest.raises(ValueError, match="holds a network"):
        run_training(_smoke(init_checkpoint=str(start), hidden=32), run_dir=tmp_path / "second")
    assert not (tmp_path / "second").exists()


# --------------------------------------------------------------------- learning
def test_ppo_from_scratch_beats_random_after_a_small_budget(tmp_path) -> None:
    cfg = PPOConfig(seed=3, total_decisions=240_000, n_envs=64, n_steps=64, hidden=64,
                    learning_rate=3e-3, update_epochs=8, baselines=["random"],
                    self_play_fraction=0.0,
                    eval_interval=0, snapshot_interval=1000, checkpoint_interval=1000,
                    progress_bar=False)
    run_training(cfg, run_dir=tmp_path / "run")
    agent = PolicyAgent.load(tmp_path / "run" / "checkpoints" / "latest.pt")
    result = play_matches(agent, make_agent("random", "nintendo", seed=0), 400,
                          rules={"rounds": 3}, seed=11)
    # Round points are heavy-tailed (std ~10): the interval, not the mean, must clear zero.
    assert result["points_per_round"]["low"] > 0.0, result["points_per_round"]
    assert result["win_rate"]["value"] > 0.5, result["win_rate"]
