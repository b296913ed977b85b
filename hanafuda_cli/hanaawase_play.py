"""A person plays Hana-awase against N − 1 bots in the terminal (``play.py --game hanaawase``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from agents.bots.base import AgentLike
from hanafuda_cli.prompt import Quit, goodbye
from hanafuda_env.envs.hanaawase_v0 import render_hanaawase
from hanafuda_env.hanaawase.core import HanaawaseCore, describe_round
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.koikoi.core import action_name
from hanafuda_env.koikoi.state import MATCH_OVER, ROUND_OVER
from hanafuda_env.render.text import card_label, cards_line
from hanafuda_env.render.yaku_names import yaku_display

Ask = Callable[[list[int], Callable[[], str], Callable[[str], None]], int]


def round_lines(row: np.ndarray, rules: HanaawaseRules, human: int) -> list[str]:
    """The round's result, one line per player: card points, yaku, score."""
    lines = []
    if row["void"]:
        lines.append("fuke: a player ended with 20 card points or less; the round is void")
    if row["cancelled"]:
        lines.append("yaku-nagashi / arashi: every yaku of the round is cancelled")
    for seat, result in enumerate(describe_round(row, rules)):
        who = "you" if seat == human else f"player_{seat}"
        yaku = ", ".join(f"{yaku_display(k)} {v}" for k, v in result["yaku"].items()) or "-"
        lines.append(f"  {who}: {result['card_points']} card points, yaku {yaku}, "
                     f"score {result['score']:+d}")
    return lines


def play_hanaawase(bots: Sequence[AgentLike], rules: HanaawaseRules, human: int, seed: int,
                   stdin: TextIO, stdout: TextIO, ask: Ask) -> list[int]:
    """One match: the person in seat ``human``, ``bots`` in the other seats in order.
    Returns the match scores by seat (as far as it got, if the person quit)."""

    def write(text: str) -> None:
        stdout.write(text if text.endswith(("\n", "> ")) else text + "\n")
        stdout.flush()

    n = rules.num_players
    seats = [s for s in range(n) if s != human]
    core = HanaawaseCore(1, rules, seed=seed)
    write(f"Hana-awase, {n} players, {rules.rounds} rounds, seed {seed} (--seed {seed} replays "
          f"these deals). You are player_{human}.")
    try:
        while core.phase[0] != MATCH_OVER:
            mover = int(core.mover[0])
            who = "you" if mover == human else f"player_{mover}"
            if mover == human:
                write("\n" + render_hanaawase(core, 0, viewer=human))
                action = ask(core.legal_actions(0), stdin.readline, write)
            else:
                bot = bots[seats.index(mover)]
                action = int(bot.act(core.observe(mover), core.legal_action_mask())[0])
                write(f"player_{mover}: {action_name(action)}")
            pile, drawn_from = int(core.piles[0, mover]), int(core.stock_pos[0])
            out = core.step(np.array([action]))
            drawn = core.stock[0, drawn_from:int(core.stock_pos[0])].tolist()
            if drawn:
                write(f"{who} drew {card_label(drawn[0])}")
            taken = int(core.piles[0, mover]) & ~pile if not out.round_over[0] else int(
                out.rows[0]["piles"][mover]) & ~pile
            if taken:
                write(f"{who} took {cards_line(taken)}")
            if out.round_over[0]:
                row = out.rows[0]
                write(f"round {int(row['round_index']) + 1} over:")
                write("\n".join(round_lines(row, rules, human)))
                scores = core.match_score[0, :n].tolist()
                write("match score: " + ", ".join(
                    f"{'you' if s == human else f'player_{s}'} {v}" for s, v in enumerate(scores)))
                if core.phase[0] == ROUND_OVER:
                    core.deal_next()
    except Quit as quit_:
        write(goodbye(stdin, quit_))
        return core.match_score[0, :n].tolist()
    scores = core.match_score[0, :n].tolist()
    top = max(scores)
    verdict = ("You win!" if scores[human] == top and scores.count(top) == 1 else
               "You share first place." if scores[human] == top else
               f"player_{scores.index(top)} wins.")
    write(f"match over. {verdict}")
    return scores
