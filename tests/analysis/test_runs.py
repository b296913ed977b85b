"""The run folders and learning curves the notebooks read (agents.analysis.runs): the newest
Koi-Koi run is chosen past a newer Hana-awase one, and a resumed run's curves hold one value
per step, the last written."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from agents.analysis.runs import (
    find_checkpoint,
    find_run,
    newest_run,
    plot_curve,
    read_scalars,
    run_game,
)


def make_run(runs: Path, name: str, game: str | None, policy: bool, when: float) -> Path:
    """A run folder as train.py leaves it (empty files), last written at ``when``."""
    run = runs / name
    (run / "checkpoints").mkdir(parents=True)
    (run / "events.out.tfevents.1.host").write_bytes(b"")
    (run / "config.yaml").write_text(f"game: {game}\n" if game else "seed: 1\n")
    paths = [run]
    if policy:
        paths.insert(0, run / "checkpoints" / "latest.pt")
        paths[0].write_bytes(b"")
    for path in paths:
        os.utime(path, (when, when))
    return run


def test_the_newest_koikoi_run_is_chosen_past_a_newer_hanaawase_run(tmp_path: Path) -> None:
    now = time.time()
    older = make_run(tmp_path, "older", None, True, now - 300)
    koikoi = make_run(tmp_path, "koikoi", "koikoi", True, now - 200)
    warm_only = make_run(tmp_path, "warm_only", None, False, now - 100)
    hanaawase = make_run(tmp_path, "hanaawase", "hanaawase", True, now)
    assert run_game(older) == "koikoi" and run_game(hanaawase) == "hanaawase"
    assert newest_run(tmp_path) == koikoi
    assert newest_run(tmp_path, game="hanaawase") == hanaawase
    assert find_run(tmp_path) == koikoi, "a run with a policy before a newer one without"
    assert find_checkpoint(None, koikoi) == koikoi / "checkpoints" / "latest.pt"
    assert find_checkpoint(None, hanaawase) is None, "its policy plays another game"
    assert find_checkpoint("none", koikoi) is None
    assert find_checkpoint("x.pt", None) == Path("x.pt")
    for run in (older, koikoi):
        (run / "checkpoints" / "latest.pt").unlink()
    assert newest_run(tmp_path) is None
    assert find_run(tmp_path) == warm_only, "no policy: the newest Koi-Koi run's curves"
    assert find_run(tmp_path, str(hanaawase)) == hanaawase, "a folder given is taken"
    assert find_run(tmp_path / "missing") is None


def test_a_resumed_run_keeps_the_last_value_written_for_each_step(tmp_path: Path) -> None:
    writer_mod = pytest.importorskip("torch.utils.tensorboard")
    run = tmp_path / "run"
    first = writer_mod.SummaryWriter(str(run))
    for step in range(10):
        first.add_scalar("eval/win_rate", step, step * 100)
    first.close()
    time.sleep(0.01)  # the next event file's name and wall times come later
    again = writer_mod.SummaryWriter(str(run))  # steps 500-900 redone, new values
    for step in range(5, 12):
        again.add_scalar("eval/win_rate", step + 0.5, step * 100)
    again.close()
    steps, values = read_scalars(run)["eval/win_rate"]
    assert steps.tolist() == [100 * s for s in range(12)]
    assert values.tolist() == [0, 1, 2, 3, 4, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5]

    purged = writer_mod.SummaryWriter(str(run), purge_step=701)  # hides 800 and later
    purged.add_scalar("eval/win_rate", -1.0, 800)
    purged.close()
    steps, values = read_scalars(run)["eval/win_rate"]
    assert steps.tolist() == [100 * s for s in range(9)] and values[-1] == -1.0


def test_a_curve_of_few_points_has_markers() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    single = plot_curve(ax, np.array([100]), np.array([0.5]), "eval")
    dense = plot_curve(ax, np.arange(500), np.zeros(500), "charts")
    plt.close(fig)
    assert single.get_marker() == "o" and dense.get_marker() in (None, "None", "")
