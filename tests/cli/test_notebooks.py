"""The notebooks run end to end on tiny settings, so they never rot, through the script
that runs them (scripts/run_notebooks.py), which never replaces the committed outputs
unless asked to."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import time
from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("matplotlib")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
TINY = {
    "KOIKOI_NB_GAMES": "2",
    "KOIKOI_NB_DECISIONS": "8",
    "KOIKOI_NB_MATCH_DECISIONS": "3",
    "KOIKOI_NB_ROLLOUTS": "3",
    "KOIKOI_NB_MATCHES": "4",
    "KOIKOI_CHECKPOINT": "none",
}


def _runner():
    path = NOTEBOOKS.parent / "scripts" / "run_notebooks.py"
    spec = importlib.util.spec_from_file_location("run_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_notebook(name: str, env: dict[str, str], monkeypatch,
                 out_dir: Path) -> nbformat.NotebookNode:
    """Execute a notebook into ``out_dir``; the committed file stays byte for byte."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # the kernel inherits the test's environment
    committed = hashlib.sha256((NOTEBOOKS / name).read_bytes()).hexdigest()
    written = _runner().run_notebook(name, out_dir, timeout=300)
    assert written == out_dir / name
    assert hashlib.sha256((NOTEBOOKS / name).read_bytes()).hexdigest() == committed
    return nbformat.read(written, as_version=4)


def outputs_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", "") or str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def test_koikoi_decision_value_notebook_runs(monkeypatch, tmp_path) -> None:
    nb = run_notebook("koikoi_decision_value.ipynb", TINY, monkeypatch, tmp_path)
    text = outputs_text(nb)
    assert "stop branch scores exactly the rules' round points: True" in text
    assert "agent studied: expert" in text
    images = sum("image/png" in out.get("data", {}) for cell in nb.cells
                 for out in cell.get("outputs", []))
    assert images >= 5


def test_agent_benchmark_notebook_runs_without_a_run(monkeypatch, tmp_path) -> None:
    env = dict(TINY, KOIKOI_RUN_DIR=str(tmp_path / "missing"))
    nb = run_notebook("agent_benchmark.ipynb", env, monkeypatch, tmp_path / "out")
    text = outputs_text(nb)
    assert "no training run found" in text
    assert "elo" in text.lower()


def test_agent_benchmark_notebook_reads_tensorboard_logs(monkeypatch, tmp_path) -> None:
    writer_mod = pytest.importorskip("torch.utils.tensorboard")
    run = tmp_path / "run"
    writer = writer_mod.SummaryWriter(str(run))
    for step in range(5):
        writer.add_scalar("eval/win_rate_vs_random", 0.5 + 0.1 * step, step * 100)
        writer.add_scalar("charts/round_win_rate", 0.4 + 0.02 * step, step * 100)
    writer.close()
    env = dict(TINY, KOIKOI_RUN_DIR=str(run))
    assert os.path.isdir(run)
    text = outputs_text(run_notebook("agent_benchmark.ipynb", env, monkeypatch,
                                     tmp_path / "out"))
    assert "eval/win_rate_vs_random: 5 points, last 0.9" in text


@pytest.fixture(scope="module")
def koikoi_then_hanaawase(tmp_path_factory) -> Path:
    """A runs folder with a tiny Koi-Koi run and a newer Hana-awase one: its config names
    the game, its event file has a curve, and its ``checkpoints/latest.pt`` is a Hana-awase
    checkpoint, which a Koi-Koi bot refuses to load ("this is a hanaawase checkpoint")."""
    from torch.utils.tensorboard import SummaryWriter

    from agents.bots.policy import save_checkpoint
    from hanafuda_cli import train
    from tests.helpers.paths import SMOKE

    runs = tmp_path_factory.mktemp("runs")
    assert train.main(["--config", str(SMOKE), "--run-dir", str(runs / "koikoi"),
                       "total_decisions=1024", "eval_interval=0"]) == 0
    hanaawase = runs / "hanaawase"
    (hanaawase / "checkpoints").mkdir(parents=True)
    (hanaawase / "config.yaml").write_text("game: hanaawase\nnum_players: 3\n")
    writer = SummaryWriter(str(hanaawase))
    writer.add_scalar("charts/SPS", 1.0, 1)
    writer.close()
    save_checkpoint(hanaawase / "checkpoints" / "latest.pt",
                    {"game": "hanaawase", "model": {}, "network": {}})
    later = time.time() + 60
    for path in (hanaawase / "checkpoints" / "latest.pt", hanaawase):
        os.utime(path, (later, later))
    return runs


@pytest.mark.parametrize("name", ["agent_benchmark.ipynb", "koikoi_decision_value.ipynb"])
def test_the_notebooks_study_the_newest_koikoi_run_past_a_hanaawase_one(
        name: str, koikoi_then_hanaawase: Path, monkeypatch, tmp_path) -> None:
    """Unset, the policy is the newest Koi-Koi run's, named ``latest`` as ``evaluate.py
    --league`` names it."""
    for key in ("KOIKOI_RUN_DIR", "KOIKOI_CHECKPOINT"):
        monkeypatch.delenv(key, raising=False)
    env = {key: value for key, value in TINY.items() if key != "KOIKOI_CHECKPOINT"}
    env["KOIKOI_RUNS"] = str(koikoi_then_hanaawase)
    text = outputs_text(run_notebook(name, env, monkeypatch, tmp_path))
    latest = koikoi_then_hanaawase / "koikoi" / "checkpoints" / "latest.pt"
    if name == "agent_benchmark.ipynb":
        assert f"training run: {koikoi_then_hanaawase / 'koikoi'} (koikoi)" in text
        assert f"checkpoint in the tournament: {latest}" in text
        assert re.search(r"^\s+latest: +\d", text, re.MULTILINE), "its Elo, as latest"
        assert "charts/SPS: 1 points" in text
    else:
        assert f"agent studied: latest ({latest})" in text
    assert not re.search(r"\bppo\b", text), "the shipped bot's name is not the user's policy"


def test_the_runner_refuses_an_unknown_notebook_by_name(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no notebook 'nope.ipynb' in .* "
                                                "agent_benchmark.ipynb"):
        _runner().run_notebook("nope.ipynb", tmp_path)
