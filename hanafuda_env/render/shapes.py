"""Drawing primitives of the card pictures, and their two painters (SVG and Pillow).

A picture is a tuple of :class:`Shape` in card units; :func:`svg_element` writes one shape
as an SVG element and :func:`paint` draws it with Pillow's ImageDraw, so a card looks the
same on the web page and in the ``rgb_array`` image. The helpers below build shapes made of
these few primitives (a flower is circles, a leaf a polygon), so that neither painter needs
to know about curves.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from html import escape
from typing import Any

Points = tuple[float, ...]


@dataclass(frozen=True)
class Shape:
    """One drawing step. ``kind``: ``rect`` and ``ellipse`` fill the box ``points`` (x0, y0,
    x1, y1); ``polygon`` joins ``points`` (x, y, x, y, …); ``line`` strokes the open path
    ``points`` in ``outline`` at ``width``; ``text`` writes ``text`` centred on (x, y) =
    ``points`` at height ``size``."""

    kind: str
    points: Points
    fill: str | None = None
    outline: str | None = None
    width: float = 1.0
    text: str = ""
    size: float = 0.0


def circle(cx: float, cy: float, r: float, fill: str | None, outline: str | None = None,
           width: float = 1.0) -> Shape:
    return Shape("ellipse", (cx - r, cy - r, cx + r, cy + r), fill, outline, width)


def oval(cx: float, cy: float, rx: float, ry: float, fill: str | None,
         outline: str | None = None, width: float = 1.0) -> Shape:
    return Shape("ellipse", (cx - rx, cy - ry, cx + rx, cy + ry), fill, outline, width)


def poly(points: Iterable[float], fill: str | None, outline: str | None = None,
         width: float = 1.0) -> Shape:
    return Shape("polygon", tuple(points), fill, outline, width)


def line(points: Iterable[float], colour: str, width: float = 1.0) -> Shape:
    return Shape("line", tuple(points), None, colour, width)


def rect(x0: float, y0: float, x1: float, y1: float, fill: str | None,
         outline: str | None = None, width: float = 1.0) -> Shape:
    return Shape("rect", (x0, y0, x1, y1), fill, outline, width)


def arc(cx: float, cy: float, rx: float, ry: float, start: float, stop: float,
        steps: int = 12) -> Points:
    """Points on an ellipse from angle ``start`` to ``stop`` (degrees, 0 = east, clockwise
    as y grows downward)."""
    out: list[float] = []
    for k in range(steps + 1):
        a = math.radians(start + (stop - start) * k / steps)
        out += [cx + rx * math.cos(a), cy + ry * math.sin(a)]
    return tuple(out)


def star(cx: float, cy: float, outer: float, inner: float, tips: int,
         turn: float = -90) -> Points:
    """A star's outline: ``tips`` points at radius ``outer``, notches at ``inner``."""
    out: list[float] = []
    for k in range(2 * tips):
        a = math.radians(turn + 180 * k / tips)
        r = outer if k % 2 == 0 else inner
        out += [cx + r * math.cos(a), cy + r * math.sin(a)]
    return tuple(out)


def leaf(x0: float, y0: float, x1: float, y1: float, breadth: float) -> Points:
    """A pointed leaf from (x0, y0) to (x1, y1), ``breadth`` wide at its middle."""
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * breadth / 2, dx / length * breadth / 2
    out: list[float] = [x0, y0]
    for t in (0.25, 0.5, 0.75):
        bulge = math.sin(math.pi * t)
        out += [x0 + dx * t + nx * bulge, y0 + dy * t + ny * bulge]
    out += [x1, y1]
    for t in (0.75, 0.5, 0.25):
        bulge = math.sin(math.pi * t)
        out += [x0 + dx * t - nx * bulge, y0 + dy * t - ny * bulge]
    return tuple(out)


def blossom(cx: float, cy: float, r: float, petal: str, centre: str,
            outline: str | None = None) -> list[Shape]:
    """A five-petalled flower (plum, cherry) of radius ``r``."""
    petals = [circle(cx + 0.55 * r * math.cos(math.radians(-90 + 72 * k)),
                     cy + 0.55 * r * math.sin(math.radians(-90 + 72 * k)), 0.48 * r, petal,
                     outline, 0.6) for k in range(5)]
    return petals + [circle(cx, cy, 0.3 * r, centre)]


