"""The motif of each bright, animal and ribbon card, and of the lightning, as shapes.

A motif is two layers: ``back`` drawn under the month's plant (a sky, the sun, the moon) and
``front`` drawn over it (the crane, the curtain, a ribbon, …). :data:`MOTIFS` maps the
card ids of RULES.md §1 to their motif; the other chaff cards have none. Ribbons follow the
deck: the poetry ribbons (akatan) are red with writing, the blue ribbons (aotan) blue, the
plain ribbons red without writing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hanafuda_env.render.shapes import Shape, arc, circle, leaf, line, oval, poly, rect, star

INK = "#2b2118"
WRITING = "#141014"  # the verse on a poetry ribbon, used by nothing else
RIBBON_RED, RIBBON_BLUE, RIBBON_EDGE = "#d0302c", "#2b53b0", "#7a1512"
SUN, SKY_RED, MOON, WHITE, GOLD = "#d9302a", "#cf3b2b", "#fbf3d2", "#ffffff", "#e2b038"
NIGHT = "#28304a"
PAPER = "#f7f1e1"  # the card's paper


@dataclass(frozen=True)
class Motif:
    back: tuple[Shape, ...] = ()
    front: tuple[Shape, ...] = ()


def ribbon(colour: str, writing: bool, tilt: float = 6.0) -> Motif:
    """A ribbon (tanzaku) hanging across the card; a poetry ribbon carries a line of verse."""
    x, top, bottom, half = 30.0, 14.0, 74.0, 6.5
    band = poly((x - half - tilt, top, x + half - tilt, top, x + half + tilt, bottom,
                 x - half + tilt, bottom), colour, RIBBON_EDGE if colour == RIBBON_RED
                else "#15306e", 1.2)
    shapes = [band, line((x - half - tilt + 1, top + 4, x + half - tilt - 1, top + 4),
                         GOLD, 1.2)]
    if writing:  # three brush strokes of verse down the middle
        for k in range(3):
            cy = top + 14 + 15 * k
            cx = x - tilt + 2 * tilt * (cy - top) / (bottom - top)
            shapes += [line((cx - 2.6, cy - 3.4, cx + 2.6, cy - 3.8), WRITING, 1.3),
                       line((cx - 0.2, cy - 5.6, cx + 0.3, cy + 1.5, cx - 2.4, cy + 4), WRITING,
                            1.3),
                       line((cx + 1.2, cy + 0.6, cx + 2.9, cy + 3.2), WRITING, 1.1)]
    return Motif(front=tuple(shapes))


def crane() -> Motif:
    """The crane under a red sun (松に鶴)."""
    sun = circle(40, 24, 15, SUN)
    body = [poly((12, 58, 20, 50, 34, 48, 42, 54, 40, 64, 26, 68, 14, 66), WHITE, INK, 1),
            poly((12, 58, 4, 52, 8, 62, 14, 66), INK),  # the black tail
            poly((20, 52, 34, 50, 30, 58, 18, 60), "#d9d9d0", INK, 0.6)]  # the folded wing
    neck = [line((40, 55, 44, 44, 46, 36), INK, 3.2), circle(46.5, 34, 3.2, WHITE, INK, 0.8),
            circle(46.5, 32.2, 1.4, SUN), poly((49, 33.5, 56, 36, 49, 35.5), "#c9a227")]
    legs = [line((26, 67, 24, 86), INK, 1.2), line((31, 67, 33, 86), INK, 1.2)]
    return Motif(back=(sun,), front=tuple(body + neck + legs))


def warbler() -> Motif:
    """The bush warbler on the plum branch (梅に鶯)."""
    olive, belly = "#8a9a2e", "#c8cf6a"
    return Motif(front=(
        poly((10, 54, 22, 48, 20, 56), olive, INK, 0.8),  # tail
        oval(30, 52, 12, 7, olive, INK, 1), oval(32, 55, 8, 3.5, belly),
        poly((24, 48, 36, 46, 32, 54, 22, 54), "#6a7a1e", INK, 0.6),  # wing
        circle(42, 45, 6, olive, INK, 1), circle(44, 44, 1.4, WHITE), circle(44.2, 44, 0.7, INK),
        poly((47.5, 45, 53, 46, 47.5, 47), INK),
    ))


def curtain() -> Motif:
    """The cherry-viewing curtain (桜に幕): red and white, with crests, on a rope."""
    red, crest = "#c62d2d", "#f7f1e1"
    drape = poly((3, 46, 57, 46, 57, 80) + arc(50.25, 80, 6.75, 5, 0, 180, 6)
                 + arc(36.75, 80, 6.75, 5, 0, 180, 6) + arc(23.25, 80, 6.75, 5, 0, 180, 6)
                 + arc(9.75, 80, 6.75, 5, 0, 180, 6) + (3, 80), red, INK, 1)
    stripes = [rect(3, 52 + 10 * k, 57, 55 + 10 * k, crest) for k in range(3)]
    crests = [s for x in (16, 44) for s in (circle(x, 66, 6, crest, INK, 0.8),
                                            poly(star(x, 66, 5, 2, 3), "#6b2a8a"))]
    rope = [line((2, 44, 20, 47, 40, 47, 58, 44), GOLD, 2.4)]
    return Motif(front=tuple([drape] + stripes + crests + rope))


def cuckoo() -> Motif:
    """The lesser cuckoo flying under a crescent moon (藤に不如帰)."""
    moon = (circle(42, 58, 11, GOLD), circle(47, 54, 9.5, PAPER))  # the paper bites a crescent
    dark, grey = "#34344a", "#55556e"
    bird = [poly(leaf(24, 72, 14, 50, 9), grey, INK, 0.6),  # the far wing
            poly(leaf(13, 78, 1, 86, 6), dark, INK, 0.6),  # tail
            poly(leaf(10, 79, 44, 62, 11), dark, INK, 0.8),
            line((20, 76, 34, 70), "#d8d4c8", 0.8), line((22, 78, 36, 72), "#d8d4c8", 0.8),
            poly(leaf(26, 68, 42, 44, 10), grey, INK, 0.8),  # the near wing, raised
            circle(44, 61, 4.5, dark, INK, 0.6), circle(45.5, 60, 1, WHITE),
            poly((48, 60, 53, 60.5, 48, 62.5), "#c9a227")]
    return Motif(back=moon, front=tuple(bird))


def bridge() -> Motif:
    """The eight-plank bridge across the iris marsh (菖蒲に八橋)."""
    wood, edge = "#b5813f", "#5a3b1a"
    planks = [poly((2, 62, 28, 54, 30, 60, 4, 68), wood, edge, 1),
              poly((28, 54, 58, 64, 56, 70, 30, 60), wood, edge, 1)]
    posts = [rect(x, y, x + 2.5, y + 12, edge) for x, y in ((6, 67), (26, 59), (52, 69))]
    grain = [line((x, 58 + (x - 2) * -0.3, x + 1, 64 + (x - 2) * -0.3), edge, 0.6)
             for x in (8, 14, 20)]
    grain += [line((x, 55 + (x - 28) * 0.33, x - 1, 61 + (x - 28) * 0.33), edge, 0.6)
              for x in (36, 44, 52)]
    water = [line((2, 86, 14, 83, 26, 86, 38, 83, 50, 86, 58, 84), "#4c7fc0", 1.4)]
    return Motif(front=tuple(posts + planks + grain + water))


def _butterfly(cx: float, cy: float, r: float, wing: str, spot: str) -> list[Shape]:
    return [oval(cx - 0.6 * r, cy - 0.4 * r, 0.6 * r, 0.5 * r, wing, INK, 0.8),
            oval(cx + 0.6 * r, cy - 0.4 * r, 0.6 * r, 0.5 * r, wing, INK, 0.8),
            oval(cx - 0.45 * r, cy + 0.4 * r, 0.42 * r, 0.38 * r, wing, INK, 0.8),
            oval(cx + 0.45 * r, cy + 0.4 * r, 0.42 * r, 0.38 * r, wing, INK, 0.8),
            circle(cx - 0.6 * r, cy - 0.45 * r, 0.2 * r, spot),
            circle(cx + 0.6 * r, cy - 0.45 * r, 0.2 * r, spot),
            line((cx, cy - 0.7 * r, cx, cy + 0.7 * r), INK, 1.6),
            line((cx, cy - 0.7 * r, cx - 0.3 * r, cy - 1.1 * r), INK, 0.6),
            line((cx, cy - 0.7 * r, cx + 0.3 * r, cy - 1.1 * r), INK, 0.6)]


def butterflies() -> Motif:
    """Two butterflies over the peonies (牡丹に蝶)."""
    return Motif(front=tuple(_butterfly(18, 28, 13, "#3b6fd1", "#f0c030")
                             + _butterfly(42, 44, 11, "#f0c030", "#3b6fd1")))


def boar() -> Motif:
    """The boar running through the bush clover (萩に猪)."""
    hide, dark = "#6b4a2e", "#3a2616"
    return Motif(front=(
        poly((8, 70, 14, 56, 30, 50, 46, 54, 54, 62, 58, 66, 52, 72, 40, 78, 18, 80), hide,
             dark, 1),
        poly((14, 56, 30, 48, 46, 52, 30, 54), dark),  # the bristled back
        line((16, 78, 10, 90), dark, 3), line((26, 80, 24, 92), dark, 3),
        line((40, 78, 44, 90), dark, 3), line((48, 74, 54, 86), dark, 3),
        poly((52, 64, 57, 70, 53, 69), WHITE, INK, 0.5),  # tusk
        circle(48, 60, 1.3, WHITE), circle(48, 60, 0.7, INK),
        poly((42, 54, 46, 48, 48, 56), dark),  # ear
    ))


def moon() -> Motif:
    """The full moon over the susuki hill, on a red sky (芒に月)."""
    return Motif(back=(rect(3, 3, 57, 70, SKY_RED), circle(30, 36, 20, MOON, "#e8d9a0", 1)))


def geese() -> Motif:
    """Three wild geese crossing the sky (芒に雁)."""
    sky = rect(3, 3, 57, 66, "#f0c36a")
    flock = []
    for cx, cy, r in ((16, 16, 9), (38, 26, 10), (24, 44, 8)):
        flock += [poly((cx - r, cy - 0.5 * r, cx - 0.1 * r, cy + 0.15 * r, cx + r, cy - 0.6 * r,
                        cx + 0.1 * r, cy + 0.45 * r), "#3a3030", INK, 0.6),
                  circle(cx + 0.15 * r, cy + 0.3 * r, 0.22 * r, "#3a3030")]
    return Motif(back=(sky,), front=tuple(flock))


def sake_cup() -> Motif:
    """The lacquered sake cup among the chrysanthemums (菊に盃)."""
    red = "#c62d2d"
    return Motif(front=(
        poly((20, 84, 40, 84, 37, 78, 23, 78), GOLD, INK, 0.8),  # foot
        poly((10, 60) + arc(30, 60, 20, 20, 0, 180, 10)[:-2] + (10, 60), red, INK, 1),
        oval(30, 60, 20, 6, "#e04a3a", INK, 1),
        circle(30, 70, 5.5, None, GOLD, 1.4),
        line((27, 68, 33, 68), GOLD, 1), line((27, 72, 33, 72), GOLD, 1),
        line((30, 66, 30, 74), GOLD, 1),
    ))


def deer() -> Motif:
    """The deer under the maples, looking back (紅葉に鹿)."""
    coat, dark = "#b8702e", "#5a3416"
    return Motif(front=(
        poly((12, 62, 16, 56, 40, 56, 46, 60, 44, 70, 16, 72), coat, dark, 1),
        poly((40, 58, 44, 44, 50, 40, 52, 46, 46, 60), coat, dark, 1),  # neck
        oval(50, 40, 5, 3.5, coat, dark, 0.8),
        poly((45, 38, 42, 34, 47, 37), coat, dark, 0.6),  # ear
        line((50, 37, 48, 28, 44, 24), dark, 1.2), line((48, 30, 52, 26), dark, 1),
        line((52, 37, 56, 30, 58, 24), dark, 1.2), line((56, 30, 58, 32), dark, 1),
        circle(52, 39.5, 0.9, INK),
        line((16, 71, 14, 88), dark, 2), line((22, 72, 22, 88), dark, 2),
        line((38, 71, 40, 88), dark, 2), line((43, 69, 46, 86), dark, 2),
        circle(22, 62, 1.4, "#f6e6c6"), circle(28, 64, 1.4, "#f6e6c6"),
        circle(34, 61, 1.4, "#f6e6c6"), poly((12, 62, 8, 58, 11, 64), coat, dark, 0.6),
    ))


def rain_man() -> Motif:
    """Ono no Michikaze under his umbrella, the frog at the stream (柳に小野道風)."""
    umbrella = [poly(arc(22, 40, 18, 12, 180, 360, 12), "#e2b23a", INK, 1),
                line((4, 40, 22, 30, 40, 40), "#b8322a", 1.2)]
    umbrella += [line((22, 28, x, 40), "#9a6a1a", 0.6) for x in (8, 15, 29, 36)]
    man = [line((22, 40, 22, 58), INK, 1), circle(24, 46, 4, "#f1d2a8", INK, 0.6),
           poly((16, 50, 32, 50, 38, 84, 10, 84), "#2f3e7a", INK, 1),
           poly((14, 64, 34, 64, 33, 68, 15, 68), "#b8322a"),
           poly((10, 84, 38, 84, 36, 88, 12, 88), "#1a1a1a")]
    stream = [rect(3, 86, 57, 93, "#2f5a9a"), line((4, 89, 14, 87, 24, 89, 34, 87, 44, 89, 56, 87),
                                                     "#cfe0f4", 0.8)]
    frog = [oval(48, 80, 5, 3.5, "#4f9e3a", INK, 0.6), line((44, 82, 40, 86), "#4f9e3a", 1.2),
            line((52, 82, 56, 86), "#4f9e3a", 1.2), circle(50, 77.5, 0.9, INK)]
    rain = [line((x, y, x - 3, y + 8), "#9aa6c0", 0.6) for x, y in ((46, 10), (54, 30),
                                                                       (8, 14), (48, 50))]
    return Motif(back=(rect(3, 3, 57, 93, NIGHT),),
                 front=tuple(rain + stream + umbrella + man + frog))


def swallow() -> Motif:
    """The swallow darting through the willow (柳に燕)."""
    body = "#1f2540"
    return Motif(front=(
        poly((14, 40, 34, 50, 50, 64, 36, 62, 20, 52), body, INK, 0.8),
        poly((26, 48, 44, 30, 54, 28, 36, 52), body, INK, 0.8),  # upper wing
        poly((24, 54, 18, 72, 30, 58), body, INK, 0.8),  # lower wing
        poly((14, 40, 4, 34, 10, 42, 2, 44, 14, 44), body),  # forked tail
        poly((44, 58, 50, 64, 42, 62), "#c8322d"), circle(46, 59, 0.9, WHITE),
        poly((50, 64, 55, 68, 49, 65), INK),
        poly((26, 53, 38, 58, 30, 56), "#f4f0e4"),
    ))


def lightning() -> Motif:
    """The lightning card (鬼札): a thundercloud with its drums over a dark willow."""
    cloud = poly((3, 3, 57, 3, 57, 30) + arc(46, 30, 11, 7, 0, 180, 6)
                 + arc(26, 34, 9, 6, 0, 180, 6) + arc(10, 30, 7, 6, 0, 180, 4), "#c8322d",
                 "#7a1512", 1)
    drums = [s for x in (14, 30, 46) for s in (circle(x, 16, 5.5, "#e8c24a", INK, 0.8),
                                               circle(x, 16, 2.2, "#c8322d"))]
    bolt = poly((34, 36, 22, 58, 30, 58, 20, 84, 42, 52, 33, 52, 42, 36), "#f2d040", INK, 0.8)
    return Motif(back=(rect(3, 3, 57, 93, "#1e1e24"),), front=(cloud, *drums, bolt))


def phoenix() -> Motif:
    """The phoenix over the paulownia, on a red sky (桐に鳳凰)."""
    plumes = [poly(leaf(30, 44, x, y, 7), c, INK, 0.6)
              for x, y, c in ((6, 72, "#3a9a5a"), (16, 80, "#3a6ed0"), (30, 80, "#e2b038"),
                              (44, 80, "#3a9a5a"), (54, 72, "#3a6ed0"))]
    wings = [poly(leaf(28, 36, 4, 14, 12), "#e07a2a", INK, 0.8),
             poly(leaf(32, 36, 56, 14, 12), "#e07a2a", INK, 0.8),
             poly(leaf(28, 34, 10, 20, 6), "#3a9a5a"), poly(leaf(32, 34, 50, 20, 6), "#3a9a5a")]
    body = [oval(30, 40, 6, 9, "#e0502a", INK, 0.8), circle(30, 28, 4, "#e0502a", INK, 0.8),
            poly((28, 25, 30, 16, 33, 25), "#e2b038"), circle(31, 27.5, 0.8, INK),
            poly((33, 28, 37, 30, 33, 30), "#e2b038")]
    return Motif(back=(rect(3, 3, 57, 70, "#b22a22"),), front=tuple(plumes + wings + body))


MOTIFS: dict[int, Callable[[], Motif]] = {
    0: crane, 1: lambda: ribbon(RIBBON_RED, True),
    4: warbler, 5: lambda: ribbon(RIBBON_RED, True, -5),
    8: curtain, 9: lambda: ribbon(RIBBON_RED, True, 4),
    12: cuckoo, 13: lambda: ribbon(RIBBON_RED, False),
    16: bridge, 17: lambda: ribbon(RIBBON_RED, False, -6),
    20: butterflies, 21: lambda: ribbon(RIBBON_BLUE, False),
    24: boar, 25: lambda: ribbon(RIBBON_RED, False, 3),
    28: moon, 29: geese,
    32: sake_cup, 33: lambda: ribbon(RIBBON_BLUE, False, -5),
    36: deer, 37: lambda: ribbon(RIBBON_BLUE, False, 4),
    40: rain_man, 41: swallow, 42: lambda: ribbon(RIBBON_RED, False, -4), 43: lightning,
    44: phoenix,
}  # fmt: skip


def motif(card_id: int) -> Motif:
    """Card ``card_id``'s motif (empty for a plain chaff card)."""
    make = MOTIFS.get(card_id)
    return make() if make else Motif()
