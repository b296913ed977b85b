"""Analysis by rollouts from forked games: the value of the koi-koi decision
(:mod:`agents.analysis.koikoi_value`) and of every legal move
(:mod:`agents.analysis.action_values`)."""

from agents.analysis.action_values import ActionValues, estimate_action_values
from agents.analysis.koikoi_value import (
    DecisionPoints,
    DecisionValues,
    collect_decision_points,
    estimate_decision_value,
    summarize,
)

__all__ = ["ActionValues", "DecisionPoints", "DecisionValues", "collect_decision_points",
           "estimate_action_values", "estimate_decision_value", "summarize"]
