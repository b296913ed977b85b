"""The benchmark scripts' command lines: a bad option is a usage error (exit 2, one line
naming the value and what is allowed) before any slow work starts, never a traceback; help
explains every option; --json never replaces a file unasked (nor the rule file); the search
benchmark prints a row per mode; Ctrl-C ends a benchmark cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.interrupts import popen_interruptible, wait_for_line
from tests.helpers.paths import ROOT

BENCH = ROOT / "benchmarks"


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    # A short timeout: each of these must fail at parsing or setup, not after a benchmark.
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


BAD_OPTIONS = [
    # script, arguments, words the error line must contain
    ("bench_search.py", ["--states", "0"], ["--states", "positive integer", "'0'"]),
    ("bench_search.py", ["--judge-worlds", "-2"], ["--judge-worlds", "'-2'"]),
    ("bench_search.py", ["--policy", "grandmaster"], ["'grandmaster'", "expert"]),
    ("bench_search.py", ["--rules", "hanafuda-classic"], ["'hanafuda-classic'", "nintendo"]),
    ("bench_training.py", ["--updates", "0"], ["--updates", "positive integer", "'0'"]),
    ("bench_training.py", ["--warmstart-batches", "-1"], ["--warmstart-batches", ">= 0"]),
    ("bench_training.py", ["bogus_key=1"], ["'bogus_key'", "allowed keys", "n_envs"]),
    ("bench_training.py", ["n_envs=0"], ["n_envs", "0"]),
    ("bench_training.py", ["--config", "no/such.yaml"], ["no/such.yaml", "no such file",
                                                       "default.yaml"]),
    ("bench_baselines.py", ["--pairs", "expert"], ["--pairs", "A:B", "'expert'"]),
    ("bench_baselines.py", ["--pairs", "expert:grandmaster"], ["'grandmaster'", "random"]),
    ("bench_baselines.py", ["--batch", "0"], ["--batch", "positive integer"]),
    ("bench_baselines.py", ["--rounds", "0"], ["--rounds", "positive integer"]),
    ("bench_baselines.py", ["--rules", "hanafuda-classic"], ["'hanafuda-classic'", "ten-base"]),
    ("bench_baselines.py", ["--speed", "expert,nobody"], ["--speed", "'nobody'"]),
    ("bench_baselines.py", ["--speed", "expert", "--speed-batches", "64,x"],
     ["--speed-batches", "'64,x'"]),
    ("bench_baselines.py", ["--seed", "-1"], ["--seed", "from 0 to"]),
    ("bench_core.py", ["--batches", "64", "0"], ["--batches", "'0'"]),
    ("bench_imitation.py", ["--bots", "ppo,grandmaster"], ["'grandmaster'", "expert"]),
    ("bench_imitation.py", ["--decisions", "0"], ["--decisions", "positive integer"]),
    ("bench_imitation.py", ["--rollout", "network"], ["--rollout", "'network'", "fast"]),
    ("bench_search_bot.py", ["--bot", "alphago"], ["--bot", "'alphago'", "ismcts"]),
    ("bench_search_bot.py", ["--budgets", "0"], ["--budgets", "'0'"]),
    ("bench_search_bot.py", ["--bot", "netsearch", "--depth", "0"], ["--depth", "'0'"]),
    ("bench_search_bot.py", ["--evaluator", "value.pt"], ["--evaluator", "--bot netsearch"]),
    ("bench_loop.py", ["--networks", "clone", "grandmaster"], ["'grandmaster'", "distilled"]),
    ("bench_loop.py", ["--networks", "clone", "--search-matches", "-1"],
     ["--search-matches", "'-1'"]),
    ("bench_hanaawase.py", ["--players", "9"], ["--players", "2..7", "9"]),
    ("bench_hanaawase_strength.py", ["expret"], ["'expret'", "random, greedy, expert"]),
    ("bench_hanaawase_strength.py", ["greedy", "--players", "8"], ["num_players", "2 to 7"]),
    ("bench_core.py", ["--seconds", "0"], ["--seconds", "> 0"]),
    ("bench_envs.py", ["--repeats", "0"], ["--repeats", "positive integer"]),
    ("bench_envs.py", ["--seconds", "nan"], ["--seconds", "'nan'"]),
    ("bench_game.py", ["--repeats", "0"], ["--repeats", "positive integer"]),
    ("bench_game.py", ["--rules", "hanafuda-classic"], ["'hanafuda-classic'"]),
    ("bench_ray.py", ["--workers", "2", "0"], ["--workers", "'0'"]),
    ("bench_ray.py", ["--eval-workers", "0"], ["--eval-workers", "positive integer"]),
]


@pytest.mark.parametrize(("script", "args", "words"), BAD_OPTIONS,
                         ids=[f"{s}-{' '.join(a)}" for s, a, _ in BAD_OPTIONS])
def test_a_bad_option_is_a_one_line_usage_error(script: str, args: list[str],
                                                words: list[str]) -> None:
    result = _run(script, *args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("usage:")
    error = lines[-1]
    assert error.startswith(f"{script}: error: ")
    for word in words:
        assert word in error


def _options_without_help(text: str) -> list[str]:
    """Options in ``--help`` output with no help text: argparse leaves such an option alone
    on its line, with the next option (or nothing) below it."""
    lines = text.splitlines()
    missing = []
    for i, line in enumerate(lines):
        if not line.startswith("  -"):  # an option's first line; help continues further in
            continue
        invocation, _, same_line = line.strip().partition("  ")
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if not same_line.strip() and not below.startswith("    "):
            missing.append(invocation)
    return missing


def test_the_help_check_spots_an_option_without_help() -> None:
    text = "options:\n  -h, --help   show this\n  --seat {0,1}\n  --seed SEED\n"
    assert _options_without_help(text) == ["--seat {0,1}", "--seed SEED"]


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("bench_*.py")))
def test_help_explains_every_option_and_shows_defaults(script: str) -> None:
    result = _run(script, "--help")
    assert result.returncode == 0, result.stderr
    assert _options_without_help(result.stdout) == []
    assert "(default: " in result.stdout and "(default: None)" not in result.stdout


def test_the_training_target_is_judged_for_the_default_config_only() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from bench_training import DEFAULT_CONFIG, TARGET, target_verdict
    finally:
        sys.path.remove(str(BENCH))
    assert target_verdict(DEFAULT_CONFIG, TARGET + 1).endswith(": met")
    assert target_verdict(DEFAULT_CONFIG, TARGET - 1).endswith(": NOT met")
    other = target_verdict(ROOT / "configs" / "smoke.yaml", 1.0)
    assert "not judged" in other and "NOT met" not in other and "default.yaml" in other


def test_lists_are_taken_with_spaces_commas_or_both() -> None:
    """Every list option of every script reads ``64 256``, ``64,256`` and mixes alike;
    defaults are the same lists as given on the command line."""
    sys.path.insert(0, str(BENCH))
    try:
        from bench_baselines import DEFAULT_PAIRS, make_arg_parser
    finally:
        sys.path.remove(str(BENCH))
    parser = make_arg_parser()
    for words in (["64", "256", "1024"], ["64,256,1024"], ["64,256", "1024"]):
        assert parser.parse_args(["--speed-batches", *words]).speed_batches == [64, 256, 1024]
    args = parser.parse_args(["--speed", "expert", "greedy,random", "--pairs", "expert:greedy",
                              "greedy:random,expert:random"])
    assert args.speed == ["expert", "greedy", "random"]
    assert args.pairs == [("expert", "greedy"), ("greedy", "random"), ("expert", "random")]
    assert parser.parse_args([]).pairs == DEFAULT_PAIRS
    assert parser.parse_args([]).speed_batches == [64, 256, 1024]
    result = _run("bench_core.py", "--seconds", "0.05", "--batches", "1,2", "4", "--skip-cold")
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[1:4]] == ["1", "2", "4"]


def test_bench_baselines_json_never_replaces_a_file_unasked(tmp_path) -> None:
    """As evaluate.py: --json problems are usage errors before any match is played."""
    notes = tmp_path / "notes.json"
    notes.write_text("mine")
    quick = ["--pairs", "greedy:random", "--matches", "2", "--rounds", "1"]
    for path, words in ((notes, "--overwrite"), (tmp_path, "folder"),
                        (notes / "x.json", "is a file")):
        result = _run("bench_baselines.py", *quick, "--json", str(path))
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert result.stdout == "" and notes.read_text() == "mine"
    result = _run("bench_baselines.py", *quick, "--json", str(notes), "--overwrite")
    assert result.returncode == 0, result.stderr
    assert json.loads(notes.read_text())[0]["matches"] == 2


def test_ctrl_c_ends_a_benchmark_without_a_traceback() -> None:
    """Ctrl-C while a benchmark measures: exit 130 and "interrupted", no traceback. The table's
    header is printed by main(), which run_main runs under its KeyboardInterrupt handler:
    once it is read, the benchmark is measuring and takes the signal as Ctrl-C."""
    process = popen_interruptible([sys.executable, str(BENCH / "bench_core.py"), "--seconds",
                                   "60"], cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0,
                                  env={**os.environ, "PYTHONUNBUFFERED": "1"})
    (header,) = wait_for_line(process, process.stdout, lambda line: True)
    assert "decisions/s" in header
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    err = err.decode()
    assert process.returncode == 130 and "Traceback" not in err and "interrupted" in err


def test_bench_baselines_json_never_replaces_the_rule_file(tmp_path: Path) -> None:
    rule_file = tmp_path / "rules.yaml"
    rule_file.write_text("rounds: 1\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_baselines.py"), "--pairs",
         "greedy:random", "--matches", "2", "--rules", str(rule_file), "--json",
         str(rule_file), "--overwrite"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "the rule file" in done.stderr, done.stderr
    assert rule_file.read_text() == "rounds: 1\n"


def test_bench_search_prints_a_row_per_mode() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_search.py"), "--policy", "greedy",
         "--states", "6", "--search-worlds", "2", "--judge-worlds", "3",
         "--modes", "resampled", "true"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    lines = run.stdout.splitlines()
    assert lines[0].startswith("policy greedy: 6 card decisions")
    assert [line.split()[0] for line in lines[2:]] == ["resampled", "true"]


def test_the_loop_curve_prints_each_round_and_logs_it_for_tensorboard(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH / "bench_loop.py"), "--networks", "clone", "distilled",
         "--matches", "4", "--search-matches", "0", "--log-dir", str(tmp_path / "curve")],
        capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()
            if line.split()[:1] in (["0"], ["1"])]
    assert [row[:2] for row in rows] == [["0", "network"], ["1", "network"]]
    assert all(0.0 <= float(row[2]) <= 1.0 for row in rows)
    assert list((tmp_path / "curve").glob("events.out.tfevents.*"))
