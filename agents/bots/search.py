"""A search bot: each legal move is judged by playing it out in worlds the player cannot tell
apart, inside the compiled kernel.

For each game of the batch, :class:`SearchAgent` builds ``worlds`` states from the
observation alone: the cards it shows where they are, and the unseen ones (the opponent's hand
and the stock) dealt at random with their sizes kept (every consistent world equally likely;
no hidden card of the real game is read). Every legal action is played in the same worlds and
each world is then rolled out to the round's end with the same random numbers (common random
numbers: the actions' values differ by the action, not by the luck of the worlds), by a
compiled rollout policy (``expert``, the default: the expert heuristic on each mover's view;
``fast``: the linear policy fitted to the expert, many times cheaper, so more worlds in the
same time; ``greedy`` or ``random``: faster still, weaker). An action's value is the mean over the
worlds of the match-win value of the round's end (:func:`hanafuda_env.envs.rewards.match_values`,
``value="match"``) or of the round's points (``value="points"``).

The move played is the rollout policy's own move (the base policy: what the rollouts assume
the player does from then on) unless the best mean beats it by more than ``confidence``
standard errors of their paired difference over the worlds (1 by default): the search
improves on its base policy only where the rollouts are sure, instead of following noise
between moves of nearly equal value. ``confidence=None`` plays the best mean.
:attr:`SearchAgent.last_search` keeps the values and their standard errors of the last call.

With an ``evaluator`` (a network whose value head predicts the round's change in match-win
chance from the mover's view, as imitation-trained ones do: ``configs/value_net.yaml``) the
rollouts stop after ``depth`` moves and a world still in its round is valued by the network
instead: its match value at the round's start plus the network's value of the mover's
observation there (negated when the opponent is to move). A ``prior`` (a network, or any
agent) plays the base move the gate keeps, in place of the rollout policy's.

The player sits at seat 0 of its worlds; what the observation does not hold is filled in as
follows: the points each seat has won in the match (``target_score``) from the lead alone, and
the turn counter from the cards played.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.bots.base import Agent, View, decode
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.bots.fast import FastAgent
from hanafuda_env.common import cards as C
from hanafuda_env.common.seeding import is_integer
from hanafuda_env.common.worlds import deal_hidden
from hanafuda_env.envs.rewards import DEFAULT_ROUND_SIGMA, match_values
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    MATCH_OVER,
    ROUND_OVER,
    KoiKoiCore,
)
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec
from hanafuda_env.koikoi.state import STOCK_SIZE, new_states

VALUES = ("match", "points")
ROLLOUTS = ("greedy", "random", "expert", "fast")


@dataclass
class SearchReport:
    """The last call's search, per game: candidate actions, their mean values and standard
    errors over the worlds, and the standard error of each value's difference from the
    chosen action's (the same worlds: paired)."""

    actions: list[np.ndarray]
    values: list[np.ndarray]
    errors: list[np.ndarray]
    paired_errors: list[np.ndarray]


