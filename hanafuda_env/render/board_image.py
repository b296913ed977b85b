"""The board as a picture: ``render_mode="rgb_array"`` of the envs (an H×W×3 uint8 array).

The cards are those of :mod:`hanafuda_env.render.card_art` (the browser page draws the same shapes
as SVG), painted with Pillow's ImageDraw in a fixed layout, top to bottom: a header (round,
match score, stock count, dealer, the decision waiting), the far seat's capture pile grouped
by kind with its yaku, its hand, the field with the stock and a card waiting for its
capture, the near seat's hand and its pile. The near seat is ``viewer`` (player_0 when
``viewer`` is None); with ``viewer`` set the other hand is drawn face down, in a fixed order,
and the stock only as a count, so the picture holds nothing the viewer cannot see. Pillow is
imported only when a picture is asked for: the envs' other modes do not need it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.common.indices import check_optional_seat
from hanafuda_env.koikoi.deals import STOCK_SIZE
from hanafuda_env.koikoi.scoring import score_pile, yaku_table
from hanafuda_env.koikoi.state import PHASE_NAMES, ROUND_OVER
from hanafuda_env.render.card_art import CARD_H, CARD_W, back_shapes, card_shapes
from hanafuda_env.render.shapes import paint
from hanafuda_env.render.text import counted
from hanafuda_env.render.yaku_names import yaku_display

WIDTH, HEIGHT = 980, 664
MARGIN, GAP, STEP = 12, 18, 64  # edge; between pile groups; card to card in a row
PILE_STEP = 16  # overlap of the cards of one pile group
TABLE, TEXT = "#24553a", "#f4efe2"
ROW_H = CARD_H + 22  # a row's label line above its cards


@dataclass(frozen=True)
class Placed:
    """A card on the board: its id (None: face down) and its top-left corner."""

    card: int | None
    x: float
    y: float


def plain_name(yaku: str) -> str:
    """A yaku's display name without its vowel marks (Ino-Shika-Cho): the image's font has no
    glyph for them."""
    shown = unicodedata.normalize("NFKD", yaku_display(yaku))
    return "".join(ch for ch in shown if not unicodedata.combining(ch))


def board_layout(game: Any, viewer: int | None) -> tuple[list[Placed], list[tuple]]:
    """Where every card and line of text goes: (cards, texts as (x, y, text)). ``game`` is a
    ``KoiKoiGame`` (or anything with its fields)."""
    viewer = check_optional_seat(viewer, 2)
    near = 0 if viewer is None else viewer
    far = 1 - near
    phase, rules = game.phase, game.rules
    placed: list[Placed] = []
    texts: list[tuple] = [(MARGIN, 8, _header(game))]
    y = 34
    for seat, part in ((far, "pile"), (far, "hand"), (None, "field"), (near, "hand"),
                       (near, "pile")):
        if part == "field":
            pending = game.pending
            label = "field" + (f"  (card waiting: {C.card_name(pending)})" if pending >= 0
                               else "")
            texts.append((MARGIN, y, label))
            _row(placed, C.ids_of(game.field), MARGIN, y + 20, WIDTH - 3 * STEP)
            stock_x = WIDTH - MARGIN - 2 * STEP
            left = STOCK_SIZE - game.stock_pos
            if left:
                placed.append(Placed(None, stock_x, y + 20))
            texts.append((stock_x, y, f"stock {left}"))
            if pending >= 0:
                placed.append(Placed(pending, WIDTH - MARGIN - CARD_W, y + 20))
        elif part == "hand":
            hand = game.hands[seat]
            mark = " (to move)" if seat == game.mover and phase < ROUND_OVER else ""
            calls = game.koikoi_calls[seat]
            texts.append((MARGIN, y, f"player_{seat}{mark}"
                                     + (f"  koi-koi x{calls}" if calls else "")))
            shown = viewer is None or seat == viewer
            ids = C.ids_of(hand) if shown else [None] * hand.bit_count()
            _row(placed, ids, MARGIN, y + 20, WIDTH - 2 * MARGIN)
        else:
            pile = game.piles[seat]
            yaku = score_pile(pile, yaku_table(rules, called=game.koikoi_calls[seat] > 0))
            listed = ", ".join(f"{plain_name(n)} {p}" for n, p in yaku.items()) or "none"
            texts.append((MARGIN, y, f"player_{seat} pile: {counted(pile.bit_count(), 'card')}"
                                     f"  yaku: {listed} (total {sum(yaku.values())})"))
            _pile(placed, pile, y + 20)
        y += ROW_H + (14 if part == "field" or (part == "hand" and seat == far) else 0)
    return placed, texts


def _header(game: Any) -> str:
    phase, rules = game.phase, game.rules
    played = game.round_index
    when = (f"round {played + 1}/{rules.rounds}" if phase < ROUND_OVER else
            f"round {played}/{rules.rounds} over" if phase == ROUND_OVER else
            f"match over after {counted(played, 'round')}")
    score = game.match_score
    waiting = ("" if phase >= ROUND_OVER
               else f"  {PHASE_NAMES[phase]} by player_{game.mover}")
    return (f"{when}  score {score[0]} : {score[1]}  dealer player_{game.dealer}"
            f"  ({rules.name}){waiting}")


def _row(placed: list[Placed], ids: list, x: float, y: float, width: float) -> None:
    """Cards side by side from ``x``, closer together when they would pass ``width``."""
    step = STEP if len(ids) <= 1 else min(STEP, (width - CARD_W) / (len(ids) - 1))
    placed.extend(Placed(card, x + k * step, y) for k, card in enumerate(ids))


def _pile(placed: list[Placed], pile: int, y: float) -> None:
    """A capture pile as four overlapping groups, brights to chaff."""
    groups = [[c for c in C.ids_of(pile) if C.DECK[c].kind == kind] for kind in C.KINDS]
    spans = sum(CARD_W + PILE_STEP * (len(g) - 1) for g in groups if g)
    gaps = GAP * (sum(1 for g in groups if g) - 1)
    room = WIDTH - 2 * MARGIN
    overlap = PILE_STEP
    if spans + gaps > room:  # a long pile: the cards of each group overlap more
        extra = sum(len(g) - 1 for g in groups if g)
        overlap = max(2.0, PILE_STEP - (spans + gaps - room) / max(extra, 1))
    x = MARGIN
    for group in groups:
        if group:
            placed.extend(Placed(card, x + k * overlap, y) for k, card in enumerate(group))
            x += CARD_W + overlap * (len(group) - 1) + GAP


def board_image(game: Any, viewer: int | None = None, scale: float = 1.0) -> np.ndarray:
    """The board as an (H, W, 3) uint8 array, ``viewer``'s view (None: both hands shown)."""
    from PIL import Image, ImageDraw

    size = (round(WIDTH * scale), round(HEIGHT * scale))
    image = Image.new("RGB", size, TABLE)
    draw = ImageDraw.Draw(image)
    cards, texts = board_layout(game, viewer)
    for item in cards:
        image.paste(card_picture(item.card, scale), (round(item.x * scale),
                                                     round(item.y * scale)))
    for x, y, text in texts:
        draw.text((x * scale, y * scale), text, fill=TEXT, font=_font(round(14 * scale)))
    return np.asarray(image, dtype=np.uint8).copy()


SUPERSAMPLE = 4  # a card is painted this many times larger, then shrunk: smooth edges


@lru_cache(maxsize=256)
def card_picture(card: int | None, scale: float = 1.0) -> Any:
    """Card ``card`` (None: a face-down card) as a Pillow image, ``scale`` pixels per card
    unit; cached, as a board shows the same 49 pictures over and over."""
    from PIL import Image, ImageDraw

    size = (round(CARD_W * scale), round(CARD_H * scale))
    big = Image.new("RGB", (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE), TABLE)
    draw = ImageDraw.Draw(big)
    for shape in back_shapes() if card is None else card_shapes(card):
        paint(draw, shape, 0, 0, big.width / CARD_W, _font)
    return big.resize(size, Image.Resampling.LANCZOS)


@lru_cache(maxsize=16)
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=max(1, size))
