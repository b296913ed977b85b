"""The command lines with Hana-awase: a person plays a round in the terminal against two
bots, and train.py runs a Hana-awase config."""

from __future__ import annotations

import io
import re
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
                       "total_decisions=56", "num_envs=8", "hidden=8", "layers=1",
                       "warmstart_decisions=0", "eval_every=0", "progress_bar=false"])
    assert code == 0
    assert (tmp_path / "r" / "checkpoints" / "latest.pt").is_file()
    assert "game: hanaawase" in (tmp_path / "r" / "config.yaml").read_text()
    assert train.main(["--config", "configs/hanaawase.yaml", "n_envs=3"]) == 2
    assert "unknown config key" in capsys.readouterr().err
