"""The command lines with Hana-awase: a person plays a round in the terminal against two
bots, and train.py runs a Hana-awase config as it runs a Koi-Koi one (its folder, its warm
start's progress, numbered checkpoints, Ctrl-C naming the update to continue from)."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hanafuda_cli import play, train


def test_a_person_plays_a_whole_round_against_two_bots(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 40))
    assert play.main(["--game", "hanaawase", "--players", "3", "--rounds", "1", "--seed", "5",
                      "--bot", "greedy", "--seat", "1"]) == 0
    out = capsys.readouterr().out
    assert "You are player_1" in out and "round 1 over:" in out
    assert re.search(r"you: \d+ card points", out) and "match over." in out
    assert out.count("your move:") == 7, "a three-player hand is seven cards"


@pytest.mark.parametrize("typed", ["q\n", ""], ids=["q", "end-of-input"])
def test_quitting_a_hanaawase_match_says_bye(typed: str) -> None:
    """``q`` or the end of input (Ctrl-D) ends the match as in Koi-Koi, from the real script
    (run as ``__main__``, where a second copy of the prompt's module would not catch it)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "play.py", "--game", "hanaawase", "--players", "3",
                           "--seed", "3"], input=typed, capture_output=True, text=True,
                          cwd=root, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.endswith("> \nbye.\n"), done.stdout[-80:]


def test_bad_hanaawase_options_are_named(capsys) -> None:
    assert play.main(["--game", "hanaawase", "--players", "9"]) == 2
    assert "from 2 to 7" in capsys.readouterr().err
    try:
        play.main(["--game", "hanaawase", "--players", "3", "--seat", "3"])
    except SystemExit as stop:
        assert stop.code == 2
    assert "--seat must be 0..2" in capsys.readouterr().err
    try:
        play.main(["--seat", "2"])
    except SystemExit as stop:
        assert stop.code == 2
    assert "Koi-Koi has seats 0 and 1, got 2" in capsys.readouterr().err


def test_train_py_runs_a_hanaawase_config(tmp_path: Path, capsys) -> None:
    code = train.main(["--config", "configs/hanaawase.yaml", "--run-dir", str(tmp_path / "r"),
                       "total_decisions=168", "n_envs=8", "hidden=8", "layers=1",
                       "warmstart_decisions=0", "eval_interval=0", "best_opponent=null",
                       "progress_bar=false"])
    assert code == 0
    assert (tmp_path / "r" / "checkpoints" / "latest.pt").is_file()
    assert "game: hanaawase" in (tmp_path / "r" / "config.yaml").read_text()
    assert train.main(["--config", "configs/hanaawase.yaml", "num_envs=3"]) == 2
    assert "config key 'num_envs' is now 'n_envs'" in capsys.readouterr().err
    assert train.main(["--config", "configs/hanaawase.yaml", "n_env=3"]) == 2
    assert "unknown config key" in capsys.readouterr().err


def test_a_hanaawase_run_reports_as_a_koikoi_run_does(tmp_path: Path, capsys,
                                                      monkeypatch) -> None:
    """The run says its folder, shows its warm start's progress, keeps numbered checkpoints,
    and Ctrl-C (SIGINT, sent as the third rollout starts) names the update it continues
    from; the resumed run finishes."""
    from agents.train.hanaawase import HanaawaseTrainer

    run = tmp_path / "run"
    real_collect, calls = HanaawaseTrainer.collect, []

    def collect_then_ctrl_c(self: HanaawaseTrainer):
        calls.append(1)
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)
        return real_collect(self)

    monkeypatch.setattr(HanaawaseTrainer, "collect", collect_then_ctrl_c)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        code = train.main(["--config", "configs/hanaawase.yaml", "--run-dir", str(run),
                           "total_decisions=672", "n_envs=8", "hidden=8", "layers=1",
                           "warmstart_decisions=200", "eval_interval=0",
                           "best_opponent=null", "checkpoint_interval=1"])
    finally:
        signal.signal(signal.SIGINT, before)
    out, err = capsys.readouterr()
    assert code == 130 and len(calls) == 3
    assert f"run folder: {run}" in out
    assert "warm start" in err and "accuracy=" in err
    assert f"--resume {run} continues from the last checkpoint (update 2 of 4" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in (run / "checkpoints").glob("update_*.pt")) == [
        "update_000001.pt", "update_000002.pt"]
    monkeypatch.undo()
    assert train.main(["--resume", str(run), "progress_bar=false"]) == 0
    assert sorted(p.name for p in (run / "checkpoints").glob("update_*.pt")) == [
        "update_000002.pt", "update_000003.pt", "update_000004.pt"]
