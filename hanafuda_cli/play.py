"""Play Koi-Koi against a bot in the terminal or in the browser (``--web``), or Hana-awase
against N − 1 bots in the terminal.

    python play.py [--bot expert|greedy|random|fast|search|netsearch|ismcts|ppo|<checkpoint.pt>]
                   [--rules nintendo] [--rounds 12] [--seat 0] [--seed 7] [--record FILE]
    python play.py --web [--port 8765] [--bot-delay 0.8] [--bot …] [--rules …] …
    python play.py --game hanaawase [--players 3] [--bot expert] [--rounds 3] [--seat 0]

Legal moves are listed by number and card name; type the number (or a unique part of the
move's name; a name two moves share, like a month's two chaff cards, needs the number). Bad
input is asked again; ``q`` or end of input quits.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

import numpy as np

from agents.bots.base import AgentLike
from agents.paths import output_path_problem
from hanafuda_cli.arguments import (
    HelpFormatter,
    non_negative_float,
    port_int,
    positive_int,
    seed_int,
)
from hanafuda_cli.prompt import Quit, ask_action, goodbye
from hanafuda_env.common.results import RoundResults
from hanafuda_env.koikoi.core import KoiKoiCore, action_name
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.recorder import MatchRecorder
from hanafuda_env.koikoi.records import write_record
from hanafuda_env.koikoi.rules import RuleError, RuleSet, resolve_rules
from hanafuda_env.render.text import card_label, cards_line, counted, render_game
from hanafuda_env.render.yaku_names import yaku_display


def describe_rounds(rounds: RoundResults, human: int) -> str:
    """One line per finished round, from the person's side."""
    lines = []
    for record in rounds.records():
        who = ("nobody" if record["winner"] < 0
               else "you" if record["winner"] == human else "the bot")
        yaku = ", ".join(f"{yaku_display(k)} {v}" for k, v in record["yaku"].items()) or "-"
        points = counted(record["points"], "point")
        lines.append(f"round {record['round_index'] + 1} over ({record['reason']}): {who} "
                     f"won {points}  [yaku: {yaku}; x{record['multiplier']}]")
    return "\n".join(lines)


def describe_turn(core: KoiKoiCore, mover: int, pile_before: int, drawn_from: int,
                  who: str) -> str:
    """What a step did in the open, for a person who cannot diff two boards: the card drawn
    from the stock and the cards that went to the mover's pile ("" if neither)."""
    lines = []
    drawn = core.stock[0, drawn_from:int(core.stock_pos[0])].tolist()
    if drawn:
        lines.append(f"{who} drew {card_label(drawn[0])}")
    taken = int(core.piles[0, mover]) & ~pile_before
    if taken:
        lines.append(f"{who} took {cards_line(taken)}")
    return "\n".join(lines)


def play(bot: AgentLike, rules: RuleSet, human: int, seed: int, stdin: TextIO,
         stdout: TextIO, recorder: MatchRecorder | None = None) -> int:
    """One match, person against bot. Returns the person's lead at the end (its zero-sum
    match score: its points won minus the bot's). ``recorder`` (over a fresh
    ``KoiKoiGame`` of the same rules) writes the match down as it is played."""
    def write(text: str) -> None:
        stdout.write(text if text.endswith(("\n", "> ")) else text + "\n")
        stdout.flush()

    core = KoiKoiCore(1, rules=rules, seed=seed)
    total = np.zeros(2, dtype=np.int64)
    write(f"Koi-Koi, {rules.name} rules, {counted(rules.rounds, 'round')}, seed {seed} "
          f"(--seed {seed} replays these deals). You are player_{human}.")
    outcome = core.reset(seed=seed)
    if recorder is not None:
        recorder.reset(game_seed=int(core.seeds[0]))
    if len(outcome.rounds):
        write(describe_rounds(outcome.rounds, human))
        total += outcome.reward[0]
    try:
        while not outcome.match_over[0]:  # a hand yaku may end a short match at the deal
            mover = int(core.mover[0])
            if mover == human:
                write("\n" + render_game(core, 0, viewer=human))
                legal = np.flatnonzero(core.legal_action_mask()[0]).tolist()
                action = ask_action(legal, stdin.readline, write)
            else:
                obs = encode_observations(core, np.array([mover]))
                action = int(bot.act(obs, core.legal_action_mask())[0])
                write(f"bot: {action_name(action)}")
            pile_before, drawn_from = int(core.piles[0, mover]), int(core.stock_pos[0])
            outcome = core.step(np.array([action]))
            if recorder is not None:
                recorder.step(action)
            total += outcome.reward[0]
            if len(outcome.rounds):  # the next round is dealt: its summary says it all
                write(describe_rounds(outcome.rounds, human))
                write(f"match score: you {total[human]}, bot {total[1 - human]}")
            elif turn := describe_turn(core, mover, pile_before, drawn_from,
                                       "you" if mover == human else "bot"):
                write(turn)
    except Quit as quit_:
        write(goodbye(stdin, quit_))
        return int(total[human])
    scores = outcome.matches.scores[0]  # the match's own (later rounds may have followed)
    diff = int(scores[human])
    verdict = "You win!" if diff > 0 else "The bot wins." if diff < 0 else "A draw."
    write(f"match over. {verdict}")
    return diff


