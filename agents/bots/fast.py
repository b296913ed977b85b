"""The ``fast`` bot: the cheap compiled policy fitted to the expert, as an agent.

:mod:`hanafuda_env.koikoi.expert.fast` describes the policy (linear values of each card
outcome from yaku progress, denial and exposure; koi-koi by a logistic rule on match-win
chances). The kernel's rollouts play it as ``batch.FAST``; this agent decodes each
observation into the same view and calls the same compiled function, so it plays exactly
the rollout policy's moves. It is deterministic: the seed changes nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.bots.base import Agent
from hanafuda_env.koikoi.expert import fast as F
from hanafuda_env.koikoi.expert.views import (
    N_VI,
    N_VU,
    VI_OPP_CALLS,
    VI_OWN_CALLS,
    VI_PENDING,
    VI_PHASE,
    VI_ROUNDS_LEFT,
    VI_SCORE_DIFF,
    VU_FIELD,
    VU_HAND,
    VU_OPP_PILE,
    VU_OWN_PILE,
    views_from_observations,
)
from hanafuda_env.koikoi.kernel import compile_rules
from hanafuda_env.koikoi.observation import score_unit
from hanafuda_env.koikoi.rules import RuleSpec


@njit(cache=True)
def act_on_views(vu, vi, params, masks, counts, lookup, out) -> None:
    """The policy's action for every view."""
    for g in range(vu.shape[0]):
        out[g] = F.view_action(vu[g, VU_HAND], vu[g, VU_FIELD], vu[g, VU_OWN_PILE],
                               vu[g, VU_OPP_PILE], vi[g, VI_PENDING], vi[g, VI_PHASE],
                               vi[g, VI_OWN_CALLS], vi[g, VI_OPP_CALLS], vi[g, VI_SCORE_DIFF],
                               vi[g, VI_ROUNDS_LEFT], params, masks, counts, lookup)


class FastAgent(Agent):
    """Plays the ``fast`` rollout policy from observations (see the module docstring)."""

    name = "fast"

    def __init__(self, rules: RuleSpec = None, seed: int | None = None,
                 name: str | None = None):
        super().__init__(rules, seed, name)
        self._compiled = compile_rules(self.rules)
        self._unit = score_unit(self.rules)

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(obs)
        n = len(obs)
        vu = np.empty((n, N_VU), dtype=np.uint64)
        vi = np.empty((n, N_VI), dtype=np.int64)
        views_from_observations(obs, self._unit, self.rules.rounds, vu, vi)
        actions = np.empty(n, dtype=np.int64)
        act_on_views(vu, vi, *self._compiled.ctx, actions)
        return actions
