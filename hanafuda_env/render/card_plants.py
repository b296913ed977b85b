"""Each month's plant as shapes: the part of a card that tells its month (RULES.md §1).

:func:`plant` draws month ``m``'s plant in one of three rooms: ``"motif"`` (kept to a side,
leaving the middle to a bright's or an animal's motif), ``"ribbon"`` (a full spray under a
ribbon) and ``"chaff"`` (the plant alone, at its largest). The four cards of a month share
the colours of :data:`PLANT_COLOURS`, so a month reads at a glance even in a pile.
"""

from __future__ import annotations

from collections.abc import Callable

from hanafuda_env.render.shapes import (
    Shape,
    arc,
    blossom,
    circle,
    leaf,
    line,
    oval,
    poly,
    star,
)

W, H = 60, 96  # the card, in card units

PINE, PINE_DARK, PINE_LIGHT, BARK = "#2f6b35", "#1b4424", "#6fa862", "#6a4327"
PLUM, PLUM_EYE, PLUM_BRANCH = "#d4324c", "#f7d44c", "#3a2417"
CHERRY, CHERRY_DEEP, CHERRY_BRANCH = "#f4a7c1", "#d8638e", "#6b3b2a"
WISTERIA, WISTERIA_PALE, WISTERIA_LEAF = "#7b54b0", "#b59ce0", "#4e7f39"
IRIS, IRIS_PALE, IRIS_LEAF = "#4a3aa6", "#9587dc", "#3b7a3a"
PEONY, PEONY_PALE, PEONY_LEAF = "#d33a62", "#f59ab8", "#2f6b3a"
CLOVER, CLOVER_LEAF, CLOVER_STEM = "#c13a6e", "#6b8f2c", "#7a4a2e"
HILL, GRASS, GRASS_STEM = "#2a2a2a", "#efe6c8", "#b3a57a"
CHRYSANTHEMUM, CHRYSANTHEMUM_EYE, CHRYSANTHEMUM_LEAF = "#eab52a", "#c8641e", "#3c7a3c"
MAPLE, MAPLE_DARK, MAPLE_BRANCH = "#d8431f", "#8a2a14", "#4a2a1a"
WILLOW, WILLOW_DARK = "#86b83c", "#3f6a22"
PAULOWNIA_LEAF, PAULOWNIA_VEIN, PAULOWNIA, PAULOWNIA_PALE = ("#3e7d3f", "#27572b", "#8d5ebd",
                                                             "#c9aee8")
PAULOWNIA_GOLD = "#f1cf45"  # the ground of one paulownia chaff

PLANT_COLOURS: dict[int, tuple[str, ...]] = {
    1: (PINE, PINE_DARK, BARK), 2: (PLUM, PLUM_EYE, PLUM_BRANCH),
    3: (CHERRY, CHERRY_DEEP), 4: (WISTERIA, WISTERIA_PALE, WISTERIA_LEAF),
    5: (IRIS, IRIS_LEAF), 6: (PEONY, PEONY_PALE, PEONY_LEAF),
    7: (CLOVER, CLOVER_LEAF), 8: (HILL, GRASS),
    9: (CHRYSANTHEMUM, CHRYSANTHEMUM_EYE, CHRYSANTHEMUM_LEAF), 10: (MAPLE, MAPLE_DARK),
    11: (WILLOW, WILLOW_DARK), 12: (PAULOWNIA_LEAF, PAULOWNIA),
}  # fmt: skip


def _clump(cx: float, cy: float, w: float) -> list[Shape]:
    """A pine's tuft of needles: a flat-bottomed fan with its needles drawn in."""
    fan = poly(arc(cx, cy, w, 0.6 * w, 180, 360, 10), PINE, PINE_DARK, 1)
    needles = [line((cx, cy, cx + 0.85 * w * x, cy - 0.5 * w * y), PINE_LIGHT, 0.7)
               for x, y in ((-0.8, 0.45), (-0.4, 0.85), (0, 1), (0.4, 0.85), (0.8, 0.45))]
    return [fan, *needles, oval(cx, cy, w, 0.16 * w, PINE_DARK)]


def pine(room: str) -> list[Shape]:
    if room == "motif":  # a low pine under the crane
        return ([poly((2, 94, 10, 94, 14, 74, 24, 66, 22, 64, 10, 70), BARK)]
                + _clump(10, 70, 9) + _clump(24, 80, 10) + _clump(44, 88, 12))
    trunk = poly((14, 94, 24, 94, 26, 70, 34, 46, 48, 36, 46, 33, 32, 40, 22, 62), BARK)
    return ([trunk] + _clump(32, 24, 15) + _clump(47, 40, 11) + _clump(14, 46, 11)
            + _clump(38, 62, 12) + _clump(14, 78, 9))