class SearchAgent(Agent):
    """Determinized search with compiled rollouts (see the module docstring). ``worlds`` is
    the budget: rollouts per legal action and decision."""

    name = "search"

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, worlds: int = 64,
                 rollout: str = "expert", value: str = "match",
                 round_sigma: float = DEFAULT_ROUND_SIGMA, confidence: float | None = 1.0,
                 evaluator: str | Path | Any = None, depth: int | None = None,
                 prior: str | Path | Any = None, value_scale: float = 1.0,
                 name: str | None = None):
        super().__init__(rules, seed, name)
        if not is_integer(worlds) or worlds < 1:
            raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if value not in VALUES:
            raise ValueError(f"value must be one of {', '.join(VALUES)}, got {value!r}")
        if confidence is not None and (not isinstance(confidence, (int, float))
                                       or not confidence >= 0):
            raise ValueError(f"confidence must be None or a number >= 0, got {confidence!r}")
        if evaluator is None and depth is not None:
            raise ValueError("depth (a truncated rollout) needs an evaluator: a network "
                             "checkpoint whose value head values the position reached")
        if depth is not None and (not is_integer(depth) or depth < 1):
            raise ValueError(f"depth must be None or a positive integer, got {depth!r}")
        if evaluator is not None and value != "match":
            raise ValueError(f"an evaluator values match-win chances, so value must be "
                             f"'match', got {value!r}")
        if prior is not None and confidence is None:
            raise ValueError("a prior gives the base move that the confidence gate keeps; "
                             "with confidence=None there is none, so leave prior out")
        if not isinstance(value_scale, (int, float)) or not value_scale > 0:
            raise ValueError(f"value_scale must be a number > 0, got {value_scale!r}")
        self.worlds, self.rollout, self.value = int(worlds), rollout, value
        self.confidence = None if confidence is None else float(confidence)
        self.evaluator = None if evaluator is None else _network_agent(evaluator)
        self.depth, self.value_scale = depth, float(value_scale)
        self.base = None if confidence is None else (
            _base_policy(rollout, self.rules, self.rng) if prior is None
            else _network_agent(prior, needs_value=False))
        self.scale = float(round_sigma) * self.rules.point_unit
        self.last_search: SearchReport | None = None

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        view = decode(obs, self.rules)
        n, w = len(obs), self.worlds
        worlds = self._worlds(view)  # (n * w,) records, game-major
        candidates = [np.flatnonzero(row) for row in mask]
        width = max(len(c) for c in candidates)
        values = np.full((n, width, w), -np.inf)
        seed = int(self.rng.integers(2**63))
        for k in range(width):  # the k-th candidate of every game, in one batch
            games = np.array([g for g in range(n) if len(candidates[g]) > k])
            rows = (games[:, None] * w + np.arange(w)).reshape(-1)
            core = KoiKoiCore.wrapping(worlds[rows], self.rules, autoreset=False)
            actions = np.repeat([candidates[g][k] for g in games], w)
            core.step(actions)
            core.rollout(self.rollout, "round", seed=seed,  # the same numbers for every k
                         max_decisions=self.depth)
            values[games, k] = self._values(core).reshape(len(games), w)
        if self.value == "points":  # the round's points: the lead's change
            values -= view.score_diff[:, None, None]
        chosen = np.empty(n, dtype=np.int64)
        report = SearchReport([], [], [], [])
        base = None if self.base is None else self.base.act(obs, mask)
        for g in range(n):
            v = values[g, :len(candidates[g])]
            mean = v.mean(axis=1)
            best = int(np.argmax(mean))
            if base is not None and w > 1:  # the base policy's move unless one stands out
                own = int(np.flatnonzero(candidates[g] == base[g])[0])
                gain = v[best] - v[own]
                if gain.mean() <= self.confidence * gain.std(ddof=1) / np.sqrt(w):
                    best = own
            chosen[g] = candidates[g][best]
            report.actions.append(candidates[g])
            report.values.append(mean)
            report.errors.append(v.std(axis=1, ddof=1) / np.sqrt(w) if w > 1
                                 else np.zeros(len(mean)))
            report.paired_errors.append((v - v[best]).std(axis=1, ddof=1) / np.sqrt(w)
                                        if w > 1 else np.zeros(len(mean)))
        self.last_search = report
        return chosen

    def _values(self, core: KoiKoiCore) -> np.ndarray:
        """Seat 0's value of each world at its round's end, or where its truncated
        rollout stopped (by the evaluator)."""
        values = world_values(core, self.rules, self.value, self.scale)
        # a world still in its round holds its round-start margin: that match value, plus
        # the network's change over the round
        live = np.flatnonzero(core.phase < ROUND_OVER)
        if self.evaluator is not None and len(live):
            rest = core.fork(live)
            change = self.evaluator.value(encode_observations(rest), rest.legal_action_mask())
            sign = np.where(rest.mover == 0, 1.0, -1.0)
            values[live] += sign * change.astype(np.float64) / self.value_scale
        return values

    def _worlds(self, view: View) -> np.ndarray:
        """``worlds`` records per game, game-major, consistent with the observations."""
        return observed_worlds(view, self.worlds, self.rules, self.rng)


def _network_agent(network: str | Path | Any, needs_value: bool = True) -> Agent:
    """A network to play or evaluate with: a checkpoint path (loaded safely) or an agent
    with ``act`` (and ``value`` for an evaluator)."""
    if isinstance(network, (str, Path)):
        from agents.bots.policy import PolicyAgent  # torch only for a network

        return PolicyAgent.load(network)
    what, methods = ("network", ("act", "value")) if needs_value else ("prior", ("act",))
    if not all(callable(getattr(network, name, None)) for name in methods):
        raise TypeError(f"a {what} is a checkpoint path or an agent with "
                        f"{' and '.join(methods)}, got {type(network).__name__}")
    return network


