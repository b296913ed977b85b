"""The terminal game (play.py): scripted games through stdin, move numbers, names and quit
words, bad input asked again, what each turn and round says (scores from the person's side,
draws, hand yaku at the deal), the bot's own view, seeds that replay the match, usage errors,
and Ctrl-C or a closed output ending without a traceback."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest

from agents.bots.base import MAX_SEED
from agents.bots.baselines import RandomAgent
from hanafuda_cli.play import Quit, ask_action, describe_turn, main, play
from hanafuda_env.koikoi.core import CHOOSE_OFFSET, KoiKoiCore
from hanafuda_env.koikoi.observation import BLOCK
from hanafuda_env.koikoi.rules import resolve_rules
from tests.helpers.interrupts import popen_interruptible, wait_for_line
from tests.helpers.paths import ROOT
from tests.helpers.scenarios import make_deck


def _run(stdin: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "play.py"), *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_a_scripted_match_through_stdin_reaches_the_end() -> None:
    # Always the first listed move, with some nonsense mixed in that must be asked again.
    moves = "".join("banana\n99\n1\n" if i % 5 == 0 else "1\n" for i in range(400))
    result = _run(moves, "--bot", "greedy", "--rounds", "1", "--seed", "4")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "You are player_0" in out and "your move:" in out and "bot:" in out
    assert "is not one of the moves above" in out
    assert "round 1 over" in out and "match over" in out
    assert "Traceback" not in result.stderr


def test_a_match_that_ends_at_the_deal_is_over_at_once() -> None:
    rules = resolve_rules("nintendo").replace(rounds=1)
    out = io.StringIO()
    # seed 3 deals the bot (player_1) a teshi, which ends the one-round match
    diff = play(RandomAgent(rules, seed=0), rules, 0, 3, io.StringIO(""), out)
    text = out.getvalue()
    assert diff == -6 and "hand-yaku" in text and "match over. The bot wins." in text
    assert "your move" not in text and "bye." not in text


def test_end_of_input_and_quit_leave_cleanly() -> None:
    for stdin in ("", "q\n", "1\n1\n"):
        result = _run(stdin, "--bot", "random", "--seed", "1", "--seat", "1")
        assert result.returncode == 0, result.stderr
        assert "bye." in result.stdout or "match over" in result.stdout


def test_bad_bot_and_rules_are_reported() -> None:
    result = _run("", "--bot", "grandmaster")
    assert result.returncode == 2 and "grandmaster" in result.stderr
    assert result.stderr.startswith("play.py: error: ")  # as argparse and evaluate.py say it
    result = _run("", "--rules", "hanafuda-classic")
    assert result.returncode == 2 and "unknown rule preset" in result.stderr


def test_ask_action_accepts_numbers_ids_by_name_and_reasks() -> None:
    legal = [3, 17, 96]
    lines = iter(["zzz\n", "0\n", "koi\n", "2\n"])
    shown: list[str] = []
    assert ask_action([96, 97], lambda: next(lines), shown.append) == 97  # "koi" -> koi-koi
    assert any("not one of the moves" in s for s in shown)
    assert ask_action(legal, lambda: "2\n", shown.append) == 17
    assert ask_action(legal, lambda: "stop\n", shown.append) == 96
    with pytest.raises(Quit):
        ask_action(legal, lambda: "", shown.append)


def test_a_name_two_moves_share_asks_for_the_number() -> None:
    shown: list[str] = []
    lines = iter(["cherry chaff\n", "2\n"])
    # cards 10 and 11 are the two cherry chaff: one name, two moves
    assert ask_action([10, 11, 12], lambda: next(lines), shown.append) == 11
    reply = next(s for s in shown if "cherry chaff'" in s)
    assert "matches several moves" in reply and "not one of the moves" not in reply
    assert "[1] play cherry chaff, [2] play cherry chaff" in reply
    assert "wisteria" not in reply  # only the moves it matched are listed


def test_a_part_of_several_names_asks_again_then_a_unique_part_is_taken() -> None:
    shown: list[str] = []
    lines = iter(["play cherry\n", "curtain\n"])  # the curtain and a chaff share "cherry"
    assert ask_action([8, 10], lambda: next(lines), shown.append) == 8
    assert any("matches several moves ([1] play cherry curtain, [2] play cherry chaff)" in s
               for s in shown)


def test_a_real_deal_with_both_chaff_of_a_month_asks_which() -> None:
    rules = resolve_rules("nintendo").replace(rounds=1)
    out = io.StringIO()
    # seed 8: player_0 moves first holding both cherry chaff
    play(RandomAgent(rules, seed=0), rules, 0, 8, io.StringIO("cherry chaff\n1\nq\n"), out)
    text = out.getvalue()
    assert "'cherry chaff' matches several moves ([1] play cherry chaff, [2] play cherry " \
           "chaff)" in text
    assert "is not one of the moves above" not in text and "bye." in text


def test_one_round_and_one_point_are_singular() -> None:
    # seed 4, always the first move: the bot wins the only round by 1 point
    result = _run("1\n" * 400, "--bot", "greedy", "--rounds", "1", "--seed", "4")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Koi-Koi, nintendo rules, 1 round, seed 4 " in out
    assert "the bot won 1 point  [" in out
    assert re.search(r"\b1 (rounds|points)\b", out) is None and "+custom" not in out


def test_help_shows_defaults_and_explains_every_option() -> None:
    result = _run("", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "(default: expert)" in text and "(default: nintendo)" in text
    for option in ("--seat SEAT your seat: player_0 or player_1", "--seed SEED seed of the deals",
                   "--game {koikoi,hanaawase}", "--players PLAYERS Hana-awase"):
        assert option in text


def test_digits_that_are_no_move_number_are_asked_again() -> None:
    """Superscripts and circled digits pass str.isdigit but are not numbers; a 5000-digit
    number is over Python's int limit. Both are re-asked, like any other bad input."""
    out = []
    lines = iter(["²\n", "①\n", "9" * 5000 + "\n", "１\n"])  # full-width 1 is a number
    assert ask_action([5, 9], lambda: next(lines), out.append) == 5
    assert sum("is not one of the moves above" in text for text in out) == 3


