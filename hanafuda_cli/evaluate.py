"""Evaluate agents against each other on the batched Koi-Koi core.

Head to head::

    python evaluate.py expert greedy --matches 1000 --rules nintendo --seed 0 --json out.json

League (every pair plays; Elo ratings fitted from the pairwise results)::

    python evaluate.py --league random greedy expert runs/<run>/checkpoints/latest.pt --matches 200

An agent is a baseline name (random, greedy, expert), a checkpoint path, sb3:MODEL.zip (a
Stable-Baselines3 model) or module:name (an importable object with act(obs, mask)).
``--ray N`` plays the waves of ``--batch`` matches as Ray tasks, N at once, with the same
results.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

from agents.bots.registry import BASELINES, display_names, make_agent
from agents.eval.league import round_robin
from agents.eval.matches import play_matches
from agents.paths import folder_problem, output_path_problem
from hanafuda_cli.arguments import HelpFormatter, positive_int, seed_int
from hanafuda_env.common.files import atomic_write_json
from hanafuda_env.koikoi.records import write_record
from hanafuda_env.koikoi.rules import RuleError, resolve_rules


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        formatter_class=HelpFormatter,
        description="Play Koi-Koi matches between agents and report win rates, points, "
                    "koi-koi and yaku statistics (or a league with Elo ratings).",
        epilog=f"Agents: a baseline name ({', '.join(BASELINES)}), a checkpoint path, "
               "sb3:MODEL.zip or module:name.")
    parser.add_argument("agents", nargs="*", metavar="AGENT",
                        help="two agents for a head-to-head evaluation")
    parser.add_argument("--league", nargs="+", metavar="AGENT",
                        help="play a round robin between these agents instead")
    parser.add_argument("--matches", type=positive_int, default=200,
                        help="matches per pairing")
    parser.add_argument("--rules", default="nintendo",
                        help="rule preset (nintendo, ten-base, koikoi-japan) or a YAML rule file")
    parser.add_argument("--rounds", type=positive_int, default=None,
                        help="rounds per match (overrides the rule set: 3, 6, 12 ...)")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="deal and agent seed")
    parser.add_argument("--batch", type=positive_int, default=1024,
                        help="games stepped together (the deals do not depend on it; "
                        "the baselines' random tie-breaks do)")
    parser.add_argument("--ray", type=positive_int, default=0, metavar="N",
                        help="play the waves of matches as Ray tasks, N at once (pip install "
                        "-e '.[ray]'; RAY_ADDRESS joins a cluster); the same results")
    parser.add_argument("--json", metavar="PATH",
                        help="write the full results as JSON to this new file")
    parser.add_argument("--records", metavar="DIR",
                        help="write each match of a head-to-head as a game record (KoiKoi-AI "
                        "JSON, see hanafuda_env.koikoi.records) into this new or empty folder")
    parser.add_argument("--overwrite", action="store_true",
                        help="let --json replace an existing file (never a checkpoint played or "
                        "the rule file)")
    args = parser.parse_args(argv)
    if args.league and args.agents:
        parser.error("give either two agents or --league, not both")
    if not args.league and len(args.agents) != 2:
        parser.error(f"give exactly two agents (got {len(args.agents)}) or --league A B ...")
    if args.league and len(args.league) < 2:
        parser.error("--league needs at least two agents")
    if args.ray and importlib.util.find_spec("ray") is None:
        parser.error("--ray needs Ray: pip install -e '.[ray]'")
    if args.json is not None:
        problem = output_path_problem(args.json, [*(args.league or args.agents), args.rules],
                                      args.overwrite)
        if problem:
            parser.error(f"--json {args.json}: {problem}")
    if args.records is not None:
        if args.league:
            parser.error("--records writes the matches of a head-to-head; give two agents")
        problem = folder_problem(args.records)
        if problem:
            parser.error(f"--records {args.records}: {problem}")
    return args


def _interval(stat: dict[str, float], key: str = "value", digits: int = 3) -> str:
    return f"{stat[key]:.{digits}f} [{stat['low']:.{digits}f}, {stat['high']:.{digits}f}]"


def format_head_to_head(result: dict[str, Any]) -> str:
    a, b = result["a"], result["b"]
    target = result.get("target_score")
    lines = [
        f"{result['agent_a']} vs {result['agent_b']} — {result['matches']} matches of "
        f"{result['rounds_per_match']} rounds"
        + (f" (or first to {target} points)" if target else "")
        + f", rules {result['rules']}, seed {result['seed']}",
        f"  A wins / draws / losses : {result['wins']} / {result['draws']} / {result['losses']}",
        f"  A win rate (95% CI)     : {_interval(result['win_rate'])}",
        f"  A score rate (draw=1/2) : {_interval(result['score_rate'])}",
        f"  A points per match      : {_interval(result['points_per_match'], 'mean', 2)}",
        f"  A points per round      : {_interval(result['points_per_round'], 'mean', 2)}",
        f"  rounds played           : {result['rounds']}  "
        + ", ".join(f"{k} {v}" for k, v in result["round_ends"].items()),
        "",
        f"  {'':22s}{a['name'][:18]:>18s}{b['name'][:18]:>18s}",
    ]

    def row(label: str, fa: Any, fb: Any) -> str:
        return f"  {label:22s}{fa:>18s}{fb:>18s}"

    def rate(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    ka, kb = a["koikoi"], b["koikoi"]
    lines += [
        row("rounds won", str(a["rounds_won"]), str(b["rounds_won"])),
        row("koi-koi decisions", str(ka["decisions"]), str(kb["decisions"])),
        row("koi-koi call rate", rate(ka["call_rate"]), rate(kb["call_rate"])),
        row("koi-koi paid off", rate(ka["paid_off_rate"]), rate(kb["paid_off_rate"])),
        row("moves per second", "-" if a["moves_per_second"] is None
            else f"{a['moves_per_second']:.0f}",
            "-" if b["moves_per_second"] is None else f"{b['moves_per_second']:.0f}"),
        "  yaku per round:",
    ]
    names = sorted(set(a["yaku_per_round"]) | set(b["yaku_per_round"]))
    for name in names:
        lines.append(row(f"  {name}", f"{a['yaku_per_round'].get(name, 0.0):.3f}",
                         f"{b['yaku_per_round'].get(name, 0.0):.3f}"))
    return "\n".join(lines)


def format_league(result: dict[str, Any]) -> str:
    names = result["agents"]
    width = max(10, *(len(n) + 2 for n in names))
    lines = [f"League — {result['matches_per_pair']} matches per pair, rules {result['rules']}"
             f", seed {result['seed']}", "  score rate of the row agent against the column:",
             "  " + " " * width + "".join(f"{n[:width - 1]:>{width}s}" for n in names)]
    for name in names:
        cells = []
        for other in names:
            value = result["score_table"][name][other]
            cells.append(f"{'-' if value is None else f'{value:.3f}':>{width}s}")
        lines.append(f"  {name:<{width}s}" + "".join(cells))
    lines.append(f"  Elo ({result['elo_anchor']}):")
    for name, rating in sorted(result["elo"].items(), key=lambda kv: -kv[1]):
        lines.append(f"    {name:<{width}s}{rating:8.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        rules = resolve_rules(args.rules)
        if args.rounds is not None:
            rules = rules.replace(rounds=args.rounds)
        specs = args.league or args.agents
        agents = [make_agent(spec, rules, seed=args.seed + i) for i, spec in enumerate(specs)]
        for agent, name in zip(agents, display_names(specs)):
            agent.name = name
    except (RuleError, ValueError, OSError) as error:
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    what = (f"a league of {len(agents)} agents, {args.matches} matches per pair" if args.league
             else f"{args.matches} matches, {agents[0].name} vs {agents[1].name}")
    print(f"playing {what} (rules {rules.name}, seed {args.seed}) ...", file=sys.stderr,
          flush=True)  # progress, not results: a closed stdout must not stop the run
    start = time.perf_counter()
    if args.league:
        result = round_robin(agents, args.matches, rules, args.seed, args.batch, args.ray)
        text = format_league(result)
    else:
        records: list | None = [] if args.records else None
        result = play_matches(agents[0], agents[1], args.matches, rules, args.seed, args.batch,
                              records, (args.seed, args.seed + 1), args.ray)
        text = format_head_to_head(result)
        for j, match in enumerate(records or []):
            write_record(Path(args.records) / f"match_{j + 1:05d}.json", match)
    result["seconds"] = time.perf_counter() - start
    result["agent_specs"] = specs
    failure = None
    if args.json:  # first: the file is kept even if the printing below fails
        try:
            atomic_write_json(args.json, result)
        except OSError as error:
            failure = error
    print(text)
    print(f"  ({result['seconds']:.1f} s)")
    if failure is not None:
        print(f"evaluate.py: error: could not write {args.json}: {failure}", file=sys.stderr)
        return 1
    if args.json:
        print(f"  results written to {args.json}")
    if args.records:
        print(f"  {args.matches} game records written to {args.records}")
    return 0


def run() -> None:
    """The ``hanafuda-evaluate`` command (and ``python evaluate.py``): :func:`main` with the exits a
    terminal expects."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted; no results printed or written", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # `evaluate.py ... | head` closed the pipe: not worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    run()
