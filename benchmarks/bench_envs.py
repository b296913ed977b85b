"""Environment speed: PettingZoo AEC random play on one game, batched self-play step+encode.

    python benchmarks/bench_envs.py [--seconds 2] [--repeats 3] [--batches 1 64 1024 8192]
                                    [--aec-only]

Targets: AEC random play >= 60,000 steps/s for one game with ``koikoi_v0.env()``, the env
users get (PettingZoo's stock wrappers; the loop of PettingZoo's ``performance_benchmark``:
``last()``, a random legal action from the mask, ``step()``, reset when everyone is done), and
``KoiKoiVectorEnv.step`` (core step, observation of the seat to move, mask, reward routing)
>= 5,000,000 decisions/s at batch 8192. ``env()`` and ``raw_env()`` are set against the bare
``KoiKoiGame`` doing what any step must (encode, mask, step), measured in the same repeat;
the vector figures time ``step`` alone (the random actions are drawn outside the clock)
against the bare ``KoiKoiCore.step``. Each figure is the median of ``--repeats`` runs, each
ratio the median of the ratios within a repeat: shared machines are noisy, and a ratio moves
less than a rate.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import numpy as np
from cli_args import (
    JoinLists,
    make_parser,
    positive_float,
    positive_int,
    positive_int_list,
    run_main,
    seed_int,
)

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import encode_game


def bench_aec(make, seconds: float, seed: int) -> float:
    """Steps per second of PettingZoo-style random play."""
    env = make()
    env.reset(seed=seed)
    choice = random.Random(seed).choice
    steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(500):
            for _agent in env.agent_iter(env.num_agents):
                obs, _, term, trunc, _ = env.last()
                action = None if term or trunc else choice(
                    np.flatnonzero(obs["action_mask"]).tolist())
                env.step(action)
                steps += 1
                if all(env.terminations.values()) or all(env.truncations.values()):
                    env.reset()
    return steps / elapsed


def bench_game_floor(seconds: float, seed: int) -> float:
    """The same random play on a bare KoiKoiGame, doing what any AEC step must: encode the
    mover's observation, build its mask, pick from it, step (the game deals on by itself)."""
    game = KoiKoiGame(seed=seed)
    choice = random.Random(seed).choice
    steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(1000):
            encode_game(game, game.mover)
            game.step(choice(np.flatnonzero(game.legal_action_mask()).tolist()))
        steps += 1000
    return steps / elapsed


def bench_batch(step, sample, n: int, seconds: float) -> float:
    """Decisions per second of ``step`` alone (actions drawn outside the clock)."""
    decisions, clock = 0, 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or decisions == 0:
        actions = sample()
        start = time.perf_counter()
        step(actions)
        clock += time.perf_counter() - start
        decisions += n
    return decisions / clock


def bench_vector(n: int, seconds: float, seed: int) -> tuple[float, float]:
    env = KoiKoiVectorEnv(n, seed=seed)
    env.reset()
    core = KoiKoiCore(n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # warm up past the fresh deals
        env.step(env.core.sample_legal_actions(rng))
        core.step(core.sample_legal_actions(rng))
    vector = bench_batch(env.step, lambda: env.core.sample_legal_actions(rng), n, seconds)
    bare = bench_batch(core.step, lambda: core.sample_legal_actions(rng), n, seconds)
    return vector, bare


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--seconds", type=positive_float, default=2.0,
                        help="seconds per measurement")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs per figure (the median is printed)")
    parser.add_argument("--batches", type=positive_int_list, nargs="+", action=JoinLists,
                        default=[1, 64, 1024, 8192],
                        help="batch sizes of the vector env to time")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of deals and actions")
    parser.add_argument("--aec-only", action="store_true", help="skip the batched figures")
    args = parser.parse_args()

    print(f"AEC random play, one game (median of {args.repeats} x {args.seconds:g} s; the "
          f"ratio is taken within each repeat)")
    makers = {"koikoi_v0.env()": koikoi_v0.env, "koikoi_v0.raw_env()": koikoi_v0.raw_env}
    runs = [(bench_game_floor(args.seconds, args.seed),
             *(bench_aec(make, args.seconds, args.seed) for make in makers.values()))
            for _ in range(args.repeats)]
    floor = statistics.median(r[0] for r in runs)
    print(f"  {'bare KoiKoiGame floor':<22} {floor:>12,.0f} steps/s   (encode + mask + step)")
    for i, name in enumerate(makers, start=1):
        rate = statistics.median(r[i] for r in runs)
        ratio = statistics.median(r[i] / r[0] for r in runs)
        note = f"   target >= 60,000: {'met' if rate >= 60_000 else 'NOT met'}" if i == 1 else ""
        print(f"  {name:<22} {rate:>12,.0f} steps/s   {ratio:.2f} of the floor{note}")
    wrapped = statistics.median(r[1] / r[2] for r in runs)
    print(f"  {'env() / raw_env()':<22} {wrapped:>12.2f}           (the order checks' cost)")
    if args.aec_only:
        return
    print("KoiKoiVectorEnv.step (core step + encode + mask) vs bare KoiKoiCore.step")
    print(f"  {'batch':>6} {'env decisions/s':>18} {'core decisions/s':>18} {'env/core':>9}")
    for n in args.batches:
        runs = [bench_vector(n, args.seconds, args.seed) for _ in range(args.repeats)]
        vector = statistics.median(r[0] for r in runs)
        bare = statistics.median(r[1] for r in runs)
        ratio = statistics.median(r[0] / r[1] for r in runs)
        note = "   (target >= 5,000,000)" if n == 8192 else ""
        print(f"  {n:>6} {vector:>18,.0f} {bare:>18,.0f} {ratio:>9.2f}{note}")


if __name__ == "__main__":
    sys.exit(run_main(main))
