"""The one interface every Koi-Koi agent has, and a decoder for the observation vector.

An agent is anything with a ``name`` and ``act(obs, mask) -> actions``:

* ``obs``  — ``(B, OBS_DIM)`` float32 observations (``hanafuda_env.koikoi.observation``) of the
  player to move in each of B games;
* ``mask`` — ``(B, 98)`` bool legal actions of those players;
* result  — ``(B,)`` int64 actions, each legal under its row of ``mask``.

Agents see nothing else (no hidden cards, no core), so the same agent plays in the batched
evaluator, in the PettingZoo environment and against a person. ``seed(int)`` makes a
stochastic agent repeatable. Trained policies (``agents.bots.policy.PolicyAgent``) follow the
same protocol without subclassing :class:`Agent`; baselines subclass it for the shared
checks and the rule set.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import HAND_SIZE, NUM_ACTIONS, STOCK_SIZE
from hanafuda_env.koikoi.observation import BLOCK, CALLS_SCALE, OBS_DIM, SCALAR_INDEX, score_unit
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules

# Seeds users give (configs, CLIs): derived seeds (seed * 100_003 + update, …) stay in torch's
# range.
MAX_SEED = 2**32 - 1


@runtime_checkable
class AgentLike(Protocol):
    """What the evaluator and the environments need from an agent."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


class Agent(ABC):
    """Base of the built-in agents: a rule set, a seeded generator and input checks (the
    Hana-awase bots read their own rules and observations: ``read_rules``, ``check``)."""

    name: str = "agent"
    # Whether the rule set changes what it plays (play_matches warns when it differs).
    reads_rules: bool = True

    def __init__(self, rules: Any = None, seed: int | None = None, name: str | None = None):
        self.rules = self.read_rules(rules)
        self.rng = np.random.default_rng(seed)
        if name is not None:
            self.name = name

    @staticmethod
    def read_rules(rules: RuleSpec) -> Any:
        """The agent's rule set from what its constructor was given."""
        return resolve_rules(rules)

    def seed(self, seed: int | None) -> None:
        """Restart the agent's random stream (tie breaks, sampling)."""
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B,) int64 legal actions for a batch of observations and legal-action masks."""
        obs, mask = self.check(obs, mask)
        if len(obs) == 0:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self._act(obs, mask), dtype=np.int64)

    def check(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The batch as arrays, or a ValueError naming what is wrong with its layout."""
        return check_inputs(obs, mask)

    @abstractmethod
    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The agent's choice for a non-empty, validated batch."""

    def __repr__(self) -> str:
        rules = getattr(self.rules, "name", type(self.rules).__name__)
        return f"{type(self).__name__}(name={self.name!r}, rules={rules!r})"


