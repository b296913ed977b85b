"""The search bots (agents.bots.search, agents.bots.ismcts) at several budgets: decisions/s and
strength.

    python benchmarks/bench_search_bot.py [--bot search|netsearch|ismcts]
                                          [--budgets 64 256 1024] [--depth 4]
                                          [--matches 200] [--opponent expert]
                                          [--rules nintendo] [--value points|match]
                                          [--rollout greedy|random|expert|fast]
                                          [--confidence Z] [--prior expert|none]
                                          [--evaluator VALUE.pt]

The budget is ``worlds`` (rollouts per legal action) for ``search`` and ``iterations``
(rollouts per decision) for ``ismcts``. ``--confidence Z`` (1 by default; ``none``: ungated)
makes ``search`` play its rollout policy's move unless another's paired advantage exceeds Z
standard errors; ``ismcts`` has the expert as its PUCT prior unless ``--prior none`` (plain
UCB1). ``netsearch`` is the search with the shipped value network judging rollouts cut after
``--depth`` moves (``--evaluator``: another value network's checkpoint) and the
``distilled`` network's move as the one its gate keeps. Each
budget plays the same paired matches against the opponent (``play_matches``: the same decks
with seats swapped); the lines print the match-win rate with its 95 % interval, points per
round, the search's decisions per second (the opponent's time included) and the seconds a
match took (the matches are played side by side).
"""

from __future__ import annotations

import argparse
import sys
import time

from cli_args import JoinLists, make_parser, positive_int, positive_int_list, run_main

from agents.bots.ismcts import ISMCTSAgent
from agents.bots.registry import NETSEARCH_DEPTH, make_agent, netsearch_agent
from agents.bots.search import ROLLOUTS, VALUES, SearchAgent
from agents.eval.matches import play_matches
from hanafuda_env.koikoi.rules import resolve_rules


def _confidence(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0 or 'none', got {text!r}")
    return value


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--bot", choices=("search", "netsearch", "ismcts"), default="search",
                        help="the flat search over every move, the same with a value "
                             "network judging truncated rollouts, or the tree search")
    parser.add_argument("--depth", type=positive_int, default=NETSEARCH_DEPTH,
                        help="netsearch: moves a rollout plays before the value network")
    parser.add_argument("--budgets", "--worlds", type=positive_int_list, nargs="+",
                        action=JoinLists, default=[64, 256, 1024],
                        help="worlds per legal action (search) or iterations (ismcts)")
    parser.add_argument("--matches", type=positive_int, default=200, help="matches per budget")
    parser.add_argument("--opponent", default="expert", help="agent spec of the opponent")
    parser.add_argument("--rules", default="nintendo", help="rule preset or YAML file")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the decks")
    parser.add_argument("--value", choices=VALUES, default="match",
                        help="what a world's round end is worth: its match-win value or points")
    parser.add_argument("--rollout", choices=ROLLOUTS, default="expert",
                        help="the compiled policy that plays each world to the round's end")
    parser.add_argument("--confidence", type=_confidence, default=1.0,
                        help="search: the rollout policy's move unless another's paired "
                             "advantage exceeds this many standard errors; 'none': the best "
                             "mean")
    parser.add_argument("--prior", choices=("expert", "none"), default="expert",
                        help="ismcts: the expert as its PUCT prior, or none (plain UCB1)")
    parser.add_argument("--evaluator", default=None,
                        help="netsearch: the value network's checkpoint (default: the shipped "
                             "koikoi_value.pt)")
    args = parser.parse_args()
    if args.evaluator is not None and args.bot != "netsearch":
        parser.error("--evaluator is netsearch's value network; it needs --bot netsearch")
    rules = resolve_rules(args.rules)
    prior = "distilled" if args.bot == "netsearch" else args.prior
    depth = (f", depth {args.depth}, evaluator {args.evaluator or 'koikoi_value.pt'}"
             if args.bot == "netsearch" else "")
    print(f"{args.bot} bot ({args.rollout} rollouts{depth}, value {args.value}, confidence "
          f"{args.confidence}, prior {prior}) vs {args.opponent}, {rules.name}, "
          f"{args.matches} matches of {rules.rounds} rounds")
    print(f"{'budget':>7} {'win rate':>8} {'95% interval':>16} {'points/round':>13} "
          f"{'decisions/s':>12} {'s/match':>8}")
    for budget in args.budgets:
        if args.bot == "netsearch":
            agent = netsearch_agent(rules, seed=0, worlds=budget, depth=args.depth,
                                    rollout=args.rollout, confidence=args.confidence,
                                    evaluator=args.evaluator)
        elif args.bot == "search":
            agent = SearchAgent(rules, seed=0, worlds=budget, rollout=args.rollout,
                                value=args.value, confidence=args.confidence)
        else:
            agent = ISMCTSAgent(rules, seed=0, iterations=budget, rollout=args.rollout,
                                value=args.value, prior=None if args.prior == "none" else "expert")
        opponent = make_agent(args.opponent, rules, seed=1)
        start = time.perf_counter()
        result = play_matches(agent, opponent, args.matches, rules, seed=args.seed,
                              batch=args.matches)
        elapsed = time.perf_counter() - start
        rate = result["win_rate"]
        per_match = elapsed / args.matches  # both bots' time, the matches side by side
        print(f"{budget:>7} {rate['value']:>8.3f} [{rate['low']:.3f}, {rate['high']:.3f}] "
              f"{result['points_per_round']['mean']:>+13.2f} "
              f"{result['a']['moves'] / elapsed:>12,.0f} {per_match:>8.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(run_main(main))
