"""What the trainers beside masked PPO share (expert iteration, imitation): their common
settings' checks, their config from a mapping, and a run folder started or resumed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from agents.train.config import ConfigError, check_agent, claim_run_dir
from agents.train.run import marked_config, restore_latest, resumed_spec
from hanafuda_env.common.files import atomic_write_text
from hanafuda_env.koikoi.rules import resolve_rules


def check_exp_name(name: Any) -> None:
    """A run's name becomes a folder: no path separators, NUL or dots alone."""
    if not isinstance(name, str) or not name.strip(".") or any(c in name for c in "/\\\0"):
        raise ConfigError(f"exp_name must be a non-empty name without '/', '\\' or NUL, "
                          f"got {name!r}")


def check_run_settings(cfg: Any) -> None:
    """The settings such a config shares: its name, evaluation opponents and the one
    ``best.pt`` is kept against, a start checkpoint, the log folder and the rules."""
    check_exp_name(cfg.exp_name)
    if not isinstance(cfg.eval_opponents, list) or not cfg.eval_opponents:
        raise ConfigError(f"eval_opponents must be a non-empty list of agent names, got "
                          f"{cfg.eval_opponents!r}")
    for agent in cfg.eval_opponents:
        check_agent("eval_opponents", agent)
    if cfg.best_opponent is not None and cfg.best_opponent not in cfg.eval_opponents:
        raise ConfigError(f"best_opponent must be one of eval_opponents "
                          f"{cfg.eval_opponents} or null, got {cfg.best_opponent!r}")
    if cfg.init_checkpoint is not None and not isinstance(cfg.init_checkpoint, str):
        raise ConfigError(f"init_checkpoint must be a checkpoint path or null, got "
                          f"{cfg.init_checkpoint!r}")
    if not isinstance(cfg.log_dir, str) or not cfg.log_dir:
        raise ConfigError(f"log_dir must be a folder path, got {cfg.log_dir!r}")
    resolve_rules(cfg.rules)  # a wrong rule name fails here, before anything runs


def config_from_spec(config_type: type, spec: dict[str, Any], algorithm: str) -> Any:
    """``config_type`` from a mapping; a key it lacks is a :class:`ConfigError` naming the
    allowed ones."""
    allowed = [f.name for f in dataclasses.fields(config_type)]
    unknown = [k for k in spec if k not in allowed]
    if unknown:
        raise ConfigError(f"unknown config key(s) {unknown}; allowed keys of an {algorithm} "
                          f"config: " + ", ".join(allowed))
    return config_type(**spec)


def open_run(config_type: Any, cfg: Any, run_dir: str | Path | None, resume: str | Path | None,
             changes: dict[str, Any] | None, algorithm: str, resumable: tuple[str, ...],
             make: Callable[[Any, Path], Any], complete: Callable[[Any, Any], str | None]
             ) -> tuple[Any, Any, Path]:
    """The config (a ``config_type``), trainer (``make(cfg, folder)``) and folder of a new
    run, or of the run
    ``resume`` names restored from its ``latest.pt`` (``changes``: the ``resumable`` keys to
    alter; ``complete(cfg, trainer)`` says why a finished one cannot go on, or None). The
    config is written into the folder."""
    if resume is not None:
        folder = Path(resume)
        spec = marked_config(folder, "algorithm", algorithm)
        if spec is None:
            raise ConfigError(f"{str(folder)!r} holds no {algorithm} run (no config.yaml with "
                              f"algorithm: {algorithm})")
        cfg = config_type.from_dict(resumed_spec(spec, changes, resumable))
        trainer = make(cfg, folder)
        restore_latest(trainer, folder)
        why = complete(cfg, trainer)
        if why:
            raise ConfigError(f"run {str(folder)!r} is already complete; {why}")
    else:
        folder = Path(claim_run_dir(cfg, run_dir))
        trainer = make(cfg, folder)
    atomic_write_text(folder / "config.yaml", yaml.safe_dump(
        dataclasses.asdict(cfg), sort_keys=False, allow_unicode=True))
    return cfg, trainer, folder


def evaluate_network(network: Any, cfg: Any, rules: Any, seed: int, best_win_rate: float,
                     run_dir: Path, policy: dict[str, Any]) -> tuple[dict[str, float], float]:
    """The network alone (its most likely move) against each of ``cfg.eval_opponents``
    over ``cfg.eval_matches`` paired matches, and the best win rate against
    ``cfg.best_opponent`` so far: a new best writes ``checkpoints/best.pt`` (``policy``)."""
    from agents.bots.policy import PolicyAgent, save_checkpoint
    from agents.bots.registry import make_agent
    from agents.eval.matches import play_matches

    agent = PolicyAgent(network, name="network", greedy=True)
    metrics = {}
    for name in cfg.eval_opponents:
        result = play_matches(agent, make_agent(name, rules, seed=seed), cfg.eval_matches,
                              rules=rules, seed=seed)
        metrics[f"eval/win_rate_vs_{name}"] = result["win_rate"]["value"]
        metrics[f"eval/points_per_round_vs_{name}"] = result["points_per_round"]["mean"]
    if cfg.best_opponent is not None:
        rate = metrics[f"eval/win_rate_vs_{cfg.best_opponent}"]
        if rate > best_win_rate:
            best_win_rate = rate
            save_checkpoint(run_dir / "checkpoints" / "best.pt",
                            {**policy, "opponent": cfg.best_opponent, "win_rate": rate})
    return metrics, best_win_rate