# The built-in bots by name, for --help without importing the agents (torch); a test checks
# them against agents.bots.registry.
BOT_NAMES = ("expert", "greedy", "random", "fast", "search", "netsearch", "ismcts", "ppo",
             "clone", "distilled", "looped")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play Koi-Koi against a bot.",
                                     formatter_class=HelpFormatter)
    parser.add_argument("--bot", default="expert",
                        help=f"bot name ({', '.join(BOT_NAMES)}; ppo, clone, distilled "
                             "and looped are the shipped networks), NAME:key=value,... for a "
                             "bot's options, checkpoint path, sb3:MODEL.zip or module:name")
    parser.add_argument("--rules", default="nintendo",
                        help="rule preset name or YAML path")
    parser.add_argument("--rounds", type=positive_int, default=None,
                        help="rounds in the match (default: the rule set's, 12 for nintendo)")
    parser.add_argument("--seat", type=int, default=0,
                        help="your seat: player_0 or player_1 in Koi-Koi (the first dealer is "
                             "a coin flip), 0..N−1 in Hana-awase")
    parser.add_argument("--seed", type=seed_int, default=None,
                        help="seed of the deals and the bot, to replay a match "
                             "(default: a fresh random one)")
    parser.add_argument("--record", metavar="FILE",
                        help="write the match as a game record (KoiKoi-AI JSON; replay.py "
                             "replays it) to this new file, also when you quit early")
    parser.add_argument("--game", choices=("koikoi", "hanaawase"), default="koikoi",
                        help="the game: Koi-Koi against one bot, or Hana-awase against "
                             "--players − 1 bots (--bot names them all; --seat 0..N−1)")
    parser.add_argument("--players", type=positive_int, default=3,
                        help="Hana-awase: players at the table, 2–7")
    parser.add_argument("--web", action="store_true",
                        help="play in the browser: serve the page on this machine and print "
                             "its address")
    parser.add_argument("--host", default="127.0.0.1",
                        help="--web: the address to serve on (another than 127.0.0.1 lets "
                             "other machines in)")
    parser.add_argument("--port", type=port_int, default=8765,
                        help="--web: the port (0: a free one; the default, when taken, falls "
                             "back to a free one)")
    parser.add_argument("--bot-delay", type=non_negative_float, default=0.8,
                        help="--web: seconds between the bot's moves shown on the page")
    args = parser.parse_args(argv)
    if args.game == "hanaawase":
        if args.web:
            parser.error("--web plays Koi-Koi; Hana-awase is played in the terminal")
        return _play_hanaawase(parser, args)
    if args.seat not in (0, 1):
        parser.error(f"--seat: Koi-Koi has seats 0 and 1, got {args.seat}")
    if args.web:
        if args.record is not None:
            parser.error("--record is for the terminal game; the page replays records itself")
        from hanafuda_cli.web import run_web

        return run_web(args, parser.get_default("port"))
    if args.record is not None:
        problem = output_path_problem(args.record, [args.bot, args.rules], overwrite=False)
        if problem:
            parser.error(f"--record {args.record}: {problem}")
    from agents.bots.registry import make_agent

    try:
        rules = resolve_rules(args.rules)
        if args.rounds is not None:  # keep the preset's name: the header names the rounds
            rules = rules.replace(rounds=args.rounds, name=rules.name)
        seed = args.seed if args.seed is not None else int(
            np.random.SeedSequence().entropy % 2**31)
        bot = make_agent(args.bot, rules, seed=seed)
    except (RuleError, ValueError, OSError) as error:
        print(f"play.py: error: {error}", file=sys.stderr)
        return 2
    names = ("you", bot.name) if args.seat == 0 else (bot.name, "you")
    recorder = None if args.record is None else MatchRecorder(KoiKoiGame(rules, seed=0), names)
    try:
        play(bot, rules, args.seat, seed, sys.stdin, sys.stdout, recorder)
    except KeyboardInterrupt:
        print("\nbye.")
        return 130  # the shell's code for Ctrl-C
    finally:
        if recorder is not None and recorder.all_matches():
            write_record(args.record, recorder.all_matches()[0])
            print(f"game record written to {args.record}")
    return 0


def _play_hanaawase(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--game hanaawase``: the person against ``--players`` − 1 bots of ``--bot``."""
    from agents.bots.registry import make_hanaawase_agent
    from hanafuda_cli.hanaawase_play import play_hanaawase
    from hanafuda_env.hanaawase.rules import resolve_hanaawase_rules

    if args.record is not None:
        parser.error("--record writes Koi-Koi game records; Hana-awase has no record format")
    try:
        rules = resolve_hanaawase_rules(None, num_players=args.players,
                                        **({"rounds": args.rounds} if args.rounds else {}))
        if not 0 <= args.seat < rules.num_players:
            parser.error(f"--seat must be 0..{rules.num_players - 1} for {rules.num_players} "
                         f"players, got {args.seat}")
        seed = args.seed if args.seed is not None else int(
            np.random.SeedSequence().entropy % 2**31)
        bots = [make_hanaawase_agent(args.bot, rules, seed=seed + k)
                for k in range(rules.num_players - 1)]
    except (RuleError, ValueError, OSError) as error:
        print(f"play.py: error: {error}", file=sys.stderr)
        return 2
    try:
        play_hanaawase(bots, rules, args.seat, seed, sys.stdin, sys.stdout, ask_action)
    except KeyboardInterrupt:
        print("\nbye.")
        return 130
    return 0


def run() -> None:
    """The ``hanafuda-play`` command (and ``python play.py``): :func:`main` with the exits a
    terminal expects."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # while starting up
        sys.exit(130)
    except BrokenPipeError:  # `play.py | head` closed the pipe: nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except OSError as error:  # the terminal went away, a full disk
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"play.py: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    run()
