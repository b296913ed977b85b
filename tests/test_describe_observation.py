"""``describe_observation`` reads a logged observation back as text, and says exactly what
the player it was encoded for sees (under both rule sets' point scales)."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env import cards as C
from hanafuda_env.core import PHASE_NAMES, STOCK_SIZE
from hanafuda_env.game import KoiKoiGame
from hanafuda_env.observation import OBS_DIM, describe_observation, encode_game


@pytest.mark.parametrize("rules", ["nintendo", "ten-base"])
def test_the_text_holds_what_the_player_sees(rules: str) -> None:
    game = KoiKoiGame(rules, seed=11)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(300):
        for seat in (0, 1):
            text = describe_observation(encode_game(game, seat), rules).splitlines()
            other = 1 - seat
            hidden = game.hands[other] | C.mask_of(game.stock[game.stock_pos:])
            shown_total = min(game.yaku_total[seat], 100 * game.rules.points.extra_card)
            score = game.match_score[seat] - game.match_score[other]
            assert text[0].startswith(f"decision: {PHASE_NAMES[game.phase]}")
            assert text[1] == f"hand ({game.hands[seat].bit_count()}): " \
                              f"{C.describe(game.hands[seat])}"
            assert text[2] == f"field: {C.describe(game.field)}"
            assert text[3].startswith(f"own pile: {C.describe(game.piles[seat])}  (yaku total "
                                      f"at its last turn's end {shown_total}")
            assert text[5] == (f"unseen: {game.hands[other].bit_count()} in the opponent's "
                               f"hand, {STOCK_SIZE - game.stock_pos} in the stock: "
                               f"{C.describe(hidden)}")
            assert text[6].endswith(f"score difference {score:+d}") or abs(score) >= 100
            checked += 1
        game.step(int(rng.choice(np.flatnonzero(game.legal_action_mask()))))
    assert checked == 600


def test_only_one_observation_vector_is_described() -> None:
    with pytest.raises(ValueError, match=rf"an observation has shape \({OBS_DIM},\), got "
                                         rf"\(2, {OBS_DIM}\)"):
        describe_observation(np.zeros((2, OBS_DIM)))
