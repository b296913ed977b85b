"""Game records from the command lines: evaluate.py --records and play.py --record write
them, replay.py replays them and names what disagrees."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers.paths import ROOT


def run(script: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / script), *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_evaluate_writes_records_that_replay_exactly(tmp_path) -> None:
    folder = tmp_path / "records"
    done = run("evaluate.py", "expert", "greedy", "--rules", "koikoi-japan", "--matches", "4",
               "--records", str(folder))
    assert done.returncode == 0, done.stderr
    assert "4 game records written to" in done.stdout
    files = sorted(p.name for p in folder.iterdir())
    assert files == [f"match_0000{k}.json" for k in range(1, 5)]
    data = json.loads((folder / files[0]).read_text())
    assert data["info"]["ruleSet"]["name"] == "koikoi-japan"
    assert data["info"]["player1InitPts"] == 30
    replayed = run("replay.py", str(folder))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.strip().splitlines()[-1].startswith(
        "4 records: 4 replayed exactly (")
    again = run("evaluate.py", "expert", "greedy", "--matches", "2", "--records", str(folder))
    assert again.returncode == 2 and "already holds files" in again.stderr
    league = run("evaluate.py", "--league", "random", "greedy", "--records", str(tmp_path / "x"))
    assert league.returncode == 2 and "--records writes the matches of a head-to-head" in (
        league.stderr)


def test_replay_names_the_record_that_disagrees_and_exits_1(tmp_path) -> None:
    done = run("evaluate.py", "greedy", "random", "--matches", "2", "--rounds", "2",
               "--records", str(tmp_path))
    assert done.returncode == 0, done.stderr
    bad = tmp_path / "match_00002.json"
    data = json.loads(bad.read_text())
    data["record"]["round1"]["basic"]["player1RoundPts"] += 3
    bad.write_text(json.dumps(data))
    replayed = run("replay.py", str(tmp_path), "-q")
    assert replayed.returncode == 1
    lines = replayed.stdout.strip().splitlines()
    assert lines[0].startswith(f"DISAGREES  {bad}, round 1: the record says")
    assert lines[-1].startswith("2 records: 1 replayed exactly (")
    missing = run("replay.py", str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def test_play_writes_the_record_of_a_match_even_when_quit(tmp_path) -> None:
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    done = run("play.py", "--seed", "3", "--bot", "random", "--rules", "koikoi-japan",
               "--record", str(whole), stdin="1\n" * 400)
    assert done.returncode == 0 and "match over." in done.stdout, done.stderr
    assert f"game record written to {whole}" in done.stdout
    quit_early = run("play.py", "--seed", "3", "--record", str(part), stdin="1\n1\nq\n")
    assert quit_early.returncode == 0 and "bye." in quit_early.stdout
    assert json.loads(part.read_text())["result"]["isOver"] is False
    replayed = run("replay.py", str(whole), str(part))
    assert replayed.returncode == 0, replayed.stdout
    taken = run("play.py", "--seed", "3", "--record", str(whole), stdin="q\n")
    assert taken.returncode == 2 and "already exists" in taken.stderr


def write_folder(folder) -> list:
    """Good records around a record the rules refuse (0 rounds) and one nested too deeply
    to read."""
    from tests.helpers.web import sample_record

    refused = sample_record()
    refused["info"]["numRound"] = 0
    texts = [json.dumps(sample_record()), json.dumps(refused),
             '{"info": ' + "[" * 100_000 + "]" * 100_000 + "}", json.dumps(sample_record())]
    paths = [folder / f"{k}.json" for k in range(1, 5)]
    for path, text in zip(paths, texts):
        path.write_text(text)
    return paths


def test_replay_names_each_bad_record_and_replays_the_rest(tmp_path) -> None:
    paths = write_folder(tmp_path)
    replayed = run("replay.py", str(tmp_path))
    assert replayed.returncode == 1, replayed.stderr
    lines = replayed.stdout.strip().splitlines()
    assert lines[0].startswith(f"ok  {paths[0]}: 1 rounds")
    assert lines[1] == (f"DISAGREES  {paths[1]}: info 'numRound' is 0: rule 'rounds' must "
                        "be an integer from 1 to 1000 (3, 6, 12 …), got 0")
    assert lines[2] == (f"DISAGREES  {paths[2]}: not a record: its JSON is nested too "
                        "deeply to read")
    assert lines[3].startswith(f"ok  {paths[3]}: 1 rounds")
    assert lines[4].startswith("4 records: 2 replayed exactly (") and "2 disagree" in lines[4]


def test_replay_reports_a_fault_of_its_own_per_record(tmp_path, monkeypatch, capsys) -> None:
    from hanafuda_cli import replay

    paths = write_folder(tmp_path)
    real = replay.replay

    def faulty(match, rules=None, source="record"):
        if source == str(paths[0]):
            raise IndexError("a fault")
        return real(match, rules, source=source)

    monkeypatch.setattr(replay, "replay", faulty)
    assert replay.main([str(tmp_path), "-q"]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"FAILED  {paths[0]}: the replay stopped on IndexError: a fault"
    assert lines[-1].startswith("4 records: 1 replayed exactly (") and "3 disagree" in lines[-1]