def plum(room: str) -> list[Shape]:
    if room == "motif":  # the branch the warbler sits on
        shapes = [line((2, 74, 18, 66, 34, 64, 58, 56), PLUM_BRANCH, 3),
                  line((18, 66, 12, 84), PLUM_BRANCH, 2), line((40, 62, 48, 80), PLUM_BRANCH, 2)]
        spots = ((8, 70, 7), (14, 84, 6), (30, 72, 6), (48, 80, 7), (52, 54, 6), (44, 66, 5))
    else:
        shapes = [line((2, 88, 16, 70, 30, 58, 44, 40, 58, 30), PLUM_BRANCH, 3.2),
                  line((16, 70, 10, 54), PLUM_BRANCH, 2), line((30, 58, 40, 72), PLUM_BRANCH, 2),
                  line((44, 40, 40, 20), PLUM_BRANCH, 2)]
        spots = ((10, 52, 8), (22, 68, 7), (40, 72, 7), (40, 20, 8), (51, 32, 7), (30, 50, 6),
                 (48, 50, 6), (8, 84, 6))
    for x, y, r in spots:
        shapes += blossom(x, y, r, PLUM, PLUM_EYE)
    return shapes


def cherry(room: str) -> list[Shape]:
    shapes = [line((58, 6, 40, 14, 22, 12, 2, 22), CHERRY_BRANCH, 2.5)]
    spots = [(9, 12, 8), (20, 22, 9), (34, 12, 8), (46, 24, 9), (52, 10, 7), (30, 30, 8),
             (8, 32, 7)]
    if room != "motif":
        shapes.append(line((2, 60, 20, 64, 40, 58, 58, 66), CHERRY_BRANCH, 2.5))
        spots += [(12, 60, 8), (26, 70, 9), (42, 58, 8), (50, 72, 8), (36, 82, 8), (14, 82, 7)]
    for x, y, r in spots:
        shapes += blossom(x, y, r, CHERRY, CHERRY_DEEP)
    return shapes


def _raceme(x: float, y: float, length: int) -> list[Shape]:
    """A hanging bunch of wisteria, widest at the top."""
    out = []
    for k in range(length):
        r = 5.5 * (1 - k / (length + 1)) + 1.2
        out.append(oval(x + (1.5 if k % 2 else -1.5), y + 4.2 * k, r, 2.6,
                        WISTERIA if k % 2 else WISTERIA_PALE, WISTERIA, 0.6))
    return out


def wisteria(room: str) -> list[Shape]:
    long = 6 if room == "motif" else 13
    leaves = [poly(leaf(x0, 4, x1, 14, 6), WISTERIA_LEAF)
              for x0, x1 in ((2, 16), (18, 10), (26, 40), (44, 34), (50, 58))]
    return (leaves + [line((2, 5, 58, 5), WISTERIA_LEAF, 2)] + _raceme(12, 12, long)
            + _raceme(30, 10, long + 2) + _raceme(48, 13, long - 1))


def _iris_flower(cx: float, cy: float, r: float) -> list[Shape]:
    return [poly(leaf(cx, cy, cx - r, cy + 0.9 * r, 0.7 * r), IRIS),
            poly(leaf(cx, cy, cx + r, cy + 0.9 * r, 0.7 * r), IRIS),
            poly(leaf(cx, cy + 0.2 * r, cx, cy - r, 0.6 * r), IRIS_PALE, IRIS, 0.6),
            circle(cx, cy + 0.2 * r, 0.18 * r, "#f2c94c")]


def iris(room: str) -> list[Shape]:
    blades = ((8, 94, 4, 40), (14, 94, 20, 30), (20, 94, 12, 56), (40, 94, 44, 34),
              (46, 94, 56, 46), (52, 94, 48, 60))
    shapes = [poly(leaf(x0, y0, x1, y1, 6), IRIS_LEAF) for x0, y0, x1, y1 in blades]
    flowers = ((10, 36, 9), (44, 30, 9), (22, 54, 7)) if room != "motif" else ((12, 30, 8),
                                                                               (48, 26, 8))
    for x, y, r in flowers:
        shapes += _iris_flower(x, y, r)
    return shapes


