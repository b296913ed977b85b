"""The board as a picture (``render_mode="rgb_array"``): an H×W×3 uint8 image of what the
viewer sees; the cards the viewer cannot see (the other hand, the stock order) do not change
it, and every visible change does. The cards' SVG (the browser page) draws the same shapes."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import render_test

import hanafuda_env
from hanafuda_env.common import cards as C
from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.render.board_image import HEIGHT, WIDTH, board_image, board_layout, card_picture
from hanafuda_env.render.card_art import CARD_H, CARD_W, back_svg, card_svg, card_title


def _played_game(seed: int, moves: int) -> KoiKoiGame:
    """A game ``moves`` random moves into a round (the deal may end rounds: hand yaku)."""
    game = KoiKoiGame(seed=seed, autoreset=False)
    game.deal_on()
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        game.step(int(rng.choice(game.legal_actions())))
    assert not game.round_over
    return game


def _shuffled_hidden(game: KoiKoiGame, seat: int, seed: int) -> KoiKoiGame:
    world = game.copy()
    world.resample_hidden(seat, np.random.default_rng(seed))
    return world


@pytest.mark.parametrize("seat", [0, 1])
def test_what_the_viewer_cannot_see_does_not_change_the_image(seat: int) -> None:
    game = _played_game(5, 7)
    world = _shuffled_hidden(game, seat, 11)
    other = 1 - seat
    assert world.hands[other] != game.hands[other]  # the hidden hand really differs
    assert world.stock != game.stock
    assert np.array_equal(board_image(game, seat), board_image(world, seat))
    # the spectator's image shows both hands: the other hand's cards are there to see
    assert not np.array_equal(board_image(game, None), board_image(world, None))


def test_the_image_changes_with_the_visible_board() -> None:
    game = _played_game(3, 2)
    before = board_image(game, game.mover)
    seat = game.mover
    game.step(game.legal_actions()[0])
    assert not np.array_equal(before, board_image(game, seat))
    moved = _played_game(3, 2)
    # one card moved from the field to a pile: only that changes
    card = C.ids_of(moved.field)[0]
    moved.set_fields(field=moved.field & ~(1 << card),
                     piles=[moved.piles[0] | 1 << card, moved.piles[1]])
    assert not np.array_equal(board_image(_played_game(3, 2), 0), board_image(moved, 0))


def test_aec_rgb_array_is_the_movers_view_unless_a_viewer_is_named() -> None:
    env = koikoi_v0.env(render_mode="rgb_array")
    env.reset(seed=4)
    image = env.render()
    assert image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
    game = env.unwrapped.game
    assert np.array_equal(image, board_image(game, game.mover))
    named = koikoi_v0.env(render_mode="rgb_array", render_viewer="player_1")
    named.reset(seed=4)
    assert np.array_equal(named.render(), board_image(named.unwrapped.game, 1))


@pytest.mark.parametrize("seat", [0, 1])
def test_gym_rgb_array_is_the_learners_view(seat: int) -> None:
    env = KoiKoiSingleAgentEnv(learner_seat=seat, render_mode="rgb_array")
    env.reset(seed=2)
    image = env.render()
    assert image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
    world = _shuffled_hidden(env.game, seat, 1)
    assert np.array_equal(image, board_image(world, seat))


def test_pettingzoo_render_test_and_gymnasium_checker_take_rgb_array() -> None:
    render_test(koikoi_v0.env)  # every mode of metadata, rgb_array's shape and dtype
    env = gymnasium.make(hanafuda_env.GYM_ID, render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from gymnasium.utils.env_checker import check_env

        check_env(env.unwrapped)
    env.reset(seed=0)
    assert env.render().shape == (HEIGHT, WIDTH, 3)


def test_the_image_paints_the_cards_svg_pictures() -> None:
    """The board pastes each card's picture, painted from the shapes its SVG is written
    from (tests/envs/test_card_art.py checks the pictures themselves)."""
    game = _played_game(3, 2)
    image = board_image(game, None)
    cards, _ = board_layout(game, None)
    last = cards[-1]  # drawn last, so nothing covers it
    x, y = round(last.x), round(last.y)
    assert np.array_equal(image[y:y + CARD_H, x:x + CARD_W],
                          np.asarray(card_picture(last.card, 1.0)))
    for card in C.DECK:
        assert f"<title>{card_title(card.id)}</title>" in card_svg(card.id)
    assert "title>a hidden card<" in back_svg()


def test_the_image_names_yaku_as_a_person_reads_them() -> None:
    from hanafuda_env.koikoi.scoring import score_pile, yaku_table
    from hanafuda_env.render.board_image import plain_name

    assert plain_name("ino_shika_cho") == "Ino-Shika-Cho"  # the font has no marked vowels
    assert plain_name("hanami_zake") == "Hanami-zake"
    shown = 0
    game = KoiKoiGame(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(400):
        if game.round_over:
            game.deal_next()
        line = " ".join(text for *_, text in board_layout(game, None)[1])
        for seat in (0, 1):
            table = yaku_table(game.rules, called=game.koikoi_calls[seat] > 0)
            for name, points in score_pile(game.piles[seat], table).items():
                assert f"{plain_name(name)} {points}" in line
                assert "_" not in name or name not in line
                shown += 1
        game.step(int(rng.choice(game.legal_actions())))
    assert shown > 20, "piles made yaku"
