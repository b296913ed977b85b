"""The batched evaluator, its intervals, the Elo league, the agent registry and the
evaluate.py command line."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from interrupts import popen_interruptible

from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.bots.registry import BASELINES, display_names, make_agent
from agents.eval.league import fit_elo, round_robin
from agents.eval.matches import play_matches
from agents.eval.stats import (
    Z95,
    pair_mean_interval,
    pair_rate_interval,
    t_quantile,
    wilson_interval,
)
from hanafuda_env.core import KoiKoiCore
from hanafuda_env.rules import resolve_rules

ROOT = Path(__file__).resolve().parents[1]
SHORT = resolve_rules("nintendo").replace(rounds=3)

# ------------------------------------------------------------------ evaluation
def test_play_matches_counts_are_consistent_and_balanced():
    result = play_matches(GreedyAgent(SHORT, seed=0), RandomAgent(SHORT, seed=1), 11, SHORT,
                          seed=7, batch=4)
    assert result["wins"] + result["draws"] + result["losses"] == result["matches"] == 11
    assert result["seats"] == {"a_at_seat_0": 6, "a_at_seat_1": 5, "a_deals_first": 5}
    assert result["rounds"] == 33  # every match has exactly three rounds
    per_match, per_round = result["points_per_match"], result["points_per_round"]
    assert per_match["pairs"] == per_round["pairs"] == 6  # the last pair has one match
    assert per_match["mean"] * 11 == pytest.approx(per_round["mean"] * 33)
    assert sum(result["round_ends"].values()) == 33
    a, b = result["a"], result["b"]
    assert a["rounds_won"] + b["rounds_won"] <= 33
    assert a["koikoi"]["calls"] == 0  # greedy always stops
    assert b["koikoi"]["paid_off"] <= b["koikoi"]["rounds_called"] <= b["koikoi"]["calls"]
    assert sum(a["yaku"].values()) >= a["rounds_won"]  # no-game rule: a win needs yaku
    json.dumps(result)  # plain Python all the way down


def test_one_round_matches_that_end_at_the_deal_are_counted():
    # with one round per match every hand yaku ends a match inside KoiKoiCore.reset, which
    # reports it like any other
    rules = resolve_rules("nintendo").replace(rounds=1)
    result = play_matches(RandomAgent(rules, seed=0), RandomAgent(rules, seed=1), 300, rules,
                          seed=0)
    assert result["round_ends"]["hand-yaku"] > 0
    assert result["rounds"] == 300
    assert result["wins"] + result["draws"] + result["losses"] == 300
    assert result["draws"] == result["round_ends"].get("no-game", 0)


def test_a_target_score_reached_at_the_deal_is_counted_by_the_cores_rule(monkeypatch):
    """Three hand yaku dealt in a row: seat 0 scores 6, seat 1 6, seat 0 6. Seat 0 has scored
    the target 12 (net only +6), so both matches of the pair end inside reset and are
    counted from the core's match rows, without a single move."""
    teshi = [0, 1, 2, 3, 4, 8, 12, 16]  # dealer: all four pines
    plain = [5, 9, 13, 17, 20, 24, 28, 32]
    kuttsuki = [5, 6, 9, 10, 13, 14, 17, 18]  # other: four pairs
    field = [21, 25, 29, 33, 36, 40, 44, 45]

    def deck(dealer_hand, other_hand):
        head = dealer_hand + other_hand + field
        return head + [c for c in range(48) if c not in head]

    script = [deck(teshi, plain), deck([0, 4, 8, 12, 16, 20, 24, 28], kuttsuki)]
    script.append(script[1])  # the winner deals: seat 0, then seat 1, so seat 0 wins again
    quiet = deck([0, 4, 8, 12, 16, 20, 24, 37], [1, 5, 9, 13, 17, 28, 32, 38])

    def shuffled(self, games):  # the n-th deal of each game since reset, then quiet ones
        n = self.deal_count[games].copy()
        self.deal_count[games] += 1
        return np.array([script[k] if k < len(script) else quiet for k in n], np.int8)

    monkeypatch.setattr(KoiKoiCore, "_shuffled_decks", shuffled)
    rules = resolve_rules("nintendo").replace(target_score=12)
    result = play_matches(RandomAgent(rules, seed=0), RandomAgent(rules, seed=1), 2, rules)
    assert (result["wins"], result["draws"], result["losses"]) == (1, 0, 1)  # seat 0 won both
    assert result["rounds"] == 6 and result["round_ends"] == {"hand-yaku": 6}
    assert result["points_per_match"]["mean"] == 0 and result["a"]["moves"] == 0
    assert result["a"]["rounds_won"] == result["b"]["rounds_won"] == 3