def _peony_flower(cx: float, cy: float, r: float) -> list[Shape]:
    ring = [circle(cx + 0.62 * r * x, cy + 0.62 * r * y, 0.45 * r, PEONY, "#9b1f45", 0.6)
            for x, y in ((0, -1), (0.95, -0.31), (0.59, 0.81), (-0.59, 0.81), (-0.95, -0.31))]
    return ring + [circle(cx, cy, 0.5 * r, PEONY_PALE), circle(cx, cy, 0.2 * r, "#f6d35a")]


def peony(room: str) -> list[Shape]:
    leaves = [poly(leaf(x0, y0, x1, y1, 9), PEONY_LEAF)
              for x0, y0, x1, y1 in ((30, 94, 6, 66), (30, 94, 54, 64), (30, 94, 30, 56),
                                     (10, 70, 2, 50), (50, 72, 58, 52))]
    flowers = {"motif": ((30, 74, 13),), "ribbon": ((16, 64, 11), (46, 70, 10)),
               "chaff": ((30, 60, 15), (12, 26, 9), (46, 34, 10))}[room]
    return leaves + [s for x, y, r in flowers for s in _peony_flower(x, y, r)]


def bush_clover(room: str) -> list[Shape]:
    stems = ((2, 60, 20, 30, 46, 10), (10, 94, 26, 56, 52, 34), (30, 94, 40, 70, 52, 62))
    if room == "motif":
        stems = ((2, 40, 20, 18, 46, 6), (14, 50, 34, 28, 52, 20))
    shapes: list[Shape] = []
    for x0, y0, x1, y1, x2, y2 in stems:
        shapes.append(line((x0, y0, x1, y1, x2, y2), CLOVER_STEM, 1.6))
        for t in (0.2, 0.4, 0.6, 0.8, 1.0):
            u = 2 * t if t <= 0.5 else 2 * t - 1
            (ax, ay), (bx, by) = ((x0, y0), (x1, y1)) if t <= 0.5 else ((x1, y1), (x2, y2))
            x, y = ax + (bx - ax) * u, ay + (by - ay) * u
            shapes += [oval(x - 3, y + 2, 3.4, 1.8, CLOVER_LEAF), circle(x + 1, y - 2, 2.6, CLOVER),
                       circle(x + 4, y + 0.5, 2, CLOVER)]
    return shapes


def susuki(room: str) -> list[Shape]:
    """The dark hill of susuki grass, its peak left of the middle, plumes rising from it."""
    peak = 62.0 if room == "motif" else 54.0
    hill = poly((3, 93) + arc(24, 93, 21, 93 - peak, 180, 270, 7)
                + arc(24, 93, 33, 93 - peak, 270, 360, 9), HILL)
    shapes: list[Shape] = [hill]
    for k, (x, lean) in enumerate(((10, -5), (17, -2), (24, 2), (31, 5), (39, 9), (47, 3))):
        base = peak + 8 + abs(x - 24) * 0.5
        tip = (x + lean, peak - 14 - 5 * (k % 3))
        shapes += [line((x, base, x + 0.4 * lean, base - 10, *tip), GRASS_STEM, 1.2),
                   poly(leaf(tip[0], tip[1], tip[0] + lean * 0.5 + 1, tip[1] - 9, 4), GRASS,
                        GRASS_STEM, 0.6)]
    return shapes


def _chrysanthemum_flower(cx: float, cy: float, r: float) -> list[Shape]:
    return [poly(star(cx, cy, r, 0.7 * r, 14), CHRYSANTHEMUM, "#a8770f", 0.6),
            circle(cx, cy, 0.35 * r, CHRYSANTHEMUM_EYE)]


def chrysanthemum(room: str) -> list[Shape]:
    if room == "motif":  # flowers in the top corners and leaves at the foot of the sake cup
        leaves = [oval(x, y, 6, 3.5, CHRYSANTHEMUM_LEAF)
                  for x, y in ((8, 90), (52, 90), (16, 88), (44, 88), (7, 80), (53, 80))]
        return (leaves + _chrysanthemum_flower(12, 30, 10) + _chrysanthemum_flower(48, 22, 9)
                + _chrysanthemum_flower(10, 52, 6))
    shapes = [line((30, 94, 28, 60, 20, 40), CHRYSANTHEMUM_LEAF, 2),
              line((28, 60, 42, 44), CHRYSANTHEMUM_LEAF, 2)]
    shapes += [oval(x, y, 6, 3.5, CHRYSANTHEMUM_LEAF)
               for x, y in ((22, 80), (38, 74), (18, 62), (40, 58), (30, 88))]
    return (shapes + _chrysanthemum_flower(20, 38, 12) + _chrysanthemum_flower(44, 42, 10)
            + _chrysanthemum_flower(12, 14, 8))