def check_inputs(obs: np.ndarray, mask: np.ndarray, need_action: bool = True
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Shapes and dtypes checked once here, so agents fail loudly on a wrong layout (and,
    with ``need_action``, on a row that allows no action: there is nothing to choose)."""
    obs = np.asarray(obs, dtype=np.float32)
    mask = np.asarray(mask, dtype=bool)
    if obs.ndim != 2 or obs.shape[1] != OBS_DIM:
        raise ValueError(f"obs must have shape (B, {OBS_DIM}), got {obs.shape}")
    if mask.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"mask must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got {mask.shape}")
    if need_action and len(mask) and not mask.any(axis=1).all():
        row = int(np.flatnonzero(~mask.any(axis=1))[0])
        raise ValueError(f"row {row} of the mask allows no action")
    return obs, mask


@dataclass
class View:
    """The observation as card sets (uint64) and integer counts: what heuristics reason on.

    ``own_total``/``opp_total`` and ``score_diff`` are in the rule set's points (the encoder
    scales them by ten units); ``rounds_left`` counts this round.
    """

    hand: np.ndarray
    field: np.ndarray
    own_pile: np.ndarray
    opp_pile: np.ndarray
    unseen: np.ndarray
    pending: np.ndarray  # card id, -1 when none
    phase: np.ndarray
    stock_left: np.ndarray
    own_hand_n: np.ndarray
    opp_hand_n: np.ndarray
    own_called: np.ndarray
    opp_called: np.ndarray
    own_calls: np.ndarray  # koi-koi calls this round
    opp_calls: np.ndarray
    own_total: np.ndarray
    opp_total: np.ndarray
    is_dealer: np.ndarray
    rounds_left: np.ndarray
    score_diff: np.ndarray


def decode(obs: np.ndarray, rules: RuleSet) -> View:
    """Turn a batch of observation vectors back into card sets and counts."""
    bits = {name: C.bool_to_bits(obs[:, BLOCK[name]] > 0.5)
            for name in ("hand", "field", "own_pile", "opp_pile", "unseen")}
    pending_rows = obs[:, BLOCK["pending"]] > 0.5
    pending = np.where(pending_rows.any(axis=1), pending_rows.argmax(axis=1), -1)
    unit = score_unit(rules)  # as the encoder scales

    def scalar(name: str) -> np.ndarray:
        return obs[:, SCALAR_INDEX[name]]

    return View(
        hand=bits["hand"], field=bits["field"], own_pile=bits["own_pile"],
        opp_pile=bits["opp_pile"], unseen=bits["unseen"], pending=pending.astype(np.int64),
        phase=obs[:, BLOCK["phase"]].argmax(axis=1),
        stock_left=np.rint(scalar("stock_left") * STOCK_SIZE).astype(np.int64),
        own_hand_n=np.rint(scalar("own_hand_size") * HAND_SIZE).astype(np.int64),
        opp_hand_n=np.rint(scalar("opp_hand_size") * HAND_SIZE).astype(np.int64),
        own_called=scalar("own_called_koikoi") > 0.5,
        opp_called=scalar("opp_called_koikoi") > 0.5,
        own_calls=np.rint(scalar("own_koikoi_calls") * CALLS_SCALE).astype(np.int64),
        opp_calls=np.rint(scalar("opp_koikoi_calls") * CALLS_SCALE).astype(np.int64),
        own_total=np.rint(scalar("own_yaku_total") * unit).astype(np.int64),
        opp_total=np.rint(scalar("opp_yaku_total") * unit).astype(np.int64),
        is_dealer=scalar("is_dealer") > 0.5,
        rounds_left=np.rint(scalar("rounds_left") * rules.rounds).astype(np.int64),
        score_diff=np.rint(scalar("score_diff") * unit).astype(np.int64),
    )


def legal_candidates(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and action ids of every legal action, row-major: loops over candidates, not
    games, stay vectorized."""
    rows, actions = np.nonzero(mask)
    return rows, actions.astype(np.int64)


def argmax_per_row(rows: np.ndarray, actions: np.ndarray, values: np.ndarray,
                   n_rows: int) -> np.ndarray:
    """For candidate (row, action, value) triples, the action of highest value per row."""
    best = np.full(n_rows, -np.inf)
    np.maximum.at(best, rows, values)
    is_best = values >= best[rows]
    chosen = np.full(n_rows, -1, dtype=np.int64)
    # the first best candidate of each row wins (candidates come row-major)
    first = np.flatnonzero(is_best)
    keep = np.unique(rows[first], return_index=True)[1]
    chosen[rows[first[keep]]] = actions[first[keep]]
    return chosen


def act_in_groups(group: np.ndarray, rows: np.ndarray,
                  act: Callable[[int, np.ndarray, np.ndarray], np.ndarray], obs: np.ndarray,
                  mask: np.ndarray, out: np.ndarray) -> None:
    """``out`` for the selected ``rows`` of a batch of games: ``act(k, obs, mask)`` for each
    group ``k`` (the agent that moves there), once per group on all its rows, so each agent
    acts on one batch per step."""
    for k in np.unique(group[rows]):
        idx = np.flatnonzero(rows & (group == k))
        out[idx] = act(int(k), obs[idx], mask[idx])
