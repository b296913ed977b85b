"""The evaluate.py command line: head-to-head and league runs write standard JSON, help shows
each default once, bad agents, numbers and output paths are usage errors before a match is
played, a closed pipe keeps the JSON, and Ctrl-C ends the run cleanly."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers.interrupts import popen_interruptible, wait_for_line
from tests.helpers.paths import ROOT


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_evaluate_cli_head_to_head_and_league_write_json(tmp_path):
    out = tmp_path / "sub" / "result.json"
    done = run_cli("greedy", "random", "--matches", "6", "--rounds", "3", "--seed", "2",
                   "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "win rate" in done.stdout
    result = json.loads(out.read_text())
    assert result["wins"] + result["draws"] + result["losses"] == 6
    assert result["rounds_per_match"] == 3 and result["agent_a"] == "greedy"
    assert not list(out.parent.glob("*.tmp"))
    league_out = tmp_path / "league.json"
    done = run_cli("--league", "random", "greedy", "--matches", "4", "--rounds", "3",
                   "--json", str(league_out))
    assert done.returncode == 0, done.stderr
    league = json.loads(league_out.read_text())
    assert set(league["elo"]) == {"random", "greedy"} and league["elo"]["random"] == 1000.0


def test_evaluate_cli_json_stays_standard_for_a_single_match(tmp_path):
    """One match has no points interval: its bounds are null, not NaN (invalid JSON)."""
    out = tmp_path / "one.json"
    done = run_cli("greedy", "random", "--matches", "1", "--rounds", "1", "--json", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(name))
    assert result["points_per_match"]["low"] is None and result["matches"] == 1


def test_evaluate_cli_help_shows_each_default_once():
    """Defaults come from the parser (as in the other CLIs), not written into the help by
    hand, where they could drift from the real ones."""
    done = run_cli("--help")
    text = " ".join(done.stdout.split())
    for shown in ("matches per pairing (default: 200)", "YAML rule file (default: nintendo)",
                  "deal and agent seed (default: 0)", "tie-breaks do) (default: 1024)"):
        assert shown in text
    assert "(default None)" not in text and "default 200" not in text
    assert "(default: None)" not in text


def test_evaluate_cli_reports_bad_agents_and_arguments():
    done = run_cli("greedy", "nobody")
    assert done.returncode == 2 and "random, greedy, expert" in done.stderr
    assert run_cli("greedy").returncode == 2
    done = run_cli("greedy", "random", "--rules", "no/such.yaml")
    assert done.returncode == 2 and "rule file" in done.stderr and "nintendo" in done.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["--matches", "0"], "argument --matches: must be a positive integer (1 or more), got '0'"),
    (["--batch", "x"], "argument --batch: must be a positive integer (1 or more), got 'x'"),
    (["--rounds", "-3"], "argument --rounds: must be a positive integer"),
    (["--seed", "-1"], "argument --seed: must be an integer from 0 to"),
])
def test_evaluate_bad_numbers_are_usage_errors(args: list[str], words: str) -> None:
    """The same argument types and wording as the benchmarks (cli.arguments)."""
    done = run_cli("greedy", "random", *args)
    assert done.returncode == 2 and words in done.stderr and done.stdout == ""


def test_evaluate_cli_never_replaces_a_file_unasked(tmp_path):
    """--json problems are found before a single match is played."""
    notes = tmp_path / "notes.json"
    notes.write_text("mine")
    notes.chmod(0o600)
    done = run_cli("greedy", "random", "--matches", "2", "--rounds", "1", "--json", str(notes))
    assert done.returncode == 2 and "--overwrite" in done.stderr and notes.read_text() == "mine"
    done = run_cli("greedy", "random", "--matches", "2", "--rounds", "1", "--json", str(notes),
                   "--overwrite")
    assert done.returncode == 0 and json.loads(notes.read_text())["matches"] == 2
    assert notes.stat().st_mode & 0o777 == 0o600  # a replaced file keeps its permissions
    done = run_cli("greedy", "random", "--json", str(tmp_path))
    assert done.returncode == 2 and "folder" in done.stderr
    done = run_cli("greedy", "random", "--json", str(notes / "x.json"))
    assert done.returncode == 2 and "is a file" in done.stderr
    checkpoint = tmp_path / "bot.pt"
    checkpoint.write_bytes(b"weights")
    done = run_cli(str(checkpoint), "random", "--json", str(checkpoint), "--overwrite")
    assert done.returncode == 2 and "checkpoint" in done.stderr
    assert checkpoint.read_bytes() == b"weights"
    named_like_a_baseline = tmp_path / "expert"
    named_like_a_baseline.write_bytes(b"weights")
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "expert", "random",
                           "--json", "expert", "--overwrite"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and named_like_a_baseline.read_bytes() == b"weights"
    rule_file = tmp_path / "rules.yaml"
    rule_file.write_text("rounds: 1\n")
    done = run_cli("greedy", "random", "--rules", str(rule_file), "--json", str(rule_file),
                   "--overwrite")
    assert done.returncode == 2 and "the rule file" in done.stderr
    assert rule_file.read_text() == "rounds: 1\n"
    done = run_cli("greedy", "random", "--json", str(tmp_path / "new_folder") + "/")
    assert done.returncode == 2 and "ends in a path separator" in done.stderr
    assert not (tmp_path / "new_folder").exists()


def test_evaluate_cli_reader_closing_the_pipe_keeps_the_json_and_prints_no_traceback(tmp_path):
    out = tmp_path / "result.json"
    process = subprocess.Popen([sys.executable, str(ROOT / "evaluate.py"), "greedy", "random",
                                "--matches", "4", "--rounds", "3", "--json", str(out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # like `| head -0`: the reader is gone before anything is printed
    stderr = process.stderr.read().decode()
    process.wait(timeout=120)
    assert "Traceback" not in stderr, stderr
    result = json.loads(out.read_text())
    assert result["wins"] + result["draws"] + result["losses"] == 4


def test_evaluate_cli_ctrl_c_and_an_empty_json_path_end_cleanly(tmp_path):
    """Ctrl-C once the matches have started: the run ends with exit 130 and a line saying
    nothing was printed or written, without a traceback. evaluate.py says on stderr (flushed)
    ``playing N matches, A vs B (rules R, seed S) ...`` right before the matches start, inside
    the part whose KeyboardInterrupt it catches; the signal is sent once that line is read."""
    import signal

    done = run_cli("greedy", "random", "--json", "")
    assert done.returncode == 2 and "needs a file name" in done.stderr
    process = popen_interruptible([sys.executable, str(ROOT / "evaluate.py"), "expert", "greedy",
                                   "--matches", "100000"], cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0)
    lines = wait_for_line(process, process.stderr, lambda line: line.startswith("playing "))
    assert lines[-1].startswith("playing 100000 matches, expert vs greedy (rules nintendo")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    err = err.decode()
    assert process.returncode == 130 and "Traceback" not in err and "interrupted" in err
