"""Where the time of each speed target goes: the profiles behind the figures of the other
benchmarks.

    python benchmarks/profile_speed.py [--paths core core1 game aec vector expert] [--top 8]

``core``, ``game``, ``aec`` and ``vector`` run their benchmark's loop (random legal play:
``KoiKoiCore.step`` at batch 8192, ``KoiKoiGame.step``, ``koikoi_v0.env()``,
``KoiKoiVectorEnv.step`` at 8192) under cProfile and print each function's own time, split
into calls of compiled kernel functions (Numba dispatchers: the rules themselves), NumPy and
Python (the wrappers around them). ``vector`` also times a plain fill of the observation
array: what writing the observation bytes costs before any encoding. ``expert`` times the
compiled expert on views grouped by how many candidate outcomes a decision has, since its
race model values each outcome in its own lane: the cost per decision against the outcomes.
``core1`` splits one ``KoiKoiCore(1).step`` call into the random draw, the dispatch of its
kernels and its outcome's arrays (microseconds per call): the per-call overhead that bounds
batch 1. cProfile adds a fixed cost to every Python call, so the Python share reads high;
the split says which part a target waits on.
"""

from __future__ import annotations

import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from cli_args import JoinLists, make_parser, positive_int, run_main
from numba.core.registry import CPUDispatcher

from agents.bots.expert import ExpertAgent
from hanafuda_env.common.results import MatchResults, RoundResults, StepOutcome
from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi import loops as L
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.expert import kernel as K
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import OBS_DIM, encode_observations
from hanafuda_env.koikoi.state import ROUND_OVER

PATHS = ("core", "core1", "game", "aec", "vector", "expert")
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("hanafuda_env", "agents")


def _kind(filename: str, name: str) -> str:
    """'compiled' for a Numba dispatcher of the project, 'numpy', or 'python'."""
    path = Path(filename)
    if path.is_relative_to(ROOT) and path.relative_to(ROOT).parts[0] in PACKAGES:
        module = sys.modules.get(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if isinstance(getattr(module, name, None), CPUDispatcher):
            return "compiled"
    if "numpy" in filename or name.startswith("<method") or "numpy" in name:
        return "numpy"
    return "python"


def profile(label: str, run: Callable[[], int], top: int) -> None:
    """Run once to warm up, then under cProfile; print the split and the top functions."""
    run()
    profiler = cProfile.Profile()
    profiler.enable()
    decisions = run()
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    rows = sorted(((tottime, _kind(file, name), f"{Path(file).name}:{line}({name})")
                   for (file, line, name), (_, _, tottime, _, _) in stats.items()),
                  reverse=True)
    total = sum(r[0] for r in rows)
    shares = {kind: sum(r[0] for r in rows if r[1] == kind) / total
              for kind in ("compiled", "numpy", "python")}
    print(f"\n{label}: {decisions:,} decisions in {total:.2f} s under the profiler; "
          + ", ".join(f"{kind} {share:.0%}" for kind, share in shares.items()))
    for tottime, kind, where in rows[:top]:
        print(f"  {tottime / total:6.1%}  {kind:>8}  {where}")


def core_run(batch: int = 8192, steps: int = 100) -> Callable[[], int]:
    core, rng = KoiKoiCore(batch, seed=0), np.random.default_rng(0)

    def run() -> int:
        for _ in range(steps):
            core.step(core.sample_legal_actions(rng))
        return batch * steps
    return run


def game_run(steps: int = 20000) -> Callable[[], int]:
    game, choice = KoiKoiGame(seed=0), random.Random(0).choice

    def run() -> int:
        for _ in range(steps):
            game.step(choice(game.legal_actions()))
        return steps
    return run


def aec_run(steps: int = 20000) -> Callable[[], int]:
    env, choice = koikoi_v0.env(), random.Random(0).choice
    env.reset(seed=0)

    def run() -> int:
        for _ in range(steps):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else
                     choice(np.flatnonzero(obs["action_mask"]).tolist()))
            if not env.agents:
                env.reset()
        return steps
    return run


def vector_run(batch: int = 8192, steps: int = 60) -> Callable[[], int]:
    env, rng = KoiKoiVectorEnv(batch, seed=0), np.random.default_rng(0)
    env.reset()

    def run() -> int:
        for _ in range(steps):
            env.step(env.core.sample_legal_actions(rng))
        return batch * steps
    return run


def core_one_split(repeats: int = 50000) -> None:
    """``KoiKoiCore(1).step`` with its random action, split into what a call pays beside the
    move: the random draw, the action's kernel, the dispatcher typing and unboxing the
    step kernel's twelve arguments (timed on a waiting game, which makes no move) and the
    outcome's fresh arrays. Process-time microseconds per call."""
    core, rng = KoiKoiCore(1, seed=0), np.random.default_rng(0)
    waiting = KoiKoiCore(1, seed=0, autoreset=False)
    waiting.records["phase"] = ROUND_OVER
    wait, c = np.full(1, -1, dtype=np.int64), waiting._compiled
    draw = rng.random(1)
    empty = (RoundResults.empty(core.yaku_names), MatchResults.concat([]))
    parts = {
        "step + sample_legal_actions (the benchmark)":
            lambda: core.step(core.sample_legal_actions(rng)),
        "sample_legal_actions": lambda: core.sample_legal_actions(rng),
        "  of which the random draw (rng.random(1))": lambda: rng.random(1),
        "  of which the sampling kernel's call": lambda: L.sample_actions(
            core.records, draw, wait.copy()),
        "step kernel's call without a move (dispatch of 12 arguments)": lambda: L.step_games(
            waiting.records, wait, *c.ctx, waiting._rows, waiting._row_games,
            waiting._n_results, 3, False, True),
        "a step's outcome without rows (3 arrays and the record)": lambda: StepOutcome(
            np.zeros((1, 2), dtype=np.int32), np.zeros(1, dtype=bool),
            np.zeros(1, dtype=bool), *empty),
        "a finished round's tables (once a round, about 1 step in 15)": lambda: core._tables(
            [(np.zeros(1, dtype=np.int64), core._rows[:1].copy())]),
    }
    print("\nKoiKoiCore(1).step, random play: microseconds per call (process time)")
    for label, call in parts.items():
        print(f"  {seconds_per_call(call, repeats) * 1e6:7.2f}  {label}")


