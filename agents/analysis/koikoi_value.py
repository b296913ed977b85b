"""What is a koi-koi decision worth? Decision points, branch rollouts and summaries.

A *decision point* is a game waiting at the koi-koi decision (phase ``DECIDE``): its mover
just made yaku and may stop (bank the round) or call koi-koi (play on for more, at the risk
of the opponent scoring double). :func:`collect_decision_points` plays agents against each
other and keeps every such point: a snapshot of the game, descriptive features and the
action the agent chose.

:func:`estimate_decision_value` values both branches of many points at once. Each point is
forked ``K`` times; in ``"resampled"`` mode the opponent's hand and the undrawn stock of
every copy are reshuffled among themselves (a world the decider cannot tell apart from the
real one: the *fair* value), in ``"true"`` mode the real hidden cards are kept, in
``"hand_known"`` mode only the stock order is reshuffled (the opponent's hand as it is).
Every world is then played once after STOP and once after KOIKOI (the pair shares its
hidden cards and its future deals: common random numbers, so the difference is less noisy
than that of two independent branches; at round level the stop branch is fixed, so the
difference is as noisy as the koi-koi branch), with a rollout policy on both seats, to the
end of the round and — for the match-level value — to the end of the match, later rounds
dealt anew per copy. The worlds depend only on the seed and the point; the values too for a
deterministic rollout policy. A random one (the expert's tie-breaks) draws from its own
stream in batch order: reseed it for repeatable values.

Values are from the decider's side: round points (zero-sum) and match equity (win 1, draw
1/2, loss 0), each a mean over rollouts with a 95% normal-approximation interval. They are
values *given the rollout policy*: regret says how much the chosen branch lost against the
better one when play goes on with that policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.bots.base import AgentLike
from agents.eval.matches import wave_seed
from agents.eval.stats import Z95
from hanafuda_env.common import cards as C
from hanafuda_env.common.results import StepOutcome
from hanafuda_env.koikoi.core import DECIDE, KOIKOI, STOCK_SIZE, STOP, KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import RuleSpec, resolve_rules
from hanafuda_env.koikoi.scoring import BatchScorer, batch_scorer, round_multiplier, round_points

UNTIL = ("round", "match")
MODES = ("true", "resampled", "hand_known")
_U64 = np.uint64

# observer(core, ids, actions, active): called before each step with the batch being played,
# the original game index of each of its rows, the actions about to be applied and which
# rows are still being played.
Observer = Callable[[KoiKoiCore, np.ndarray, np.ndarray, np.ndarray], None]


# ---------------------------------------------------------------------------- playing
@dataclass
class PlayResult:
    """What happened in each game after :func:`play_with` started (rows = games).

    ``round_*`` describe the round that was in progress at the start (the first to end);
    ``match_*`` the match in progress at the start, where ``match_done``.
    """

    round_done: np.ndarray  # (B,) bool
    round_reward: np.ndarray  # (B, 2) zero-sum points of that round per seat
    round_winner: np.ndarray  # (B,) seat, -1 nobody
    match_done: np.ndarray  # (B,) bool
    match_winner: np.ndarray  # (B,) seat, -1 a draw
    match_scores: np.ndarray  # (B, 2) final match scores
    steps: int  # core steps taken


def _new_result(n: int) -> PlayResult:
    return PlayResult(np.zeros(n, bool), np.zeros((n, 2), np.int64), np.full(n, -1, np.int8),
                      np.zeros(n, bool), np.full(n, -1, np.int8), np.zeros((n, 2), np.int64), 0)


def play_with(core: KoiKoiCore, agents: Sequence[AgentLike], until: str = "round", *,
              swap: np.ndarray | None = None, first_actions: np.ndarray | None = None,
              observer: Observer | None = None, max_steps: int | None = None,
              compact: bool = True) -> PlayResult:
    """Step every game with one agent per seat until its current round (or match) ends.

    ``agents[s]`` plays seat ``s`` (seats swapped in the games where ``swap`` is True); each
    agent is asked once per step for all the games where one of its seats is to move, so
    play stays vectorized. ``first_actions`` replaces the agents' choice at the first step
    (forcing a branch). Games that are done get filler moves until all are done; with
    ``compact`` the batch is re-forked down to the games still playing whenever fewer than
    half play on, and then ``core`` itself is left behind at that point (use
    ``compact=False`` to keep stepping ``core`` in place).
    """
    if until not in UNTIL:
        raise ValueError(f"until must be one of {UNTIL}, got {until!r}")
    if len(agents) != 2:
        raise ValueError(f"give one agent per seat (2), got {len(agents)}")
    n = core.n_games
    result = _new_result(n)
    swap = np.zeros(n, bool) if swap is None else np.asarray(swap, bool).reshape(n)
    if max_steps is None:  # a round takes at most 8 turns a side of at most 4 steps each
        max_steps = 80 * (core.rules.rounds + 1) if until == "match" else 80
    work, ids = core, np.arange(n)
    active = np.ones(n, bool)
    while active.any():
        if result.steps >= max_steps:
            raise RuntimeError(f"play_with: {int(active.sum())} games still playing after "
                               f"{max_steps} steps")
        mask = work.legal_action_mask()
        actions = mask.argmax(axis=1)  # a legal filler for games that are done
        if result.steps == 0 and first_actions is not None:
            actions = np.where(active, np.asarray(first_actions, np.int64), actions)
        else:
            actions = _agent_actions(work, agents, swap[ids], mask, active, actions)
        if observer is not None:
            observer(work, ids, actions, active)
        outcome = work.step(actions)
        result.steps += 1
        _record(result, outcome, ids, active)
        done = result.round_done if until == "round" else result.match_done
        active &= ~done[ids]
        if compact and 0 < active.sum() < 0.5 * len(active) and len(active) >= 64:
            keep = np.flatnonzero(active)
            work, ids, active = work.fork(keep), ids[keep], np.ones(len(keep), bool)
    return result


def _agent_actions(core: KoiKoiCore, agents: Sequence[AgentLike], swap: np.ndarray,
                   mask: np.ndarray, active: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Ask each agent once for the active games where it is to move."""
    obs = encode_observations(core)
    who = core.mover.astype(np.int64) ^ swap  # index into ``agents``
    if agents[0] is agents[1]:
        groups = [(agents[0], active)]
    else:
        groups = [(agents[i], active & (who == i)) for i in (0, 1)]
    actions = actions.copy()
    for agent, rows in groups:
        rows = np.flatnonzero(rows)
        if len(rows):
            actions[rows] = np.asarray(agent.act(obs[rows], mask[rows]), np.int64)
    return actions


