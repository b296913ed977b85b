"""Training runs as the notebooks read them: which run folder and checkpoint to study, and
the learning curves a run logged to TensorBoard.

A runs folder holds Koi-Koi and Hana-awase runs side by side (``train.py`` writes both under
``runs/``); a Hana-awase policy cannot play Koi-Koi, so a run is chosen among those of the
game asked for, by the ``game`` its ``config.yaml`` names (Koi-Koi when it names none).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import yaml

LATEST = Path("checkpoints") / "latest.pt"
# A curve with at most this many points is drawn with markers: a single point, or a few far
# apart (evaluations), would otherwise be an invisible or misleading line.
MARKER_POINTS = 50


def run_game(run: Path) -> str:
    """The game a run folder trained, from its ``config.yaml`` (``koikoi`` when unnamed)."""
    try:
        spec = yaml.safe_load((Path(run) / "config.yaml").read_text())
    except (OSError, yaml.YAMLError):
        return "koikoi"
    game = spec.get("game") if isinstance(spec, dict) else None
    return game if isinstance(game, str) and game else "koikoi"


def has_events(folder: Path) -> bool:
    """Whether a folder holds TensorBoard event files (any depth)."""
    folder = Path(folder)
    return folder.is_dir() and any(folder.rglob("events.out.tfevents.*"))


def latest_checkpoint(run: Path) -> Path | None:
    """The run's ``checkpoints/latest.pt`` when it exists (a run stopped in its warm start
    has none)."""
    path = Path(run) / LATEST
    return path if path.is_file() else None


def _last_written(run: Path) -> float:
    """When a run last wrote its policy (its folder's time when it has none): a resumed run
    counts as new."""
    latest = latest_checkpoint(run)
    return max(run.stat().st_mtime, latest.stat().st_mtime if latest else 0.0)


def newest_run(runs_dir: Path, game: str = "koikoi", trained: bool = True) -> Path | None:
    """The newest run of ``game`` under ``runs_dir``: with ``trained``, among the runs with a
    ``checkpoints/latest.pt``; else among those with event files (curves only)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return None
    runs = [p for p in runs_dir.iterdir() if p.is_dir() and run_game(p) == game
            and (latest_checkpoint(p) if trained else has_events(p))]
    return max(runs, key=_last_written) if runs else None


def find_run(runs_dir: Path, run_dir: str | None = None) -> Path | None:
    """The run whose curves the benchmark shows: ``run_dir`` when given and it holds event
    files, else the newest Koi-Koi run with a policy, else the newest Koi-Koi run with
    event files."""
    if run_dir:
        return Path(run_dir) if has_events(Path(run_dir)) else None
    found = newest_run(runs_dir, trained=True)
    return found if found is not None and has_events(found) else newest_run(runs_dir, trained=False)


def find_checkpoint(spec: str | None, run: Path | None) -> Path | None:
    """The policy to study: ``spec`` (a path; ``none`` or empty for none) when given, else
    the run's ``checkpoints/latest.pt`` when the run trained Koi-Koi."""
    if spec is not None:
        return None if spec.strip().lower() in ("", "none") else Path(spec)
    if run is None or run_game(run) != "koikoi":
        return None
    return latest_checkpoint(run)


def read_scalars(run: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """tag -> (steps, values) from every event file of a run folder, one value per step.

    A resumed run redoes the updates after its last checkpoint and logs their steps again:
    the value written last for a step is kept, as TensorBoard's charts show it (the
    accumulator already drops what a ``purge_step`` hid)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    written: dict[str, list[tuple[float, int, int, float]]] = {}
    order = 0
    for folder in sorted({p.parent for p in Path(run).rglob("events.out.tfevents.*")}):
        accumulator = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            rows = written.setdefault(tag, [])
            for event in accumulator.Scalars(tag):
                rows.append((event.wall_time, order, event.step, event.value))
                order += 1
    series = {}
    for tag, rows in written.items():
        last = {step: value for _, _, step, value in sorted(rows)}
        steps = np.array(sorted(last), dtype=np.int64)
        series[tag] = (steps, np.array([last[s] for s in steps], dtype=np.float64))
    return series


def plot_curve(ax: Any, steps: np.ndarray, values: np.ndarray, label: str) -> Any:
    """One learning curve on a matplotlib axis, with markers when it has few points."""
    marker = "o" if len(steps) <= MARKER_POINTS else None
    line, = ax.plot(steps, values, label=label, lw=1.2, marker=marker, ms=3)
    return line
