"""Random legal play on ONE game: KoiKoiGame (Python ints) against KoiKoiCore(1) (NumPy).

    python benchmarks/bench_game.py [--seconds 2] [--repeats 3] [--rules nintendo]

Target (single-game engine): >= 100,000 decisions/s for KoiKoiGame, picking each action with
``random.choice(game.legal_actions())``. Also times ``encode_game`` per call against the batch
encoder on a one-game core. Each figure is the median of ``--repeats`` runs (shared machines
are noisy); the speed-up is taken from the same run.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import numpy as np
from cli_args import make_parser, positive_float, positive_int, rule_spec, run_main, seed_int

from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import OBS_DIM, encode_game, encode_observations


def bench_game(rules: str, seconds: float, seed: int) -> tuple[float, float, float]:
    """Decisions/s and rounds/s (wall clock), and decisions per CPU-second of this process
    (steadier than wall time when other jobs share the cores)."""
    game = KoiKoiGame(rules, seed=seed)
    choice = random.Random(seed).choice
    decisions = rounds = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(1000):
            outcome = game.step(choice(game.legal_actions()))
            if outcome.round_over:
                rounds += len(outcome.rounds)
        decisions += 1000
    cpu = time.process_time() - cpu_start
    return decisions / elapsed, rounds / elapsed, decisions / cpu


def bench_core(rules: str, seconds: float, seed: int) -> tuple[float, float]:
    core = KoiKoiCore(1, rules=rules, seed=seed)
    rng = np.random.default_rng(seed)
    decisions = rounds = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            rounds += len(core.step(core.sample_legal_actions(rng)).rounds)
        decisions += 100
    return decisions / elapsed, rounds / elapsed


def bench_encoders(rules: str, calls: int, seed: int) -> tuple[float, float, float]:
    """µs per call: encode_game, encode_observations on KoiKoiCore(1), legal_action_mask."""
    game = KoiKoiGame(rules, seed=seed)
    choice = random.Random(seed).choice
    states = []
    for _ in range(200):  # a spread of positions
        game.step(choice(game.legal_actions()))
        states.append(game.copy())
    out = np.empty(OBS_DIM, dtype=np.float32)
    start = time.perf_counter()
    for i in range(calls):
        encode_game(states[i % len(states)], i & 1, out)
    fast = (time.perf_counter() - start) / calls * 1e6
    core = game.to_core()
    start = time.perf_counter()
    for i in range(calls // 10):
        encode_observations(core, seats=i & 1)
    batch = (time.perf_counter() - start) / (calls // 10) * 1e6
    start = time.perf_counter()
    for i in range(calls):
        states[i % len(states)].legal_action_mask()
    mask = (time.perf_counter() - start) / calls * 1e6
    return fast, batch, mask


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--seconds", type=positive_float, default=2.0,
                        help="seconds per measurement")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs per figure (the median is printed)")
    parser.add_argument("--rules", type=rule_spec, default="nintendo",
                        help="rule preset name or YAML file")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of deals and actions")
    args = parser.parse_args()

    runs = []
    for r in range(args.repeats):
        game = bench_game(args.rules, args.seconds, args.seed + r)
        core = bench_core(args.rules, args.seconds / 2, args.seed + r)
        runs.append((game, core, game[0] / core[0]))
    game_dps = statistics.median(g[0] for g, _, _ in runs)
    game_rps = statistics.median(g[1] for g, _, _ in runs)
    core_dps = statistics.median(c[0] for _, c, _ in runs)
    core_rps = statistics.median(c[1] for _, c, _ in runs)
    ratio = statistics.median(x for _, _, x in runs)
    print(f"rules {args.rules}, one game, random legal play, median of {args.repeats}")
    game_cpu = statistics.median(g[2] for g, _, _ in runs)
    print(f"  KoiKoiGame      {game_dps:>12,.0f} decisions/s {game_rps:>10,.0f} rounds/s "
          f"({game_cpu:,.0f} decisions per CPU-second)")
    print(f"  KoiKoiCore(1)   {core_dps:>12,.0f} decisions/s {core_rps:>10,.0f} rounds/s")
    print(f"  speed-up        {ratio:>12.1f}x (same runs)")
    timings = [bench_encoders(args.rules, 20000, args.seed) for _ in range(args.repeats)]
    fast, batch, mask = (statistics.median(t[i] for t in timings) for i in range(3))
    print(f"  encode_game            {fast:7.2f} us/call")
    print(f"  encode_observations(1) {batch:7.2f} us/call ({batch / fast:.1f}x slower)")
    print(f"  legal_action_mask      {mask:7.2f} us/call")


if __name__ == "__main__":
    sys.exit(run_main(main))