def test_play_matches_is_reproducible():
    first = play_matches(ExpertAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=0), 8, SHORT, 5)
    again = play_matches(ExpertAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=0), 8, SHORT, 5)
    untimed = ("wins", "draws", "losses", "points_per_match", "points_per_round", "round_ends")
    assert {k: first[k] for k in untimed} == {k: again[k] for k in untimed}
    for side in ("a", "b"):
        for key in ("koikoi", "yaku", "moves", "rounds_won"):
            assert first[side][key] == again[side][key]
    other = play_matches(ExpertAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=0), 8, SHORT, 6)
    assert other["points_per_round"] != first["points_per_round"]  # the seed matters


def test_play_matches_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n_matches"):
        play_matches(RandomAgent(), RandomAgent(), 0)


def test_wilson_interval_matches_known_values():
    # 8 of 10: the Wilson 95% interval is about [0.490, 0.943]
    w = wilson_interval(8, 10)
    assert w["value"] == 0.8
    assert w["low"] == pytest.approx(0.490, abs=1e-3) and w["high"] == pytest.approx(0.943,
                                                                                      abs=1e-3)


def test_pair_mean_interval_is_a_t_interval_over_pairs_and_has_none_for_one_pair():
    # pairs of one unit each: 1, 2, 3, 4: mean 2.5, sd 1.291; t(0.975, 3) = 3.182 -> 2.054
    m = pair_mean_interval(np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4))
    assert m["mean"] == 2.5 and m["high"] - m["mean"] == pytest.approx(2.054, rel=0.01)
    for df, exact in [(1, 12.706), (2, 4.303), (7, 2.365), (30, 2.042), (1000, 1.962)]:
        assert t_quantile(Z95, df) == pytest.approx(exact, rel=0.01 if df >= 3 else 1e-4)
    one = pair_mean_interval(np.array([5.0]), np.array([2]))  # one pair: no spread to see
    assert one["mean"] == 2.5 and np.isnan(one["low"]) and np.isnan(one["high"])
    # equal pair sizes: the interval of the pair means, not of the rounds inside them
    points, rounds = np.array([10.0, -4.0, 6.0, 0.0]), np.full(4, 24)
    ratio = pair_mean_interval(points, rounds)
    plain = pair_mean_interval(points / 24, np.ones(4))
    assert ratio["mean"] == pytest.approx(plain["mean"])
    assert ratio["high"] == pytest.approx(plain["high"]) and ratio["pairs"] == 4


def test_rate_interval_widens_when_the_matches_of_a_pair_agree():
    pair = np.arange(400) // 2
    split = np.tile([1.0, 0.0], 200)  # every pair one win, one loss: no pair variance
    same = np.repeat(np.tile([1.0, 0.0], 100), 2)  # both matches of a pair alike
    t_shrink = (Z95 / t_quantile(Z95, 199)) ** 2  # 200 pairs: 199 degrees of freedom
    free = pair_rate_interval(split, pair)
    assert free["value"] == 0.5 and free["effective_matches"] == pytest.approx(400 * t_shrink)
    plain = wilson_interval(200, 400)
    assert plain["low"] - 0.001 < free["low"] < plain["low"]  # never narrower than plain
    tied = pair_rate_interval(same, pair)
    assert tied["effective_matches"] == pytest.approx(199 * t_shrink)  # one match per pair
    assert tied["high"] - tied["low"] > 1.35 * (free["high"] - free["low"])
    few = pair_rate_interval(np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0]), np.arange(6) // 2)
    assert few["effective_matches"] < 6 * (Z95 / 4.303) ** 2 + 1e-9  # 3 pairs: t with 2 df


def test_self_play_pairs_cancel_the_deal():
    """The same deterministic agent on both sides: every pair's points cancel exactly, so
    the pair interval has no width, where a per-match one would claim a spread."""
    rules = resolve_rules("nintendo").replace(rounds=3)
    result = play_matches(GreedyAgent(rules, seed=0), GreedyAgent(rules, seed=0), 40, rules,
                          seed=3)
    per_match = result["points_per_match"]
    assert per_match["mean"] == 0 and per_match["low"] == per_match["high"] == 0
    assert result["wins"] == result["losses"]


def test_elo_orders_a_synthetic_league_and_recovers_a_known_gap():
    names = ["random", "weak", "strong"]
    games = np.full((3, 3), 1000.0)
    np.fill_diagonal(games, 0)
    rate = np.array([[0, 0.3, 0.05], [0.7, 0, 0.2], [0.95, 0.8, 0]])
    elo = fit_elo(names, rate * games, games)
    assert elo["random"] == pytest.approx(1000.0)
    assert elo["strong"] > elo["weak"] > elo["random"]
    pair = fit_elo(["a", "b"], np.array([[0, 760.0], [240.0, 0]]), np.full((2, 2), 1000.0))
    assert pair["a"] - pair["b"] == pytest.approx(400 * np.log10(760.5 / 240.5), abs=0.5)
    assert sum(pair.values()) / 2 == pytest.approx(1500.0)
    even = fit_elo(["x", "y", "z"], games / 2, games)
    assert max(even.values()) - min(even.values()) < 1e-6


