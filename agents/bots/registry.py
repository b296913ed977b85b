"""Build an agent from a short spec: a baseline name or a checkpoint path."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.bots.base import Agent, AgentLike
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.files import folder_hint
from hanafuda_env.rules import RuleSpec, resolve_rules

BASELINES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
}


def is_baseline_name(spec: str) -> bool:
    """A baseline's name as ``make_agent`` reads it (case and surrounding spaces ignored)."""
    return spec.strip().lower() in BASELINES


def make_agent(spec: str, rules: RuleSpec = None, seed: int | None = None) -> AgentLike:
    """A baseline by name (``random``, ``greedy``, ``expert``) or a trained policy from an
    existing checkpoint file. A path is tried first, so a file named like a baseline wins
    only when it exists."""
    rules = resolve_rules(rules)
    if os.path.isfile(spec):
        from agents.bots.policy import PolicyAgent  # torch is only needed for checkpoints

        agent = PolicyAgent.load(spec, rules)
        if seed is not None and hasattr(agent, "seed"):
            agent.seed(seed)
        return agent
    if is_baseline_name(spec):
        return BASELINES[spec.strip().lower()](rules=rules, seed=seed)
    raise ValueError(f"unknown agent {spec!r}: not an existing checkpoint file, and not a "
                     f"baseline name; baseline names: {', '.join(BASELINES)}{folder_hint(spec)}")


def display_names(specs: Sequence[str]) -> list[str]:
    """Names to report agents by: a baseline's name, a checkpoint's file stem, lengthened
    with its folders (``run_a/checkpoints/latest``) where a stem is shared or is a
    baseline's name, so results never credit a checkpoint to a baseline or mix two files up."""
    names: list[str | None] = [spec.strip().lower() if is_baseline_name(spec)
                               and not os.path.isfile(spec) else None for spec in specs]
    parts = [Path(spec).with_suffix("").parts for spec in specs]
    parts = [p[1:] if p and p[0] == Path(spec).anchor else p for p, spec in zip(parts, specs)]
    depth = 1
    while any(name is None for name in names):
        trial = [name if name is not None else "/".join(parts[k][-depth:])
                 for k, name in enumerate(names)]
        for k, name in enumerate(names):
            if name is None and trial[k] not in BASELINES and trial.count(trial[k]) == 1:
                names[k] = trial[k]
            elif name is None and depth >= len(parts[k]):  # the whole path, as given
                names[k] = (os.path.join(".", specs[k]) if is_baseline_name(specs[k])
                            else str(specs[k]))
        depth += 1
    return [str(name) for name in names]


def read_policy_files(specs: list[str]) -> dict[str, dict[str, Any]]:
    """The policies of the agent specs that are checkpoint files. A spec that is neither a
    file nor a baseline name fails now (a run must not find out at its first evaluation)."""
    from agents.bots.policy import CheckpointError, policy_weights  # torch

    weights = {}
    for spec in specs:
        if os.path.isfile(spec):
            weights[spec] = policy_weights(spec)
        elif not is_baseline_name(spec):
            raise CheckpointError(f"checkpoint {spec!r} does not exist (and it is not a "
                                  f"baseline name: {', '.join(BASELINES)}){folder_hint(spec)}")
    return weights
