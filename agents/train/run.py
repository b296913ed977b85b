"""A training run of either game: its folder claimed or reopened, the PPO loop of
:mod:`agents.train.ppo` run in it with the game's trainer, and Ctrl-C turned into a message
that says how to continue."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from agents.bots.policy import CheckpointError, load_checkpoint
from agents.train.config import (
    PLACEMENT_KEYS,
    RESUMABLE_KEYS,
    ConfigError,
    TrainingConfig,
    claim_run_dir,
    resume_config,
)
from agents.train.hanaawase import HanaawaseTrainer
from agents.train.koikoi import KoiKoiTrainer
from agents.train.ppo import Trainer, run_updates
from hanafuda_env.common.files import atomic_write_json, atomic_write_text


class TrainingInterrupted(Exception):
    """Ctrl-C stopped a run. ``template`` says what resuming does, with ``{resume}`` where
    the command that resumes ``run_dir`` goes; :meth:`explain` fills it in with the command
    a caller's users type (``train.py`` fills in its own command line)."""

    def __init__(self, template: str, run_dir: str | Path | None = None):
        self.template, self.run_dir = template, run_dir
        super().__init__(self.explain())

    def explain(self, resume: Callable[[str], str] | None = None) -> str:
        if resume is None:
            def resume(run_dir: str) -> str:
                return f"train(cfg, resume={run_dir!r})"
        return self.template.replace("{resume}", resume(str(self.run_dir)))


TRAINERS: dict[str, type[Trainer]] = {"koikoi": KoiKoiTrainer, "hanaawase": HanaawaseTrainer}


def make_trainer(cfg: TrainingConfig, run_dir: str | Path, resuming: bool = False) -> Trainer:
    """The trainer of the config's game (its rollouts on Ray actors with ``ray_workers``)."""
    return TRAINERS[cfg.game](cfg, run_dir, resuming)


def train(cfg: TrainingConfig | None, run_dir: str | Path | None = None,
          resume: str | Path | None = None, stop_after: int | None = None) -> dict[str, Any]:
    """Run (or continue) a training run of either game; returns the last logged metrics.

    ``stop_after`` ends this call after that many updates (saving a checkpoint), as an
    interruption would; ``resume`` then continues exactly where it stopped (``cfg``: None,
    or a config whose resumable keys change). Ctrl-C raises :class:`TrainingInterrupted`,
    whose message names the command that continues the run.
    """
    from tqdm import tqdm

    opened: list[Path] = []  # the run folder, once its config is written
    try:
        trainer, run_dir, writer = _open_run(cfg, run_dir, resume, opened)
    except KeyboardInterrupt:
        if resume is not None:
            raise TrainingInterrupted("interrupted while resuming; {resume} continues the run "
                                      "as before", resume) from None
        if opened:
            raise TrainingInterrupted("interrupted before the run's first checkpoint; {resume} "
                                      f"starts it over in {opened[0]}", opened[0]) from None
        raise TrainingInterrupted("interrupted before the run started; there is nothing to "
                                  "resume") from None
    cfg = trainer.cfg  # a resumed run's own
    if cfg.progress_bar:
        tqdm.write(f"run folder: {run_dir}")
    try:
        if not trainer.warm_started:
            from agents.train.warm_start import warm_start

            warm_start(trainer, writer, tqdm)
        last_update = trainer.n_updates if stop_after is None else min(
            trainer.n_updates, trainer.update + stop_after)
        metrics = run_updates(trainer, writer, last_update)
    except KeyboardInterrupt:
        if trainer.saved_update is None:
            raise TrainingInterrupted("interrupted before the run's first checkpoint; {resume} "
                                      f"starts it over in {run_dir}", run_dir) from None
        raise TrainingInterrupted(
            "interrupted; {resume} continues from the last checkpoint (update "
            f"{trainer.saved_update} of {trainer.n_updates}; later ones are redone)",
            run_dir) from None
    finally:
        writer.close()
        trainer.close()
    summary = finished_run(run_dir, metrics)
    remove_stale_temporaries(run_dir)
    return summary


def interrupted_run(run_dir: Path, continues_from: str, before_first: str
                    ) -> TrainingInterrupted:
    """What Ctrl-C during a run's loop says: resuming continues from ``continues_from``, or,
    with no ``checkpoints/latest.pt`` yet (interrupted ``before_first``), starts over."""
    if (run_dir / "checkpoints" / "latest.pt").exists():
        return TrainingInterrupted(f"interrupted; {{resume}} continues from {continues_from}",
                                   run_dir)
    return TrainingInterrupted(f"interrupted before {before_first}; {{resume}} starts it over",
                               run_dir)


def finished_run(run_dir: Path, metrics: dict[str, float]) -> dict[str, Any]:
    """A finished run's ``summary.json`` written; what its trainer returns."""
    summary = {"run_dir": str(run_dir), **metrics}
    atomic_write_json(run_dir / "summary.json", summary)
    return summary


def marked_config(run_dir: str | Path, key: str, value: str) -> dict[str, Any] | None:
    """The config a run wrote into its folder if it has ``key: value`` (the mark of the
    trainer that wrote it), else None."""
    try:
        spec = yaml.safe_load((Path(run_dir) / "config.yaml").read_text())
    except (OSError, yaml.YAMLError):
        return None
    return spec if isinstance(spec, dict) and spec.get(key) == value else None