def test_round_robin_gives_a_table_and_finite_ratings():
    agents = [RandomAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=1), GreedyAgent(SHORT, seed=2)]
    league = round_robin(agents, 6, SHORT, seed=1)
    assert league["agents"] == ["random", "greedy", "greedy#2"]
    table = league["score_table"]
    for a in league["agents"]:
        for b in league["agents"]:
            if a != b:
                assert table[a][b] + table[b][a] == pytest.approx(1.0)
    assert league["elo"]["random"] == 1000.0 and all(np.isfinite(list(league["elo"].values())))
    assert len(league["pairs"]) == 3
    assert [(p["a"]["name"], p["b"]["name"]) for p in league["pairs"]] == [
        ("random", "greedy"), ("random", "greedy#2"), ("greedy", "greedy#2")]
    json.dumps(league)


def test_a_league_pair_plays_as_the_same_head_to_head_whatever_the_other_agents():
    def league(order):
        agents = {"random": RandomAgent(SHORT, seed=9), "greedy": GreedyAgent(SHORT, seed=9),
                  "expert": ExpertAgent(SHORT, seed=9)}
        return round_robin([agents[name] for name in order], 6, SHORT, seed=1)["pairs"]

    alone = play_matches(GreedyAgent(SHORT, seed=1), ExpertAgent(SHORT, seed=2), 6, SHORT, 1)
    keys = ("wins", "draws", "losses", "points_per_round")
    for order in (["random", "greedy", "expert"], ["greedy", "expert", "random"]):
        (pair,) = [p for p in league(order) if (p["agent_a"], p["agent_b"]) == ("greedy",
                                                                                  "expert")]
        assert {k: pair[k] for k in keys} == {k: alone[k] for k in keys}


def test_display_names_keep_checkpoints_apart_from_each_other_and_from_baselines(
        tmp_path, monkeypatch):
    specs = ["random", "runs/a/checkpoints/latest.pt", "runs/b/checkpoints/latest.pt",
             "old/random.pt", "random.pt", "best.pt", "/x/ckpt.pt", "/y/x/ckpt.pt",
             "c/latest.pt", "c/latest.PT"]
    assert display_names(specs) == ["random", "a/checkpoints/latest", "b/checkpoints/latest",
                                    "old/random", "random.pt", "best", "/x/ckpt.pt",
                                    "y/x/ckpt", "c/latest.pt", "c/latest.PT"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "expert").write_bytes(b"weights")  # make_agent loads a file named like this
    assert display_names(["expert", "greedy"]) == ["./expert", "greedy"]


# ------------------------------------------------------------------ registry and CLI
def test_make_agent_builds_baselines_and_rejects_unknown_names():
    for name in BASELINES:
        assert make_agent(name.upper(), "ten-base").name == name
    with pytest.raises(ValueError, match="random, greedy, expert"):
        make_agent("alphago")


def test_a_run_folder_given_as_an_agent_points_to_its_checkpoint(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    with pytest.raises(ValueError, match="is a folder, not a checkpoint file"):
        make_agent(str(run))
    (run / "checkpoints" / "latest.pt").write_bytes(b"weights")
    with pytest.raises(ValueError, match=f"its policy: {run / 'checkpoints' / 'latest.pt'}"):
        make_agent(str(run))


def test_make_agent_loads_an_existing_file_as_a_policy(tmp_path, monkeypatch):
    calls = []

    class FakePolicy:
        @classmethod
        def load(cls, path, rules):
            calls.append((path, rules.name))
            return types.SimpleNamespace(name="fake", act=None)

    monkeypatch.setitem(sys.modules, "agents.bots.policy",
                        types.SimpleNamespace(PolicyAgent=FakePolicy))
    checkpoint = tmp_path / "expert"  # a file named like a baseline is still a checkpoint
    checkpoint.write_bytes(b"weights")
    assert make_agent(str(checkpoint), "ten-base").name == "fake"
    assert calls == [(str(checkpoint), "ten-base")]


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
    import signal
    import time

    done = run_cli("greedy", "random", "--json", "")
    assert done.returncode == 2 and "needs a file name" in done.stderr
    process = popen_interruptible([sys.executable, str(ROOT / "evaluate.py"), "expert", "greedy",
                                "--matches", "100000"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # past the imports even on a busy machine; the matches take minutes
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in err and "interrupted" in err


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
