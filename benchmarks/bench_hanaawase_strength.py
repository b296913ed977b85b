"""Hana-awase strength: an agent at a table with N − 1 experts, seats rotated over the same
decks, and greedy at the same table as the baseline measured in the same run.

    python benchmarks/bench_hanaawase_strength.py AGENT [--rounds 2000] [--players 3]

AGENT is a bot name or a Hana-awase checkpoint (``runs/<run>/checkpoints/best.pt``). Target
(issue: the trained 3-player policy beats the expert): its mean score per round above 0 (the
table's scores are zero-sum, so above the experts' mean) with the 95 % interval above 0, over
2,000 rounds.
"""

from __future__ import annotations

import sys

from cli_args import make_parser, positive_int, run_main

from agents.bots.hanaawase import HANAAWASE_BOTS
from agents.bots.registry import make_hanaawase_agent
from agents.eval.hanaawase_matches import play_hanaawase_matches
from hanafuda_env.hanaawase.rules import resolve_hanaawase_rules


def table(spec: str, rules, rounds: int, seed: int) -> dict:
    n = rules.num_players
    agent = make_hanaawase_agent(spec, rules, seed=seed)
    experts = [HANAAWASE_BOTS["expert"](rules, seed=seed + 1 + k) for k in range(n - 1)]
    decks = max(1, -(-rounds // (n * rules.rounds)))
    return play_hanaawase_matches([agent, *experts], decks, rules, seed=seed)[0]


def line(name: str, row: dict) -> str:
    score, first = row["mean_score"], row["first_place"]
    return (f"{name:>28}: {score['mean']:+7.2f} points per round [{score['low']:+.2f}, "
            f"{score['high']:+.2f}], first place {first['value']:.3f} [{first['low']:.3f}, "
            f"{first['high']:.3f}] over {row['rounds']} rounds")


def main() -> int:
    parser = make_parser(__doc__)
    parser.add_argument("agent", help="bot name or Hana-awase checkpoint file")
    parser.add_argument("--rounds", type=positive_int, default=2000,
                        help="rounds to play (whole decks: N matches each)")
    parser.add_argument("--players", type=positive_int, default=3, help="players, 2..7")
    parser.add_argument("--seed", type=positive_int, default=2026, help="seed of the decks")
    args = parser.parse_args()
    try:
        rules = resolve_hanaawase_rules(None, num_players=args.players)
        row = table(args.agent, rules, args.rounds, args.seed)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    print(f"{rules.num_players} players, the agent and {rules.num_players - 1} experts, seats "
          f"rotated over the same decks")
    print(line(args.agent, row))
    print(line("greedy (baseline)", table("greedy", rules, args.rounds, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
