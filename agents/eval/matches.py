"""Batched head-to-head evaluation of agents on the vectorized core.

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

A wave is played by :func:`play_waves` and its :class:`MatchTally` merged with the others' in
match order, so waves can be played apart (as Ray tasks: ``workers``). With ``agent_seeds``,
an agent that has ``seed()`` restarts its stream at each wave (:func:`wave_seed`), so a wave's
moves do not depend on the waves before it.

Everything returned is plain Python (JSON-serialisable).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.bots.base import AgentLike, act_in_groups
from agents.eval.stats import pair_mean_interval, pair_rate_interval
from hanafuda_env.common.results import (
    END_NAMES,
    MatchResults,
    ResetOutcome,
    RoundResults,
    StepOutcome,
)
from hanafuda_env.common.seeding import game_seeds
from hanafuda_env.envs.options import other_rules_warning
from hanafuda_env.koikoi.core import KOIKOI, STOP, KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.recorder import MatchRecorder
from hanafuda_env.koikoi.records import Match
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules


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

    def add(self, other: _SideStats) -> None:
        """Count another wave's moves, decisions and yaku in with these."""
        for name in ("moves", "seconds", "decisions", "calls", "rounds_called", "paid_off",
                     "rounds_won"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name, count in other.yaku.items():
            self.yaku[name] = self.yaku.get(name, 0) + count

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


def warn_other_rules(agents: Sequence[AgentLike], rules: RuleSet) -> None:
    """A baseline built for other rules (e.g. ``ten-base``, whose points are ten times
    Nintendo's) misjudges every score it reads: say so, at the caller's caller (the user's
    ``play_matches`` or ``round_robin`` line). Policies carry no rule set."""
    for agent in agents:
        message = other_rules_warning(agent, rules, "agent")
        if message:
            warnings.warn(message, stacklevel=3)


def play_matches(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSpec = None,
                 seed: int = 0, batch: int = 1024, records: list[Match] | None = None,
                 agent_seeds: tuple[int, int] | None = None, workers: int = 0
                 ) -> dict[str, Any]:
    """Play ``n_matches`` complete matches of A against B; statistics from A's side.

    Returns a dict: ``wins``/``draws``/``losses`` of A (always summing to ``matches``),
    ``win_rate`` and ``score_rate`` (a draw counts half) with Wilson 95% intervals,
    ``points_per_match`` and ``points_per_round`` of A (mean, 95% interval; every interval
    counts pairs of matches as the independent units, see the module docstring), per-agent
    koi-koi statistics (call rate at decisions; paid off = the caller won that round), yaku
    counts of the rounds each agent won, how rounds ended, and seat balance. ``records``: a
    list the game records of the matches are appended to, in match order
    (:mod:`hanafuda_env.koikoi.records`; slower: each game is followed in a plain one-game engine).
    ``agent_seeds``: A's and B's seeds, restarted at each wave (see the module docstring).
    ``workers``: play the waves as Ray tasks, that many at once (needs ``agent_seeds``; the
    results are those of the local path, timings aside).
    """
    rules = resolve_rules(rules)
    warn_other_rules((agent_a, agent_b), rules)
    return play_resolved_matches(agent_a, agent_b, n_matches, rules, seed, batch, records,
                                 agent_seeds, workers)


def play_resolved_matches(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSet,
                          seed: int, batch: int, records: list[Match] | None = None,
                          agent_seeds: tuple[int, int] | None = None, workers: int = 0
                          ) -> dict[str, Any]:
    """:func:`play_matches` once the agents' rules were looked at (by it or ``round_robin``)."""
    if n_matches < 1:
        raise ValueError(f"n_matches must be at least 1, got {n_matches}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    if workers:
        tally = _play_waves_on_ray(agent_a, agent_b, n_matches, rules, seed, batch,
                                   agent_seeds, records is not None, workers)
    else:
        tally = play_waves(agent_a, agent_b, n_matches, rules, seed, batch,
                           range(n_waves(n_matches, batch)), agent_seeds, records is not None)
    if records is not None:
        records += tally.records
    return summarize_matches(tally, agent_a.name, agent_b.name, rules, seed, batch)


@dataclass
class MatchTally:
    """What some waves of matches produced, per match in match order: what the summary of
    :func:`play_matches` is computed from, and what waves played apart are merged into."""

    results: np.ndarray  # int8: +1 A won, 0 draw, -1 A lost
    points: np.ndarray  # int64: A's points in the match
    rounds: np.ndarray  # int64: rounds the match lasted
    reasons: dict[str, int]  # how the rounds ended
    sides: tuple[_SideStats, _SideStats]
    records: list[Match]  # the game records, when asked for

    @classmethod
    def merged(cls, parts: Sequence[MatchTally]) -> MatchTally:
        """One tally of consecutive waves' tallies, given in match order."""
        sides = (_SideStats(), _SideStats())
        reasons: dict[str, int] = {}
        for part in parts:
            for side, other in zip(sides, part.sides):
                side.add(other)
            for name, count in part.reasons.items():
                reasons[name] = reasons.get(name, 0) + count
        return cls(*(np.concatenate([getattr(p, k) for p in parts])
                     for k in ("results", "points", "rounds")),
                   dict(sorted(reasons.items())), sides, [r for p in parts for r in p.records])


def n_waves(n_matches: int, batch: int) -> int:
    return -(-n_matches // batch)


def wave_seed(seed: int, wave: int) -> int:
    """An agent's seed for one wave: its own seed for the first (a single wave plays as an
    agent seeded once would), a hash of both for later ones."""
    return int(seed) if wave == 0 else int(np.random.SeedSequence([int(seed), wave])
                                           .generate_state(1)[0])


def play_waves(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSet,
               seed: int, batch: int, waves: Sequence[int],
               agent_seeds: tuple[int, int] | None = None, records: bool = False
               ) -> MatchTally:
    """Play the given waves (of ``batch`` matches; the last may be shorter) of the
    ``n_matches`` of :func:`play_matches`, in order."""
    pair_seeds = game_seeds(int(seed), (n_matches + 1) // 2)
    parts = []
    for wave in waves:
        j = np.arange(wave * batch, min((wave + 1) * batch, n_matches))
        if agent_seeds is not None:
            for agent, agent_seed in zip((agent_a, agent_b), agent_seeds):
                if callable(getattr(agent, "seed", None)):
                    agent.seed(wave_seed(agent_seed, wave))
        parts.append(_play_wave(agent_a, agent_b, j, rules, pair_seeds,
                                np.random.default_rng([int(seed), wave]), records))
    return MatchTally.merged(parts)


def _play_wave(agent_a: AgentLike, agent_b: AgentLike, j: np.ndarray, rules: RuleSet,
               pair_seeds: np.ndarray, filler: np.random.Generator, records: bool
               ) -> MatchTally:
    """Matches ``j`` stepped together in one core."""
    sides, agents = (_SideStats(), _SideStats()), (agent_a, agent_b)
    seat_a = (j % 2).astype(np.int8)
    core = KoiKoiCore(len(j), rules, seed=0)
    first_dealers = (j // 2) % 2
    dealt = core.reset(seed=pair_seeds[j // 2], options={"dealer": first_dealers})
    wave = _Wave(len(j), seat_a, sides, core.yaku_names)
    recorders = (_recorders(core, seat_a, (agent_a.name, agent_b.name), first_dealers)
                 if records else None)
    wave.record(dealt)  # a short match may end at the deal
    while not wave.done.all():
        mask = core.legal_action_mask()
        obs = encode_observations(core)
        actions = core.sample_legal_actions(filler)  # for finished games only
        live = ~wave.done
        act_in_groups(core.mover != seat_a, live,
                      lambda k, o, m: sides[k].act(agents[k], o, m), obs, mask, actions)
        outcome = core.step(actions)
        if recorders is not None:
            _follow(recorders, live, actions, outcome)
        wave.record(outcome)
    return MatchTally(wave.result, wave.points, wave.counted,
                      {END_NAMES[code]: count for code, count in wave.reasons.items()}, sides,
                      [] if recorders is None else [r.all_matches()[0] for r in recorders])


def _play_waves_on_ray(agent_a: AgentLike, agent_b: AgentLike, n_matches: int, rules: RuleSet,
                       seed: int, batch: int, agent_seeds: tuple[int, int] | None,
                       records: bool, workers: int) -> MatchTally:
    """Every wave as a Ray task (``agents.eval.ray_tasks``); the tallies merged in order."""
    from agents.eval.ray_tasks import check_workers, init_ray, ordered_map

    check_workers(workers)
    if agent_seeds is None:
        raise ValueError("play_matches(workers=...) needs agent_seeds: each Ray task restarts "
                         "the agents' random streams at its wave (evaluate.py passes "
                         "(seed, seed + 1))")
    ray = init_ray()
    shared_a, shared_b = ray.put(agent_a), ray.put(agent_b)
    calls = [(shared_a, shared_b, n_matches, rules, seed, batch, [wave], tuple(agent_seeds),
              records) for wave in range(n_waves(n_matches, batch))]
    return MatchTally.merged(ordered_map(play_waves, calls, workers))


def summarize_matches(tally: MatchTally, name_a: str, name_b: str, rules: RuleSet, seed: int,
                      batch: int) -> dict[str, Any]:
    """The result dict of :func:`play_matches` from the tally of all its matches."""
    results, match_points, match_rounds = tally.results, tally.points, tally.rounds
    n_matches = len(results)
    n_rounds = int(match_rounds.sum())
    wins, draws = int((results == 1).sum()), int((results == 0).sum())
    losses = int((results == -1).sum())
    assert wins + draws + losses == n_matches
    j = np.arange(n_matches)
    pair = j // 2
    pair_points, pair_matches = np.bincount(pair, match_points), np.bincount(pair)
    return {
        "agent_a": name_a, "agent_b": name_b, "rules": rules.name,
        "rule_set": rules.to_dict(), "rounds_per_match": rules.rounds,
        "target_score": rules.target_score, "matches": n_matches, "seed": int(seed),
        "batch": int(batch), "wins": wins, "draws": draws, "losses": losses,
        "win_rate": pair_rate_interval(results == 1, pair),
        "score_rate": pair_rate_interval((results + 1) / 2, pair),
        "points_per_match": pair_mean_interval(pair_points, pair_matches),
        "points_per_round": pair_mean_interval(pair_points, np.bincount(pair, match_rounds)),
        "rounds": n_rounds,
        "round_ends": dict(sorted(tally.reasons.items())),
        "seats": {"a_at_seat_0": int((j % 2 == 0).sum()), "a_at_seat_1": int((j % 2).sum()),
                  "a_deals_first": int(((j % 2) == (j // 2) % 2).sum())},
        "a": tally.sides[0].summary(name_a, n_rounds),
        "b": tally.sides[1].summary(name_b, n_rounds),
    }


def _recorders(core: KoiKoiCore, seat_a: np.ndarray, names: tuple[str, str],
               first_dealers: np.ndarray) -> list[MatchRecorder]:
    """A recorder per game of a freshly reset core, each following its game in a plain
    one-game engine dealt from the same game seed and first dealer (the one the reset gave:
    a hand yaku at the deal has already moved the core's dealer on)."""
    recorders = []
    for g in range(core.n_games):
        by_seat = names if seat_a[g] == 0 else names[::-1]
        recorder = MatchRecorder(KoiKoiGame(core.rules, seed=0), by_seat)
        recorder.reset(game_seed=int(core.seeds[g]),
                       options={"dealer": int(first_dealers[g])})
        recorders.append(recorder)
    return recorders


def _follow(recorders: list[MatchRecorder], live: np.ndarray, actions: np.ndarray,
            outcome: StepOutcome) -> None:
    """Step each live game's recorder with its action; the engines must agree."""
    for g in np.flatnonzero(live):
        step = recorders[g].step(int(actions[g]))
        if tuple(step.reward) != tuple(outcome.reward[g].tolist()):
            raise RuntimeError(f"game {g}: the recorded game paid {step.reward}, the core "
                               f"{outcome.reward[g].tolist()}")


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
