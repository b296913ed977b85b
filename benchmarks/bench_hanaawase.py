"""Hana-awase speed: random play through the core and in-kernel rollouts per player count,
the plain reference, the AEC env, and the bots.

    python benchmarks/bench_hanaawase.py [--seconds 3] [--batch 8192] [--players 3]

Target (one core): random play at N = 3, batch 8192, >= 10M decisions/s. The reference line
(``tests/hanaawase_reference.py``, one game in plain Python) is timed in the same run, and the
ratio printed against it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from cli_args import make_parser, positive_float, positive_int, run_main

from hanafuda_env.envs import hanaawase_v0
from hanafuda_env.hanaawase.core import HanaawaseCore

ROOT = Path(__file__).resolve().parent.parent


def bench_step(n: int, batch: int, seconds: float) -> float:
    """Decisions/s of random play stepped from Python (autoreset: rounds deal on)."""
    core = HanaawaseCore(batch, num_players=n, seed=0, autoreset=True)
    rng = np.random.default_rng(0)
    for _ in range(20):
        core.step(core.sample_legal_actions(rng))
    decisions, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(10):
            core.step(core.sample_legal_actions(rng))
        decisions += 10 * batch
    return decisions / elapsed


def bench_rollout(n: int, batch: int, seconds: float, policy: str) -> float:
    """Decisions/s of whole matches played inside the kernel."""
    core = HanaawaseCore(batch, num_players=n, seed=0)
    core.rollout(policy, "match", seed=0)
    decisions, spent, k = 0, 0.0, 1
    while spent < seconds:
        core.deal_next()
        start = time.perf_counter()
        decisions += core.rollout(policy, "match", seed=k)[1]
        spent += time.perf_counter() - start
        k += 1
    return decisions / spent


def bench_reference(n: int, seconds: float) -> float | None:
    sys.path.insert(0, str(ROOT))
    try:
        from tests.hanaawase_reference import RefRound
    except ImportError:  # an installed copy without the tests
        return None
    rng = np.random.default_rng(0)
    decisions, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        game = RefRound.deal(rng.permutation(48).tolist(), n, 0)
        while not game.over:
            legal = game.legal()
            game.play(legal[int(rng.integers(len(legal)))])
            decisions += 1
        game.score()
    return decisions / elapsed


def bench_aec(n: int, seconds: float) -> float:
    env = hanaawase_v0.env(num_players=n)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def play() -> int:
        """One step (1), or a reset after a match's end (0)."""
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.reset()
            return 0
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        return 1

    for _ in range(200):  # warm up: the first steps compile what a cold cache lacks
        play()
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += play()
    return steps / elapsed


def bench_bot(name: str, n: int, batch: int = 1024) -> float:
    from agents.bots.hanaawase import HANAAWASE_BOTS

    core = HanaawaseCore(batch, num_players=n, seed=0)
    bot = HANAAWASE_BOTS[name]({"num_players": n}, seed=0)
    obs, mask = core.observe(), core.legal_action_mask()
    start = time.perf_counter()
    bot.act(obs, mask)
    return batch / (time.perf_counter() - start)


def main() -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--seconds", type=positive_float, default=3.0,
                        help="time per measurement")
    parser.add_argument("--batch", type=positive_int, default=8192, help="games per batch")
    parser.add_argument("--players", type=positive_int, default=3,
                        help="players of the main measurements, 2..7 (the other counts get "
                             "one line each)")
    args = parser.parse_args()
    if not 2 <= args.players <= 7:
        parser.error(f"--players must be 2..7, got {args.players}")
    n, batch, seconds = args.players, args.batch, args.seconds
    step = bench_step(n, batch, seconds)
    print(f"N={n} random play, batch {batch}, core.step:      {step:>14,.0f} decisions/s")
    rollout = bench_rollout(n, batch, seconds, "random")
    print(f"N={n} random play, batch {batch}, kernel rollout: {rollout:>14,.0f} decisions/s "
          f"(target 10M)")
    greedy = bench_rollout(n, batch, seconds, "greedy")
    print(f"N={n} greedy play, batch {batch}, kernel rollout: {greedy:>14,.0f} decisions/s")
    reference = bench_reference(n, seconds)
    if reference is not None:
        print(f"plain reference (one game):                 {reference:>14,.0f} decisions/s; "
              f"core.step {step / reference:,.0f}x, rollout {rollout / reference:,.0f}x")
    print(f"hanaawase_v0.env() random play:             {bench_aec(n, seconds):>14,.0f} steps/s")
    for name in ("greedy", "expert"):
        print(f"{name} bot, batch 1024:                     "
              f"{bench_bot(name, n):>14,.0f} decisions/s")
    for players in range(2, 8):
        if players != n:
            print(f"N={players} random play, batch {batch}, core.step: "
                  f"{bench_step(players, batch, seconds / 3):>14,.0f} decisions/s")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
