"""Benchmark the baseline agents against each other, and refit the expert's card model.

    python benchmarks/bench_baselines.py                       # 2000 matches of 12 rounds
    python benchmarks/bench_baselines.py --matches 500 --rounds 3 --rules ten-base
    python benchmarks/bench_baselines.py --pairs expert:greedy --json bench.json
    python benchmarks/bench_baselines.py --calibrate           # print refitted CARD_MODEL
    python benchmarks/bench_baselines.py --speed expert,greedy  # decisions/s of act alone

For each pair it prints A's match win rate and score rate (draw = 1/2) with Wilson 95%
intervals, A's points per round, and each agent's decisions per second (time inside
``act`` only, batched as the evaluator runs them). ``--speed`` times ``act`` alone on fixed
batches of 64, 256 and 1024 games (``--speed-batches``), in CPU time of this process, which
a busy machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from cli_args import (
    JoinLists,
    agent_list,
    agent_pairs,
    make_parser,
    positive_int,
    positive_int_list,
    rule_spec,
    run_main,
    seed_int,
    usage_errors,
)

from agents.bots.base import AgentLike, decode
from agents.bots.expert import ExpertAgent
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.paths import output_path_problem
from hanafuda_env.common import cards as C
from hanafuda_env.common.files import atomic_write_json
from hanafuda_env.koikoi.core import KOIKOI, PLAY, KoiKoiCore
from hanafuda_env.koikoi.expert.card_model import CARD_FEATURES, FIELD, HAND, UNSEEN, card_features
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import RuleSpec, resolve_rules
from hanafuda_env.render.text import counted

_U64 = np.uint64

DEFAULT_PAIRS = [("expert", "random"), ("expert", "greedy"), ("greedy", "random")]


def make_arg_parser() -> argparse.ArgumentParser:
    parser = make_parser(__doc__)
    parser.add_argument("--matches", type=positive_int, default=2000, help="matches per pair")
    parser.add_argument("--rounds", type=positive_int, default=12, help="rounds per match")
    parser.add_argument("--rules", type=rule_spec, default="nintendo",
                        help="rule preset or YAML file")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the deals and agents")
    parser.add_argument("--batch", type=positive_int, default=1000,
                        help="games stepped together")
    parser.add_argument("--pairs", type=agent_pairs, nargs="+", action=JoinLists,
                        default=DEFAULT_PAIRS,
                        help="A:B pairs of baseline names or checkpoints (spaces or commas "
                             "between pairs)")
    parser.add_argument("--json", metavar="PATH", help="also write all results as JSON")
    parser.add_argument("--overwrite", action="store_true",
                        help="let --json replace an existing file (never a checkpoint played)")
    parser.add_argument("--calibrate", action="store_true",
                        help="refit the expert's card model from self-play and print it")
    parser.add_argument("--calibration-games", type=positive_int, default=160,
                        help="self-play games for --calibrate")
    parser.add_argument("--calibration-steps", type=positive_int, default=600,
                        help="decisions per game for --calibrate")
    parser.add_argument("--speed", metavar="AGENTS", type=agent_list, nargs="+", action=JoinLists,
                        help="agents (spaces or commas between them): time their act on fixed "
                             "batches and exit")
    parser.add_argument("--speed-batches", type=positive_int_list, nargs="+", action=JoinLists,
                        default=[64, 256, 1024],
                        help="batch sizes for --speed")
    return parser


def collect_card_outcomes(agent: AgentLike, n_games: int = 256, n_steps: int = 600, seed: int = 0,
                          rules: RuleSpec = None) -> dict[str, np.ndarray]:
    """Self-play data for the card model: counts of final owners per card situation.

    ``agent`` plays both seats; every koi-koi decision is answered with koi-koi under the
    ``multiple_koikoi`` option, so rounds run to the last card. Whenever a player is about
    to play, the waiting player's view of every live card is recorded; when the round ends,
    the card's final owner (waiting player / player to move / nobody) is its label.
    Returns aggregated cells: ``place``, ``feats`` (C, F), ``n``, ``mine``, ``theirs``.
    """
    rules = resolve_rules(rules).replace(multiple_koikoi=True)
    core = KoiKoiCore(n_games, rules, seed=seed)
    round_id = np.zeros(n_games, dtype=np.int64)
    keys, places, feats_all = [], [], []
    finals: dict[tuple[int, int], np.ndarray] = {}
    for _ in range(n_steps):
        mask = core.legal_action_mask()
        actions = np.where(mask[:, KOIKOI], KOIKOI, agent.act(encode_observations(core), mask))
        playing = np.flatnonzero(core.phase == PLAY)
        if len(playing):
            watcher = (1 - core.mover[playing]).astype(np.int64)
            obs = encode_observations(core, seats=1 - core.mover)[playing]
            view = decode(obs, rules)
            place, feats, alive = card_features(view.hand, view.field, view.unseen,
                                                view.own_hand_n)
            live = alive & C.bits_to_bool(view.hand | view.field | view.unseen)
            row, card = np.nonzero(live)
            places.append(place[row, card].astype(np.int8))
            feats_all.append(feats[row, card].astype(np.float32))
            keys.append(np.stack([playing[row], round_id[playing[row]], watcher[row], card],
                                 axis=1))
        outcome = core.step(actions)
        rounds = outcome.rounds
        for k in range(len(rounds)):
            g = int(rounds.game[k])
            finals[(g, int(round_id[g]))] = rounds.piles[k]
            round_id[g] += 1
    key = np.concatenate(keys)
    place = np.concatenate(places)
    feats = np.concatenate(feats_all)
    done = np.array([(int(g), int(r)) in finals for g, r in key[:, :2]])
    key, place, feats = key[done], place[done], feats[done]
    piles = np.array([finals[(int(g), int(r))] for g, r in key[:, :2]], dtype=_U64)
    bit = C.CARD_BITS[key[:, 3]]
    own = (piles[np.arange(len(key)), key[:, 2]] & bit) != 0
    opp = (piles[np.arange(len(key)), 1 - key[:, 2]] & bit) != 0
    # aggregate identical situations
    table = np.concatenate([place[:, None].astype(np.float32), feats], axis=1)
    cells, inverse = np.unique(table, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    count = np.bincount(inverse, minlength=len(cells)).astype(np.float64)
    return {"place": cells[:, 0].astype(np.int64), "feats": cells[:, 1:].astype(np.float64),
            "n": count, "mine": np.bincount(inverse, own, len(cells)).astype(np.float64),
            "theirs": np.bincount(inverse, opp, len(cells)).astype(np.float64)}


def fit_logistic(x: np.ndarray, n: np.ndarray, k: np.ndarray, ridge: float = 1e-3,
                 iterations: int = 50) -> np.ndarray:
    """Weights of a logistic regression by Newton's method: ``k`` successes of ``n`` trials
    at each row of ``x``."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (k - n * p) - ridge * w
        hess = (x * (n * p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-9:
            break
    return w


def fit_card_model(data: dict[str, np.ndarray]) -> np.ndarray:
    """One logistic regression per place and owner: the weights ``CARD_MODEL`` holds."""
    model = np.zeros((3, 2, len(CARD_FEATURES)))
    for place in (HAND, FIELD, UNSEEN):
        sel = data["place"] == place
        for j, key in enumerate(("mine", "theirs")):
            model[place, j] = fit_logistic(data["feats"][sel], data["n"][sel], data[key][sel])
    return model


def calibrate(args: argparse.Namespace) -> None:
    """Collect self-play card outcomes with the current expert and print the fitted model
    in the form ``agents/card_model.py`` keeps it."""
    start = time.perf_counter()
    data = collect_card_outcomes(ExpertAgent(args.rules, seed=args.seed),
                                 n_games=args.calibration_games,
                                 n_steps=args.calibration_steps, seed=args.seed)
    model = fit_card_model(data)
    print(f"# {int(data['n'].sum())} card situations in {len(data['n'])} cells, "
          f"{time.perf_counter() - start:.0f} s; features: {', '.join(CARD_FEATURES)}")
    print("CARD_MODEL = np.array([")
    for place, name in enumerate(("hand", "field", "unseen")):
        print(f"    [  # {name}: mine, theirs")
        for row in model[place]:
            print("        [" + ", ".join(f"{v:.2f}" for v in row) + "],")
        print("    ],")
    print("])")


def speed_batches(rules: RuleSpec, batch: int, n_batches: int = 6, every: int = 9,
                  seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Fixed (obs, mask) batches from games played half by the greedy agent, half at random:
    every phase, full and nearly empty hands, as an agent meets them in a match."""
    core = KoiKoiCore(batch, rules, seed=seed)
    rng = np.random.default_rng(seed)
    greedy = make_agent("greedy", rules, seed=seed)
    batches = []
    for step in range(n_batches * every):
        obs, mask = encode_observations(core), core.legal_action_mask()
        if step % every == every - 1:
            batches.append((obs, mask))
        core.step(np.where(rng.random(batch) < 0.5, greedy.act(obs, mask),
                           core.sample_legal_actions(rng)))
    return batches


def decisions_per_second(agent: AgentLike, batches: list[tuple[np.ndarray, np.ndarray]],
                         repeats: int = 5) -> float:
    """Decisions per CPU second of ``agent.act`` over the batches, best of ``repeats``."""
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        for obs, mask in batches:
            agent.act(obs, mask)
        best = min(best, time.process_time() - start)
    return sum(len(obs) for obs, _ in batches) / max(best, 1e-9)


def speed(args: argparse.Namespace) -> None:
    rule_set = resolve_rules(args.rules)
    names = args.speed
    print(f"decisions per CPU second of act, rules {args.rules}")
    ratio = "expert" in names and "greedy" in names  # the expert's cost against greedy's
    print(f"{'batch':>6s} " + " ".join(f"{name:>10s}" for name in names)
          + (f" {'expert/greedy':>14s}" if ratio else ""))
    for size in args.speed_batches:
        batches = speed_batches(rule_set, size, seed=args.seed)
        rates = [decisions_per_second(make_agent(name, rule_set, seed=args.seed), batches)
                 for name in names]
        extra = (f" {rates[names.index('expert')] / rates[names.index('greedy')]:14.3f}"
                 if ratio else "")
        print(f"{size:6d} " + " ".join(f"{rate:10.0f}" for rate in rates) + extra, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = make_arg_parser()
    args = parser.parse_args(argv)
    if args.json is not None:  # before any match: results are not lost to a bad path
        read = [name for pair in args.pairs for name in pair] + [args.rules]
        problem = output_path_problem(args.json, read, args.overwrite)
        if problem:
            parser.error(f"--json {args.json}: {problem}")
    if args.calibrate:
        calibrate(args)
        return 0
    with usage_errors(parser):  # a checkpoint for other rules, or not a checkpoint at all
        rule_set = resolve_rules(args.rules).replace(rounds=args.rounds)
        for name in args.speed or {name for pair in args.pairs for name in pair}:
            make_agent(name, rule_set)  # now, not after the first pairs' matches have run
    if args.speed:
        speed(args)
        return 0
    results = []
    print(f"{counted(args.matches, 'match', 'matches')} of {counted(args.rounds, 'round')} "
          f"per pair, rules {args.rules}, seed {args.seed}")
    print(f"{'A':>8s} {'B':>8s} {'A win rate [95% CI]':>24s} {'A score rate [95% CI]':>24s} "
          f"{'A pts/round':>12s} {'A moves/s':>10s} {'B moves/s':>10s} {'time':>6s}")
    for name_a, name_b in args.pairs:
        agent_a = make_agent(name_a, rule_set, seed=args.seed + 1)
        agent_b = make_agent(name_b, rule_set, seed=args.seed + 2)
        start = time.perf_counter()
        result = play_matches(agent_a, agent_b, args.matches, rule_set, args.seed, args.batch)
        seconds = time.perf_counter() - start
        result["seconds"] = seconds
        results.append(result)
        win, score, ppr = result["win_rate"], result["score_rate"], result["points_per_round"]
        speeds = [result[s]["moves_per_second"] or float("nan") for s in ("a", "b")]
        print(f"{name_a:>8s} {name_b:>8s} "
              f"{win['value']:8.3f} [{win['low']:.3f},{win['high']:.3f}] "
              f"{score['value']:8.3f} [{score['low']:.3f},{score['high']:.3f}] "
              f"{ppr['mean']:12.2f} {speeds[0]:10.0f} {speeds[1]:10.0f} {seconds:5.0f}s",
              flush=True)
    if args.json:
        atomic_write_json(args.json, results)
    return 0 if np.isfinite([r["win_rate"]["value"] for r in results]).all() else 1


if __name__ == "__main__":
    sys.exit(run_main(main))
