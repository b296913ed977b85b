"""A Hana-awase training run in its folder: claimed or resumed, config written, TensorBoard
events, checkpoints, and Ctrl-C turned into the message that says how to continue (as
:mod:`agents.train.run` does for Koi-Koi)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

from agents.train.config import ConfigError, claim_run_dir
from agents.train.hanaawase_ppo import HanaawaseConfig, HanaawaseTrainer, run_updates
from agents.train.run import (
    finished_run,
    interrupted_run,
    marked_config,
    restore_latest,
    resumed_spec,
)
from hanafuda_env.common.files import atomic_write_text

RESUMABLE = ("total_decisions", "progress_bar")


def saved_config(run_dir: str | Path) -> dict[str, Any] | None:
    """The config a Hana-awase run wrote into its folder, or None (not such a run)."""
    return marked_config(run_dir, "game", "hanaawase")


def train_hanaawase(cfg: HanaawaseConfig | None, run_dir: str | Path | None = None,
                    resume: str | Path | None = None, changes: dict[str, Any] | None = None,
                    stop_after: int | None = None) -> dict[str, Any]:
    """Run or continue a run; ``changes`` (with ``resume``): the RESUMABLE keys to alter.
    ``stop_after`` ends this call after that many updates, as an interruption would."""
    from torch.utils.tensorboard import SummaryWriter

    if resume is not None:
        run_dir = Path(resume)
        spec = saved_config(run_dir)
        if spec is None:
            raise ConfigError(f"{str(run_dir)!r} holds no Hana-awase run (no config.yaml "
                              f"with game: hanaawase)")
        cfg = HanaawaseConfig.from_dict(resumed_spec(spec, changes, RESUMABLE))
        trainer = HanaawaseTrainer(cfg)
        restored = restore_latest(trainer, run_dir)
        if trainer.update >= trainer.n_updates:
            raise ConfigError(f"run {str(run_dir)!r} is already complete; give a larger "
                              f"total_decisions=N to train it further")
        purge = trainer.global_step + 1 if restored else 0
    else:
        assert cfg is not None
        trainer = HanaawaseTrainer(cfg)
        run_dir = claim_run_dir(cfg, run_dir)
        purge = None
    run_dir = Path(run_dir)
    atomic_write_text(run_dir / "config.yaml", yaml.safe_dump(
        dataclasses.asdict(trainer.cfg), sort_keys=False, allow_unicode=True))
    writer = SummaryWriter(str(run_dir), purge_step=purge)
    try:
        if not trainer.warm_started:
            trainer.warm_start(writer)
        last = None if stop_after is None else min(trainer.n_updates,
                                                   trainer.update + stop_after)
        metrics = run_updates(trainer, writer, run_dir, last)
    except KeyboardInterrupt:
        raise interrupted_run(run_dir, "the last checkpoint",
                              "the run's first checkpoint") from None
    finally:
        writer.close()
    return finished_run(run_dir, metrics)
