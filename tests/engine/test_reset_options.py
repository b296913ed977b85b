"""What ``reset`` accepts as options in every engine (the core, the plain game and the envs
built on them): a deck must hold each card once with no full month on the field, a batch of
decks one per game, a dealer 0 or 1; anything else is refused by name with what is allowed,
and the games stay as they were."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import (
    KoiKoiCore,
)
from hanafuda_env.koikoi.game import KoiKoiGame
from tests.helpers.scenarios import (
    make_deck,
)


def test_given_deck_is_checked() -> None:
    core = KoiKoiCore(1, seed=0)
    four = make_deck([4, 5, 6, 7, 8, 12, 16, 20], [9, 13, 17, 21, 24, 28, 32, 36],
                     [0, 1, 2, 3, 40, 41, 44, 45])
    with pytest.raises(ValueError, match="four"):
        core.reset(seed=0, options={"deck": four})
    with pytest.raises(ValueError):
        core.reset(seed=0, options={"deck": [0] * 48})
    with pytest.raises(ValueError):
        core.reset(seed=0, options={"deck": list(range(47))})


def test_a_deck_batch_of_the_wrong_size_is_refused_by_name() -> None:
    core = KoiKoiCore(2, seed=1)
    for deck in (np.tile(np.arange(48), (3, 1)), np.arange(48)[None, None]):
        with pytest.raises(ValueError, match=r"deck must have shape \(48,\) or \(2, 48\)"):
            core.check_reset(seed=1, options={"deck": deck})


def test_an_unknown_reset_option_is_named_with_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) 'dealr'; allowed: "
                                         r"dealer, deck$"):
        KoiKoiCore(1, seed=0).reset(seed=0, options={"dealr": 1})


@pytest.mark.parametrize(("options", "message"), [
    ({"deck": np.arange(48) + 0.0}, r"deck must hold each card id 0\.\.47 exactly once, as "
                                    r"integers"),
    ({"deck": list(range(47))}, r"deck must have shape \(48,\)"),
    ({"dealer": True}, r"dealer must be 0 or 1"),
    ({"dealer": 1.0}, r"dealer must be 0 or 1"),
    ({"dealer": [0, 1, 0]}, r"dealer must be 0 or 1"),
])
def test_reset_options_of_the_wrong_kind_are_refused_by_every_engine(options, message):
    """A float deck, a short deck, a bool, float or wrongly sized dealer: refused by name
    with what is allowed (NumPy's indexing or broadcasting errors said neither), and the
    games stay as they were."""
    core = KoiKoiCore(2, seed=1)
    before = core.state_dict()
    with pytest.raises(ValueError, match=message):
        core.reset(seed=1, options=options)
    assert all(np.array_equal(before[k], v) for k, v in core.state_dict().items())
    game = KoiKoiGame(seed=1)
    with pytest.raises(ValueError, match=message):
        game.reset(seed=1, options=options)
    env = KoiKoiVectorEnv(2, seed=1)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=1, options=options)


def test_bad_reset_options_raise_like_core():
    game = KoiKoiGame(seed=0)
    with pytest.raises(ValueError, match="unknown reset option"):
        game.reset(seed=0, options={"colour": 1})
    with pytest.raises(ValueError, match="dealer must be 0 or 1"):
        game.reset(seed=0, options={"dealer": 2})
    with pytest.raises(ValueError, match="exactly once"):
        game.reset(seed=0, options={"deck": [0] * 48})
    full_field = list(range(8, 16)) + list(range(16, 24)) + list(range(0, 8)) + list(
        range(24, 48))
    with pytest.raises(ValueError, match="four cards of a month"):
        game.reset(seed=0, options={"deck": full_field})
