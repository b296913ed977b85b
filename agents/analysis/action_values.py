"""What is each legal move worth? Rollout values of every candidate at any decision.

Each decision point is forked into ``K`` worlds
(:func:`agents.analysis.koikoi_value.rollout_worlds`: hidden cards reshuffled, kept, or only
the stock reshuffled), and every legal action is played in every world, then ``policy``
plays both seats to the end of the round. All the candidates of a point share its worlds
(common random numbers), so the *differences* between moves are estimated more tightly
than the values themselves.

A value is the mover's round points given the rollout policy: the policy's action value
under the decider's information. Picking the best candidate is one step of policy
improvement, or a Monte Carlo search over sampled worlds ("PIMC"); comparing the policy's
own move with the best says how much such a step could gain (``benchmarks/bench_search.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.analysis.koikoi_value import MODES, play_with, point_worlds
from agents.bots.base import AgentLike, argmax_per_row
from hanafuda_env.koikoi.core import KoiKoiCore


@dataclass
class ActionValues:
    """Rollout values of every legal candidate of ``n_points`` decision points.

    Candidates come point-major (a point's candidates in action order); ``samples[c, k]``
    is the mover's round points when candidate ``c`` is played in world ``k`` of its point.
    """

    n_points: int
    point: np.ndarray  # (C,) the decision point each candidate belongs to
    action: np.ndarray  # (C,) the candidate action
    samples: np.ndarray  # (C, K) round points of the mover, one column per world

    @property
    def mean(self) -> np.ndarray:
        """(C,) mean value of each candidate over its point's worlds."""
        return self.samples.mean(axis=1)

    def best(self) -> np.ndarray:
        """(n_points,) the candidate of highest mean value per point (the first on ties)."""
        return argmax_per_row(self.point, self.action, self.mean, self.n_points)

    def value_of(self, actions: np.ndarray) -> np.ndarray:
        """(n_points,) mean value of the given action at each point."""
        actions = np.asarray(actions, dtype=np.int64).reshape(self.n_points)
        hit = self.action == actions[self.point]  # at most one candidate per point
        missing = np.setdiff1d(np.arange(self.n_points), self.point[hit])
        if len(missing):
            raise ValueError(f"actions {actions[missing].tolist()} at points "
                             f"{missing.tolist()} are not legal candidates there")
        values = np.empty(self.n_points)
        values[self.point[hit]] = self.mean[hit]
        return values


def estimate_action_values(core: KoiKoiCore, games: int | Sequence[int] | np.ndarray,
                           policy: AgentLike, n_worlds: int = 64, mode: str = "resampled",
                           seed: int = 0, max_batch: int = 32768) -> ActionValues:
    """Values of every legal action of the chosen games of ``core`` (left unchanged).

    ``mode`` is how each world treats the mover's hidden cards (see :data:`MODES`): the fair
    ``"resampled"``, the real ``"true"`` ones, or ``"hand_known"``. Points are rolled out in
    chunks of at most ``max_batch`` games (or one point at a time when a point alone needs
    more). Each point's worlds come from ``seed`` and the point's place in ``games``, so a
    deterministic policy gives the same values whatever the chunking.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if n_worlds < 1:
        raise ValueError(f"n_worlds must be at least 1, got {n_worlds}")
    games = np.atleast_1d(np.asarray(games, dtype=np.int64))
    mask = core.legal_action_mask()[games]
    point, action = np.nonzero(mask)
    k = int(n_worlds)
    samples = np.zeros((len(point), k))
    per_point = mask.sum(axis=1) * k
    start = 0
    while start < len(games):
        stop, size = start + 1, per_point[start]
        while stop < len(games) and size + per_point[stop] <= max_batch:
            size += per_point[stop]
            stop += 1
        rows = np.flatnonzero((point >= start) & (point < stop))
        samples[rows] = _rollout_points(core, games, start, stop, point[rows], action[rows],
                                        policy, k, mode, seed)
        start = stop
    return ActionValues(len(games), point, action.astype(np.int64), samples)


def _rollout_points(core: KoiKoiCore, games: np.ndarray, start: int, stop: int,
                    point: np.ndarray, action: np.ndarray, policy: AgentLike, k: int,
                    mode: str, seed: int) -> np.ndarray:
    """(candidates, k) values of the candidates of points ``start:stop``."""
    stacked = point_worlds(core, games[start:stop], range(start, stop), k, mode, seed)
    world_rows = ((point - start)[:, None] * k + np.arange(k)).reshape(-1)
    branches = stacked.fork(world_rows)
    seat = branches.mover.astype(np.int64)
    result = play_with(branches, (policy, policy), "round", first_actions=np.repeat(action, k))
    return result.round_reward[np.arange(len(world_rows)), seat].astype(np.float64).reshape(-1, k)
