"""The training CLI end to end: smoke run, resume, reproducibility, learning, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

import train
from agents.bots.policy import PolicyAgent, load_checkpoint
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import ConfigError, PPOConfig
from agents.train.run import train as run_training

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "smoke.yaml"


def _events(run_dir: Path) -> list[Path]:
    return list(run_dir.glob("events.out.tfevents.*"))


def _scalar_tags(run_dir: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(run_dir))
    accumulator.Reload()
    return set(accumulator.Tags()["scalars"])


def test_smoke_run_writes_config_events_and_checkpoints_then_resumes(tmp_path) -> None:
    run_dir = tmp_path / "run"
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir),
                       "total_decisions=2048"]) == 0
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["total_decisions"] == 2048 and saved["resolved_rules"]["name"] == "nintendo"
    assert _events(run_dir)
    tags = _scalar_tags(run_dir)
    for tag in ("charts/SPS", "losses/policy_loss", "losses/value_loss", "losses/entropy",
                "losses/approx_kl", "losses/clipfrac", "losses/explained_variance",
                "charts/learning_rate", "koikoi/call_rate", "koikoi/paid_off_rate",
                "elo/learner", "eval/win_rate_vs_random", "eval/points_per_round_vs_random"):
        assert tag in tags, tag
    first = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert first["update"] == 2
    assert not list((run_dir / "checkpoints").glob("*.tmp"))

    assert train.main(["--resume", str(run_dir), "total_decisions=4096"]) == 0
    resumed = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert resumed["update"] == 4 and resumed["global_step"] == 4096
    assert len(resumed["history"]) == 4


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
    from agents.train.ppo import Trainer

    trainer = Trainer(cfg, tmp_path / "second")
    assert trainer.warm_started  # the checkpoint replaces the warm start
    for name, tensor in load_checkpoint(start)["model"].items():
        assert torch.equal(trainer.network.state_dict()[name], tensor), name
    with pytest.raises(ValueError, match="holds a network"):
        Trainer(PPOConfig.from_dict({**base, "init_checkpoint": str(start), "hidden": 32}),
                tmp_path / "third")


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


def test_train_script_runs_as_a_program(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), "--run-dir",
         str(tmp_path / "cli"), "total_decisions=1024", "eval_interval=0"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "run folder" in result.stdout
    assert (tmp_path / "cli" / "checkpoints" / "latest.pt").is_file()
    command = result.stdout.split("TensorBoard: ")[1].split(" --logdir")[0]
    assert command == "tensorboard" or (ROOT / command).is_file()  # one that runs as printed


def test_resume_needs_only_the_run_folder_and_keeps_its_config(tmp_path, capsys) -> None:
    run_dir = tmp_path / "run"
    base = ["--config", str(SMOKE), "eval_interval=0", "total_decisions=2048"]
    assert train.main([*base, "--run-dir", str(run_dir)]) == 0
    assert train.main(["--resume", str(run_dir), "total_decisions=3072"]) == 0
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt")["update"] == 3
    assert train.main(["--resume", str(run_dir), "learning_rate=0.1"]) == 2
    assert "only total_decisions" in capsys.readouterr().err


def test_match_episodes_train_and_record_match_results(tmp_path) -> None:
    cfg = PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "episode": "match",
                               "rules": {"rounds": 1}, "total_decisions": 2048,
                               "eval_interval": 0, "self_play_fraction": 0.0})
    summary = run_training(cfg, run_dir=tmp_path / "m")
    payload = load_checkpoint(tmp_path / "m" / "checkpoints" / "latest.pt")
    assert payload["pool"]["entries"][0]["rounds"] > 0  # matches were recorded vs random
    assert summary["charts/rounds"] > 0


def test_checkpoint_with_arbitrary_objects_is_refused(tmp_path) -> None:
    from fractions import Fraction  # any class outside torch's allow-list stands for code

    path = tmp_path / "evil.pt"
    torch.save({"format": "hanafuda-koikoi/ppo-v1", "model": {}, "network": {},
                "extra": Fraction(1, 3)}, path)
    from agents.bots.policy import CheckpointError

    with pytest.raises(CheckpointError, match=r"plain values \(fractions.Fraction\)") as raised:
        load_checkpoint(path)
    assert "weights_only" not in str(raised.value)


def _smoke(**changes) -> PPOConfig:
    return PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "eval_interval": 0,
                                "total_decisions": 1024, **changes})


def test_a_new_run_never_writes_into_a_used_folder(tmp_path, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "notes.txt").write_text("mine")
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert "is not an empty folder" in err and f"--resume {run_dir}" in err
    assert sorted(p.name for p in run_dir.iterdir()) == ["notes.txt"]
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir / "notes.txt")]) == 2
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and "--resume" not in err
    # default names: two runs started in the same second get folders of their own
    from agents.train.config import claim_run_dir

    cfg = _smoke(log_dir=str(tmp_path / "runs"))
    first, second = claim_run_dir(cfg, None), claim_run_dir(cfg, None)
    assert first != second and first.is_dir() and second.is_dir()


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


def test_resume_keeps_the_saved_rules_when_the_rule_file_changes(tmp_path) -> None:
    rule_file = tmp_path / "rules.yaml"
    rule_file.write_text("preset: nintendo\nrounds: 6\n")
    run_dir = tmp_path / "run"
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir), "eval_interval=0",
                       f"rules={rule_file}", "total_decisions=1024"]) == 0
    rule_file.write_text("preset: ten-base\nrounds: 3\n")
    assert train.main(["--resume", str(run_dir), "total_decisions=2048"]) == 0
    payload = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert payload["update"] == 2
    assert payload["rules"]["name"] == "nintendo+custom" and payload["rules"]["rounds"] == 6
    rule_file.unlink()  # the run does not need the file any more
    assert train.main(["--resume", str(run_dir), "total_decisions=3072"]) == 0
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    # a resumed run's config names its rules in full (the file may be gone or changed)
    assert saved["total_decisions"] == 3072 and saved["rules"]["rounds"] == 6


def test_resume_refuses_finished_runs_foreign_folders_and_policy_files(tmp_path, capsys
                                                                        ) -> None:
    run_dir = tmp_path / "run"
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir), "eval_interval=0",
                       "total_decisions=1024"]) == 0
    summary = (run_dir / "summary.json").read_text()
    events = sorted(_events(run_dir))
    assert train.main(["--resume", str(run_dir)]) == 2
    assert "already complete" in capsys.readouterr().err
    assert (run_dir / "summary.json").read_text() == summary and sorted(_events(run_dir)) == events
    assert train.main(["--resume", str(run_dir), "--run-dir", str(tmp_path / "elsewhere"),
                       "total_decisions=2048"]) == 2
    assert "without --run-dir" in capsys.readouterr().err
    policy_only = tmp_path / "policy"
    (policy_only / "checkpoints").mkdir(parents=True)
    payload = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    from agents.bots.policy import save_checkpoint

    save_checkpoint(policy_only / "checkpoints" / "latest.pt",
                    {"model": payload["model"], "network": payload["network"]})
    assert train.main(["--resume", str(policy_only)]) == 2
    assert "policy checkpoint" in capsys.readouterr().err


def test_checkpoints_for_other_observation_or_action_sizes_are_refused(tmp_path) -> None:
    from agents.bots.network import ActorCritic
    from agents.bots.policy import CheckpointError, save_checkpoint

    for sizes in ({"obs_dim": 100}, {"n_actions": 50}):
        path = tmp_path / "other.pt"
        save_checkpoint(path, {"model": ActorCritic(hidden=8, layers=1, **sizes).state_dict(),
                               "network": {"hidden": 8, "layers": 1, **sizes}})
        with pytest.raises(CheckpointError, match="obs_dim=303 and give n_actions=98"):
            PolicyAgent.load(path)


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


def test_a_bad_opponent_checkpoint_fails_before_the_run_folder_is_made(tmp_path, capsys
                                                                        ) -> None:
    from agents.bots.network import ActorCritic
    from agents.bots.policy import save_checkpoint

    bad = tmp_path / "bad.pt"
    save_checkpoint(bad, {"model": ActorCritic(obs_dim=100, hidden=8, layers=1).state_dict(),
                          "network": {"obs_dim": 100, "hidden": 8, "layers": 1}})
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "run"),
                       f"baselines=[random, {bad}]"]) == 2
    assert "obs_dim=303" in capsys.readouterr().err
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "run"),
                       f"eval_opponents=[{bad}]"]) == 2  # not at the first evaluation
    assert "obs_dim=303" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_ctrl_c_names_the_resume_command_and_resume_finishes_the_same_run(
        tmp_path, capsys, monkeypatch) -> None:
    from agents.train.ppo import Trainer

    args = ["--config", str(SMOKE), "total_decisions=4096", "eval_interval=0",
            "checkpoint_interval=1"]
    assert train.main([*args, "--run-dir", str(tmp_path / "straight")]) == 0
    real_collect, calls = Trainer.collect, []

    def collect_then_ctrl_c(self: Trainer):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_collect(self)

    monkeypatch.setattr(Trainer, "collect", collect_then_ctrl_c)
    assert train.main([*args, "--run-dir", str(tmp_path / "split")]) == 130
    err = capsys.readouterr().err
    assert f"--resume {tmp_path / 'split'}" in err and "update 2 of 4" in err
    assert "Traceback" not in err
    monkeypatch.undo()
    assert train.main(["--resume", str(tmp_path / "split")]) == 0
    a = load_checkpoint(tmp_path / "straight" / "checkpoints" / "latest.pt")["model"]
    b = load_checkpoint(tmp_path / "split" / "checkpoints" / "latest.pt")["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_sigterm_stops_a_run_like_ctrl_c(tmp_path) -> None:
    """A scheduler stopping the job gets the resume command, not a silent death."""
    import signal
    import time

    run_dir = tmp_path / "job"
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), "--run-dir",
         str(run_dir), "total_decisions=10000000", "eval_interval=0", "checkpoint_interval=1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    latest = run_dir / "checkpoints" / "latest.pt"
    deadline = time.monotonic() + 120
    while not latest.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert f"--resume {run_dir} continues from the last checkpoint" in err
    assert "Traceback" not in err and load_checkpoint(latest)["update"] >= 1


def test_a_run_stopped_in_its_warm_start_starts_over_on_resume(tmp_path, capsys,
                                                                monkeypatch) -> None:
    """Before its first checkpoint a run has only config.yaml and warm-start events:
    --resume runs it again from the start in that folder, as if never stopped."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    import agents.train.warm_start

    args = ["--config", str(SMOKE), "total_decisions=2048", "eval_interval=0",
            "warmstart_decisions=3072"]
    assert train.main([*args, "--run-dir", str(tmp_path / "straight")]) == 0
    real_clone, calls = agents.train.warm_start.clone_batch, []

    def clone_then_ctrl_c(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_clone(*a, **k)

    monkeypatch.setattr(agents.train.warm_start, "clone_batch", clone_then_ctrl_c)
    run_dir = tmp_path / "split"
    assert train.main([*args, "--run-dir", str(run_dir)]) == 130
    assert f"--resume {run_dir} starts it over" in capsys.readouterr().err
    assert not (run_dir / "checkpoints").exists()
    monkeypatch.undo()
    assert train.main(["--resume", str(run_dir)]) == 0
    a = load_checkpoint(tmp_path / "straight" / "checkpoints" / "latest.pt")["model"]
    b = load_checkpoint(run_dir / "checkpoints" / "latest.pt")["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    accumulator = EventAccumulator(str(run_dir))
    accumulator.Reload()
    assert [e.step for e in accumulator.Scalars("imitation/accuracy")] == [1024, 2048, 3072]


def test_resume_errors_name_what_is_missing(tmp_path, capsys) -> None:
    from agents.bots.policy import save_checkpoint

    # an older checkpoint (no eval weights kept) whose evaluation opponent file is gone
    rival = tmp_path / "rival.pt"
    run_training(_smoke(), run_dir=tmp_path / "first")
    rival.write_bytes((tmp_path / "first" / "checkpoints" / "latest.pt").read_bytes())
    old = tmp_path / "old"
    run_training(_smoke(total_decisions=2048, eval_opponents=[str(rival)], eval_interval=1,
                        eval_matches=2), run_dir=old, stop_after=1)
    payload = load_checkpoint(old / "checkpoints" / "latest.pt")
    del payload["eval_weights"]
    save_checkpoint(old / "checkpoints" / "latest.pt", payload)
    rival.unlink()
    assert train.main(["--resume", str(old)]) == 2
    assert f"checkpoint {str(rival)!r} does not exist" in capsys.readouterr().err
    # latest.pt deleted but numbered checkpoints left: no silent start over
    (old / "checkpoints" / "latest.pt").unlink()
    assert train.main(["--resume", str(old)]) == 2
    assert "update_000001.pt is there; copy it to latest.pt" in capsys.readouterr().err
    assert train.main(["--resume", str(tmp_path / "nowhere")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    # a folder with only the empty config.yaml a claim leaves
    claimed = tmp_path / "claimed"
    claimed.mkdir()
    (claimed / "config.yaml").write_text("")
    assert train.main(["--resume", str(claimed)]) == 2
    assert "no complete config.yaml" in capsys.readouterr().err


def test_a_bad_teacher_file_fails_before_the_run_folder_is_made(tmp_path, capsys) -> None:
    bad = tmp_path / "teacher.pt"
    bad.write_bytes(b"not a checkpoint")
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "run"),
                       f"warmstart_teacher={bad}", "warmstart_decisions=1024"]) == 2
    err = capsys.readouterr().err
    assert "warmstart_teacher" in err and "corrupt" in err
    assert not (tmp_path / "run").exists()  # the corrected command may use the same folder


def test_ctrl_c_while_a_run_is_being_opened(tmp_path, capsys, monkeypatch) -> None:
    """Before the training loop: nothing written yet, or a claimed folder that --resume
    starts over; no traceback either way."""
    import agents.train.run as ppo_run
    from cli.commands import program

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ppo_run, "Trainer", interrupted)
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "early")]) == 130
    assert "nothing to resume" in capsys.readouterr().err
    assert not (tmp_path / "early").exists()
    monkeypatch.undo()
    import torch.utils.tensorboard

    monkeypatch.setattr(torch.utils.tensorboard, "SummaryWriter", interrupted)  # config written
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "claimed")]) == 130
    err = capsys.readouterr().err
    assert f"--resume {tmp_path / 'claimed'} starts it over" in err and "Traceback" not in err
    assert f"{program('python')} train.py --resume" in err
    monkeypatch.undo()
    import agents.train.config

    monkeypatch.setattr(agents.train.config, "resume_config", interrupted)  # reading the run
    assert train.main(["--resume", str(tmp_path / "claimed")]) == 130
    assert "continues the run as before" in capsys.readouterr().err
    monkeypatch.undo()
    assert train.main(["--resume", str(tmp_path / "claimed")]) == 0