def resumed_spec(spec: dict[str, Any], changes: dict[str, Any] | None,
                 resumable: tuple[str, ...]) -> dict[str, Any]:
    """A saved config with the changes a resume may make (only the ``resumable`` keys)."""
    fixed = sorted(set(changes or {}) - set(resumable))
    if fixed:
        raise ConfigError(f"a resumed run keeps its config; only {', '.join(resumable)} "
                          f"may change, not {fixed}")
    return {**spec, **(changes or {})}


def restore_latest(trainer: Any, run_dir: Path) -> bool:
    """Load the run's ``checkpoints/latest.pt`` into ``trainer`` (``restore(payload)``), once
    the temporaries of cut-short writes are gone; whether there was one."""
    latest = run_dir / "checkpoints" / "latest.pt"
    remove_stale_temporaries(run_dir)
    if not latest.exists():
        return False
    payload = load_checkpoint(latest)
    try:
        trainer.restore(payload)
    except (KeyError, ValueError, RuntimeError) as error:
        raise CheckpointError(f"{str(latest)!r} does not hold a training state this run can "
                              f"resume ({error})") from None
    return True


def remove_stale_temporaries(run_dir: Path) -> list[Path]:
    """Delete what a write cut short left in a run folder: the temporary files of atomic
    writes (``.NAME.*.tmp``, see ``hanafuda_env.common.files``). Only this run writes there, so at
    a resume or at the end none is in use. Returns the files removed."""
    removed = []
    for folder in (run_dir, run_dir / "checkpoints"):
        for path in folder.glob(".*.tmp"):
            if path.is_file():
                path.unlink()
                removed.append(path)
    return removed


def _open_run(cfg: TrainingConfig | None, run_dir: str | Path | None,
              resume: str | Path | None, opened: list[Path]) -> tuple[Trainer, Path, Any]:
    """The trainer of a new run (its folder claimed) or of a resumed one (restored), the
    run's resolved config written and its TensorBoard writer opened."""
    from torch.utils.tensorboard import SummaryWriter

    restart = False  # a run resumed before its first checkpoint starts over
    if resume is not None:
        if run_dir is not None and Path(run_dir) != Path(resume):
            raise ConfigError("a resumed run stays in its folder; give --resume RUN_DIR "
                              "without --run-dir")
        run_dir = Path(resume)
        remove_stale_temporaries(run_dir)
        latest = run_dir / "checkpoints" / "latest.pt"
        payload = load_checkpoint(latest) if latest.exists() else None
        # The run's saved config governs; from ``cfg`` only the keys a resume may change.
        changes = {} if cfg is None else {k: v for k, v in dataclasses.asdict(cfg).items()
                                          if k in RESUMABLE_KEYS + PLACEMENT_KEYS}
        cfg = resume_config(run_dir, changes, payload)
        restart = payload is None
        trainer = make_trainer(cfg, run_dir, resuming=not restart)
        if not restart:
            restore_trainer(trainer, payload, latest)
        if trainer.update >= trainer.n_updates:
            raise ConfigError(f"run {str(run_dir)!r} is already complete ({trainer.global_step} "
                              f"decisions for total_decisions={cfg.total_decisions}); give a "
                              "larger total_decisions=N to train it further")
    elif cfg is None:
        raise ConfigError("a new run needs a config (cfg=None only with resume=RUN_DIR)")
    else:
        trainer = make_trainer(cfg, "")  # a bad setting fails here, before any folder
    trainer.read_inputs()  # a bad game record too
    config_text = yaml.safe_dump(
        {**dataclasses.asdict(cfg), "resolved_rules": trainer.rules.to_dict()},
        sort_keys=False, allow_unicode=True)
    if resume is None:  # the folder is claimed with its whole config, in one step
        run_dir = claim_run_dir(cfg, run_dir, config_text)
        trainer.run_dir = run_dir
    else:
        atomic_write_text(run_dir / "config.yaml", config_text)
    opened.append(run_dir)  # from here on, --resume can start the run over
    # A resumed run hides events logged after its checkpoint (an interrupted run's tail; all
    # of them when it starts over). TensorBoard purges every tag, and the warm start's curves
    # share the step axis, so an early resume that would hide part of them keeps the tail.
    warm_steps = (0 if cfg.init_checkpoint is not None else
                  -(-cfg.warmstart_decisions // trainer.batch_steps) * trainer.batch_steps)
    if restart:  # a resumed run with no checkpoint yet starts over: hide everything
        purge_step = 0
    elif resume is not None and trainer.global_step >= warm_steps:
        purge_step = trainer.global_step + 1  # hide what came after the checkpoint
    else:  # a fresh run, or a resume inside the warm start: keep every event
        purge_step = None
    return trainer, run_dir, SummaryWriter(str(run_dir), purge_step=purge_step)


def restore_trainer(trainer: Trainer, payload: dict[str, Any], path: Path) -> None:
    """``trainer.restore`` with a checkpoint whose parts do not fit the run (edited, or from
    another version) refused by name: nothing is written before this succeeds."""
    try:
        trainer.restore(payload)
    except CheckpointError:  # e.g. an opponent file it names: that message says which
        raise
    except (KeyError, ValueError, RuntimeError) as error:  # missing parts, shapes, sizes
        detail = f"missing {error}" if isinstance(error, KeyError) else " ".join(
            str(error).split())[:300]
        raise CheckpointError(
            f"{str(path)!r} does not hold a training state this run can resume ({detail}); "
            f"an older checkpoint of the run (checkpoints/update_*.pt) copied to latest.pt "
            f"may") from None
