"""Legal and illegal actions of the engines: an illegal action is refused naming the game, the
action and the legal ones, and changes no game (the plain game says exactly what the core
says); random legal actions are spread evenly over the cards in hand."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.koikoi.core import (
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    PHASE_NAMES,
    PLAY,
    STOP,
    IllegalActionError,
    KoiKoiCore,
)
from hanafuda_env.koikoi.game import KoiKoiGame
from tests.helpers.scenarios import (
    make_deck,
)


# -------------------------------------------------------------- illegal actions
def test_illegal_action_changes_no_game() -> None:
    deck = make_deck([2, 10, 4, 12, 16, 20, 36, 44], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [3, 6, 14, 11, 30])
    quiet = make_deck(deck[:8], deck[8:16], deck[16:24], [14, 15])
    core = KoiKoiCore(3, seed=9)
    core.reset(seed=9, options={"deck": np.array([deck, deck, quiet]), "dealer": [0, 1, 0]})
    # games 0 and 1 now choose between the two pines; in game 2 the other player is to play
    core.step(np.array([2, 2, 4]))
    assert core.phase.tolist() == [CHOOSE_PLAYED, CHOOSE_PLAYED, PLAY]
    before = core.state_dict()
    cases = [([48, 50, 5], "game 1", "action 50", "[48, 49]"),  # card 2 is not on the field
             ([48, 49, 96], "game 2", "action 96", "[5, 13,"),  # stop outside a decision
             ([98, 48, 5], "game 0", "action 98", "[48, 49]"),
             ([-1, 48, 5], "game 0", "action -1", "[48, 49]"),
             ([48, 48, 4], "game 2", "action 4", "[5, 13,")]  # the other player's card
    for actions, *parts in cases:
        with pytest.raises(IllegalActionError) as info:
            core.step(np.array(actions))
        for part in parts:
            assert part in str(info.value)
        after = core.state_dict()
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value, err_msg=name)
    with pytest.raises(ValueError):
        core.step(np.array([48.0, 48.0, 5.0]))
    with pytest.raises(ValueError):
        core.step(np.array([48, 48]))
    core.step(np.array([48, 49, 5]))  # the legal move still works afterwards
    assert core.phase.tolist() == [PLAY, PLAY, PLAY]


def test_illegal_actions_leave_the_state_unchanged():
    core = KoiKoiCore(32, seed=4)
    rng = np.random.default_rng(4)
    phases_tried = set()
    for _ in range(25):
        for g in range(core.n_games):
            game = KoiKoiGame.from_core(core, g)
            legal = set(game.legal_actions())
            illegal = [a for a in (-1, 0, 5, 47, 48, 60, 95, STOP, KOIKOI, 98, 1000)
                       if a not in legal]
            before = game.state_dict()
            twin = core.fork(g)
            for action in illegal[:4]:
                with pytest.raises(IllegalActionError) as mine:
                    game.step(action)
                assert game.state_dict() == before
                with pytest.raises(IllegalActionError) as theirs:
                    twin.step(np.array([action]))
                assert str(mine.value) == str(theirs.value)  # same message as the core's
                assert f" in phase {PHASE_NAMES[game.phase]}; legal actions" in str(mine.value)
            phases_tried.add(game.phase)
        core.step(core.sample_legal_actions(rng))
    assert phases_tried == {0, 1, 2, 3}
    assert PHASE_NAMES[DECIDE] == "koikoi-or-stop"  # not "koikoi", the name of an action
    game = KoiKoiGame(seed=0)
    for bad in (1.0, "3", True, None):
        with pytest.raises(ValueError):
            game.step(bad)
    assert game.step(np.int64(game.legal_actions()[0])).reward == (0, 0)


HUGE = np.uint64(2**64 - 1)


def test_an_illegal_action_error_reports_the_value_given() -> None:
    """An action id past int64 is named as given, not as the -1 it would wrap to."""
    core = KoiKoiCore(2, seed=0)
    with pytest.raises(IllegalActionError, match="18446744073709551615") as error:
        core.step(np.full(2, HUGE))
    assert "action -1" not in str(error.value)


# --------------------------------------------------------- random legal actions
def test_random_legal_actions_are_uniform_over_eight_cards_in_hand() -> None:
    """Filler moves and random baselines draw from the bit sets: every one of eight cards
    in hand must come up about one time in eight (0.125; 20k draws give a spread of
    0.0023, the bounds allow 15 times that)."""
    core = KoiKoiCore(2500, seed=11)
    mask = core.legal_action_mask()
    assert (mask.sum(1) == 8).all()  # every game waits for the first card of a round
    rank = np.cumsum(mask, axis=1) - 1  # each legal action's place among its game's
    rng = np.random.default_rng(5)
    games = np.arange(core.n_games)
    counts = np.zeros(8)
    for _ in range(8):
        actions = core.sample_legal_actions(rng)
        assert mask[games, actions].all()
        counts += np.bincount(rank[games, actions], minlength=8)
    share = counts / counts.sum()
    assert share.min() > 0.09 and share.max() < 0.16, share
