"""How far are a policy's card moves from the best one-step improvement of its own play?

    python benchmarks/bench_search.py                                  # the expert, 200 points
    python benchmarks/bench_search.py --policy runs/<run>/checkpoints/latest.pt
    python benchmarks/bench_search.py --states 400 --search-worlds 128 --modes resampled

Card decisions (play a card, or take one of two field cards) are sampled from the policy's
self-play. At each, a *search* values every legal move by ``--search-worlds`` rollouts
(:mod:`agents.analysis.action_values`: the move, then the policy on both seats to the round's end)
and picks the best; a *judge* values the moves again on ``--judge-worlds`` other worlds.
Printed per mode, in round points per decision, with 95 % intervals:

* ``search - policy``: the judge's value of the search's pick minus that of the policy's own
  move. Positive: one step of search would improve on the policy; negative: the search's
  sampling noise costs more than it finds.
* ``shortfall``: the judge's best value minus the policy's move (an upper bound on what
  a perfect one-step search could gain: the judge's maximum is biased upwards by its noise).

Modes say what the worlds know of the hidden cards: ``resampled`` (fair: opponent hand and
stock reshuffled), ``hand_known`` (only the stock reshuffled: the value of seeing the
opponent's hand), ``true`` (both kept: one world already says everything; cheating).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from cli_args import (
    agent_spec,
    make_parser,
    positive_int,
    rule_spec,
    run_main,
    seed_int,
    usage_errors,
)

from agents.analysis.action_values import estimate_action_values
from agents.analysis.koikoi_value import MODES, stack_cores
from agents.bots.base import AgentLike
from agents.bots.registry import make_agent
from hanafuda_env.koikoi.core import DECIDE, KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.rules import resolve_rules
from hanafuda_env.render.text import counted


def make_arg_parser() -> argparse.ArgumentParser:
    parser = make_parser(__doc__)
    parser.add_argument("--policy", type=agent_spec, default="expert",
                        help="baseline name or checkpoint path (plays and rolls out)")
    parser.add_argument("--rules", type=rule_spec, default="nintendo",
                        help="rule preset name or YAML file")
    parser.add_argument("--states", type=positive_int, default=200,
                        help="card decisions sampled")
    parser.add_argument("--search-worlds", type=positive_int, default=64,
                        help="rollout worlds the search values each move on")
    parser.add_argument("--judge-worlds", type=positive_int, default=256,
                        help="other rollout worlds the judge values each move on")
    parser.add_argument("--modes", nargs="+", default=["resampled", "hand_known"],
                        choices=MODES, help="what the worlds know of the hidden cards")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of play and worlds")
    return parser


def sample_card_decisions(policy: AgentLike, n_points: int, rules, seed: int) -> KoiKoiCore:
    """``n_points`` positions with a card decision of more than one legal move, taken now
    and then from the policy's self-play (all stages of a round, several rounds)."""
    n_games = max(32, n_points // 2)
    core = KoiKoiCore(n_games, rules, seed=seed)
    rng = np.random.default_rng(seed)
    picked: list[KoiKoiCore] = []
    found = 0
    while found < n_points:
        mask = core.legal_action_mask()
        eligible = (core.phase != DECIDE) & (mask.sum(axis=1) > 1)
        take = np.flatnonzero(eligible & (rng.random(n_games) < 0.03))[:n_points - found]
        if len(take):
            picked.append(core.fork(take))
            found += len(take)
        core.step(policy.act(encode_observations(core), mask))
    return stack_cores(picked)


def interval(diff: np.ndarray) -> str:
    if len(diff) < 2:
        return f"{diff.mean():+.3f} (no interval)"  # one decision has no spread to measure
    return f"{diff.mean():+.3f} ± {1.96 * diff.std(ddof=1) / np.sqrt(len(diff)):.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = make_arg_parser()
    args = parser.parse_args(argv)
    with usage_errors(parser):  # e.g. a checkpoint for other rules or not a checkpoint
        rules = resolve_rules(args.rules)
        policy = make_agent(args.policy, rules, seed=args.seed)
    points = sample_card_decisions(policy, args.states, rules, args.seed)
    games = np.arange(points.n_games)
    mask = points.legal_action_mask()
    chosen = policy.act(encode_observations(points), mask)
    n_moves = mask.sum(axis=1).mean()
    print(f"policy {args.policy}: {counted(points.n_games, 'card decision')} ({n_moves:.1f} "
          f"legal moves each); search {counted(args.search_worlds, 'world')}, judged on "
          f"{args.judge_worlds} other{'' if args.judge_worlds == 1 else 's'}")
    print(f"{'mode':<11} {'search - policy':>17} {'shortfall':>10} {'agree':>6} {'time':>6}")
    for mode in args.modes:
        start = time.perf_counter()
        search = estimate_action_values(points, games, policy, args.search_worlds, mode,
                                        seed=args.seed + 1)
        judge = estimate_action_values(points, games, policy, args.judge_worlds, mode,
                                       seed=args.seed + 2)
        picked = search.best()
        own = judge.value_of(chosen)
        best = judge.value_of(judge.best())
        print(f"{mode:<11} {interval(judge.value_of(picked) - own):>17} "
              f"{(best - own).mean():>10.3f} {(picked == chosen).mean():>6.0%} "
              f"{time.perf_counter() - start:>5.0f}s", flush=True)


if __name__ == "__main__":
    sys.exit(run_main(main))
