"""Train a Koi-Koi (or, with ``game: hanaawase`` in the config, Hana-awase) bot with masked
PPO and self-play; with ``algorithm: expert_iteration``, by expert iteration (a search bot
plays and the network learns its choices, agents.train.expert_iteration); with ``algorithm:
imitation``, by learning the expert's moves from millions of its decisions
(agents.train.imitation).

    python train.py [--config configs/default.yaml] [--run-dir DIR] [key=value ...]
    python train.py --resume runs/<run> [total_decisions=N]   # continue where it stopped

The run folder keeps the resolved config, TensorBoard events (``tensorboard --logdir runs``)
and checkpoints (``checkpoints/latest.pt``), all written atomically.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from hanafuda_cli.commands import program, train_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train a Koi-Koi (or Hana-awase) bot with "
                                     "masked PPO.")
    parser.add_argument("--config", help="YAML config (default: configs/default.yaml; "
                        "configs/smoke.yaml for a run of seconds; a shipped config also "
                        "by its name, 'smoke')")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR")
    parser.add_argument("--run-dir", help="folder for this run (default: runs/NAME__SEED__TIME)")
    parser.add_argument("overrides", nargs="*", metavar="key=value",
                        help="config values that replace the file's (parsed as YAML)")
    args = parser.parse_args(argv)
    for option in ("config", "resume", "run_dir"):
        if getattr(args, option) == "":
            parser.error(f"--{option.replace('_', '-')} needs a path, got an empty one")
    if args.resume is not None and args.config is not None:
        parser.error("--resume continues a run with the config saved in its folder; give it "
                     "without --config (key=value may change "
                     "total_decisions, iterations for expert iteration, or progress_bar)")
    try:
        return _run(args)
    except KeyboardInterrupt:  # while starting up, before train() holds a run
        if args.resume:
            print(f"\ninterrupted; {train_command('--resume', args.resume)} continues the run "
                  "as before", file=sys.stderr)
        else:
            print("\ninterrupted before the run started; there is nothing to resume",
                  file=sys.stderr)
        return 130


def _config_file(args: argparse.Namespace) -> str | Path:
    """``--config``, or the shipped default run's (imported here: agents.train loads torch)."""
    from agents.train.config import CONFIGS

    return args.config or CONFIGS / "default.yaml"


def _run(args: argparse.Namespace) -> int:
    from agents.bots.policy import CheckpointError  # torch: after the arguments are checked
    from agents.train.config import ConfigError, PPOConfig, load_config, resume_config
    from agents.train.run import TrainingInterrupted, train
    from hanafuda_env.koikoi.rules import RuleError

    try:
        algorithm = _algorithm(args)
        if algorithm is not None:
            summary = _train_other(algorithm, args)
        elif args.resume:
            cfg = resume_config(args.resume, PPOConfig.spec(None, args.overrides))
            summary = train(cfg, run_dir=args.run_dir, resume=args.resume)
        else:
            cfg = load_config(PPOConfig.spec(_config_file(args), args.overrides))
            summary = train(cfg, run_dir=args.run_dir, resume=args.resume)
    except (ConfigError, RuleError, CheckpointError, OSError) as error:
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    except TrainingInterrupted as stopped:
        print(f"\n{stopped.explain(lambda run: train_command('--resume', run))}",
              file=sys.stderr)
        return 130  # the shell's code for Ctrl-C
    print(f"run folder: {summary['run_dir']}")
    print(f"TensorBoard: {program('tensorboard')} --logdir {summary['run_dir']}")
    return 0


def _algorithm(args: argparse.Namespace) -> str | None:
    """The config's (or a resumed run's saved) ``algorithm``: None for masked PPO."""
    from agents.train.config import ConfigError, PPOConfig
    from agents.train.expert_iteration import saved_exit_config
    from agents.train.imitation import saved_imitation_config

    if args.resume:
        for saved in (saved_exit_config, saved_imitation_config):
            spec = saved(args.resume)
            if spec is not None:
                return spec["algorithm"]
        return None
    spec = PPOConfig.spec(_config_file(args), args.overrides)
    if "algorithm" in spec and spec["algorithm"] not in TRAINERS:
        raise ConfigError(f"algorithm must be one of {', '.join(TRAINERS)} or left out "
                          f"(masked PPO), got {spec['algorithm']!r}")
    return spec.get("algorithm")


def _train_other(algorithm: str, args: argparse.Namespace) -> dict:
    """An expert-iteration or imitation run, started or resumed."""
    from agents.train.config import PPOConfig

    config_type, train = TRAINERS[algorithm]()
    if args.resume:
        return train(None, resume=args.resume, changes=PPOConfig.spec(None, args.overrides))
    return train(config_type.from_dict(PPOConfig.spec(_config_file(args), args.overrides)),
                 run_dir=args.run_dir)


def _expert_iteration() -> tuple:
    from agents.train.expert_iteration import ExItConfig, train_exit
    return ExItConfig, train_exit


def _imitation() -> tuple:
    from agents.train.imitation import ImitationConfig, train_imitation
    return ImitationConfig, train_imitation


# The trainers a config's ``algorithm`` names (masked PPO when it names none).
TRAINERS = {"expert_iteration": _expert_iteration, "imitation": _imitation}


def _stop_on_sigterm() -> None:
    """A scheduler's SIGTERM ends a run as Ctrl-C does: the checkpoints stay whole and the
    message names the command that resumes it (130, as for Ctrl-C)."""
    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def run() -> None:
    """The ``hanafuda-train`` command (and ``python train.py``): :func:`main` with the exits a
    terminal expects."""
    _stop_on_sigterm()
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # while reading the arguments
        sys.exit(130)


if __name__ == "__main__":
    run()
