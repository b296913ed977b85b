"""train.py's command line when a run is stopped and resumed: ``--resume`` needs only the run
folder and keeps its config and rules, refuses finished runs, foreign folders, policy files and
checkpoints whose parts do not fit, names what is missing; Ctrl-C and SIGTERM name the resume
command, at any point of a run, and the resumed run finishes as the uninterrupted one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from agents.bots.policy import load_checkpoint, save_checkpoint
from agents.train.config import PPOConfig
from agents.train.run import train as run_training
from hanafuda_cli import train
from tests.helpers.paths import ROOT, SMOKE


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


def test_resume_needs_only_the_run_folder_and_keeps_its_config(tmp_path, capsys) -> None:
    run_dir = tmp_path / "run"
    base = ["--config", str(SMOKE), "eval_interval=0", "total_decisions=2048"]
    assert train.main([*base, "--run-dir", str(run_dir)]) == 0
    assert train.main(["--resume", str(run_dir), "total_decisions=3072"]) == 0
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt")["update"] == 3
    assert train.main(["--resume", str(run_dir), "learning_rate=0.1"]) == 2
    assert "only total_decisions" in capsys.readouterr().err


def _smoke(**changes) -> PPOConfig:
    return PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "eval_interval": 0,
                                "total_decisions": 1024, **changes})


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


def test_ctrl_c_names_the_resume_command_and_resume_finishes_the_same_run(
        tmp_path, capsys, monkeypatch) -> None:
    from agents.train.koikoi import KoiKoiTrainer as Trainer

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
    real_clone, calls = agents.train.warm_start.clone, []

    def clone_then_ctrl_c(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_clone(*a, **k)

    monkeypatch.setattr(agents.train.warm_start, "clone", clone_then_ctrl_c)
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

    # a checkpoint without one of the parts of a training state: named, nothing written
    old = tmp_path / "old"
    run_training(_smoke(total_decisions=2048), run_dir=old, stop_after=1)
    payload = load_checkpoint(old / "checkpoints" / "latest.pt")
    del payload["eval_weights"]
    save_checkpoint(old / "checkpoints" / "latest.pt", payload)
    before = sorted(p.name for p in old.rglob("*"))
    assert train.main(["--resume", str(old)]) == 2
    assert "does not hold a training state this run can resume (missing 'eval_weights')" in (
        capsys.readouterr().err)
    assert sorted(p.name for p in old.rglob("*")) == before
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


def test_ctrl_c_while_a_run_is_being_opened(tmp_path, capsys, monkeypatch) -> None:
    """Before the training loop: nothing written yet, or a claimed folder that --resume
    starts over; no traceback either way."""
    import agents.train.run as ppo_run
    from hanafuda_cli.commands import program

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ppo_run, "make_trainer", interrupted)
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


def test_resume_given_a_checkpoint_names_its_run_folder(tmp_path, capsys) -> None:
    checkpoint = tmp_path / "run" / "checkpoints" / "latest.pt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(b"state")
    assert train.main(["--resume", str(checkpoint)]) == 2
    assert f"takes the run folder ({str(tmp_path / 'run')!r})" in capsys.readouterr().err


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize(("edit", "detail"), [
    (lambda state: state.pop("optimizer"), "missing 'optimizer'"),
    (lambda state: state.pop("arrays"), "missing 'arrays'"),
    (lambda state: state["config"].update(hidden=128), "size mismatch"),
    (lambda state: state["config"].update(n_envs=16), "has shape"),
    (lambda state: state["arrays"]["env"]["phase"].fill_(9), "state field 'phase' must be"),
    (lambda state: state["arrays"]["env"]["stock_pos"].fill_(30), "'stock_pos' must be 0..24"),
    (lambda state: state["arrays"]["env"].update(
        hands=state["arrays"]["env"]["hands"].double()), "'hands' must hold integers"),
])
def test_resume_refuses_a_checkpoint_whose_parts_do_not_fit(tmp_path: Path, capsys, edit,
                                                            detail: str) -> None:
    """An edited checkpoint, or one of another version: a named error (not a KeyError or
    torch's RuntimeError) and the run folder exactly as it was."""
    import shutil

    import yaml

    from agents.train.run import train as run_training
    from hanafuda_cli import train

    smoke = SMOKE
    run = tmp_path / "run"
    run_training(PPOConfig.from_dict({**yaml.safe_load(smoke.read_text()), "eval_interval": 0,
                                      "total_decisions": 1024, "progress_bar": False}),
                 run_dir=run)
    broken = tmp_path / "broken"
    shutil.copytree(run, broken)
    state = load_checkpoint(broken / "checkpoints" / "latest.pt")
    edit(state)
    save_checkpoint(broken / "checkpoints" / "latest.pt", state)
    before = _tree(broken)
    capsys.readouterr()
    assert train.main(["--resume", str(broken), "total_decisions=2048"]) == 2
    err = capsys.readouterr().err
    assert "does not hold a training state this run can resume" in err and detail in err, err
    assert "Traceback" not in err
    assert _tree(broken) == before


def test_temporary_files_a_killed_write_left_are_removed_at_resume_and_at_the_end(
        tmp_path, monkeypatch) -> None:
    """A kill during an atomic write leaves its ``.NAME.*.tmp``: the run clears them when it
    resumes and when it finishes; its own files stay."""
    from agents.train import ppo

    run_dir = tmp_path / "run"
    run_training(_smoke(total_decisions=2048), run_dir=run_dir, stop_after=1)
    left = [run_dir / "checkpoints" / ".latest.pt.x1y2z3.tmp", run_dir / ".config.yaml.a1.tmp"]
    for path in left:
        path.write_bytes(b"half a checkpoint")
    kept = sorted(p.name for p in run_dir.rglob("*") if p not in left)
    real_save = ppo.save_checkpoint

    def save_and_leave_a_temporary(path, payload):  # as if an earlier write had been killed
        real_save(path, payload)
        (Path(path).parent / f".{Path(path).name}.k1ll.tmp").write_bytes(b"")

    monkeypatch.setattr(ppo, "save_checkpoint", save_and_leave_a_temporary)
    assert train.main(["--resume", str(run_dir)]) == 0
    assert not any(path.exists() for path in left)
    assert not list(run_dir.rglob(".*.tmp"))  # those of this run's own writes too
    assert set(kept) <= {p.name for p in run_dir.rglob("*")}
