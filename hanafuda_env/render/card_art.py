"""The project's own drawing of the 48 cards, as data: simple shapes in card units.

One description feeds two painters: :func:`card_svg` writes it as SVG (the browser page of
``play.py --web``) and :mod:`hanafuda_env.render.board_image` paints it with Pillow (the envs'
``rgb_array`` render), so a card looks the same in both. A card shows its month's colour and
number, a symbol of its kind (a sun for a bright, a diamond for an animal, a band for a ribbon,
leaves for chaff) and its flower's name; the SVG carries the card's full name as its
``<title>`` (shown on hover). Nothing here is copied card art.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape

from hanafuda_env.common import cards as C

CARD_W, CARD_H = 60, 96  # card units; a painter scales them

# One background colour per month (1..12): a season's colour, light enough for the symbols.
MONTH_COLOURS = ("#dfe8c8", "#f4d6dc", "#fbe0ea", "#e2d6f0", "#d3def2", "#f6d2cf",
                 "#eadbc6", "#ece6c2", "#f7e4b5", "#f3cdb5", "#d2e6dc", "#e6dcc8")
INK = "#2b2118"
BACK = "#6b1f1f"
RED, BLUE, GOLD, BROWN, GREEN = "#c8322d", "#2a4f9e", "#e0b030", "#7a4a22", "#4f7a38"


@dataclass(frozen=True)
class Shape:
    """One drawing step. ``kind``: ``rect`` and ``ellipse`` fill the box ``points`` (x0, y0,
    x1, y1); ``polygon`` joins ``points`` (x, y, x, y, …); ``text`` writes ``text`` centred
    on (x, y) = ``points`` at height ``size``."""

    kind: str
    points: tuple[float, ...]
    fill: str | None = None
    outline: str | None = None
    width: float = 1.0
    text: str = ""
    size: float = 0.0


def _frame(fill: str) -> list[Shape]:
    return [Shape("rect", (0, 0, CARD_W, CARD_H), fill, INK, 2)]


def _symbol(card: C.Card) -> list[Shape]:
    """The kind's symbol in the middle of the card."""
    cx, cy = CARD_W / 2, CARD_H / 2
    if card.kind == C.BRIGHT:
        return [Shape("ellipse", (cx - 18, cy - 18, cx + 18, cy + 18), GOLD, INK, 1.5),
                Shape("ellipse", (cx - 12, cy - 12, cx + 12, cy + 12), RED)]
    if card.kind == C.ANIMAL:
        return [Shape("polygon", (cx, cy - 20, cx + 16, cy, cx, cy + 20, cx - 16, cy), BROWN,
                      INK, 1.5)]
    if card.kind == C.RIBBON:
        colour = BLUE if "aotan" in card.tags else RED
        band = [Shape("polygon", (cx - 8, cy - 26, cx + 8, cy - 26, cx + 6, cy + 26,
                                  cx - 10, cy + 26), colour, INK, 1.5)]
        if {"akatan", "aotan"} & set(card.tags):  # a poetry ribbon: lines of verse
            band += [Shape("rect", (cx - 3, cy - 18 + 9 * k, cx + 2, cy - 15 + 9 * k), INK)
                     for k in range(3)]
        return band
    leaves = [Shape("ellipse", (cx - 16 + 11 * k, cy - 6, cx - 6 + 11 * k, cy + 16), GREEN,
                    INK, 1) for k in range(3)]
    if "lightning" in card.tags:
        leaves.append(Shape("polygon", (cx + 4, cy - 24, cx - 8, cy - 6, cx + 1, cy - 6,
                                        cx - 5, cy + 8, cx + 10, cy - 12, cx + 1, cy - 12),
                            GOLD, INK, 1))
    return leaves


@cache
def card_shapes(card_id: int) -> tuple[Shape, ...]:
    """The face of card ``card_id``."""
    card = C.DECK[card_id]
    flower = C.MONTHS[card.month - 1][0]
    return tuple(_frame(MONTH_COLOURS[card.month - 1]) + [
        Shape("text", (12, 12), INK, text=str(card.month), size=13),
        Shape("text", (CARD_W - 10, 12), INK, text=_KIND_LETTER[card.kind], size=10),
        *_symbol(card),
        Shape("text", (CARD_W / 2, CARD_H - 10), INK, text=flower.split()[0][:8], size=10),
    ])


_KIND_LETTER = {C.BRIGHT: "B", C.ANIMAL: "A", C.RIBBON: "R", C.CHAFF: "C"}


@cache
def back_shapes() -> tuple[Shape, ...]:
    """A card face down: the same for every card, so it tells nothing."""
    return tuple(_frame(BACK) + [Shape("rect", (6, 6, CARD_W - 6, CARD_H - 6), None, GOLD, 1.5),
                                 Shape("polygon", (CARD_W / 2, 22, CARD_W - 16, CARD_H / 2,
                                                   CARD_W / 2, CARD_H - 22, 16, CARD_H / 2),
                                       None, GOLD, 1.5)])


def _svg_shape(shape: Shape) -> str:
    paint = (f' fill="{shape.fill or "none"}"'
             + (f' stroke="{shape.outline}" stroke-width="{shape.width}"' if shape.outline
                else ""))
    p = shape.points
    if shape.kind == "rect":
        return f'<rect x="{p[0]}" y="{p[1]}" width="{p[2] - p[0]}" height="{p[3] - p[1]}"{paint}/>'
    if shape.kind == "ellipse":
        return (f'<ellipse cx="{(p[0] + p[2]) / 2}" cy="{(p[1] + p[3]) / 2}" '
                f'rx="{(p[2] - p[0]) / 2}" ry="{(p[3] - p[1]) / 2}"{paint}/>')
    if shape.kind == "polygon":
        pairs = " ".join(f"{p[i]},{p[i + 1]}" for i in range(0, len(p), 2))
        return f'<polygon points="{pairs}"{paint}/>'
    return (f'<text x="{p[0]}" y="{p[1]}" font-size="{shape.size}" font-family="sans-serif" '
            f'text-anchor="middle" dominant-baseline="central" fill="{shape.fill}">'
            f'{escape(shape.text)}</text>')


def shapes_svg(shapes: tuple[Shape, ...], title: str) -> str:
    """An ``<svg>`` element of the shapes (viewBox in card units) titled ``title``."""
    body = "".join(_svg_shape(s) for s in shapes)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CARD_W} {CARD_H}" '
            f'class="card-art"><title>{escape(title)}</title>{body}</svg>')


def card_svg(card_id: int) -> str:
    """Card ``card_id`` as SVG, with its name, month and kind as the hover title."""
    card = C.DECK[card_id]
    return shapes_svg(card_shapes(card_id), f"{card.name} ({card.name_ja}), month "
                                            f"{card.month}, {card.kind}")


def back_svg() -> str:
    """A face-down card as SVG."""
    return shapes_svg(back_shapes(), "a hidden card")
