"""Networks against their teacher: agreement with the expert by phase, then matches.

    python benchmarks/bench_imitation.py [--bots ppo,runs/<run>/checkpoints/best.pt]
                                         [--decisions 50000] [--matches 2000]
                                         [--opponent expert] [--labels 2048]
                                         [--worlds 64] [--rollout fast]
                                         [--confidence 2]

For each bot: its agreement with the expert on ``--decisions`` held-out expert decisions
(games of their own seed): ``plain`` (the expert's very move), ``tie-aware`` (a move the
expert rates exactly as good as its own), the same at decisions with a choice, and
tie-aware per phase (play, choose-played, choose-drawn, koikoi-or-stop); then its win rate
over ``--matches`` paired matches against ``--opponent`` with the 95 % interval, points
per round and seconds per match (both players' time, the matches side by side).
``--labels N`` also times the search labels (:mod:`agents.train.search_labels`) of N
decisions: labels per second, per CPU-second, and the share where the search overrode
the expert.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from cli_args import (
    agent_list,
    agent_spec,
    make_parser,
    non_negative_int,
    positive_float,
    positive_int,
    run_main,
)

from agents.bots.registry import make_agent
from agents.bots.search import ROLLOUTS
from agents.eval.matches import play_matches
from agents.train.imitation import agreement, collect_expert_decisions
from agents.train.search_labels import search_labels
from hanafuda_env.koikoi.rules import resolve_rules
from hanafuda_env.koikoi.state import N_DECISION_PHASES, PHASE_NAMES


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--bots", type=agent_list, default=["ppo"],
                        help="comma-separated bots: baselines or checkpoint files")
    parser.add_argument("--decisions", type=positive_int, default=50_000,
                        help="held-out expert decisions for agreement")
    parser.add_argument("--matches", type=non_negative_int, default=2000,
                        help="paired matches per bot against the opponent (0: none)")
    parser.add_argument("--opponent", type=agent_spec, default="expert",
                        help="the bots' opponent in the matches")
    parser.add_argument("--rules", default="nintendo", help="rule preset or YAML file")
    parser.add_argument("--seed", type=int, default=2027, help="seed of the games and decks")
    parser.add_argument("--labels", type=non_negative_int, default=0,
                        help="also time the search labels of this many decisions")
    parser.add_argument("--worlds", type=positive_int, default=64,
                        help="the labelling search's worlds per legal move")
    parser.add_argument("--rollout", choices=ROLLOUTS, default="fast",
                        help="the labelling search's rollouts")
    parser.add_argument("--confidence", type=positive_float, default=2.0,
                        help="standard errors the search's move must gain over the expert's")
    args = parser.parse_args()
    rules = resolve_rules(args.rules)
    held = collect_expert_decisions(rules, args.decisions, seed=args.seed)
    phases = [f"phase/{name}" for name in PHASE_NAMES[:N_DECISION_PHASES]]
    print(f"agreement with the expert on {args.decisions:,} held-out decisions, {rules.name}")
    print(f"{'bot':<34} {'plain':>6} {'tie-aware':>9} {'choice':>7} "
          + " ".join(f"{name.split('/')[1]:>13}" for name in phases))
    agents = {}
    for spec in args.bots:
        agent = agents[spec] = make_agent(spec, rules, seed=0)
        result = agreement(_act_in_batches(agent, held), held)
        print(f"{spec[-34:]:<34} {result['plain']:>6.3f} {result['tie_aware']:>9.3f} "
              f"{result['choice']:>7.3f} "
              + " ".join(f"{result.get(name, float('nan')):>13.3f}" for name in phases))
        sys.stdout.flush()
    if args.matches:
        print(f"\nagainst {args.opponent}: {args.matches} paired matches of {rules.rounds} "
              f"rounds")
        print(f"{'bot':<34} {'win rate':>8} {'95% interval':>16} {'points/round':>13} "
              f"{'s/match':>8}")
        for spec, agent in agents.items():
            start = time.perf_counter()
            result = play_matches(agent, make_agent(args.opponent, rules, seed=1), args.matches,
                                  rules, seed=args.seed)
            per_match = (time.perf_counter() - start) / args.matches
            rate = result["win_rate"]
            print(f"{spec[-34:]:<34} {rate['value']:>8.3f} [{rate['low']:.3f}, "
                  f"{rate['high']:.3f}] {result['points_per_round']['mean']:>+13.2f} "
                  f"{per_match:>8.3f}")
            sys.stdout.flush()
    if args.labels:
        data = collect_expert_decisions(rules, args.labels, seed=args.seed + 1)
        wall, cpu = time.perf_counter(), time.process_time()
        labels = search_labels(data, rules, args.worlds, args.rollout, args.confidence,
                               seed=args.seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"\nsearch labels ({args.worlds} worlds, {args.rollout} rollouts): "
              f"{args.labels / wall:,.0f} per second, {args.labels / cpu:,.0f} per "
              f"CPU-second; the search overrode the expert at "
              f"{labels['overridden'].mean():.1%} of the decisions")


def _act_in_batches(agent, held: dict[str, np.ndarray], batch: int = 4096) -> np.ndarray:
    return np.concatenate([agent.act(held["obs"][s:s + batch], held["mask"][s:s + batch])
                           for s in range(0, len(held["obs"]), batch)])


if __name__ == "__main__":
    sys.exit(run_main(main))
