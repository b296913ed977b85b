"""Batched head-to-head evaluation of agents on the vectorized core, and a league with Elo.

:func:`play_matches` plays exactly ``n_matches`` complete matches between two agents, in
waves of up to ``batch`` games stepped together. Match ``j`` uses the deal seed of pair
``j // 2``, puts agent A at seat ``j % 2`` and gives the first deal to seat
``(j // 2) % 2``: the two matches of a pair are dealt the same decks, and in the first
round A holds in one match the hand B holds in the other (duplicate format, which cancels
part of the luck of the deal). Later rounds swap hands only when the same seat deals in
both matches (by default the round's winner deals next), so the two matches of a pair are
correlated: every interval treats a *pair* as the independent unit. A sits at seat 0 in
half the matches and deals first in half of them. Deals depend only on ``seed`` and ``j``,
never on ``batch``. Each game of a wave counts for one match only: once its match ends, the
game is driven by cheap random moves until the wave is over, and nothing it does is counted.

Everything returned is plain Python (JSON-serialisable).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from hanafuda_env.core import KOIKOI, STOP, KoiKoiCore
from hanafuda_env.env_options import other_rules_warning
from hanafuda_env.observation import encode_observations
from hanafuda_env.results import END_NAMES, MatchResults, ResetOutcome, RoundResults, StepOutcome
from hanafuda_env.rules import RuleSet, RuleSpec, resolve_rules
from hanafuda_env.seeding import game_seeds

from .base import AgentLike

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: float, z: float = Z95) -> dict[str, float]:
    """Rate with its Wilson score interval (good at rates near 0 or 1 and small n)."""
    if n <= 0:
        return {"value": float("nan"), "low": 0.0, "high": 1.0}
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return {"value": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def pair_mean_interval(totals: np.ndarray, counts: np.ndarray,
                       z: float = Z95) -> dict[str, float]:
    """``sum(totals) / sum(counts)`` with a t interval that treats each entry (a pair of
    matches: its points, its matches or rounds) as one independent unit: the variance of a
    ratio of cluster sums. One pair has no interval (NaN bounds)."""
    totals = np.asarray(totals, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    units, size = len(totals), float(counts.sum())
    mean = float(totals.sum() / size) if size > 0 else float("nan")
    if units < 2 or size <= 0:
        return {"mean": mean, "low": float("nan"), "high": float("nan"),
                "se": float("nan"), "pairs": units}
    se = math.sqrt(units / (units - 1) * float(((totals - mean * counts) ** 2).sum())) / size
    half = t_quantile(z, units - 1) * se
    return {"mean": mean, "low": mean - half, "high": mean + half, "se": se, "pairs": units}


def pair_rate_interval(per_match: np.ndarray, pair: np.ndarray,
                       z: float = Z95) -> dict[str, float]:
    """A rate over matches (1 success, 0 failure, 1/2 a draw's share) with a Wilson interval
    on the effective number of matches, p (1 - p) / (pair variance of the rate), since
    matches of a pair are not independent; never more than the matches played (the pair
    variance of few pairs is itself noisy), and shrunk by (z / t)^2 for the pairs' degrees of
    freedom."""
    per_match = np.asarray(per_match, dtype=np.float64)
    n = len(per_match)
    if n == 0:
        return wilson_interval(0.0, 0, z)
    p = float(per_match.mean())
    pairs = pair_mean_interval(np.bincount(pair, per_match), np.bincount(pair), z)
    effective = float(n)
    if pairs["pairs"] >= 2:
        if pairs["se"] > 0 and 0 < p < 1:
            effective = min(effective, p * (1 - p) / pairs["se"] ** 2)
        effective *= (z / t_quantile(z, pairs["pairs"] - 1)) ** 2
    return {**wilson_interval(p * effective, effective, z), "effective_matches": effective}


def t_quantile(z: float, df: int) -> float:
    """Student's t quantile matching the normal quantile ``z`` (Cornish-Fisher expansion).
    At 95 % (``Z95``, what the reports use) it is exact for 1 and 2 degrees of freedom and
    within 1 % from 3; other levels are rougher at few degrees of freedom."""
    if math.isclose(z, Z95) and df <= 2:
        return (12.706204736, 4.302652730)[df - 1]
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


@dataclass
class _SideStats:
    """What one agent did: decisions, koi-koi calls and timing."""

    moves: int = 0
    seconds: float = 0.0
    decisions: int = 0  # koi-koi decisions faced
    calls: int = 0
    rounds_called: int = 0  # rounds in which this agent called koi-koi at least once
    paid_off: int = 0  # ... and won the round
    rounds_won: int = 0
    yaku: dict[str, int] = field(default_factory=dict)

    def act(self, agent: AgentLike, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        start = time.perf_counter()
        actions = np.asarray(agent.act(obs, mask), dtype=np.int64)
        self.seconds += time.perf_counter() - start
        self.moves += len(obs)
        if actions.shape != (len(obs),):
            raise ValueError(f"agent {agent.name!r} returned shape {actions.shape} for "
                             f"{len(obs)} observations")
        deciding = mask[:, STOP]
        self.decisions += int(deciding.sum())
        self.calls += int((deciding & (actions == KOIKOI)).sum())
        return actions

    def summary(self, name: str, n_rounds: int) -> dict[str, Any]:
        return {
            "name": name,
            "koikoi": {
                "decisions": self.decisions, "calls": self.calls,
                "call_rate": self.calls / self.decisions if self.decisions else None,
                "rounds_called": self.rounds_called, "paid_off": self.paid_off,
                "paid_off_rate": self.paid_off / self.rounds_called if self.rounds_called
                else None,
            },
            "rounds_won": self.rounds_won,
            "yaku": dict(sorted(self.yaku.items())),
            "yaku_per_round": {k: v / n_rounds for k, v in sorted(self.yaku.items())}
            if n_rounds else {},
            "moves": self.moves, "act_seconds": self.seconds,
            "moves_per_second": self.moves / self.seconds if self.seconds > 0 else None,
        }


def play_matches(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSpec = None,
                 seed: int = 0, batch: int = 1024) -> dict[str, Any]:
    """Play ``n_matches`` complete matches of A against B; statistics from A's side.

    Returns a dict: ``wins``/``draws``/``losses`` of A (always summing to ``matches``),
    ``win_rate`` and ``score_rate`` (a draw counts half) with Wilson 95% intervals,
    ``points_per_match`` and ``points_per_round`` of A (mean, 95% interval; every interval
    counts pairs of matches as the independent units, see the module docstring), per-agent
    koi-koi statistics (call rate at decisions; paid off = the caller won that round), yaku
    counts of the rounds each agent won, how rounds ended, and seat balance.
    """
    rules = resolve_rules(rules)
    _warn_other_rules((agent_a, agent_b), rules)
    return _play_matches(agent_a, agent_b, n_matches, rules, seed, batch)


def _play_matches(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSet,
                  seed: int, batch: int) -> dict[str, Any]:
    """:func:`play_matches` once the agents' rules were looked at (by it or ``round_robin``)."""
    if n_matches < 1:
        raise ValueError(f"n_matches must be at least 1, got {n_matches}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    pair_seeds = game_seeds(int(seed), (n_matches + 1) // 2)
    sides = (_SideStats(), _SideStats())
    results = np.zeros(n_matches, dtype=np.int8)  # +1 A won, 0 draw, -1 A lost
    match_points = np.zeros(n_matches, dtype=np.int64)
    match_rounds = np.zeros(n_matches, dtype=np.int64)
    reasons: dict[str, int] = {}
    filler = np.random.default_rng(seed)
    yaku_names: tuple[str, ...] = ()
    for start in range(0, n_matches, batch):
        j = np.arange(start, min(start + batch, n_matches))
        seat_a = (j % 2).astype(np.int8)
        core = KoiKoiCore(len(j), rules, seed=0)
        yaku_names = core.yaku_names
        dealt = core.reset(seed=pair_seeds[j // 2], options={"dealer": (j // 2) % 2})
        wave = _Wave(len(j), seat_a, sides, yaku_names)
        wave.record(dealt)  # a short match may end at the deal
        while not wave.done.all():
            mask = core.legal_action_mask()
            obs = encode_observations(core)
            actions = core.sample_legal_actions(filler)  # for finished games only
            live = ~wave.done
            a_moves = np.flatnonzero(live & (core.mover == seat_a))
            b_moves = np.flatnonzero(live & (core.mover != seat_a))
            for agent, side, idx in ((agent_a, sides[0], a_moves), (agent_b, sides[1], b_moves)):
                if len(idx):
                    actions[idx] = side.act(agent, obs[idx], mask[idx])
            wave.record(core.step(actions))
        results[j] = wave.result
        match_points[j] = wave.points
        match_rounds[j] = wave.counted
        for code, count in wave.reasons.items():
            reasons[END_NAMES[code]] = reasons.get(END_NAMES[code], 0) + count
    n_rounds = int(match_rounds.sum())
    wins, draws = int((results == 1).sum()), int((results == 0).sum())
    losses = int((results == -1).sum())
    assert wins + draws + losses == n_matches
    j = np.arange(n_matches)
    pair = j // 2
    pair_points, pair_matches = np.bincount(pair, match_points), np.bincount(pair)
    return {
        "agent_a": agent_a.name, "agent_b": agent_b.name, "rules": rules.name,
        "rule_set": rules.to_dict(), "rounds_per_match": rules.rounds,
        "target_score": rules.target_score, "matches": n_matches, "seed": int(seed),
        "batch": int(batch), "wins": wins, "draws": draws, "losses": losses,
        "win_rate": pair_rate_interval(results == 1, pair),
        "score_rate": pair_rate_interval((results + 1) / 2, pair),
        "points_per_match": pair_mean_interval(pair_points, pair_matches),
        "points_per_round": pair_mean_interval(pair_points, np.bincount(pair, match_rounds)),
        "rounds": n_rounds,
        "round_ends": dict(sorted(reasons.items())),
        "seats": {"a_at_seat_0": int((j % 2 == 0).sum()), "a_at_seat_1": int((j % 2).sum()),
                  "a_deals_first": int(((j % 2) == (j // 2) % 2).sum())},
        "a": sides[0].summary(agent_a.name, n_rounds),
        "b": sides[1].summary(agent_b.name, n_rounds),
    }


class _Wave:
    """Bookkeeping of one wave of games: which match each game is in and what it did."""

    def __init__(self, n: int, seat_a: np.ndarray, sides: tuple[_SideStats, _SideStats],
                 yaku_names: tuple[str, ...]):
        self.done = np.zeros(n, dtype=bool)
        self.seat_a = seat_a
        self.sides = sides
        self.yaku_names = yaku_names
        self.counted = np.zeros(n, dtype=np.int64)  # rounds recorded per game
        self.result = np.zeros(n, dtype=np.int8)
        self.points = np.zeros(n, dtype=np.int64)
        self.reasons: dict[int, int] = {}

    def record(self, outcome: StepOutcome | ResetOutcome) -> None:
        """A step's or reset's outcome: its rounds, then the matches they ended."""
        self.record_rounds(outcome.rounds, outcome.matches)
        self.record_matches(outcome.matches)

    def record_rounds(self, rounds: RoundResults, matches: MatchResults) -> None:
        """Count the rounds of each game's first match only: a match that ends in this step
        (or reset) may be followed at once by hand-yaku rounds of the game's next match."""
        if len(rounds) == 0:
            return
        limit = np.full(len(self.done), np.iinfo(np.int64).max)
        if len(matches.game):
            limit[matches.game[::-1]] = matches.rounds[::-1]  # a game's first match wins
        keep = np.zeros(len(rounds), dtype=bool)
        for k, g in enumerate(rounds.game):
            if not self.done[g] and self.counted[g] < limit[g]:
                keep[k] = True
                self.counted[g] += 1
        if not keep.any():
            return
        g = rounds.game[keep]
        seat_a = self.seat_a[g]
        rows = np.arange(len(g))
        gained = rounds.reward[keep][rows, seat_a].astype(np.int64)
        np.add.at(self.points, g, gained)
        winner = rounds.winner[keep]
        calls = rounds.koikoi_calls[keep]
        yaku = rounds.yaku[keep]
        for code in np.unique(rounds.reason[keep]):
            self.reasons[int(code)] = self.reasons.get(int(code), 0) + int(
                (rounds.reason[keep] == code).sum())
        for side, seat in ((self.sides[0], seat_a), (self.sides[1], 1 - seat_a)):
            called = calls[rows, seat] > 0
            won = winner == seat
            side.rounds_called += int(called.sum())
            side.paid_off += int((called & won).sum())
            side.rounds_won += int(won.sum())
            counts = (yaku[won] > 0).sum(axis=0)
            for name, count in zip(self.yaku_names, counts):
                if count:
                    side.yaku[name] = side.yaku.get(name, 0) + int(count)

    def record_matches(self, matches: MatchResults) -> None:
        for g, winner, scores, rounds in zip(matches.game, matches.winner, matches.scores,
                                             matches.rounds):
            if self.done[g]:
                continue
            if self.counted[g] != rounds:
                raise RuntimeError(f"game {g}: counted {self.counted[g]} rounds but the match "
                                   f"reports {rounds}")
            seat = self.seat_a[g]
            if self.points[g] != scores[seat]:
                raise RuntimeError(f"game {g}: the rounds add up to {self.points[g]} points "
                                   f"for A but the match reports {scores[seat]}")
            self.result[g] = 0 if winner < 0 else (1 if winner == seat else -1)
            self.done[g] = True


# ---------------------------------------------------------------------- league
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


def _warn_other_rules(agents: Sequence[AgentLike], rules: RuleSet) -> None:
    """A baseline built for other rules (e.g. ``ten-base``, whose points are ten times
    Nintendo's) misjudges every score it reads: say so, at the caller's caller (the user's
    ``play_matches`` or ``round_robin`` line). Policies carry no rule set."""
    for agent in agents:
        message = other_rules_warning(agent, rules, "agent")
        if message:
            warnings.warn(message, stacklevel=3)


def round_robin(agents: Sequence[AgentLike], n_matches: int, rules: RuleSpec = None,
                seed: int = 0, batch: int = 1024) -> dict[str, Any]:
    """Every pair of agents plays ``n_matches``; a pairwise table and fitted Elo ratings.

    All pairs use the same deal seed (common random numbers), and agents that have
    ``seed()`` are reseeded for each pair (the first with ``seed``, the second with
    ``seed + 1``, as ``evaluate.py`` seeds a head-to-head), so a pair's result does not depend
    on the other agents or their order. Ratings are anchored at random = 1000 when an agent
    named ``random`` takes part, else at a mean of 1500.
    """
    if len(agents) < 2:
        raise ValueError("a league needs at least two agents")
    rule_set = resolve_rules(rules)
    _warn_other_rules(agents, rule_set)  # once per agent, not once per pair
    names = _unique_names([a.name for a in agents])
    k = len(agents)
    score = np.zeros((k, k))
    games = np.zeros((k, k))
    pairs = []
    for i, j in combinations(range(k), 2):
        for agent, agent_seed in ((agents[i], seed), (agents[j], seed + 1)):
            if callable(getattr(agent, "seed", None)):
                agent.seed(agent_seed)
        result = _play_matches(agents[i], agents[j], n_matches, rule_set, seed, batch)
        result["agent_a"] = result["a"]["name"] = names[i]
        result["agent_b"] = result["b"]["name"] = names[j]
        s = result["wins"] + 0.5 * result["draws"]
        score[i, j], score[j, i] = s, n_matches - s
        games[i, j] = games[j, i] = n_matches
        pairs.append(result)
    elo = fit_elo(names, score, games)
    table = {names[i]: {names[j]: (score[i, j] / games[i, j] if games[i, j] else None)
                        for j in range(k)} for i in range(k)}
    return {"agents": names, "matches_per_pair": n_matches, "rules": rule_set.name,
            "rule_set": rule_set.to_dict(), "seed": int(seed), "batch": int(batch),
            "score_table": table,
            "elo": elo, "elo_anchor": "random=1000" if "random" in names else "mean=1500",
            "pairs": pairs}


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
