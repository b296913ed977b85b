"""Opponent pool for self-play: past snapshots of the learner plus baseline agents, for either
game, and each game's seating (the learner's seat and its opponent).

Opponents are drawn by prioritized fictitious self-play: an opponent the learner beats
less often is drawn more often (weight ``(1 - score) ** power``, plus 0.001 so that one
beaten every time still comes back now and then), so the learner keeps meeting opponents it
does not yet beat. Every finished training episode (a round, or a
whole match with ``episode: match``) updates the learner's score against that opponent
(exponential average) and both Elo ratings. In Hana-awase the opponent plays every seat of
the table but the learner's.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.bots.base import AgentLike, act_in_groups
from agents.bots.registry import make_agent, policy_agent, read_policy_files

SELF = -1  # the learner plays every seat of the game
ELO_START, ELO_K = 1000.0, 16.0


@dataclass
class PoolEntry:
    name: str
    kind: str  # "baseline" or "snapshot"
    # network weights of a snapshot; for a baseline given as a checkpoint file, the file's
    # policy ("model", "network" and its game's keys), read once (a resumed run plays them
    # even if the file changed)
    state: dict[str, Any] | None = None
    score: float = 0.5  # the learner's recent result against it: 1 win, 0.5 draw, 0 loss
    rounds: int = 0  # episodes finished against it (rounds, or matches with episode: match)
    elo: float = ELO_START
    made: int = -1  # snapshot number (order of creation); -1 for baselines
    retired: bool = False  # replaced by a newer snapshot: never drawn, its games finish


class OpponentPool:
    """The learner's opponents (baselines, then snapshots), drawn per game by ``sample``,
    scored by ``record`` and saved with the run (``state_dict``) for a resume."""

    def __init__(self, rules: Any, baselines: list[str], policy: dict[str, Any],
                 max_snapshots: int = 10, pfsp_power: float = 2.0, score_decay: float = 0.02,
                 game: str = "koikoi"):
        """``policy``: what a policy checkpoint of the learner holds besides its weights
        (``network`` and the game's keys): how a snapshot's agent is built."""
        self.rules, self.game = rules, game
        self.policy = dict(policy)
        self.max_snapshots = max_snapshots
        self.pfsp_power = pfsp_power
        self.score_decay = score_decay
        self.entries: list[PoolEntry] = [PoolEntry(name, "baseline") for name in baselines]
        self.learner_elo = ELO_START
        self._agents: dict[int, Any] = {}
        self._snapshots_made = 0

    def __len__(self) -> int:
        return len(self.entries)

    def add_snapshot(self, network: Any, step: int, in_use: Any = ()) -> None:
        """Freeze the learner's current weights as a new opponent. When the pool is full the
        oldest snapshot retires: it is no longer drawn, but games still playing it (their
        opponent indices, ``in_use``) finish against it and are credited to it. The new
        snapshot takes a retired slot no game uses, else a new one, so every entry keeps its
        index."""
        state = copy.deepcopy(network.state_dict())
        entry = PoolEntry(f"snapshot@{step}", "snapshot", state, elo=self.learner_elo,
                          made=self._snapshots_made)
        active = [i for i, e in enumerate(self.entries) if e.kind == "snapshot" and not e.retired]
        if len(active) >= self.max_snapshots:
            self.entries[min(active, key=lambda i: self.entries[i].made)].retired = True
        busy = {int(i) for i in in_use}
        free = [i for i, e in enumerate(self.entries) if e.retired and i not in busy]
        if free:
            self.entries[free[0]] = entry
            self._agents.pop(free[0], None)
        else:
            self.entries.append(entry)
        self._snapshots_made += 1

    def read_checkpoint_opponents(self) -> None:
        """Load the baselines given as checkpoint files now: a bad file fails at the start of
        a run, and what the run plays is what the file held then."""
        for index, entry in enumerate(self.entries):
            if entry.kind == "baseline" and os.path.isfile(entry.name):
                self.agent(index)

    def agent(self, index: int) -> AgentLike:
        """The playing agent of entry ``index``, built once."""
        if index not in self._agents:
            entry = self.entries[index]
            if entry.kind == "baseline" and entry.state is None and os.path.isfile(entry.name):
                entry.state = read_policy_files([entry.name], self.game, self.rules)[entry.name]
            if entry.state is None:  # a baseline by name
                self._agents[index] = make_agent(entry.name, self.rules, game=self.game)
            elif entry.kind == "baseline":  # a checkpoint's policy, read once
                self._agents[index] = policy_agent(entry.state, entry.name, self.rules,
                                                   self.game)
            else:
                self._agents[index] = policy_agent({**self.policy, "model": entry.state},
                                                   entry.name, self.rules, self.game,
                                                   greedy=False, seed=1000 + index)
        return self._agents[index]

    def act(self, opponent: np.ndarray, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray,
            out: np.ndarray) -> None:
        """The moves of the opponents (pool indices, one per game) in the selected ``rows``
        into ``out``, each opponent once on all its games."""
        act_in_groups(opponent, rows, lambda k, o, m: self.agent(k).act(o, m), obs, mask, out)

    def reseed(self, seed: int) -> None:
        """Seed every opponent's own randomness from ``seed`` (called once per rollout, so a
        resumed run draws exactly what an uninterrupted one would)."""
        for index in range(len(self.entries)):
            agent = self.agent(index)
            if hasattr(agent, "seed"):
                agent.seed(seed * 7919 + index)

    def sample(self, n: int, rng: np.random.Generator, self_play_fraction: float
               ) -> np.ndarray:
        """Opponent ids for ``n`` games: SELF with the given probability, else PFSP."""
        scores = np.array([e.score for e in self.entries])
        weights = ((1.0 - scores) ** self.pfsp_power + 1e-3) * np.array(
            [not e.retired for e in self.entries])
        picks = rng.choice(len(self.entries), size=n, p=weights / weights.sum())
        return np.where(rng.random(n) < self_play_fraction, SELF, picks)

    def record(self, index: int, learner_rewards: np.ndarray) -> None:
        """Update score and Elo from finished episodes (the learner's return, one each)."""
        entry = self.entries[index]
        for points in np.asarray(learner_rewards).ravel():
            outcome = 1.0 if points > 0 else 0.0 if points < 0 else 0.5
            entry.score += self.score_decay * (outcome - entry.score)
            expected = 1.0 / (1.0 + 10 ** ((entry.elo - self.learner_elo) / 400.0))
            self.learner_elo += ELO_K * (outcome - expected)
            entry.elo -= ELO_K * (outcome - expected)
            entry.rounds += 1

    def state_dict(self) -> dict[str, Any]:
        return {"entries": [vars(e).copy() for e in self.entries],
                "learner_elo": self.learner_elo, "snapshots_made": self._snapshots_made}

    def load_state_dict(self, state: dict[str, Any], keep_agents: bool = False) -> None:
        """``keep_agents``: the agents already built stay for the entries that are the same
        (name, kind and snapshot number: an entry's weights never change), so a Ray worker
        that loads the driver's pool every update builds only the new snapshots."""
        before = [(e.name, e.kind, e.made) for e in self.entries]
        self.entries = [PoolEntry(**e) for e in state["entries"]]
        self.learner_elo = state["learner_elo"]
        self._snapshots_made = state["snapshots_made"]
        now = [(e.name, e.kind, e.made) for e in self.entries]
        self._agents = {i: agent for i, agent in self._agents.items()
                        if keep_agents and i < min(len(before), len(now))
                        and before[i] == now[i]}


class Seating:
    """Each game's learner seat and opponent (a pool index, or SELF: the learner in every
    seat), drawn for an episode and drawn anew when it ends."""

    def __init__(self, pool: OpponentPool, n_games: int, n_seats: int,
                 rng: np.random.Generator, self_play_fraction: float):
        self.pool, self.n_seats, self.rng = pool, n_seats, rng
        self.self_play_fraction = self_play_fraction
        self.learner_seat = rng.integers(0, n_seats, n_games)
        self.opponent = self._draw(n_games)

    def _draw(self, n: int) -> np.ndarray:
        if not len(self.pool):
            return np.full(n, SELF)
        return self.pool.sample(n, self.rng, self.self_play_fraction)

    def learner(self, mover: np.ndarray) -> np.ndarray:
        """(B,) bool: where the learner is to move (every seat of a self-play game)."""
        return (self.opponent == SELF) | (mover == self.learner_seat)

    def episodes_ended(self, games: np.ndarray, learner_returns: np.ndarray,
                       results: list[tuple[int, float]]) -> None:
        """Credit the pool with the learner's return in each ended episode (also appended to
        ``results``, for a Ray driver's pool), then draw the games' next seats."""
        for g, learner_return in zip(games, learner_returns):
            if self.opponent[g] != SELF:
                result = (int(self.opponent[g]), learner_return)
                self.pool.record(*result)
                results.append(result)
        if len(self.pool):
            self.opponent[games] = self._draw(len(games))
        self.learner_seat[games] = self.rng.integers(0, self.n_seats, len(games))