def _maple_leaf(cx: float, cy: float, r: float, colour: str = MAPLE) -> list[Shape]:
    return [line((cx, cy, cx + 0.2 * r, cy + 1.3 * r), MAPLE_DARK, 0.8),
            poly(star(cx, cy, r, 0.45 * r, 7), colour, MAPLE_DARK, 0.6)]


def maple(room: str) -> list[Shape]:
    shapes = [line((58, 4, 40, 10, 24, 8, 2, 18), MAPLE_BRANCH, 2.5),
              line((40, 10, 46, 26), MAPLE_BRANCH, 1.5)]
    spots = [(8, 12, 7), (22, 18, 8), (36, 6, 6), (46, 26, 7), (54, 12, 6)]
    if room != "motif":
        spots += [(14, 36, 8), (34, 34, 9), (50, 46, 7), (24, 56, 8), (44, 68, 7), (12, 74, 7)]
    for k, (x, y, r) in enumerate(spots):
        shapes += _maple_leaf(x, y, r, MAPLE if k % 3 else "#e8742a")
    return shapes


def willow(room: str) -> list[Shape]:
    strands = ((48, 56), (56, 70), (40, 40)) if room == "motif" else ((10, 60), (22, 78),
                                                                      (36, 66), (50, 84))
    shapes: list[Shape] = [line((0, 3, 60, 5), WILLOW_DARK, 2)]
    for x, bottom in strands:
        shapes.append(line((x, 4, x - 3, bottom * 0.5, x + 1, bottom), WILLOW_DARK, 1))
        shapes += [poly(leaf(x - 3 + 4 * (k / 5 - 0.5), 8 + k * (bottom - 8) / 6,
                             x - 1 + 4 * (k / 5 - 0.5), 16 + k * (bottom - 8) / 6, 3.2), WILLOW)
                   for k in range(6)]
    return shapes


def _paulownia_leaf(cx: float, cy: float, r: float) -> list[Shape]:
    return [oval(cx - 0.6 * r, cy + 0.1 * r, 0.6 * r, 0.5 * r, PAULOWNIA_LEAF),
            oval(cx + 0.6 * r, cy + 0.1 * r, 0.6 * r, 0.5 * r, PAULOWNIA_LEAF),
            poly(star(cx, cy - 0.1 * r, r, 0.75 * r, 3), PAULOWNIA_LEAF),
            line((cx, cy + 0.6 * r, cx, cy - 0.7 * r), PAULOWNIA_VEIN, 0.8),
            line((cx - 0.8 * r, cy, cx, cy + 0.3 * r, cx + 0.8 * r, cy), PAULOWNIA_VEIN, 0.8)]


def _paulownia_spike(cx: float, bottom: float, n: int) -> list[Shape]:
    out = [line((cx, bottom, cx, bottom - 5 * n), PAULOWNIA_VEIN, 1)]
    for k in range(n):
        for side in (-1, 1):
            out.append(oval(cx + side * (3.2 - 0.25 * k), bottom - 5 * k - 3, 2.2, 3,
                            PAULOWNIA if k % 2 else PAULOWNIA_PALE, PAULOWNIA, 0.5))
    return out


def paulownia(room: str) -> list[Shape]:
    if room == "motif":  # low leaves under the phoenix
        return (_paulownia_spike(10, 80, 4) + _paulownia_leaf(16, 84, 12)
                + _paulownia_leaf(46, 86, 11))
    return (_paulownia_spike(20, 44, 6) + _paulownia_spike(36, 40, 7) + _paulownia_spike(48, 48, 5)
            + _paulownia_leaf(17, 66, 14) + _paulownia_leaf(44, 72, 13))


PLANTS: dict[int, Callable[[str], list[Shape]]] = {
    1: pine, 2: plum, 3: cherry, 4: wisteria, 5: iris, 6: peony, 7: bush_clover, 8: susuki,
    9: chrysanthemum, 10: maple, 11: willow, 12: paulownia,
}  # fmt: skip


def plant(month: int, room: str) -> list[Shape]:
    """Month ``month``'s plant in ``room`` (``"motif"``, ``"ribbon"`` or ``"chaff"``)."""
    return PLANTS[month](room)
