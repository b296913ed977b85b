"""``describe_observation`` reads a logged observation back as text, and says exactly what
the player it was encoded for sees (under both rule sets' point scales, clips included)."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import PHASE_NAMES, STOCK_SIZE
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import (
    OBS_DIM,
    SCORE_CLIP,
    describe_observation,
    encode_game,
    score_unit,
)


def expected_text(game: KoiKoiGame, seat: int) -> str:
    """The description built from the game itself, not from the observation."""
    other, clip = 1 - seat, round(SCORE_CLIP * score_unit(game.rules))  # 100 Nintendo points

    def total(value: int) -> str:
        return f"at least {clip}" if value >= clip else str(value)

    def pile(whose: str, s: int) -> str:
        calls = game.koikoi_calls[s]
        called = (", called koi-koi" + (f" {calls} times" if calls > 1 else "")) if calls else ""
        return (f"{whose} pile: {C.describe(game.piles[s])}  (yaku total at its last turn's "
                f"end {total(game.yaku_total[s])}{called})")

    diff = game.match_score[seat]  # zero-sum: the lead
    score = (f"at least {clip:+d}" if diff >= clip else f"at most {-clip:+d}"
             if diff <= -clip else f"{diff:+d}")
    stake = game.rules.starting_points
    left = "" if stake is None else f", points left {stake + diff}"
    waiting = (f", card waiting: {C.card_name(game.pending)}" if game.pending >= 0 else "")
    hidden = game.hands[other] | C.mask_of(game.stock[game.stock_pos:])
    rounds = game.rules.rounds
    return "\n".join([
        f"phase: {PHASE_NAMES[game.phase]}{waiting}",
        f"hand ({game.hands[seat].bit_count()}): {C.describe(game.hands[seat])}",
        f"field: {C.describe(game.field)}",
        pile("own", seat),
        pile("opponent's", other),
        f"unseen: {game.hands[other].bit_count()} in the opponent's hand, "
        f"{STOCK_SIZE - game.stock_pos} in the stock: {C.describe(hidden)}",
        f"{'dealer' if game.dealer == seat else 'not dealer'}, "
        f"{rounds - game.round_index} of {rounds} rounds left (this one included), "
        f"match lead {score}{left}",
    ])


@pytest.mark.parametrize("rules", [{"preset": "nintendo", "rounds": 24},  # leads past 100
                                   {"preset": "ten-base", "rounds": 6},
                                   {"preset": "koikoi-japan"}])
def test_every_line_says_what_the_player_sees(rules: dict) -> None:
    """Random play with koi-koi called often, so calls, pending cards, both seats, clipped
    totals and scores all show up; every line is compared whole."""
    game = KoiKoiGame(rules, seed=11)
    rng = np.random.default_rng(11)
    seen = {"pending": 0, "called": 0, "clipped": 0, "not dealer": 0, "times": 0}
    for _ in range(1500):
        for seat in (0, 1):
            text = describe_observation(encode_game(game, seat), game.rules)
            assert text == expected_text(game, seat)
            seen["pending"] += "card waiting" in text
            seen["called"] += "called koi-koi" in text
            seen["clipped"] += "at least" in text or "at most" in text
            seen["not dealer"] += "not dealer" in text
            seen["times"] += " times)" in text
        legal = np.flatnonzero(game.legal_action_mask())
        game.step(97 if 97 in legal and rng.random() < 0.8 else int(rng.choice(legal)))
    if rules["preset"] != "nintendo":  # clips are set beyond below; one call a round in
        seen.pop("clipped")           # nintendo (no "times")
    else:
        seen.pop("times")
    assert all(seen.values()), seen


@pytest.mark.parametrize("rules", ["nintendo", "ten-base"])
def test_totals_and_scores_at_the_clip_read_as_bounds(rules: str) -> None:
    game = KoiKoiGame(rules, seed=2)
    clip = round(SCORE_CLIP * score_unit(game.rules))
    game.yaku_total = [clip + 7, clip]
    game.match_score = [clip + 1, -clip - 1]
    text = describe_observation(encode_game(game, 1), rules)
    assert text == expected_text(game, 1)
    assert f"at least {clip})" in text and f"match lead at most {-clip:+d}" in text
    assert describe_observation(encode_game(game, 0), rules).endswith(f"at least {clip:+d}")


def test_only_one_observation_vector_is_described() -> None:
    with pytest.raises(ValueError, match=rf"an observation has shape \({OBS_DIM},\), got "
                                         rf"\(2, {OBS_DIM}\)"):
        describe_observation(np.zeros((2, OBS_DIM)))
