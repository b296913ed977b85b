"""The search bot (agents.bots.search) at several budgets: decisions/s and strength.

    python benchmarks/bench_search_bot.py [--worlds 64 256 1024] [--matches 200]
                                          [--opponent expert] [--rules nintendo]
                                          [--value points|match]
                                          [--rollout greedy|random|expert]

Each budget plays the same paired matches against the opponent (``play_matches``: the same
decks with seats swapped); the lines print the match-win rate with its 95 % interval, points
per round and the search's decisions per second (the opponent's time included).
"""

from __future__ import annotations

import sys
import time

from cli_args import JoinLists, make_parser, positive_int, positive_int_list, run_main

from agents.bots.registry import make_agent
from agents.bots.search import ROLLOUTS, SearchAgent
from agents.eval.matches import play_matches
from hanafuda_env.rules import resolve_rules


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--worlds", type=positive_int_list, nargs="+", action=JoinLists,
                        default=[64, 256, 1024], help="budgets: worlds per legal action")
    parser.add_argument("--matches", type=positive_int, default=200, help="matches per budget")
    parser.add_argument("--opponent", default="expert", help="agent spec of the opponent")
    parser.add_argument("--rules", default="nintendo", help="rule preset or YAML file")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the decks")
    parser.add_argument("--value", choices=("points", "match"), default="points",
                        help="what a world's round end is worth: its points or match-win value")
    parser.add_argument("--rollout", choices=ROLLOUTS, default="greedy",
                        help="the compiled policy that plays each world to the round's end")
    args = parser.parse_args()
    rules = resolve_rules(args.rules)
    print(f"search bot ({args.rollout} rollouts, value {args.value}) vs {args.opponent}, "
          f"{rules.name}, {args.matches} matches of {rules.rounds} rounds")
    print(f"{'worlds':>7} {'win rate':>8} {'95% interval':>16} {'points/round':>13} "
          f"{'decisions/s':>12}")
    for worlds in args.worlds:
        agent = SearchAgent(rules, seed=0, worlds=worlds, rollout=args.rollout,
                            value=args.value)
        opponent = make_agent(args.opponent, rules, seed=1)
        start = time.perf_counter()
        result = play_matches(agent, opponent, args.matches, rules, seed=args.seed,
                              batch=args.matches)
        elapsed = time.perf_counter() - start
        rate = result["win_rate"]
        print(f"{worlds:>7} {rate['value']:>8.3f} [{rate['low']:.3f}, {rate['high']:.3f}] "
              f"{result['points_per_round']['mean']:>+13.2f} "
              f"{result['a']['moves'] / elapsed:>12,.0f}")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(run_main(main))
