"""A league: every pair of agents plays its matches on the same decks, and Elo ratings are
fitted to the pairwise table (Bradley-Terry maximum likelihood)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from agents.bots.base import AgentLike
from agents.eval.matches import (
    MatchTally,
    n_waves,
    play_resolved_matches,
    play_waves,
    summarize_matches,
    warn_other_rules,
)
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules


def fit_elo(names: Sequence[str], score: np.ndarray, games: np.ndarray,
            anchor: str | None = "random", anchor_rating: float = 1000.0,
            mean_rating: float = 1500.0, prior_games: float = 1.0) -> dict[str, float]:
    """Elo ratings that best explain a pairwise table (Bradley-Terry maximum likelihood).

    ``score[i, j]`` is what i scored against j (win 1, draw 1/2) in ``games[i, j]`` games.
    Each pair also gets ``prior_games`` virtual drawn games, which keeps ratings finite when
    one agent wins every game. Solved with the minorise-maximise iteration of Hunter
    (2004), then put on the Elo scale (400 points = 10:1 odds) and anchored: the agent named
    ``anchor`` gets ``anchor_rating`` when present, otherwise the ratings average
    ``mean_rating``.
    """
    k = len(names)
    score = np.asarray(score, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    if score.shape != (k, k) or games.shape != (k, k):
        raise ValueError(f"score and games must be {k}x{k} tables (one row per name), got "
                         f"{score.shape} and {games.shape}")
    played = games > 0
    unlinked = _unlinked(played | played.T)
    if unlinked:
        raise ValueError("Elo needs every agent linked to the others by games played; no "
                         f"games link {', '.join(names[i] for i in unlinked)} to "
                         f"{names[0]}")
    n = games + prior_games * played
    wins = score + 0.5 * prior_games * played
    np.fill_diagonal(n, 0.0)
    np.fill_diagonal(wins, 0.0)
    strength = np.ones(k)
    total_wins = wins.sum(axis=1)
    for _ in range(10_000):
        denom = (n / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.maximum(denom, 1e-300), strength)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(strength))) < 1e-12:
            strength = new
            break
        strength = new
    rating = 400.0 * np.log10(strength)
    if anchor is not None and anchor in names:
        rating += anchor_rating - rating[list(names).index(anchor)]
    else:
        rating += mean_rating - rating.mean()
    return {name: round(float(r), 3) for name, r in zip(names, rating)}


def _unlinked(linked: np.ndarray) -> list[int]:
    """Indices no chain of played pairs connects to index 0: their ratings against the
    others would be arbitrary."""
    reached = np.zeros(len(linked), dtype=bool)
    frontier = [0] if len(linked) else []
    while frontier:
        i = frontier.pop()
        if not reached[i]:
            reached[i] = True
            frontier.extend(np.flatnonzero(linked[i] & ~reached).tolist())
    return np.flatnonzero(~reached).tolist()


def round_robin(agents: Sequence[AgentLike], n_matches: int, rules: RuleSpec = None,
                seed: int = 0, batch: int = 1024, workers: int = 0) -> dict[str, Any]:
    """Every pair of agents plays ``n_matches``; a pairwise table and fitted Elo ratings.

    All pairs use the same deal seed (common random numbers), and agents that have
    ``seed()`` are reseeded for each pair and wave (the first with ``seed``, the second with
    ``seed + 1``, as ``evaluate.py`` seeds a head-to-head; see ``matches.wave_seed``), so a
    pair's result does not depend on the other agents or their order. Ratings are anchored
    at random = 1000 when an agent named ``random`` takes part, else at a mean of 1500.
    ``workers``: play the pairs' waves as Ray tasks, that many at once (the same results).
    """
    if len(agents) < 2:
        raise ValueError("a league needs at least two agents")
    rule_set = resolve_rules(rules)
    warn_other_rules(agents, rule_set)  # once per agent, not once per pair
    names = _unique_names([a.name for a in agents])
    k = len(agents)
    score = np.zeros((k, k))
    games = np.zeros((k, k))
    pairings = list(combinations(range(k), 2))
    if workers:
        pairs = _play_pairs_on_ray(agents, pairings, n_matches, rule_set, seed, batch, workers)
    else:
        pairs = [play_resolved_matches(agents[i], agents[j], n_matches, rule_set, seed, batch,
                                       agent_seeds=(seed, seed + 1)) for i, j in pairings]
    for (i, j), result in zip(pairings, pairs):
        result["agent_a"] = result["a"]["name"] = names[i]
        result["agent_b"] = result["b"]["name"] = names[j]
        s = result["wins"] + 0.5 * result["draws"]
        score[i, j], score[j, i] = s, n_matches - s
        games[i, j] = games[j, i] = n_matches
    elo = fit_elo(names, score, games)
    table = {names[i]: {names[j]: (score[i, j] / games[i, j] if games[i, j] else None)
                        for j in range(k)} for i in range(k)}
    return {"agents": names, "matches_per_pair": n_matches, "rules": rule_set.name,
            "rule_set": rule_set.to_dict(), "seed": int(seed), "batch": int(batch),
            "score_table": table,
            "elo": elo, "elo_anchor": "random=1000" if "random" in names else "mean=1500",
            "pairs": pairs}


def _play_pairs_on_ray(agents: Sequence[AgentLike], pairings: Sequence[tuple[int, int]],
                       n_matches: int, rules: RuleSet, seed: int, batch: int, workers: int
                       ) -> list[dict[str, Any]]:
    """Each pair's waves as Ray tasks, seeded as the local path seeds them; one
    ``play_matches`` result per pair, in the order of ``pairings``."""
    from agents.eval.ray_tasks import check_workers, init_ray, ordered_map

    check_workers(workers)
    ray = init_ray()
    waves = n_waves(n_matches, batch)
    shared = [ray.put(agent) for agent in agents]
    calls = [(shared[i], shared[j], n_matches, rules, seed, batch, [wave], (seed, seed + 1))
             for i, j in pairings for wave in range(waves)]
    tallies = ordered_map(play_waves, calls, workers)
    return [summarize_matches(MatchTally.merged(tallies[p * waves:(p + 1) * waves]),
                              agents[i].name, agents[j].name, rules, seed, batch)
            for p, (i, j) in enumerate(pairings)]


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
