"""Information-set Monte Carlo tree search over determinizations, with compiled rollouts.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012). A tree node is an information
set of the searching player: what it has seen happen since its decision (each move, and the
cards drawn from the stock), so one node stands for every world in which that happened. Each
iteration

1. deals a world the player cannot tell from the real game
   (:func:`agents.bots.search.observed_worlds`: the unseen cards at random, no hidden card of
   the real game read);
2. walks down from the root through the actions legal *in that world*: the mover's best by
   PUCT with a prior (below) or by UCB1, where an action's exploration term counts how often
   it was available rather than how often its parent was visited (the opponent's hand
   differs between worlds); the opponent chooses for its own value, the zero-sum negative of
   the player's;
3. adds the node it reaches first that the tree does not hold yet, and plays the world out to
   the round's end with the kernel's rollout policy (``expert`` by default);
4. adds the world's value (match-win value in [-1, 1], or round points) to every action on its
   path.

Iterations run in waves of ``wave`` worlds: the worlds of a wave walk the tree one level at a
time, their moves are applied in the kernel, and the wave is rolled out in one kernel call. A
visit is counted when an action is chosen and its value when the wave's rollouts return
(a virtual loss that keeps a wave's worlds from all taking the same path). The move played is
the root's most visited action.

With a ``prior`` (``"expert"``, the default: :class:`ExpertPrior`; or anything with
``probabilities(obs, mask)``, such as a trained policy) every mover chooses by PUCT
(AlphaZero's rule) with the prior's probabilities for its own view of the world: the
searching player's view is the same in every world of a node, the opponent's depends on the
hand the world dealt it, so the opponent in the tree plays as the prior would with that hand.
Without one, the plain UCB1 rule above (untried actions first, in random order). The prior is
what keeps the tree's moves sensible where few worlds have passed; it is also how expert
iteration's network guides the search it is trained on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from agents.bots.base import Agent, decode
from agents.bots.expert import ExpertAgent
from agents.bots.search import ROLLOUTS, VALUES, observed_worlds, world_values
from hanafuda_env.common.seeding import is_integer
from hanafuda_env.envs.rewards import DEFAULT_ROUND_SIGMA
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import RuleSpec


class Prior(Protocol):
    """A policy that gives action probabilities for observations (B, OBS_DIM) under masks."""

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


class ExpertPrior:
    """The expert heuristic as a prior: ``share`` of the probability on its move, the rest
    spread over the legal moves, so the search plays the expert's move unless the rollouts
    find a better one."""

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, share: float = 0.75):
        self.expert = ExpertAgent(rules, seed=seed)
        self.share = float(share)

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        probs = mask * ((1.0 - self.share) / mask.sum(axis=1, keepdims=True))
        probs[np.arange(len(obs)), self.expert.act(obs, mask)] += self.share
        return probs


class _Edge:
    """An action out of a node: counted visits, summed values (seat 0's), how often it was
    legal when its node was visited, and the nodes it led to (keyed by the cards drawn)."""

    __slots__ = ("visits", "total", "available", "children")

    def __init__(self):
        self.visits, self.total, self.available = 0, 0.0, 0
        self.children: dict[tuple[int, ...], _Node] = {}


class _Node:
    """An information set of the player: the actions taken from it so far."""

    __slots__ = ("edges",)

    def __init__(self):
        self.edges: dict[int, _Edge] = {}


@dataclass
class TreeReport:
    """The last call's search, per game: the root's legal actions, their visit counts and
    mean values (seat 0's, in the value's unit)."""

    actions: list[np.ndarray]
    visits: list[np.ndarray]
    values: list[np.ndarray]


class ISMCTSAgent(Agent):
    """ISMCTS with compiled rollouts (see the module docstring). ``iterations`` is the budget:
    worlds (and rollouts) per decision."""

    name = "ismcts"

    def __init__(self, rules: RuleSpec = None, seed: int | None = None,
                 iterations: int = 512, wave: int = 64, exploration: float = 0.7,
                 rollout: str = "expert", value: str = "match",
                 prior: Prior | str | None = "expert",
                 round_sigma: float = DEFAULT_ROUND_SIGMA, name: str | None = None):
        super().__init__(rules, seed, name)
        for key, given in (("iterations", iterations), ("wave", wave)):
            if not is_integer(given) or given < 1:
                raise ValueError(f"{key} must be a positive integer, got {given!r}")
        if not isinstance(exploration, (int, float)) or not exploration >= 0:
            raise ValueError(f"exploration must be a number >= 0, got {exploration!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if value not in VALUES:
            raise ValueError(f"value must be one of {', '.join(VALUES)}, got {value!r}")
        if prior == "expert":
            prior = ExpertPrior(self.rules, seed=int(self.rng.integers(2**63)))
        if prior is not None and not callable(getattr(prior, "probabilities", None)):
            raise ValueError("prior must be None, 'expert' or have probabilities(obs, mask) -> "
                             "(B, 98) probabilities")
        self.iterations, self.wave = int(iterations), int(wave)
        self.exploration, self.rollout, self.value = float(exploration), rollout, value
        self.prior = prior
        self.scale = float(round_sigma) * self.rules.point_unit
        self.last_search: TreeReport | None = None

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        chosen = np.empty(len(obs), dtype=np.int64)
        report = TreeReport([], [], [])
        for g in range(len(obs)):
            actions, visits, values = self._search(obs[g:g + 1], mask[g:g + 1])
            best = np.lexsort((values, visits))[-1]  # most visits, then the better value
            chosen[g] = actions[best]
            report.actions.append(actions)
            report.visits.append(visits)
            report.values.append(values)
        self.last_search = report
        return chosen

    def _search(self, obs: np.ndarray, mask: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One game's search: the root's actions, their visits and mean values."""
        legal = np.flatnonzero(mask[0])
        if len(legal) == 1:  # nothing to choose: no search
            return legal, np.zeros(1, dtype=np.int64), np.zeros(1)
        view = decode(obs, self.rules)
        root = _Node()
        done = 0
        while done < self.iterations:
            width = min(self.wave, self.iterations - done)
            self._wave(root, observed_worlds(view, width, self.rules, self.rng))
            done += width
        edges = [root.edges.get(int(a)) for a in legal]
        visits = np.array([e.visits if e else 0 for e in edges], dtype=np.int64)
        values = np.array([e.total / e.visits if e and e.visits else 0.0 for e in edges])
        if self.value == "points":
            values = values - float(view.score_diff[0])  # the round's points: the lead's change
        return legal, visits, values

    def _wave(self, root: _Node, records: np.ndarray) -> None:
        """Walk ``len(records)`` worlds down the tree together, roll them out, back up."""
        core = KoiKoiCore.wrapping(records, self.rules, autoreset=False)
        width = core.n_games
        at: list[_Node | None] = [root] * width  # None: the world has left the tree
        paths: list[list[_Edge]] = [[] for _ in range(width)]
        while True:
            walking = [i for i in range(width) if at[i] is not None]
            if not walking:
                break
            masks = core.legal_action_mask()
            priors = self._priors(core, walking, masks)
            for k, i in enumerate(walking):
                node = at[i]
                action, edge = self._choose(node, np.flatnonzero(masks[i]).tolist(),
                                            int(core.mover[i]),
                                            None if priors is None else priors[k])
                paths[i].append(edge)
                before = int(core.stock_pos[i])
                ended = core.advance(i, action)
                key = tuple(core.stock[i, before:int(core.stock_pos[i])].tolist())
                child = edge.children.get(key)
                if child is None:  # a new information set: add it and roll out from it
                    edge.children[key] = _Node()
                    at[i] = None
                else:
                    at[i] = None if ended else child
        core.rollout(self.rollout, "round", seed=int(self.rng.integers(2**63)))
        values = world_values(core, self.rules, self.value, self.scale)
        for path, value in zip(paths, values.tolist()):
            for edge in path:
                edge.total += value

    def _priors(self, core: KoiKoiCore, walking: list[int], masks: np.ndarray
                ) -> np.ndarray | None:
        """The prior's probabilities for the mover of each walking world, from the mover's
        own view of that world (the searching player's is the same in every world of a node;
        the opponent's depends on the hand the world gave it)."""
        if self.prior is None:
            return None
        rows = np.array(walking)
        obs = encode_observations(core)[rows]
        return np.asarray(self.prior.probabilities(obs, masks[rows]), dtype=np.float64)

    def _choose(self, node: _Node, legal: list[int], mover: int, prior: np.ndarray | None
                ) -> tuple[int, _Edge]:
        """The mover's action at ``node`` among those legal in this world, its visit counted:
        PUCT with the world's prior, else UCB1 over availability (an untried action first)."""
        edges = node.edges
        sign = 1.0 if mover == 0 else -1.0
        c = self.exploration
        best, best_score = -1, -math.inf
        if prior is not None:
            for a in legal:
                edge = edges.get(a)
                if edge is None:
                    edge = edges[a] = _Edge()
                edge.available += 1
                q = sign * edge.total / edge.visits if edge.visits else 0.0
                score = q + c * prior[a] * math.sqrt(edge.available) / (1 + edge.visits)
                if score > best_score:
                    best, best_score = a, score
        else:
            untried = [a for a in legal if a not in edges]
            for a in legal:
                if a in edges:
                    edges[a].available += 1
            if untried:
                best = untried[int(self.rng.integers(len(untried)))]
                edges[best] = _Edge()
                edges[best].available = 1
            else:
                for a in legal:
                    edge = edges[a]
                    q = sign * edge.total / edge.visits
                    score = q + c * math.sqrt(math.log(edge.available) / edge.visits)
                    if score > best_score:
                        best, best_score = a, score
        edge = edges[best]
        edge.visits += 1
        return best, edge


def visit_distribution(report: TreeReport, game: int, n_actions: int) -> np.ndarray:
    """The root's visit counts of one game of a report as a distribution over all actions
    (the policy target of expert iteration); a decision with one legal action puts all on it."""
    out = np.zeros(n_actions)
    visits = report.visits[game].astype(np.float64)
    if visits.sum() == 0:
        visits = np.ones_like(visits)
    out[report.actions[game]] = visits / visits.sum()
    return out