def test_ctrl_c_and_a_closed_output_end_without_a_traceback() -> None:
    """Ctrl-C in a game ends it with "bye." and exit 130; a reader that closes the pipe ends
    it quietly. The game's first line is written by play(), which main() runs under its
    KeyboardInterrupt handler: once it is read, Ctrl-C is sure to be taken as the person's."""
    import signal

    process = popen_interruptible([sys.executable, str(ROOT / "play.py"), "--seed", "1"],
                                  cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0)
    (header,) = wait_for_line(process, process.stdout, lambda line: True)
    assert "seed 1 (--seed 1 replays these deals)" in header
    process.send_signal(signal.SIGINT)
    out, err = (text.decode() for text in process.communicate(timeout=60))
    assert process.returncode == 130 and "bye." in out and "Traceback" not in err
    shell = subprocess.run(f"yes 1 | {sys.executable} play.py --seed 1 --bot random | head -1",
                           shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert shell.stdout.startswith("Koi-Koi") and shell.stderr == ""


def test_each_turn_says_what_was_drawn_and_taken() -> None:
    """The pine chaff takes the crane, the drawn cherry chaff meets two cherry cards and waits
    for a choice (drawn, nothing more taken yet); the choice then takes the curtain."""
    deck = make_deck([2, 12, 16, 20, 24, 36, 45, 46], [5, 13, 17, 25, 37, 41, 42, 47],
                     [0, 8, 9, 21, 29, 33, 40, 44], [10])
    core = KoiKoiCore(1, seed=0)
    core.reset(seed=0, options={"deck": deck, "dealer": 0})

    def step(action: int) -> str:
        pile, drawn_from = int(core.piles[0, 0]), int(core.stock_pos[0])
        core.step([action])
        return describe_turn(core, 0, pile, drawn_from, "you")

    assert step(2) == "you drew ·cherry chaff\nyou took ★pine crane, ·pine chaff"
    assert step(CHOOSE_OFFSET + 8) == "you took ★cherry curtain, ·cherry chaff"
    pile, drawn_from = int(core.piles[0, 1]), int(core.stock_pos[0])
    core.step([5])  # the other seat's plum ribbon meets nothing, nor does the drawn card
    assert describe_turn(core, 1, pile, drawn_from, "bot") == "bot drew ▬pine red poetry ribbon"


@pytest.mark.parametrize(("args", "words"), [
    (["--seed", "-1"], "argument --seed: must be an integer from 0 to"),
    (["--rounds", "0"], "argument --rounds: must be a positive integer (1 or more), got '0'"),
])
def test_bad_numbers_are_usage_errors_like_every_cli(args: list[str], words: str) -> None:
    result = _run("", *args)
    assert result.returncode == 2 and words in result.stderr and result.stdout == ""


# ------------------------------------------------------------------- ask_action
def _reader(*lines: str) -> Callable[[], str]:
    """A readline stand-in: the given lines, then end of input."""
    feed = iter(lines)
    return lambda: next(feed, "")


def test_the_last_listed_move_number_is_accepted() -> None:
    """Moves are numbered 1..len(legal): the highest number picks the last move."""
    legal = [5, 9, 13]
    assert ask_action(legal, _reader("3\n"), lambda _text: None) == 13
    assert ask_action(legal, _reader("1\n"), lambda _text: None) == 5


@pytest.mark.parametrize("word", ["q", "quit", "exit", " EXIT \n"])
def test_every_quit_word_quits(word: str) -> None:
    """``q``, ``quit`` and ``exit`` (any case, spaces ignored) leave the game at once (the
    move typed after it is never read)."""
    with pytest.raises(Quit):
        ask_action([5, 9], _reader(word, "1\n"), lambda _text: None)


# ------------------------------------------------------------------------- play
def test_quitting_returns_the_score_difference_so_far() -> None:
    """After some rounds, quitting returns the person's lead over the bot, the number the
    last "match score" line shows for the person (zero-sum: the bot's is its negative)."""
    rules = resolve_rules("nintendo")
    out = io.StringIO()
    diff = play(RandomAgent(rules, seed=0), rules, 0, 1, io.StringIO("1\n" * 20), out)
    text = out.getvalue()
    assert "bye." in text
    you, bot = map(int, re.findall(r"match score: you (-?\d+), bot (-?\d+)", text)[-1])
    assert you != 0 and bot == -you
    assert diff == you


def test_the_match_score_line_is_from_the_persons_side() -> None:
    """"match score: you X, bot Y" after the first round: X is what the person won."""
    rules = resolve_rules("nintendo")
    out = io.StringIO()
    play(RandomAgent(rules, seed=0), rules, 0, 1, io.StringIO("1\n" * 20), out)
    text = out.getvalue()
    first = re.search(r"round 1 over \([^)]*\): (you|the bot) won (\d+) points?", text)
    assert first is not None
    won = int(first.group(2)) * (1 if first.group(1) == "you" else -1)
    you, bot = map(int, re.search(r"match score: you (-?\d+), bot (-?\d+)", text).groups())
    assert (you, bot) == (won, -won) and won != 0


def test_a_drawn_match_is_called_a_draw() -> None:
    """A one-round match that ends in a no-game is neither side's win."""
    rules = resolve_rules("nintendo").replace(rounds=1)
    out = io.StringIO()
    diff = play(RandomAgent(rules, seed=0), rules, 0, 127, io.StringIO("1\n" * 400), out)
    text = out.getvalue()
    assert diff == 0 and "(no-game)" in text
    assert "match over. A draw." in text and "You win" not in text


def test_a_hand_yaku_at_the_first_deal_counts_in_the_score() -> None:
    """Round 1 ended at the deal (the bot's teshi): quitting in round 2 reports it."""
    rules = resolve_rules("nintendo").replace(rounds=2, name="nintendo")
    out = io.StringIO()
    diff = play(RandomAgent(rules, seed=0), rules, 0, 3, io.StringIO(""), out)
    text = out.getvalue()
    assert "round 1 over (hand-yaku): the bot won 6 points" in text and "bye." in text
    assert diff == -6  # the teshi's 6 points


class _HandCheckingBot:
    """Random legal moves; checks that every card it may play is in the hand it sees."""

    name = "checker"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.checked = 0

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        plays = np.flatnonzero(mask[0, :48])
        if len(plays):
            hand = obs[0, BLOCK["hand"]] > 0.5
            assert hand[plays].all(), "the bot is shown another seat's hand"
            self.checked += 1
        return np.array([self.rng.choice(np.flatnonzero(mask[0]))])


@pytest.mark.parametrize("human", [0, 1])
def test_the_bot_observes_its_own_seat(human: int) -> None:
    """The bot's observation is its own seat's view (its hand, not the person's)."""
    rules = resolve_rules("nintendo").replace(rounds=1)
    bot = _HandCheckingBot()
    play(bot, rules, human, 5, io.StringIO("1\n" * 400), io.StringIO())
    assert bot.checked > 3


# ------------------------------------------------------------------------- main
def _main_output(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    return code, capsys.readouterr().out


def test_the_largest_seed_is_accepted(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """--seed takes 0 .. MAX_SEED inclusive."""
    code, out = _main_output(["--bot", "random", "--seed", str(MAX_SEED)], "",
                             monkeypatch, capsys)
    assert code == 0 and f"seed {MAX_SEED}" in out


def test_the_seed_replays_the_bots_moves_too(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """--seed repeats the whole match, a random bot's choices included."""
    argv = ["--bot", "random", "--rounds", "2", "--seed", "11"]
    first = _main_output(argv, "1\n" * 60, monkeypatch, capsys)
    second = _main_output(argv, "1\n" * 60, monkeypatch, capsys)
    assert first[0] == 0 and first[1].count("bot: ") > 5
    assert first == second


def test_help_names_every_built_in_bot(capsys) -> None:
    from agents.bots.registry import BASELINES
    from hanafuda_cli.play import BOT_NAMES

    assert set(BOT_NAMES) == set(BASELINES)
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert all(name in shown for name in BOT_NAMES)