def seconds_per_call(call: Callable[[], object], repeats: int = 30) -> float:
    call()
    start = time.process_time()
    for _ in range(repeats):
        call()
    return (time.process_time() - start) / repeats


def observation_bytes(batch: int = 8192) -> None:
    """The encoder against a bare fill of the same array, per step of ``batch`` games."""
    core, rng = KoiKoiCore(batch, seed=0), np.random.default_rng(0)
    for _ in range(20):
        core.step(core.sample_legal_actions(rng))
    out = np.empty((batch, OBS_DIM), dtype=np.float32)
    encode = seconds_per_call(lambda: encode_observations(core, out=out))
    fill = seconds_per_call(lambda: out.fill(0.0))
    step = seconds_per_call(lambda: core.step(core.sample_legal_actions(rng)))
    print(f"  per step of {batch} games: core step {step * 1e3:.2f} ms, encoding "
          f"{encode * 1e3:.2f} ms, a bare fill of the {out.nbytes / 2**20:.1f} MiB observation "
          f"array {fill * 1e3:.2f} ms ({fill / encode:.0%} of the encoding)")


def expert_by_outcomes(games: int = 256, turns: int = 60) -> None:
    """The compiled expert's CPU time per decision by the decision's candidate outcomes."""
    core, agent = KoiKoiCore(games, seed=1), ExpertAgent(seed=0)
    observations, masks = [], []
    for _ in range(turns):
        obs, mask = encode_observations(core), core.legal_action_mask()
        observations.append(obs)
        masks.append(mask)
        core.step(agent.act(obs, mask))
    obs, mask = np.concatenate(observations), np.concatenate(masks)
    expert = K.expert_rules(agent.rules)
    vu = np.empty((len(obs), K.N_VU), dtype=np.uint64)
    vi = np.empty((len(obs), K.N_VI), dtype=np.int64)
    K.views_from_observations(obs, expert.score_unit, expert.rounds, vu, vi)
    starts = np.empty((len(obs), 2), dtype=np.int64)
    total = K.count_outcomes(vu, mask, starts)  # starts: running counts of both kinds
    first = np.diff(np.append(starts[:, 0], starts[0, 1]))
    second = np.diff(np.append(starts[:, 1], total))
    outcomes = first + second
    scratch, weights = K.new_scratch(expert), K.weights_of()
    print(f"\nexpert, compiled, on {len(obs):,} views of expert self-play (CPU time; a koi-koi "
          f"decision values one outcome)")
    print(f"  {'outcomes':>8} {'views':>7} {'µs/decision':>12}")
    for n in np.unique(outcomes):
        rows = np.flatnonzero(outcomes == n)
        sub = [np.ascontiguousarray(a[rows]) for a in (vu, vi, mask)]
        sub_starts = np.empty((len(rows), 2), dtype=np.int64)
        n_noise = K.count_outcomes(sub[0], sub[2], sub_starts)
        noise = np.random.default_rng(0).random(max(n_noise, 1))
        actions = np.empty(len(rows), dtype=np.int64)

        def act(sub=sub, sub_starts=sub_starts, noise=noise, actions=actions) -> None:
            K.act_on_views(*sub, sub_starts, noise, weights, *expert.arrays, scratch, actions)
        print(f"  {n:>8} {len(rows):>7} {seconds_per_call(act, 5) / len(rows) * 1e6:>12.2f}")


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--paths", nargs="+", action=JoinLists, default=list(PATHS),
                        type=lambda text: [p for p in text.split(",") if p],
                        help=f"what to profile, of {', '.join(PATHS)}")
    parser.add_argument("--top", type=positive_int, default=8, help="functions listed per path")
    args = parser.parse_args()
    unknown = sorted(set(args.paths) - set(PATHS))
    if unknown:
        parser.error(f"unknown path {unknown[0]!r}; paths: {', '.join(PATHS)}")
    runs = {"core": ("KoiKoiCore.step, batch 8192, random play", core_run),
            "game": ("KoiKoiGame.step, one game, random play", game_run),
            "aec": ("koikoi_v0.env(), one game, random play", aec_run),
            "vector": ("KoiKoiVectorEnv.step, batch 8192, random play", vector_run)}
    for path in args.paths:
        if path == "expert":
            expert_by_outcomes()
            continue
        if path == "core1":
            core_one_split()
            continue
        label, make = runs[path]
        profile(label, make(), args.top)
        if path == "vector":
            observation_bytes()


if __name__ == "__main__":
    sys.exit(run_main(main))
