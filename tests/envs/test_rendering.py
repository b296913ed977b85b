"""The text board (``render_game``) and the envs' renders: the table, scores and stock count,
the seat to move, a card waiting for its capture, hidden hands, counts in the right number,
and the finished-round lines of koikoi_v0."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.koikoi.core import (
    KOIKOI,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.render.text import card_label, counted, render_game
from tests.helpers.envs import (
    HANAMI_DECK,
)
from tests.helpers.scenarios import (
    SANKO_T5,
    Duo,
    cards,
    pairs_deck,
    play_pairs,
    script,
)


# ------------------------------------------------------------------ render_game
def test_render_game_shows_the_table() -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    play_pairs(duo, script(dp, op, 6), {5: KOIKOI})
    core = duo.core
    text = render_game(core, 0)
    assert "sanko 5" in text and "total 5" in text and "koi-koi" in text
    for card in cards(core.field[0]) | cards(core.piles[0, 0]) | cards(core.piles[0, 1]):
        assert card_label(card) in text
    for card in cards(core.hands[0, 0]) | cards(core.hands[0, 1]):
        assert card_label(card) in text
    for viewer in (0, 1):
        hidden = 1 - viewer
        lines = render_game(core, 0, viewer=viewer).splitlines()
        start = lines.index(next(x for x in lines if x.startswith(f"player_{hidden}")))
        assert lines[start + 1].strip() == "hand:  5 hidden cards"
        shown = lines[lines.index(next(x for x in lines if x.startswith(f"player_{viewer}")))
                      + 1]
        for card in cards(core.hands[0, viewer]):
            assert card_label(card) in shown


def test_render_shows_the_match_score() -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert "score 5 : -5" in render_game(duo.core, 0)
    assert "score -5 : 5" in render_game(duo.core, 1, viewer=0)
    assert "round 2/12" in render_game(duo.core, 1)


# Dealer (seat 0) holds the pine crane; the field holds two other pine cards, so playing
# the crane waits for the player to choose which one it takes.
_CRANE_HAND = [0, 5, 9, 13, 17, 21, 25, 29]
_OTHER_HAND = [6, 10, 14, 18, 22, 26, 30, 34]
_FIELD = [1, 2, 36, 40, 44, 41, 37, 33]
CRANE_CHOICE_DECK = _CRANE_HAND + _OTHER_HAND + _FIELD + [
    c for c in range(48) if c not in set(_CRANE_HAND + _OTHER_HAND + _FIELD)]


def _dealt_core() -> KoiKoiCore:
    core = KoiKoiCore(1, seed=0)
    core.reset(seed=0, options={"deck": CRANE_CHOICE_DECK, "dealer": 0})
    return core


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


def test_counts_read_in_the_right_number() -> None:
    """Only one is singular: an empty stock shows "0 cards", not "0 card"."""
    assert counted(1, "card") == "1 card"
    assert counted(0, "card") == "0 cards"
    assert counted(2, "card") == "2 cards"
    assert counted(0, "hidden card") == "0 hidden cards"
    assert counted(3, "koi-koi", "koi-koi") == "3 koi-koi"


# -------------------------------------------------------------------- koikoi_v0
def test_aec_reset_options_and_rendering(capsys):
    env = koikoi_v0.env(result_infos=True, render_mode="human", seed=2)
    with pytest.warns(UserWarning, match=r"'colour'.*dealer, deck"):
        env.reset(options={"colour": "red"})
    for dealer in (0, 1):
        env.reset(seed=4, options={"dealer": dealer, "deck": HANAMI_DECK})
        assert env.agent_selection == f"player_{dealer}"
    capsys.readouterr()
    env.step(8)  # the dealer (player_1) plays the curtain and draws the sake cup: hanami-zake
    assert "decision: koikoi-or-stop by player_1" in capsys.readouterr().out
    ansi = koikoi_v0.env(result_infos=True, render_mode="ansi")
    ansi.reset(seed=1)
    board = ansi.render()
    assert "8 hidden cards" not in board and "decision: play" in board  # a spectator's view
    ansi.step(97)  # an illegal action ends the episode (PettingZoo's wrapper)
    assert ansi.render().startswith("episode over; the table as it ended:")
    with pytest.warns(UserWarning, match="render_mode"):
        assert koikoi_v0.env(result_infos=True).unwrapped.render() is None


def _aec_first_legal_episode(seed: int) -> tuple[koikoi_v0.raw_env, dict]:
    """koikoi_v0 (ansi) played with the lowest legal action to the end of one round
    episode; returns the env and the final infos of the selected agent."""
    env = koikoi_v0.env(result_infos=True, render_mode="ansi")
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            return env, info
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    raise AssertionError("the episode did not end")


def test_aec_render_after_a_no_game_names_nobody_and_round_one() -> None:
    """The finished-round line is 1-based and says "nobody" for a round without a winner
    (seed 42, both seats playing their lowest legal action, ends in a no-game)."""
    env, info = _aec_first_legal_episode(42)
    (row,) = info["round_results"]
    assert (row["reason"], row["winner"], row["round_index"]) == ("no-game", -1, 0)
    text = env.render()
    assert text.startswith("episode over; the table as it ended:\nround 1/12 over")
    assert "decision: none, the round is over" in text
    assert "round 1: no-game, nobody wins 0 (base 0 x1; yaku: none)" in text
    assert "player_-1" not in text


def test_aec_render_lists_a_won_round_with_its_winner() -> None:
    """A round won by a seat is rendered with that seat, its points and yaku."""
    env = koikoi_v0.env(result_infos=True, render_mode="ansi")
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    env.step(8)  # the curtain onto the cherry ribbon; the drawn sake cup: hanami-zake
    env.step(STOP)
    text = env.render()
    assert "round 1: stop, player_0 wins 5 (base 5 x1; yaku: hanami_zake 5)" in text


@pytest.mark.parametrize("viewer", [None, "player_0", "player_1", "mover"])
def test_aec_render_shows_the_hands_its_viewer_may_see(viewer) -> None:
    """render_viewer None is a spectator's board (both hands); a player's board hides the
    other hand; "mover" follows the player to move."""
    env = koikoi_v0.env(result_infos=True, render_mode="ansi", render_viewer=viewer)
    env.reset(seed=3)
    for _ in range(6):
        game = env.unwrapped.game
        text = env.render()
        seen = {"player_0": 0, "player_1": 1}.get(viewer, game.mover)
        lines = text.splitlines()
        for seat in (0, 1):
            header = next(i for i, line in enumerate(lines) if line.startswith(f"player_{seat}"))
            hand = lines[header + 1]
            assert hand.startswith("  hand:")
            hidden = hand.endswith(f"{game.hands[seat].bit_count()} hidden cards")
            assert hidden == (viewer is not None and seat != seen), (viewer, seat, hand)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_aec_render_viewer_is_checked_by_name() -> None:
    with pytest.raises(ValueError, match="render_viewer must be one of 'player_0', 'player_1', "
                                         "'mover', None, got 'north'"):
        koikoi_v0.env(result_infos=True, render_viewer="north")