def _record(result: PlayResult, outcome: StepOutcome, ids: np.ndarray,
            active: np.ndarray) -> None:
    rounds = outcome.rounds
    if len(rounds):
        target, first = _first_new(rounds.game, result.round_done, ids, active)
        result.round_done[target] = True
        result.round_reward[target] = rounds.reward[first]
        result.round_winner[target] = rounds.winner[first]
    matches = outcome.matches
    if len(matches.game):
        target, first = _first_new(matches.game, result.match_done, ids, active)
        result.match_done[target] = True
        result.match_winner[target] = matches.winner[first]
        result.match_scores[target] = matches.scores[first]


def _first_new(game_column: np.ndarray, done: np.ndarray, ids: np.ndarray,
               active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Result ids and first table rows of the active games not yet recorded as done."""
    games, first = np.unique(game_column, return_index=True)  # rows come in event order
    new = active[games] & ~done[ids[games]]
    return ids[games[new]], first[new]


# --------------------------------------------------------------------------- features
def decision_features(core: KoiKoiCore, games: np.ndarray | None = None
                      ) -> dict[str, np.ndarray]:
    """Features of games waiting at a koi-koi decision, from the decider's side.

    Everything here is visible to the decider (own hand, piles, counts, scores), so the
    features are the same in every world consistent with what the decider has seen.
    ``opp_threat`` is the largest rise of the opponent's yaku total that one more card
    (any card not yet captured) would give; ``opp_outs`` counts such cards and
    ``opp_threat_yaku`` is the index (in ``yaku_names(rules)``) of a yaku that card
    would complete, -1 when it only grows a standing one. ``own_outs``/``own_gain`` are
    the same for the decider.
    """
    games = np.arange(core.n_games) if games is None else np.atleast_1d(games)
    if (core.phase[games] != DECIDE).any():
        bad = games[core.phase[games] != DECIDE]
        raise ValueError(f"games {bad.tolist()} are not at a koi-koi decision")
    rules = core.rules
    scorer = batch_scorer(rules)
    seat = core.mover[games].astype(np.int64)
    other = 1 - seat
    rows = games
    own_pile, opp_pile = core.piles[rows, seat], core.piles[rows, other]
    total = scorer.totals(own_pile).astype(np.int64)
    opp_total = scorer.totals(opp_pile).astype(np.int64)
    opp_called = core.koikoi_calls[rows, other] > 0
    free = _U64(C.ALL_CARDS) & ~(own_pile | opp_pile)
    opp_gain, opp_outs, opp_yaku = _one_card_gains(scorer, opp_pile, free)
    own_gain, own_outs, _ = _one_card_gains(scorer, own_pile, free)
    score = core.match_score[rows]
    return {
        "seat": seat,
        "round_index": core.round_index[rows].astype(np.int64),
        "rounds_left": (rules.rounds - core.round_index[rows]).astype(np.int64),
        "turn": core.turn[rows].astype(np.int64),
        "yaku_total": total,
        "seven_plus": round_multiplier(total, False, rules) > 1,  # the total alone doubles
        "stop_points": np.asarray(round_points(total, opp_called, rules), np.int64),
        "own_cards": np.bitwise_count(core.hands[rows, seat]).astype(np.int64),
        "opp_cards": np.bitwise_count(core.hands[rows, other]).astype(np.int64),
        "stock_left": (STOCK_SIZE - core.stock_pos[rows]).astype(np.int64),
        "opp_yaku_total": opp_total,
        "opp_called": opp_called,
        "opp_threat": opp_gain,
        "opp_outs": opp_outs,
        "opp_threat_yaku": opp_yaku,
        "own_gain": own_gain,
        "own_outs": own_outs,
        "dealer": core.dealer[rows] == seat,
        "score_diff": score[np.arange(len(rows)), seat].astype(np.int64),  # the lead
    }


def _one_card_gains(scorer: BatchScorer, pile: np.ndarray, free: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pile: the best rise of the yaku total from one free card, how many free cards
    raise it, and the yaku that the best card completes (-1: a standing one grows)."""
    n = len(pile)
    now = scorer.breakdown(pile)  # (n, Y)
    plus = pile[:, None] | C.CARD_BITS[None, :]  # (n, 48)
    after = scorer.breakdown(plus)  # (n, 48, Y)
    gain = after.sum(axis=-1) - now.sum(axis=-1)[:, None]
    usable = C.bits_to_bool(free)
    gain = np.where(usable, gain, 0)
    best_card = gain.argmax(axis=1)
    best = gain[np.arange(n), best_card].astype(np.int64)
    new = (after[np.arange(n), best_card] > 0) & (now == 0)  # (n, Y) yaku that start
    new_points = np.where(new, after[np.arange(n), best_card], 0)
    yaku = np.where(new.any(axis=1) & (best > 0), new_points.argmax(axis=1), -1)
    return best, (gain > 0).sum(axis=1).astype(np.int64), yaku.astype(np.int64)


def yaku_names(rules: RuleSpec = None) -> tuple[str, ...]:
    """Names indexed by the ``opp_threat_yaku`` feature."""
    return batch_scorer(resolve_rules(rules)).names


# --------------------------------------------------------------------- decision points
@dataclass
class DecisionPoints:
    """Koi-koi decision points as columns; game ``i`` of ``snapshot`` is point ``i``."""

    snapshot: KoiKoiCore  # every point as a game waiting at its decision
    features: dict[str, np.ndarray]  # see decision_features
    chosen: np.ndarray  # (N,) STOP or KOIKOI, what the agent did
    agent: np.ndarray  # (N,) str, the agent that decided
    game: np.ndarray  # (N,) game of the collecting batch

    def __len__(self) -> int:
        return len(self.chosen)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.features[name]

    def subset(self, index: np.ndarray | Sequence[int]) -> DecisionPoints:
        """The points at ``index`` (indices or a boolean mask), snapshot included."""
        index = np.arange(len(self))[index]
        if not len(index):
            raise ValueError("a subset of decision points needs at least one point")
        return DecisionPoints(self.snapshot.fork(index),
                              {k: v[index] for k, v in self.features.items()},
                              self.chosen[index], self.agent[index], self.game[index])

    def records(self) -> list[dict]:
        """One plain dict per point (features, chosen action, agent)."""
        out = []
        for i in range(len(self)):
            row = {k: v[i].item() for k, v in self.features.items()}
            row.update(chosen="koikoi" if self.chosen[i] == KOIKOI else "stop",
                       agent=str(self.agent[i]), game=int(self.game[i]))
            out.append(row)
        return out


def stack_cores(parts: Sequence[KoiKoiCore], rules: RuleSpec = None) -> KoiKoiCore:
    """One core holding the games of several (same rule set), in order."""
    rules = resolve_rules(rules if rules is not None else parts[0].rules)
    n = sum(p.n_games for p in parts)
    core = KoiKoiCore(n, rules, seed=0)
    states = [p.state_dict() for p in parts]
    core.load_state_dict({k: np.concatenate([s[k] for s in states]) for k in states[0]})
    return core


def with_rules(core: KoiKoiCore, rules: RuleSpec) -> KoiKoiCore:
    """The same games under another rule set (e.g. without the 7-point doubling): for
    counterfactual values of the very same positions."""
    return stack_cores([core], rules)


def collect_decision_points(agent_a: AgentLike, agent_b: AgentLike, n_games: int,
                            rules: RuleSpec = None, seed: int = 0, until: str = "match",
                            max_points: int | None = None) -> DecisionPoints:
    """Play ``n_games`` games (one match each, or one round with ``until="round"``) and
    keep every koi-koi decision. Agent A sits at seat 0 in even games and seat 1 in odd
    ones, so both agents decide from both seats."""
    rules = resolve_rules(rules)
    core = KoiKoiCore(n_games, rules, seed=seed)
    swap = np.arange(n_games) % 2 == 1
    names = np.array([agent_a.name, agent_b.name])
    snaps: list[KoiKoiCore] = []
    feats: list[dict[str, np.ndarray]] = []
    chosen, agent, game = [], [], []

    def observe(work: KoiKoiCore, ids: np.ndarray, actions: np.ndarray,
                active: np.ndarray) -> None:
        rows = np.flatnonzero(active & (work.phase == DECIDE))
        if not len(rows):
            return
        snaps.append(work.fork(rows))
        feats.append(decision_features(work, rows))
        chosen.append(actions[rows])
        agent.append(names[work.mover[rows].astype(np.int64) ^ swap[ids[rows]]])
        game.append(ids[rows])

    play_with(core, (agent_a, agent_b), until, swap=swap, observer=observe)
    if not snaps:
        raise RuntimeError(f"no koi-koi decision in {n_games} games: play more games")
    points = DecisionPoints(stack_cores(snaps, rules),
                            {k: np.concatenate([f[k] for f in feats]) for k in feats[0]},
                            np.concatenate(chosen), np.concatenate(agent),
                            np.concatenate(game))
    if max_points is not None and len(points) > max_points:
        pick = np.sort(np.random.default_rng(seed).choice(len(points), max_points, False))
        points = points.subset(pick)
    return points


def choices_of(agent: AgentLike, points: DecisionPoints) -> np.ndarray:
    """What ``agent`` would choose at each decision point (it sees the decider's view)."""
    core = points.snapshot
    return np.asarray(agent.act(encode_observations(core), core.legal_action_mask()),
                      np.int64)


# --------------------------------------------------------------------------- values
@dataclass
class DecisionValues:
    """Branch values per decision point, from the decider's side.

    ``points`` = round points, ``match`` = match equity (win 1, draw 1/2); each ``*_ci``
    is ``(N, 2)`` (low, high) of a 95% interval over rollouts; ``*_diff`` is koi-koi minus
    stop, paired by world. ``samples_points``/``samples_match``: ``(2, N, K)`` per branch
    (0 stop, 1 koi-koi) and rollout (``match`` is NaN for ``horizon="round"``).
    """

    mode: str
    horizon: str
    n_rollouts: int
    samples_points: np.ndarray
    samples_match: np.ndarray
    stats: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for metric, samples in (("points", self.samples_points), ("match", self.samples_match)):
            for b, name in enumerate(("stop", "koikoi")):
                mean, ci = mean_ci(samples[b])
                self.stats[f"{metric}_{name}"], self.stats[f"{metric}_{name}_ci"] = mean, ci
            mean, ci = mean_ci(samples[1] - samples[0])
            self.stats[f"{metric}_diff"], self.stats[f"{metric}_diff_ci"] = mean, ci

    def __getitem__(self, name: str) -> np.ndarray:
        return self.stats[name]

    def __len__(self) -> int:
        return self.samples_points.shape[1]

    def best(self, metric: str = "points") -> np.ndarray:
        """(N,) the better action (STOP on ties) by the estimated value."""
        return np.where(self.stats[f"{metric}_diff"] > 0, KOIKOI, STOP)


def mean_ci(samples: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Row means of ``(N, K)`` samples and their normal-approximation intervals (N, 2)."""
    samples = np.asarray(samples, np.float64)
    k = samples.shape[-1]
    mean = samples.mean(axis=-1)
    half = (z * samples.std(axis=-1, ddof=1) / np.sqrt(k) if k > 1
            else np.full(mean.shape, np.inf))
    return mean, np.stack([mean - half, mean + half], axis=-1)


def estimate_decision_value(snapshot: KoiKoiCore | DecisionPoints, policy: AgentLike,
                            n_rollouts: int = 64, mode: str = "resampled", seed: int = 0,
                            horizon: str = "match", opponent: AgentLike | None = None,
                            max_batch: int = 32768,
                            agent_seeds: tuple[int, int] | None = None,
                            workers: int = 0) -> DecisionValues:
    """Value of stop and of koi-koi at every decision point of ``snapshot``, batched.

    ``policy`` plays both seats after the decision (``opponent``, when given, plays the
    decider's opponent instead). ``horizon="round"`` stops at the round's end (match values
    NaN; much cheaper). Points are processed in chunks of at most ``max_batch`` games.
    ``agent_seeds``: the policy's and the opponent's seeds, restarted at each chunk
    (``agents.eval.matches.wave_seed``), so a chunk's values do not depend on the chunks
    before it. ``workers``: the chunks as Ray tasks, that many at once (needs
    ``agent_seeds``; the same values as the local path).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if horizon not in UNTIL:
        raise ValueError(f"horizon must be one of {UNTIL}, got {horizon!r}")
    if n_rollouts < 1:
        raise ValueError(f"n_rollouts must be at least 1, got {n_rollouts}")
    core = snapshot.snapshot if isinstance(snapshot, DecisionPoints) else snapshot
    if (core.phase != DECIDE).any():
        raise ValueError("every game of the snapshot must wait at a koi-koi decision")
    k = int(n_rollouts)
    n = core.n_games
    chunk = max(1, max_batch // (2 * k))
    chunks = [np.arange(start, min(n, start + chunk)) for start in range(0, n, chunk)]
    settings = (policy, opponent, k, mode, seed, horizon, agent_seeds)
    if workers:
        from agents.eval.ray_tasks import check_workers, init_ray, ordered_map

        check_workers(workers)
        if agent_seeds is None:
            raise ValueError("estimate_decision_value(workers=...) needs agent_seeds: each "
                             "Ray task restarts the rollout agents' streams at its chunk")
        shared = init_ray().put(settings)
        parts = ordered_map(value_chunk, [(core.fork(games).state_dict(), core.rules, games,
                                           c, shared) for c, games in enumerate(chunks)],
                            workers)
    else:
        parts = [_rollout_chunk(core, games, games, c, *settings)
                 for c, games in enumerate(chunks)]
    points = np.zeros((2, n, k))
    match = np.full((2, n, k), np.nan)
    for games, (p, m) in zip(chunks, parts):
        points[:, games], match[:, games] = p, m
    return DecisionValues(mode, horizon, k, points, match)


def value_chunk(state: dict[str, np.ndarray], rules: RuleSpec, points: np.ndarray,
                chunk: int, settings: tuple) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of :func:`estimate_decision_value` in a Ray worker: its decision points'
    games (a core's ``state_dict``), their point numbers and the chunk's number."""
    core = KoiKoiCore(len(points), rules, seed=0)
    core.load_state_dict(state)
    return _rollout_chunk(core, np.arange(len(points)), points, chunk, *settings)


def point_worlds(core: KoiKoiCore, games: np.ndarray, points: np.ndarray | Sequence[int],
                 copies: int, mode: str, seed: int) -> KoiKoiCore:
    """``rollout_worlds`` of each game, seeded by the seed and its decision point's number
    alone, so the worlds do not depend on how the points are chunked (``max_batch``)."""
    parts = [rollout_worlds(core, games[i:i + 1], copies, mode,
                            int(np.random.SeedSequence([seed, int(p)]).generate_state(1)[0]))
             for i, p in enumerate(points)]
    return parts[0] if len(parts) == 1 else stack_cores(parts)


def rollout_worlds(core: KoiKoiCore, games: np.ndarray, copies: int, mode: str = "resampled",
                   seed: int = 0) -> KoiKoiCore:
    """``copies`` forks of each chosen game (game-major) with the later rounds' deals drawn
    anew per copy; in ``"resampled"`` mode each copy's opponent hand and undrawn stock are
    reshuffled among themselves, invisibly to the player to move (the decider); in
    ``"hand_known"`` mode only the stock is reshuffled, as if the decider had seen the
    opponent's hand (what knowing it is worth)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    worlds = core.fork(games, copies=copies, seed=seed)
    if mode == "resampled":
        worlds.resample_hidden(worlds.mover.astype(np.int64), np.random.default_rng(seed))
    elif mode == "hand_known":
        worlds.shuffle_stock(np.random.default_rng(seed))
    return worlds


def _rollout_chunk(core: KoiKoiCore, games: np.ndarray, points: np.ndarray, chunk: int,
                   policy: AgentLike, opponent: AgentLike | None, k: int, mode: str, seed: int,
                   horizon: str, agent_seeds: tuple[int, int] | None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Both branches of ``games`` of ``core`` (decision points number ``points``), the
    ``chunk``-th chunk of the points."""
    n = len(games)
    if agent_seeds is not None:
        for agent, agent_seed in zip((policy, opponent), agent_seeds):
            if callable(getattr(agent, "seed", None)):
                agent.seed(wave_seed(agent_seed, chunk))
    worlds = point_worlds(core, games, points, k, mode, seed)
    decider = worlds.mover.astype(np.int64)
    nk = n * k
    branches = worlds.fork(np.concatenate([np.arange(nk), np.arange(nk)]))  # pairs share all
    first = np.repeat(np.array([STOP, KOIKOI]), nk)
    seat = np.tile(decider, 2)
    if opponent is None:
        agents, swap = (policy, policy), None
    else:  # agents[0] plays the decider's seat
        agents, swap = (policy, opponent), seat == 1
    result = play_with(branches, agents, horizon, swap=swap, first_actions=first)
    rows = np.arange(2 * nk)
    pts = result.round_reward[rows, seat].astype(np.float64).reshape(2, n, k)
    if horizon == "round":
        return pts, np.full((2, n, k), np.nan)
    winner = result.match_winner.astype(np.int64)
    equity = np.where(winner == seat, 1.0, np.where(winner < 0, 0.5, 0.0))
    return pts, equity.reshape(2, n, k)


# ------------------------------------------------------------------------- summaries
def regret(values: DecisionValues, chosen: np.ndarray, metric: str = "points",
           significant: bool = False) -> np.ndarray:
    """(N,) value lost by the chosen branch against the better one (>= 0).

    Estimated values are noisy, and the better of two noisy means is biased upwards, so a
    plain regret is positive even for a perfect decider. ``significant`` counts only the
    points whose 95% interval of the difference excludes zero: a conservative figure.
    """
    stop, koi = values[f"{metric}_stop"], values[f"{metric}_koikoi"]
    picked = np.where(np.asarray(chosen) == KOIKOI, koi, stop)
    lost = np.maximum(stop, koi) - picked
    if significant:
        ci = values[f"{metric}_diff_ci"]
        lost = np.where((ci[:, 0] > 0) | (ci[:, 1] < 0), lost, 0.0)
    return lost


def summarize(points: DecisionPoints, values: DecisionValues, by: str, metric: str = "points",
              bins: Sequence[float] | None = None, chosen: np.ndarray | None = None
              ) -> dict[str, np.ndarray]:
    """EV(koi-koi) - EV(stop) grouped by a feature (``bins`` cut a numeric feature into
    ``[b_i, b_i+1)`` intervals): mean with a 95% interval over the points of each group,
    the share of points where koi-koi is better, the share where the agent called it and
    the mean regret of ``chosen`` (default: what the agent did)."""
    key = np.asarray(points[by])
    chosen = points.chosen if chosen is None else np.asarray(chosen)
    if bins is not None:
        edges = np.asarray(bins, np.float64)
        slot = np.digitize(key, edges) - 1
        labels = np.array([f"[{edges[i]:g}, {edges[i + 1]:g})" for i in range(len(edges) - 1)])
        keep = (slot >= 0) & (slot < len(labels))
        groups = [(labels[i], keep & (slot == i)) for i in range(len(labels))]
    else:
        groups = [(str(v), key == v) for v in np.unique(key)]
    diff = values[f"{metric}_diff"]
    lost = regret(values, chosen, metric)
    out: dict[str, list] = {k: [] for k in ("group", "n", "diff", "low", "high",
                                            "koikoi_better", "chose_koikoi", "regret")}
    for label, rows in groups:
        if not rows.any():
            continue
        mean, ci = mean_ci(diff[rows][None, :]) if rows.sum() > 1 else (
            diff[rows], np.array([[np.nan, np.nan]]))
        out["group"].append(label)
        out["n"].append(int(rows.sum()))
        out["diff"].append(float(mean[0]))
        out["low"].append(float(ci[0, 0]))
        out["high"].append(float(ci[0, 1]))
        out["koikoi_better"].append(float((diff[rows] > 0).mean()))
        out["chose_koikoi"].append(float((chosen[rows] == KOIKOI).mean()))
        out["regret"].append(float(lost[rows].mean()))
    return {k: np.asarray(v) for k, v in out.items()}


def format_summary(summary: dict[str, np.ndarray], title: str = "") -> str:
    """A summary as an aligned text table (for notebooks and logs)."""
    head = f"{'group':>14} {'n':>5} {'EV diff':>8} {'95% CI':>17} {'koi better':>10} " \
           f"{'chose koi':>9} {'regret':>7}"
    lines = ([title] if title else []) + [head]
    for i in range(len(summary["group"])):
        lines.append(
            f"{summary['group'][i]:>14} {summary['n'][i]:>5} {summary['diff'][i]:>8.3f} "
            f"[{summary['low'][i]:>7.3f}, {summary['high'][i]:>7.3f}] "
            f"{summary['koikoi_better'][i]:>10.2f} {summary['chose_koikoi'][i]:>9.2f} "
            f"{summary['regret'][i]:>7.3f}")
    return "\n".join(lines)