def moved(shapes: Iterable[Shape], dx: float = 0.0, dy: float = 0.0,
          scale: float = 1.0) -> list[Shape]:
    """The shapes scaled about the origin by ``scale``, then shifted by (dx, dy)."""
    out = []
    for s in shapes:
        pts = tuple(v * scale + (dx if k % 2 == 0 else dy) for k, v in enumerate(s.points))
        out.append(replace(s, points=pts, width=s.width * scale, size=s.size * scale))
    return out


def mirrored(shapes: Iterable[Shape], axis: float) -> list[Shape]:
    """The shapes flipped left to right about the vertical line x = ``axis``."""
    out = []
    for s in shapes:
        pts = [2 * axis - v if k % 2 == 0 else v for k, v in enumerate(s.points)]
        if s.kind in ("rect", "ellipse"):  # keep the box's corners in order
            pts[0], pts[2] = pts[2], pts[0]
        out.append(replace(s, points=tuple(pts)))
    return out


def colours(shapes: Iterable[Shape]) -> set[str]:
    """Every fill and outline colour the shapes use."""
    return {c for s in shapes for c in (s.fill, s.outline) if c}


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def svg_element(shape: Shape) -> str:
    """One shape as an SVG element."""
    p = shape.points
    stroke = (f' stroke="{shape.outline}" stroke-width="{_n(shape.width)}"'
              if shape.outline else "")
    paint = f' fill="{shape.fill or "none"}"{stroke}'
    if shape.kind == "rect":
        return (f'<rect x="{_n(p[0])}" y="{_n(p[1])}" width="{_n(p[2] - p[0])}" '
                f'height="{_n(p[3] - p[1])}"{paint}/>')
    if shape.kind == "ellipse":
        return (f'<ellipse cx="{_n((p[0] + p[2]) / 2)}" cy="{_n((p[1] + p[3]) / 2)}" '
                f'rx="{_n((p[2] - p[0]) / 2)}" ry="{_n((p[3] - p[1]) / 2)}"{paint}/>')
    pairs = " ".join(f"{_n(p[i])},{_n(p[i + 1])}" for i in range(0, len(p), 2))
    if shape.kind == "polygon":
        return f'<polygon points="{pairs}"{paint}/>'
    if shape.kind == "line":
        return (f'<polyline points="{pairs}" fill="none"{stroke} stroke-linejoin="round"/>')
    return (f'<text x="{_n(p[0])}" y="{_n(p[1])}" font-size="{_n(shape.size)}" '
            f'font-family="sans-serif" font-weight="bold" text-anchor="middle" '
            f'dominant-baseline="central" fill="{shape.fill}">{escape(shape.text)}</text>')


def paint(draw: Any, shape: Shape, dx: float, dy: float, scale: float,
          font: Any = None) -> None:
    """One shape drawn with a Pillow ``ImageDraw`` at (dx, dy) card units, ``scale`` pixels
    per unit; ``font(size)`` gives the font of a text shape."""
    p = shape.points
    xy = [((p[i] + dx) * scale, (p[i + 1] + dy) * scale) for i in range(0, len(p), 2)]
    width = max(1, round(shape.width * scale))
    edge = width if shape.outline else 0
    if shape.kind == "rect":
        draw.rectangle(xy, fill=shape.fill, outline=shape.outline, width=edge)
    elif shape.kind == "ellipse":
        draw.ellipse(xy, fill=shape.fill, outline=shape.outline, width=edge)
    elif shape.kind == "polygon":
        draw.polygon(xy, fill=shape.fill, outline=shape.outline, width=edge)
    elif shape.kind == "line":
        draw.line(xy, fill=shape.outline, width=width, joint="curve")
    else:
        draw.text(xy[0], shape.text, fill=shape.fill, font=font(round(shape.size * scale)),
                  anchor="mm")
