"""The compiled engine: random legal play per batch size, rollouts inside the kernel, the
cost of a decision against its floor, the first compile.

    python benchmarks/bench_core.py [--seconds 3] [--batches 1 64 1024 8192]

Every rate is per CPU-second of this process (``time.process_time``: other jobs on the
machine count less), with its nanoseconds per decision. Targets (one core): batch 8192
through ``KoiKoiCore.step`` with every round's result row >= 15M decisions/s, about 100x the
plain reference ``tests/reference.py`` timed in the same run; ``KoiKoiCore(1).step`` >= 300k;
in-kernel rollouts to the round's end >= 25M (random), and the cheap ``fast`` policy >= 1M
(with the expert's and fast's ratios to greedy's, for search bots). The floor lines time
:mod:`floor_loop`'s loop (a random legal card and the turn's card moves, no scoring) on fresh
deals and each kernel rollout policy on the same deals: what the rules cost per decision
above what no engine can skip. The cold-cache line times (wall clock) a fresh process that
compiles the kernel into an empty Numba cache (what a new machine pays once).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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
from floor_loop import floor_ns, fresh_deals, rollout_ns

from hanafuda_env.koikoi.batch import POLICIES
from hanafuda_env.koikoi.core import KoiKoiCore

ROOT = Path(__file__).resolve().parent.parent


def bench_core(batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Random play stepped from Python, results tabled: (decisions/s, rounds/s)."""
    core = KoiKoiCore(batch, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # warm up
        core.step(core.sample_legal_actions(rng))
    decisions = rounds = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        for _ in range(10):
            outcome = core.step(core.sample_legal_actions(rng))
            rounds += len(outcome.rounds)
        decisions += 10 * batch
    return decisions / elapsed, rounds / elapsed


def bench_rollouts(copies: int, seconds: float, policy: str, seed: int = 0) -> float:
    """Decisions/s of in-kernel rollouts of ``copies`` forks of one game to its round's end."""
    source = KoiKoiCore(1, seed=seed, autoreset=False)
    source.fork(0, copies).rollout(policy, "round", seed=0)  # compiles, if the cache is cold
    decisions = 0
    start = time.process_time()
    k = 0
    while (elapsed := time.process_time() - start) < seconds:
        worlds = source.fork(0, copies)
        decisions += int(worlds.rollout(policy, "round", seed=k)[1].sum())
        k += 1
    return decisions / elapsed


def bench_reference(seconds: float) -> tuple[float, float] | None:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import reference  # type: ignore[import-not-found]
    except ImportError:
        return None
    import random

    from hanafuda_env.koikoi.rules import NINTENDO

    game = reference.ReferenceGame(NINTENDO, seed=0)
    pick = random.Random(0)
    decisions = rounds = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        outcome = game.step(pick.choice(game.legal_actions()))
        rounds += len(outcome.rounds)
        decisions += 1
    return decisions / elapsed, rounds / elapsed


COLD = ("from hanafuda_env.koikoi.core import KoiKoiCore; import numpy as np; "
        "c = KoiKoiCore(2, seed=0); "
        "c.step(c.sample_legal_actions(np.random.default_rng(0))); c.rollout('greedy'); "
        "from hanafuda_env.koikoi.observation import encode_observations; encode_observations(c)")


def cold_compile_seconds() -> float:
    """Seconds a fresh process takes to import, compile into an empty cache and play."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", COLD], check=True, env=env, cwd=ROOT)
        return time.perf_counter() - start


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--seconds", type=positive_float, default=3.0,
                        help="seconds to time each figure")
    parser.add_argument("--batches", type=positive_int_list, nargs="+", action=JoinLists,
                        default=[1, 64, 1024, 8192],
                        help="batch sizes (games stepped together) to time")
    parser.add_argument("--skip-cold", action="store_true",
                        help="do not time the compile into an empty cache")
    args = parser.parse_args()
    print(f"{'batch':>6} {'decisions/s':>14} {'ns/decision':>12} {'rounds/s':>12}   "
          f"KoiKoiCore.step, random play")
    results = {}
    for batch in args.batches:
        results[batch] = bench_core(batch, args.seconds)
        print(f"{batch:>6} {results[batch][0]:>14,.0f} {1e9 / results[batch][0]:>12,.1f} "
              f"{results[batch][1]:>12,.0f}")
    ref = bench_reference(args.seconds)
    if ref is not None:
        print(f"{'ref':>6} {ref[0]:>14,.0f} {1e9 / ref[0]:>12,.1f} {ref[1]:>12,.0f}   "
              f"(plain single-game reference)")
        top = max(args.batches)
        print(f"speed-up of batch {top} over the reference: "
              f"{results[top][0] / ref[0]:,.1f}x decisions/s")
    rates = {}
    for policy in ("random", "greedy", "expert", "fast"):
        for copies in (1, 1024):
            rates[policy, copies] = rate = bench_rollouts(copies, args.seconds, policy)
            print(f"rollout to the round's end, {policy:>6}, {copies:>5} forks of one game: "
                  f"{rate:>12,.0f} decisions/s")
    for policy in ("expert", "fast"):
        print(f"{policy} rollouts over 1024 forks: "
              f"{rates[policy, 1024] / rates['greedy', 1024]:.3f} x the greedy policy's "
              f"decisions/s")
    deals = fresh_deals(1024)
    base = floor_ns(deals)
    print(f"floor loop (a random legal card and the turn's card moves, no scoring), 1024 fresh "
          f"deals: {base:.1f} ns/decision")
    for policy in POLICIES:
        ns = rollout_ns(deals, policy)
        print(f"kernel rollout, {policy:>6}, the same deals: {ns:>9,.1f} ns/decision "
              f"({1e9 / ns:>12,.0f}/s), {ns / base:.2f} x the floor")
    if ref is not None:
        top = max(args.batches)
        print(f"KoiKoiCore.step at batch {top}: {1e9 / results[top][0]:.1f} ns/decision, "
              f"{1e9 / results[top][0] / base:.2f} x the floor")
    if not args.skip_cold:
        print(f"first run with an empty Numba cache (import, compile, play): "
              f"{cold_compile_seconds():.1f} s")


if __name__ == "__main__":
    sys.exit(run_main(main))
