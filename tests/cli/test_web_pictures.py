"""The pictures ``play.py --web`` serves (Starlette's TestClient, in process): each card's
SVG at its own address, the back's, the favicon, all as ``image/svg+xml``; the card table
names every card's picture and full hover title and the yaku's display names; the page
links the favicon and its replay buttons use plain ASCII."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from hanafuda_cli.web.app import STATIC  # noqa: E402
from hanafuda_env.common import cards as C  # noqa: E402
from hanafuda_env.render.card_art import back_svg, card_svg, card_title, favicon_svg  # noqa: E402
from hanafuda_env.render.yaku_names import YAKU_DISPLAY  # noqa: E402
from tests.helpers.web import api_client  # noqa: E402


def test_each_card_picture_is_served_as_svg() -> None:
    client = api_client()
    table = client.get("/api/cards").json()
    bodies = set()
    for card in table["cards"]:
        assert card["title"] == card_title(card["id"])
        reply = client.get(card["picture"])
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("image/svg+xml")
        assert reply.text == card_svg(card["id"]) == card["svg"]
        bodies.add(reply.text)
    assert len(bodies) == C.NUM_CARDS
    back = client.get(table["back_picture"])
    assert back.status_code == 200 and back.text == back_svg()
    assert table["yaku_names"] == YAKU_DISPLAY


@pytest.mark.parametrize("name", ["48.svg", "-1.svg", "0.png", "back", "app.js"])
def test_an_unknown_picture_is_refused_by_name(name: str) -> None:
    reply = api_client().get(f"/cards/{name}")
    assert reply.status_code == 404
    assert "0.svg to 47.svg and back.svg" in reply.json()["error"]
    assert api_client().get("/cards/..%2Fstatic%2Fapp.js").status_code == 404


def test_the_favicon_is_the_cards_art_and_the_page_links_it() -> None:
    reply = api_client().get("/favicon.svg")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("image/svg+xml")
    assert reply.text == favicon_svg()
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in page
    assert "&#x23EE;" not in page and "&#x23ED;" not in page
