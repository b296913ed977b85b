"""Behaviour of the terminal game (play.py) and the text board that a third mutation audit
found unpinned: move numbers, quit words, scores and verdicts, seeding, the bot's view."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable

import numpy as np
import pytest

from agents.bots.base import MAX_SEED
from agents.bots.baselines import RandomAgent
from hanafuda_env.core import KoiKoiCore
from hanafuda_env.observation import BLOCK
from hanafuda_env.rendering import render_game
from hanafuda_env.rules import resolve_rules
from play import Quit, ask_action, main, play

# Dealer (seat 0) holds the pine crane; the field holds two other pine cards, so playing
# the crane waits for the player to choose which one it takes.
_CRANE_HAND = [0, 5, 9, 13, 17, 21, 25, 29]
_OTHER_HAND = [6, 10, 14, 18, 22, 26, 30, 34]
_FIELD = [1, 2, 36, 40, 44, 41, 37, 33]
CRANE_CHOICE_DECK = _CRANE_HAND + _OTHER_HAND + _FIELD + [
    c for c in range(48) if c not in set(_CRANE_HAND + _OTHER_HAND + _FIELD)]


def _reader(*lines: str) -> Callable[[], str]:
    """A readline stand-in: the given lines, then end of input."""
    feed = iter(lines)
    return lambda: next(feed, "")


def _dealt_core() -> KoiKoiCore:
    core = KoiKoiCore(1, seed=0)
    core.reset(seed=0, options={"deck": CRANE_CHOICE_DECK, "dealer": 0})
    return core


# ---------------------------------------------------------------- ask_action
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


# ---------------------------------------------------------------------- play
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


# ---------------------------------------------------------------------- main
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


# ----------------------------------------------------------------- rendering
def test_render_counts_the_stock_left() -> None:
    """The header's stock count is the cards still to draw: 24 after the deal, then fewer."""
    core = _dealt_core()
    assert "stock: 24 cards" in render_game(core, 0)
    core.step(np.array([0]))  # the crane, onto one of two pine cards
    core.step(np.array([48 + 1]))  # take the pine ribbon; the draw follows
    assert "stock: 23 cards" in render_game(core, 0)


def test_render_marks_the_seat_to_move_not_the_dealer() -> None:
    """Once the dealer has moved, the other seat is the one marked "(to move)"."""
    core = _dealt_core()
    while int(core.mover[0]) == int(core.dealer[0]):
        core.step(np.array([int(np.flatnonzero(core.legal_action_mask()[0])[0])]))
    text = render_game(core, 0)
    assert "player_1 (to move)" in text and "player_0 (to move)" not in text
    assert "dealer: player_0" in text


def test_render_names_a_waiting_card_even_card_zero() -> None:
    """A played card waiting for the choice of its capture is named, the pine crane (id 0)
    included."""
    core = _dealt_core()
    core.step(np.array([0]))
    assert "card waiting: ★pine crane" in render_game(core, 0)
