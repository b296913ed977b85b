"""Random legal play on the vectorized core: decisions/s and rounds/s per batch size.

    python benchmarks/bench_core.py [--seconds 3] [--batches 1 64 1024 8192]

Targets at batch 8192 on one core: >= 1,000,000 decisions/s, >= 50,000 rounds/s.
For scale, the same run also times a plain single-game Python reference (tests/reference.py)
when it is present, and prints the core's speed-up over it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from cli_args import (  # benchmarks/ on the path
    JoinLists,
    make_parser,
    positive_float,
    positive_int_list,
    run_main,
)

from hanafuda_env.core import KoiKoiCore


def bench_core(batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    core = KoiKoiCore(batch, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # warm up
        core.step(core.sample_legal_actions(rng))
    decisions = rounds = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(10):
            outcome = core.step(core.sample_legal_actions(rng))
            rounds += len(outcome.rounds)
        decisions += 10 * batch
    return decisions / elapsed, rounds / elapsed


def bench_reference(seconds: float) -> tuple[float, float] | None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    try:
        import reference  # type: ignore[import-not-found]
    except ImportError:
        return None
    import random

    from hanafuda_env.rules import NINTENDO

    game = reference.ReferenceGame(NINTENDO, seed=0)
    pick = random.Random(0)
    decisions = rounds = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        outcome = game.step(pick.choice(game.legal_actions()))
        rounds += len(outcome.rounds)
        decisions += 1
    return decisions / elapsed, rounds / elapsed


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--seconds", type=positive_float, default=3.0,
                        help="seconds to time each batch size (and the reference)")
    parser.add_argument("--batches", type=positive_int_list, nargs="+", action=JoinLists,
                        default=[1, 64, 1024, 8192],
                        help="batch sizes (games stepped together) to time")
    args = parser.parse_args()
    print(f"{'batch':>6} {'decisions/s':>14} {'rounds/s':>12}")
    results = {}
    for batch in args.batches:
        results[batch] = bench_core(batch, args.seconds)
        print(f"{batch:>6} {results[batch][0]:>14,.0f} {results[batch][1]:>12,.0f}")
    ref = bench_reference(args.seconds)
    if ref is not None:
        print(f"{'ref':>6} {ref[0]:>14,.0f} {ref[1]:>12,.0f}   (plain single-game reference)")
        top = max(args.batches)
        print(f"speed-up of batch {top} over the reference: "
              f"{results[top][0] / ref[0]:,.2f}x decisions/s")


if __name__ == "__main__":
    sys.exit(run_main(main))
