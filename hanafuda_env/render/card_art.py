"""The project's own drawing of the 48 cards, as data: simple shapes in card units.

One description feeds two painters: :func:`card_svg` writes it as SVG (the browser page of
``play.py --web`` and its favicon) and :mod:`hanafuda_env.render.board_image` paints it
with Pillow (the envs' ``rgb_array`` render), so a card looks the same in both. A card is
layered: the paper, its motif's background (a sky, the sun), its month's plant
(:mod:`~hanafuda_env.render.card_plants`), its motif (:mod:`~hanafuda_env.render.card_motifs`:
the crane, the boar, a ribbon, …) and a small month number in the corner, which a pile's
overlapping cards leave in view. The SVG carries the card's full name as its ``<title>``.
Nothing here is copied card art.
"""

from __future__ import annotations

from functools import cache
from html import escape

from hanafuda_env.common import cards as C
from hanafuda_env.render.card_motifs import INK, PAPER, motif
from hanafuda_env.render.card_plants import PAULOWNIA_GOLD, plant
from hanafuda_env.render.shapes import Shape, circle, mirrored, rect, svg_element

__all__ = ["CARD_H", "CARD_W", "Shape", "back_shapes", "back_svg", "card_layers",
           "card_shapes", "card_svg", "card_title", "favicon_svg", "shapes_svg"]

CARD_W, CARD_H = 60, 96  # card units; a painter scales them
BACK = "#6b1f1f"
GOLD = "#e0b030"
FLIPPED_CHAFF = frozenset({3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 46})  # mirror their twin
GOLD_GROUND = 47  # the paulownia chaff on a yellow ground


def _room(card: C.Card) -> str:
    if card.kind == C.RIBBON:
        return "ribbon"
    return "chaff" if card.kind == C.CHAFF and card.id != 43 else "motif"


@cache
def card_layers(card_id: int) -> dict[str, tuple[Shape, ...]]:
    """Card ``card_id``'s picture by layer, bottom to top: ``paper``, ``sky`` (its motif's
    background), ``plant``, ``motif``, ``index`` (the month number), ``frame``."""
    card = C.DECK[card_id]
    art = motif(card_id)
    sky = list(art.back)
    if card_id == GOLD_GROUND:
        sky.append(rect(3, 62, CARD_W - 3, CARD_H - 3, PAULOWNIA_GOLD))
    flora = plant(card.month, _room(card))
    if card_id in FLIPPED_CHAFF:
        flora = mirrored(flora, CARD_W / 2)
    index = (circle(9, 9, 7, PAPER, INK, 0.8),
             Shape("text", (9, 9.3), INK, text=str(card.month), size=10 if card.month < 10
                   else 8.5))
    return {"paper": (rect(0, 0, CARD_W, CARD_H, PAPER),), "sky": tuple(sky),
            "plant": tuple(flora), "motif": art.front,
            "index": index,
            "frame": (rect(0.75, 0.75, CARD_W - 0.75, CARD_H - 0.75, None, INK, 1.5),)}


@cache
def card_shapes(card_id: int) -> tuple[Shape, ...]:
    """The face of card ``card_id``: its layers in drawing order."""
    return tuple(s for layer in card_layers(card_id).values() for s in layer)


@cache
def back_shapes() -> tuple[Shape, ...]:
    """A card face down: the same for every card, so it tells nothing."""
    return (rect(0, 0, CARD_W, CARD_H, BACK, INK, 1.5),
            rect(6, 6, CARD_W - 6, CARD_H - 6, None, GOLD, 1.5),
            Shape("polygon", (CARD_W / 2, 22, CARD_W - 16, CARD_H / 2, CARD_W / 2, CARD_H - 22,
                              16, CARD_H / 2), None, GOLD, 1.5))


def shapes_svg(shapes: tuple[Shape, ...], title: str, view_box: str = f"0 0 {CARD_W} {CARD_H}"
               ) -> str:
    """An ``<svg>`` document of the shapes (viewBox in card units) titled ``title``."""
    body = "".join(svg_element(s) for s in shapes)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view_box}" '
            f'class="card-art"><title>{escape(title)}</title>{body}</svg>')


def card_title(card_id: int) -> str:
    """The card's full name, as a hover shows it: ``pine crane (松に鶴), month 1, bright``."""
    card = C.DECK[card_id]
    return f"{card.name} ({card.name_ja}), month {card.month}, {card.kind}"


@cache
def card_svg(card_id: int) -> str:
    """Card ``card_id`` as SVG, its full name as the title."""
    return shapes_svg(card_shapes(card_id), card_title(card_id))


def back_svg() -> str:
    """A face-down card as SVG."""
    return shapes_svg(back_shapes(), "a hidden card")


def favicon_svg() -> str:
    """The page's icon: the crane card, centred in a square."""
    return shapes_svg(card_shapes(0), "Koi-Koi", f"-{(CARD_H - CARD_W) / 2:g} 0 {CARD_H} "
                                                 f"{CARD_H}")
