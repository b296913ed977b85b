"""Bots: the agent interface, the baselines, the trained-network bot and ``make_agent``.

``PolicyAgent`` (a network from a checkpoint) needs torch; it is imported when first asked
for, so the baselines work without it.
"""

from __future__ import annotations

from typing import Any

from agents.bots.base import Agent, AgentLike, View, decode
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent, ExpertParams
from agents.bots.fast import FastAgent
from agents.bots.registry import BASELINES, display_names, is_baseline_name, make_agent

__all__ = ["BASELINES", "Agent", "AgentLike", "ExpertAgent", "ExpertParams", "FastAgent",
           "GreedyAgent", "PolicyAgent", "RandomAgent", "View", "decode", "display_names",
           "is_baseline_name", "make_agent"]


def __getattr__(name: str) -> Any:
    if name == "PolicyAgent":
        from agents.bots.policy import PolicyAgent

        return PolicyAgent
    raise AttributeError(f"module 'agents.bots' has no attribute {name!r}")
