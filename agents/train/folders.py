"""A new run's folder: claimed with its whole ``config.yaml`` in one step, so that of two
runs started together one gets it and a kill leaves no folder with an empty config; a folder
a run left before its config was complete is taken by the next."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import yaml

from agents.train.errors import ConfigError
from hanafuda_env.common.files import atomic_create_text


def claim_run_dir(cfg: Any, run_dir: str | Path | None, config_text: str | None = None
                  ) -> Path:
    """Make a new run's folder, claimed by creating its ``config.yaml`` with all of
    ``config_text`` (default: the config's keys) in one step, so a kill leaves no folder
    with an empty config. A folder named by the user must be new, empty or left by a run
    stopped before its config was complete (nothing written there is overwritten); the
    default name gets a suffix if another run took it."""
    text = yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False, allow_unicode=True) \
        if config_text is None else config_text
    if run_dir is not None:
        if "\0" in str(run_dir):
            raise ConfigError(f"--run-dir must be a folder path, got {str(run_dir)!r}")
        run_dir = Path(run_dir)
        used = ConfigError(f"run folder {str(run_dir)!r} exists and is not an empty folder; "
                           f"pick a new --run-dir, or continue that run with --resume {run_dir}")
        if run_dir.exists() and not run_dir.is_dir():
            raise ConfigError(f"--run-dir {str(run_dir)!r} is a file, not a folder; pick a "
                              "new --run-dir")
        if run_dir.exists() and any(run_dir.iterdir()) and not _clear_unclaimed(run_dir):
            raise used
        _make_folder(run_dir, "--run-dir")
        try:  # of two runs started together, one creates config.yaml
            _claim(run_dir, text)
        except FileExistsError:
            raise used from None
        return run_dir
    base = Path(cfg.log_dir) / f"{cfg.exp_name}__{cfg.seed}__{int(time.time())}"
    _make_folder(base.parent, "log_dir")
    candidate, attempt = base, 1
    while True:
        try:
            candidate.mkdir()  # atomic: two runs started together get different folders
            _claim(candidate, text)
            return candidate
        except FileExistsError:
            attempt += 1
            candidate = base.with_name(f"{base.name}_{attempt}")
        except OSError as error:
            raise ConfigError(f"log_dir {cfg.log_dir!r} cannot hold the run folder "
                              f"{candidate.name!r}: {error.strerror or error}") from None


def _claim(run_dir: Path, text: str) -> None:
    try:
        atomic_create_text(run_dir / "config.yaml", text)
    except FileExistsError:
        raise
    except OSError as error:
        raise ConfigError(f"run folder {str(run_dir)!r}: {error}") from None


def _clear_unclaimed(run_dir: Path) -> bool:
    """Empty a folder a run left before its config was complete (only an empty or partial
    ``config.yaml`` and the temporaries of cut-short writes), so a new run may take it;
    whether it was one."""
    entries = list(run_dir.iterdir())
    config = run_dir / "config.yaml"
    if not all(p == config or (p.name.startswith(".") and p.name.endswith(".tmp")
                               and p.is_file()) for p in entries):
        return False
    if config.exists() and (not config.is_file() or _written_mapping(config)):
        return False
    for path in entries:
        path.unlink(missing_ok=True)
    return True


def _written_mapping(path: Path) -> bool:
    """Whether ``path`` holds a whole YAML mapping (a config some run wrote)."""
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(spec, dict) and bool(spec)


def _make_folder(path: Path, option: str) -> None:
    """``mkdir -p``, its failure named after the option."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"{option} {str(path)!r} cannot be made a folder: "
                          f"{error.strerror or error} (a file is in the way, or no permission); "
                          "give a folder path") from None
