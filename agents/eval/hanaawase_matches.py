"""Hana-awase evaluation: N-player matches with the seats rotated over the same decks, and a
league table.

For each of ``n_decks`` deck seeds, N matches are played, the agents moved one seat round
the table each time, so every agent plays every seat (and deals first as often) on the same
cards. A deck's N matches are correlated, so the deck is the independent unit of the
confidence intervals (:mod:`agents.eval.stats`): mean score per round (the score table of
§3.2) and first-place rate (a shared first place counts 1/k for each of k tied).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.bots.base import AgentLike, act_in_groups
from agents.eval.stats import pair_mean_interval, pair_rate_interval
from hanafuda_env.hanaawase.core import HanaawaseCore
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.koikoi.state import MATCH_OVER, ROUND_OVER


def play_hanaawase_matches(agents: Sequence[AgentLike], n_decks: int,
                           rules: HanaawaseRules | dict | None = None, seed: int = 0
                           ) -> list[dict[str, Any]]:
    """Play ``n_decks`` × N matches among N agents (seats rotated); one summary per agent:
    mean score per round and first-place rate with 95 % intervals, matches and rounds."""
    rules = resolve_hanaawase_rules(rules)
    n = rules.num_players
    if len(agents) != n:
        raise ValueError(f"a {n}-player match needs {n} agents, got {len(agents)}")
    if not isinstance(n_decks, int) or n_decks < 1:
        raise ValueError(f"n_decks must be a positive integer, got {n_decks!r}")
    deck_seeds = HanaawaseCore(n_decks, rules, seed=seed).seed.copy()
    core = HanaawaseCore(n_decks * n, rules, seed=np.repeat(deck_seeds, n))
    rotation = np.tile(np.arange(n), n_decks)  # seat p is played by agent (p + r) % n
    deck = np.repeat(np.arange(n_decks), n)
    rounds = np.zeros((n_decks * n, n), dtype=np.int64)
    while not (core.phase == MATCH_OVER).all():
        live = core.phase < ROUND_OVER
        obs = core.observe()
        mask = core.legal_action_mask()
        actions = np.full(core.n_games, -1, dtype=np.int64)
        act_in_groups((core.mover.astype(np.int64) + rotation) % n, live,
                      lambda a, o, m: agents[a].act(o, m), obs, mask, actions)
        out = core.step(actions)
        rounds[out.row_games] += 1
        waiting = np.flatnonzero(core.phase == ROUND_OVER)
        if len(waiting):
            core.deal_next(waiting)
    by_agent = np.zeros((n_decks * n, n))  # [match, agent] match score
    first = np.zeros((n_decks * n, n))
    for seat in range(n):
        agent = (seat + rotation) % n
        by_agent[np.arange(len(agent)), agent] = core.match_score[:, seat]
    top = by_agent.max(axis=1, keepdims=True)
    winners = by_agent == top
    first = winners / winners.sum(axis=1, keepdims=True)
    rounds_per_match = rounds[:, 0]
    out = []
    for a, agent in enumerate(agents):
        totals = np.bincount(deck, by_agent[:, a], n_decks)
        counts = np.bincount(deck, rounds_per_match, n_decks)
        out.append({"agent": getattr(agent, "name", f"agent_{a}"),
                    "mean_score": pair_mean_interval(totals, counts),
                    "first_place": pair_rate_interval(first[:, a], deck),
                    "matches": int(n_decks * n), "rounds": int(rounds_per_match.sum())})
    return out


def hanaawase_league(agents: Sequence[AgentLike], n_decks: int,
                     rules: HanaawaseRules | dict | None = None, seed: int = 0
                     ) -> list[dict[str, Any]]:
    """Every N-agent table of the pool (all of them when the pool has N) plays
    :func:`play_hanaawase_matches`; each agent's scores and first places are pooled over
    its tables. Rows sorted by mean score per round, best first."""
    rules = resolve_hanaawase_rules(rules)
    n = rules.num_players
    if len(agents) < n:
        raise ValueError(f"a {n}-player league needs at least {n} agents, got {len(agents)}")
    totals: dict[int, list[float]] = {a: [0.0, 0.0, 0.0, 0] for a in range(len(agents))}
    for t, table in enumerate(itertools.combinations(range(len(agents)), n)):
        for a, row in zip(table, play_hanaawase_matches([agents[i] for i in table], n_decks,
                                                         rules, seed + t)):
            score, place = row["mean_score"], row["first_place"]
            totals[a][0] += score["mean"] * row["rounds"]
            totals[a][1] += row["rounds"]
            totals[a][2] += place["value"] * row["matches"]
            totals[a][3] += row["matches"]
    rows = [{"agent": getattr(agents[a], "name", f"agent_{a}"),
             "mean_score": total / rounds, "first_place": firsts / matches,
             "rounds": int(rounds), "matches": int(matches)}
            for a, (total, rounds, firsts, matches) in totals.items()]
    return sorted(rows, key=lambda row: -row["mean_score"])
