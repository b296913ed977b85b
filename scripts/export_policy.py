"""Write the policy of a training checkpoint as a policy-only checkpoint (the weights and the
network's shape, no optimizer or pool): what ``agents/bots/pretrained/`` ships.

    python scripts/export_policy.py runs/<run>/checkpoints/latest.pt OUT.pt [--figures 2000]

The copy loads through the same safe loader and plays the same moves. With ``--figures N``
the run's config is written beside it as ``OUT.yaml`` (as ``train.py --config`` takes it),
and ``OUT.json`` gets its evaluation: N paired matches (same decks, seats swapped, seed
2026) against the expert, the greedy and the random bot, win rates and points per round with
their 95 % intervals: the matches of ``evaluate.py OUT.pt OPPONENT --matches N --seed 2026``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

from agents.bots.policy import (
    CheckpointError,
    PolicyAgent,
    load_checkpoint,
    network_from_payload,
    save_checkpoint,
)
from agents.train.config import PPOConfig
from agents.train.expert_iteration import ExItConfig
from agents.train.imitation import ImitationConfig
from hanafuda_env.common.files import atomic_write_json, atomic_write_text

OPPONENTS = ("expert", "greedy", "random")
SEED = 2026
# The config classes of the trainers other than masked PPO, by their ``algorithm``.
TRAINER_CONFIGS = {"imitation": ImitationConfig, "expert_iteration": ExItConfig}


def run_rules(spec: dict) -> Any:
    """The rules of a run's config as it names them, the config checked to train as it is
    (by its trainer's config)."""
    config_type = TRAINER_CONFIGS.get(spec.get("algorithm"), PPOConfig)
    return config_type.from_dict(spec).rules


def trainable_config(run_config: Path, out: Path) -> str:
    """The run's config as ``train.py --config`` takes it (without the resolved rules a run
    folder keeps for its resume), headed by the command that trains it again."""
    spec = yaml.safe_load(run_config.read_text())
    spec.pop("resolved_rules", None)
    run_rules(spec)  # it must train as it is
    return (f"# The config that trained {out.with_suffix('.pt').name}; train it again with\n"
            f"#   python train.py --config {out.with_suffix('.yaml').as_posix()}\n"
            + yaml.safe_dump(spec, sort_keys=False, allow_unicode=True))


def figures(policy: Path, config: Path, matches: int) -> dict:
    """The shipped policy's evaluation under the rules of the run that trained it."""
    from agents.bots.registry import make_agent
    from agents.eval.matches import play_matches
    rules = run_rules(yaml.safe_load(config.read_text()))  # as trainable_config wrote it
    agent = PolicyAgent.load(policy, rules)  # seeded as evaluate.py seeds its two agents
    out: dict = {"matches": matches, "seed": SEED, "rules": rules}
    for name in OPPONENTS:
        agent.seed(SEED)
        opponent = make_agent(name, rules, seed=SEED + 1)
        result = play_matches(agent, opponent, matches, rules, seed=SEED,
                              agent_seeds=(SEED, SEED + 1))
        out[f"vs_{name}"] = {"win_rate": result["win_rate"]["value"],
                             "win_rate_95": [result["win_rate"]["low"],
                                             result["win_rate"]["high"]],
                             "points_per_round": result["points_per_round"]["mean"],
                             "points_per_round_95": [result["points_per_round"]["low"],
                                                     result["points_per_round"]["high"]]}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a checkpoint the trainer wrote")
    parser.add_argument("out", help="the policy checkpoint to write")
    parser.add_argument("--figures", type=int, default=0, metavar="N",
                        help="also copy the run's config and evaluate over N matches each")
    args = parser.parse_args(argv)
    source, out = Path(args.checkpoint), Path(args.out)
    config = source.parent.parent / "config.yaml"
    try:
        payload = load_checkpoint(source)
        network_from_payload(payload)  # it must play before it is copied
        if args.figures and not config.is_file():
            raise CheckpointError(f"{str(config)!r} is missing: --figures needs the run's config")
    except CheckpointError as error:
        print(f"export_policy.py: error: {error}", file=sys.stderr)
        return 2
    kept = {key: payload[key] for key in ("model", "network", "update", "global_step",
                                          "iteration", "epoch", "trainer", "value")
            if key in payload}
    save_checkpoint(out, kept)
    print(f"wrote {out}")
    if args.figures:
        atomic_write_text(out.with_suffix(".yaml"), trainable_config(config, out))
        result = figures(out, out.with_suffix(".yaml"), args.figures)
        result["command"] = (f"python scripts/export_policy.py runs/<run>/checkpoints/"
                             f"{source.name} {out.as_posix()} --figures {args.figures}")
        atomic_write_json(out.with_suffix(".json"), result)
        print(f"wrote {out.with_suffix('.yaml')} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
