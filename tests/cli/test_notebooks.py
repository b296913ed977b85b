"""The notebooks run end to end on tiny settings, so they never rot, through the script
that runs them (scripts/run_notebooks.py), which never replaces the committed outputs
unless asked to."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
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


def test_agent_benchmark_notebook_prefers_the_newest_run_with_a_policy(monkeypatch,
                                                                        tmp_path) -> None:
    """Unset, the run is the newest with ``checkpoints/latest.pt``: a newer run stopped in its
    warm start (event files, no policy) would leave the tournament without a trained bot. Only
    when no run has a policy is the newest run with event files taken (for its curves)."""
    (tmp_path / "agents").mkdir()  # the notebook finds the project root by this folder
    trained, warm_only = tmp_path / "runs" / "trained", tmp_path / "runs" / "warm_only"
    for run in (trained, warm_only):
        (run / "checkpoints").mkdir(parents=True)
        (run / "events.out.tfevents.1.host").write_bytes(b"")
    (trained / "checkpoints" / "latest.pt").write_bytes(b"")
    os.utime(trained, (1_000_000, 1_000_000))  # the older of the two
    for key in ("KOIKOI_RUN_DIR", "KOIKOI_CHECKPOINT"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the cell prepends ROOT
    setup = nbformat.read(NOTEBOOKS / "agent_benchmark.ipynb", as_version=4).cells[1].source
    found: dict = {}
    exec(compile(setup, "agent_benchmark setup cell", "exec"), found)
    assert found["RUN"] == trained and found["CKPT"] == trained / "checkpoints" / "latest.pt"
    (trained / "checkpoints" / "latest.pt").unlink()
    assert found["find_run"]() == warm_only


def test_the_runner_refuses_an_unknown_notebook_by_name(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no notebook 'nope.ipynb' in .* "
                                                "agent_benchmark.ipynb"):
        _runner().run_notebook("nope.ipynb", tmp_path)