def _base_policy(rollout: str, rules: RuleSet, rng: np.random.Generator) -> Agent:
    """The agent that plays as the rollout policy does (the search's base policy)."""
    agent = {"expert": ExpertAgent, "greedy": GreedyAgent, "random": RandomAgent,
             "fast": FastAgent}[rollout]
    return agent(rules, seed=int(rng.integers(2**63)))


def world_values(core: KoiKoiCore, rules: RuleSet, value: str, scale: float) -> np.ndarray:
    """Seat 0's value of each world of ``core`` at its round's end: the match-win value of
    its margin (``value="match"``, in [-1, 1]) or the margin in points (``"points"``)."""
    margin = core.match_score[:, 0].astype(np.float64)
    if value == "points":
        return margin
    left = rules.rounds - core.round_index.astype(np.int64)
    left[core.phase == MATCH_OVER] = 0  # a match over is decided: its sign
    return match_values(margin, left, scale)


def observed_worlds(view: View, worlds: int, rules: RuleSet, rng: np.random.Generator
                    ) -> np.ndarray:
    """``worlds`` state records per game of ``view``, game-major, with the player at seat 0:
    what the observation shows where it is, the unseen cards (the opponent's hand and the
    stock) dealt at random with their sizes kept (see the module docstring)."""
    n, w = len(view.hand), worlds
    records = new_states(n * w)
    rep = np.repeat(np.arange(n), w)
    hands = records["hands"]
    hands[:, 0] = view.hand[rep]
    records["field"] = view.field[rep]
    records["piles"][:, 0] = view.own_pile[rep]
    records["piles"][:, 1] = view.opp_pile[rep]
    stock_pos = STOCK_SIZE - view.stock_left[rep]
    records["stock_pos"] = stock_pos
    records["dealer"] = np.where(view.is_dealer[rep], 0, 1)
    records["mover"] = 0
    records["phase"] = view.phase[rep]
    records["pending"] = view.pending[rep]
    records["koikoi_calls"][:, 0] = view.own_calls[rep]
    records["koikoi_calls"][:, 1] = view.opp_calls[rep]
    records["yaku_total"][:, 0] = view.own_total[rep]
    records["yaku_total"][:, 1] = view.opp_total[rep]
    played = 2 * 8 - view.own_hand_n - view.opp_hand_n
    choosing = (view.phase == CHOOSE_PLAYED) | (view.phase == CHOOSE_DRAWN)
    records["turn"] = (played - choosing)[rep]
    records["round_index"] = (rules.rounds - view.rounds_left)[rep]
    lead = view.score_diff[rep]
    records["match_score"][:, 0] = lead
    records["match_score"][:, 1] = -lead
    records["points_won"][:, 0] = np.maximum(lead, 0)
    records["points_won"][:, 1] = np.maximum(-lead, 0)
    records["seed"] = rng.integers(0, 2**63, size=n * w, dtype=np.uint64)
    # the unseen cards, lowest first: the opponent's hand, then the undrawn stock ...
    unseen = C.bits_to_bool(view.unseen[rep]).reshape(n * w, C.NUM_CARDS)
    ids = np.argsort(~unseen, axis=1, kind="stable")  # unseen ids first, ascending
    k = view.opp_hand_n[rep].astype(np.intp)
    first = np.arange(C.NUM_CARDS) < k[:, None]
    hands[:, 1] = np.bitwise_or.reduce(np.where(first, C.CARD_BITS[ids], np.uint64(0)),
                                       axis=1)
    slot = np.arange(STOCK_SIZE)
    source = np.clip(k[:, None] + slot - stock_pos[:, None], 0, C.NUM_CARDS - 1)
    records["stock"] = np.where(slot >= stock_pos[:, None],
                                np.take_along_axis(ids, source, axis=1), 0)
    # ... then dealt anew among themselves, every arrangement equally likely
    hands[:, 1], records["stock"] = deal_hidden(hands[:, 1], records["stock"],
                                                records["stock_pos"], rng)
    return records
