"""The learning loop's curve: each round's network alone and its search against the expert.

    python benchmarks/bench_loop.py --networks clone distilled looped
                                    [--matches 2000] [--search-matches 2000] [--seed 2026]
                                    [--first-round 0] [--log-dir runs/loop_curve]

Round 0 is the clone of the expert with the plain ``search`` bot (expert rollouts to the
round's end, the expert's move kept unless another beats it); each later round is the
network trained on that round's search labels (a shipped name or a run's checkpoint), with
``netsearch`` taking it as its prior (rollouts cut after 4 moves and judged by the shipped
value network). Each line prints the network's and the search's win rate over paired
matches against the expert (95 % intervals), points per round and seconds per match (both
players' time, the matches side by side). The same figures go to TensorBoard under
``--log-dir`` (``loop/network_win_rate``, ``loop/search_win_rate``, ... with the round as
the step). ``--search-matches 0`` plays the networks only (the searches take about 1 s a
match on one core); ``--first-round K`` numbers the first network given as round K, so the
curve can be measured in pieces.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from cli_args import agent_spec, make_parser, non_negative_int, positive_int, run_main

from agents.bots.registry import make_agent, netsearch_agent
from agents.bots.search import SearchAgent
from agents.eval.matches import play_matches
from hanafuda_env.koikoi.rules import resolve_rules


def against_expert(agent, matches: int, rules, seed: int) -> dict[str, float]:
    """Win rate (95 % interval), points per round and seconds per match against the expert."""
    start = time.perf_counter()
    result = play_matches(agent, make_agent("expert", rules, seed=seed + 1), matches, rules,
                          seed=seed, batch=matches)
    rate = result["win_rate"]
    return {"win_rate": rate["value"], "low": rate["low"], "high": rate["high"],
            "points_per_round": result["points_per_round"]["mean"],
            "seconds_per_match": (time.perf_counter() - start) / matches}


def line(label: str, figures: dict[str, float]) -> str:
    return (f"{label:<12} {figures['win_rate']:>6.3f} [{figures['low']:.3f}, "
            f"{figures['high']:.3f}] {figures['points_per_round']:>+7.2f} "
            f"{figures['seconds_per_match']:>7.2f}")


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--networks", type=agent_spec, nargs="+", required=True,
                        help="each round's network: a shipped name or a checkpoint, round 0 "
                             "first")
    parser.add_argument("--matches", type=positive_int, default=2000,
                        help="matches for each network alone")
    parser.add_argument("--search-matches", type=non_negative_int, default=2000,
                        help="matches for each round's search (0: none)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the decks")
    parser.add_argument("--first-round", type=non_negative_int, default=0,
                        help="the round number of the first network given")
    parser.add_argument("--log-dir", default="runs/loop_curve",
                        help="folder of the TensorBoard events")
    args = parser.parse_args()
    from torch.utils.tensorboard import SummaryWriter

    rules = resolve_rules("nintendo")
    writer = SummaryWriter(str(Path(args.log_dir)))
    print(f"the loop's rounds vs expert, {rules.name}, {args.matches} matches a network, "
          f"{args.search_matches} a search")
    print("networks by round: " + ", ".join(args.networks))
    print(f"{'round':<5} {'who':<12} {'win':>6} {'95% interval':>16} {'pts/rd':>7} "
          f"{'s/match':>7}")
    for round_index, spec in enumerate(args.networks, start=args.first_round):
        network = make_agent(spec, rules, seed=args.seed)
        rows = {"network": against_expert(network, args.matches, rules, args.seed)}
        if args.search_matches:  # the same network, loaded once, is the search's prior
            search = (SearchAgent(rules, seed=0) if round_index == 0 else
                      netsearch_agent(rules, seed=0, prior=network))
            rows["search"] = against_expert(search, args.search_matches, rules, args.seed)
        for who, figures in rows.items():
            print(f"{round_index:<5} {line(who, figures)}")
            for key, value in figures.items():
                writer.add_scalar(f"loop/{who}_{key}", value, round_index)
        sys.stdout.flush()
    writer.close()


if __name__ == "__main__":
    sys.exit(run_main(main))
