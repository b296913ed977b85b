"""The card pictures (``hanafuda_env.render.card_art``): one drawing per card, all 48
different, in SVG and with Pillow alike; the four cards of a month share their plant's
colours; each bright and animal has a motif of its own; the ribbons follow the deck
(RULES.md §1): poetry ribbons red with writing, blue ribbons blue, plain ribbons red and
unwritten; the willow (rain) month's four cards are the rain man, the swallow, a plain ribbon
and the lightning. Also the yaku's display names cover every yaku id of the scorers."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.hanaawase.scoring import yaku_names as hanaawase_yaku_names
from hanafuda_env.koikoi.scoring import YAKU_NAMES
from hanafuda_env.render import card_motifs as M
from hanafuda_env.render.board_image import card_picture
from hanafuda_env.render.card_art import (
    CARD_H,
    CARD_W,
    back_svg,
    card_layers,
    card_shapes,
    card_svg,
    card_title,
    favicon_svg,
)
from hanafuda_env.render.card_plants import PLANT_COLOURS
from hanafuda_env.render.shapes import colours
from hanafuda_env.render.yaku_names import YAKU_DISPLAY, yaku_display

SVG = "{http://www.w3.org/2000/svg}"


def test_the_48_cards_are_48_different_pictures_in_svg_and_pillow() -> None:
    assert len({card_svg(i) for i in range(C.NUM_CARDS)}) == C.NUM_CARDS
    pixels = [np.asarray(card_picture(i, 1.0)) for i in range(C.NUM_CARDS)]
    for a in range(C.NUM_CARDS):
        assert pixels[a].shape == (CARD_H, CARD_W, 3)
        for b in range(a):
            assert not np.array_equal(pixels[a], pixels[b]), (C.card_name(a), C.card_name(b))
    assert not np.array_equal(np.asarray(card_picture(None, 1.0)), pixels[0])


@pytest.mark.parametrize("card_id", range(C.NUM_CARDS))
def test_each_svg_is_the_shapes_the_image_paints_titled_with_the_full_name(card_id: int
                                                                          ) -> None:
    card = C.DECK[card_id]
    svg = card_svg(card_id)
    root = ET.fromstring(svg)  # well-formed
    assert root.find(f"{SVG}title").text == card_title(card_id)
    assert card_title(card_id) == (f"{card.name} ({card.name_ja}), month {card.month}, "
                                   f"{card.kind}")
    drawn = [e for e in root if e.tag != f"{SVG}title"]
    assert len(drawn) == len(card_shapes(card_id))
    assert [e.text for e in drawn if e.tag == f"{SVG}text"] == [str(card.month)]
    for shape in card_shapes(card_id):  # nothing is drawn outside the card
        xs, ys = shape.points[0::2], shape.points[1::2]
        assert 0 <= min(xs) and max(xs) <= CARD_W and 0 <= min(ys) and max(ys) <= CARD_H, shape


@pytest.mark.parametrize("month", range(1, C.NUM_MONTHS + 1))
def test_the_cards_of_a_month_share_their_plants_colours(month: int) -> None:
    for card_id in range(4 * (month - 1), 4 * month):
        assert set(PLANT_COLOURS[month]) <= colours(card_layers(card_id)["plant"]), card_id
    for other in set(PLANT_COLOURS) - {month}:  # and the months' colours tell them apart
        assert set(PLANT_COLOURS[other]) != set(PLANT_COLOURS[month])


def test_each_bright_and_animal_has_a_motif_of_its_own() -> None:
    special = [c.id for c in C.DECK if c.kind in (C.BRIGHT, C.ANIMAL)] + [43]  # + lightning
    assert len(special) == 15
    motifs = {i: card_layers(i)["sky"] + card_layers(i)["motif"] for i in special}
    assert all(motifs.values())
    assert len(set(motifs.values())) == len(special)
    assert len({M.MOTIFS[i] for i in special}) == len(special)
    plain_chaff = [c.id for c in C.DECK if c.kind == C.CHAFF and c.id != 43]
    assert all(not card_layers(i)["motif"] for i in plain_chaff)


def test_ribbons_follow_the_deck() -> None:
    for card in C.DECK:
        front = colours(card_layers(card.id)["motif"])
        if "akatan" in card.tags:
            assert {M.RIBBON_RED, M.WRITING} <= front, card.name
        elif "aotan" in card.tags:
            assert M.RIBBON_BLUE in front and M.WRITING not in front, card.name
        elif card.kind == C.RIBBON:  # kusa and the willow's: plain and red
            assert M.RIBBON_RED in front and M.WRITING not in front, card.name
        else:
            assert M.WRITING not in colours(card_shapes(card.id)), card.name
            assert M.RIBBON_BLUE not in front, card.name


def test_the_willow_months_cards_are_rain_man_swallow_plain_ribbon_and_lightning() -> None:
    assert [C.DECK[i].kind for i in (40, 41, 42, 43)] == [C.BRIGHT, C.ANIMAL, C.RIBBON, C.CHAFF]
    assert (M.MOTIFS[40], M.MOTIFS[41], M.MOTIFS[43]) == (M.rain_man, M.swallow, M.lightning)
    assert C.DECK[40].tags == ("rain_man",) and C.DECK[43].tags == ("lightning",)
    assert card_layers(42)["motif"] == M.ribbon(M.RIBBON_RED, False, -4).front


def test_the_back_and_the_favicon() -> None:
    assert ET.fromstring(back_svg()).find(f"{SVG}title").text == "a hidden card"
    icon = ET.fromstring(favicon_svg())
    width, height = icon.get("viewBox").split()[2:]
    assert width == height  # square, the crane card in its middle
    assert len([e for e in icon if e.tag != f"{SVG}title"]) == len(card_shapes(0))


def test_every_yaku_id_of_the_scorers_has_a_display_name() -> None:
    ids = set(YAKU_NAMES) | {"teshi", "kuttsuki"}
    for nagashi in (False, True):
        ids |= set(hanaawase_yaku_names(HanaawaseRules(yaku_nagashi=nagashi)))
    assert ids <= set(YAKU_DISPLAY), sorted(ids - set(YAKU_DISPLAY))
    assert yaku_display("ino_shika_cho") == "Ino-Shika-Chō"
    assert yaku_display("hanami_zake") == "Hanami-zake"
    assert yaku_display("new_yaku") == "New-yaku"
    assert len(set(YAKU_DISPLAY.values())) == len(YAKU_DISPLAY)
