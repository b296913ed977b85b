"""Resampling the hidden cards (``resample_hidden``, ``shuffle_stock``): every world
consistent with what a seat knows is drawn equally often, per game, in one batched call; all
the seat sees is kept; only the games asked for are touched, given as a set of valid
indices."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from tests.helpers.scenarios import random_play

COPIES = 20_000


def close_to(freq: np.ndarray, p: float) -> bool:
    """Every frequency within 5 standard errors of ``p`` over COPIES draws."""
    return bool(np.abs(freq - p).max() < 5 * np.sqrt(p * (1 - p) / COPIES))


def midround_core(seed: int = 4, steps: int = 7) -> KoiKoiCore:
    core = KoiKoiCore(1, "nintendo", seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        core.step(np.array([rng.choice(np.flatnonzero(core.legal_action_mask()[0]))]))
    return core


def test_resample_hidden_draws_each_consistent_world_equally_often() -> None:
    """Every hidden card is in the other hand with chance hand/hidden and in each undrawn
    stock slot with chance 1/hidden (uniform over the consistent worlds)."""
    source = midround_core()
    seat = int(source.mover[0])
    pos = int(source.stock_pos[0])
    hidden = sorted(C.ids_of(int(source.hands[0, 1 - seat])) + source.stock[0, pos:].tolist())
    n_hand = int(np.bitwise_count(source.hands[0, 1 - seat]))
    assert n_hand and len(hidden) > n_hand
    worlds = source.fork(0, copies=COPIES)
    worlds.resample_hidden(seat, np.random.default_rng(0))
    in_hand = (worlds.hands[:, 1 - seat, None] >> np.array(hidden, np.uint64)) & np.uint64(1)
    assert close_to(in_hand.mean(axis=0), n_hand / len(hidden))
    for slot in range(pos, worlds.stock.shape[1]):
        counts = np.bincount(worlds.stock[:, slot], minlength=C.NUM_CARDS)
        assert set(np.flatnonzero(counts)) == set(hidden)
        assert close_to(counts[hidden] / COPIES, 1 / len(hidden))
    assert np.array_equal(worlds.stock[:, :pos], np.repeat(source.stock[:, :pos], COPIES, 0))


def test_resample_hidden_takes_a_seat_per_game_and_repeats_by_seed() -> None:
    core = KoiKoiCore(8, "nintendo", seed=9)
    rng = np.random.default_rng(9)
    for _ in range(5):  # mid-round: some cards drawn, hands of different sizes
        core.step(core.sample_legal_actions(rng))
    seats = np.array([0, 1] * 4)
    a, b = core.fork(np.arange(8)), core.fork(np.arange(8))
    a.resample_hidden(seats, np.random.default_rng(5))
    b.resample_hidden(seats, np.random.default_rng(5))
    assert all(np.array_equal(x, y) for x, y in zip(a.state_dict().values(),
                                                    b.state_dict().values()))
    rows = np.arange(8)
    assert np.array_equal(a.hands[rows, seats], core.hands[rows, seats])  # each seat's own
    assert (a.hands[rows, 1 - seats] != core.hands[rows, 1 - seats]).sum() >= 6  # the other's
    pos = core.stock_pos
    assert all(np.array_equal(a.stock[g, :pos[g]], core.stock[g, :pos[g]]) for g in rows)


def test_resampling_games_given_twice_or_out_of_range() -> None:
    core = KoiKoiCore(4, "nintendo", seed=2)
    before = core.state_dict()
    core.resample_hidden(0, np.random.default_rng(1), games=[1, 1, 3])
    assert np.bitwise_count(core.hands[:, 1]).tolist() == np.bitwise_count(
        before["hands"][:, 1]).tolist()
    for method in (lambda g: core.resample_hidden(0, np.random.default_rng(1), games=g),
                   lambda g: core.shuffle_stock(np.random.default_rng(1), games=g)):
        for games in ([4], [-1], [0.7], ["0"], [[0]]):
            with pytest.raises(IndexError, match=r"games must be a list of game indices "
                               r"\(integers in 0\.\.3\), got "):
                method(games)
    after = core.state_dict()
    with pytest.raises(ValueError, match=r"seat must be 0 or 1, or a list of 4 of them"):
        core.resample_hidden(2, np.random.default_rng(1))
    for seat in (-1, 0.5, True, [0, 1], [0, 1, 0, 2]):
        with pytest.raises(ValueError, match="seat must be 0 or 1"):
            core.resample_hidden(seat, np.random.default_rng(1))
    assert all(np.array_equal(after[k], v) for k, v in core.state_dict().items())


def test_shuffle_stock_keeps_hands_and_drawn_cards_and_is_uniform() -> None:
    source = midround_core(seed=6)
    pos = int(source.stock_pos[0])
    worlds = source.fork(0, copies=COPIES)
    worlds.shuffle_stock(np.random.default_rng(3))
    assert (worlds.hands == source.hands[0]).all()
    assert (worlds.stock[:, :pos] == source.stock[0, :pos]).all()
    undrawn = sorted(source.stock[0, pos:].tolist())
    assert (np.sort(worlds.stock[:, pos:], axis=1) == undrawn).all()
    counts = np.bincount(worlds.stock[:, pos], minlength=C.NUM_CARDS)[undrawn]
    assert close_to(counts / COPIES, 1 / len(undrawn))


def test_the_plain_game_resamples_a_copy_as_the_core_does() -> None:
    """``KoiKoiGame.resample_hidden`` keeps all the seat sees, deals the same hidden cards
    anew (uniformly, as the core), leaves the source game alone and plays on."""

    game = KoiKoiGame.from_core(midround_core(seed=8), 0)
    seat, other, pos = game.mover, 1 - game.mover, game.stock_pos
    source = game.state_dict()
    hidden = sorted(C.ids_of(game.hands[other]) + game.stock[pos:])
    n_hand = game.hands[other].bit_count()
    rng = np.random.default_rng(2)
    in_hand = np.zeros(C.NUM_CARDS)
    for _ in range(4000):
        world = game.copy()
        world.resample_hidden(seat, rng)
        seen = world.state_dict()
        assert all(seen[k] == source[k] for k in source if k not in ("hands", "stock"))
        assert seen["hands"][seat] == source["hands"][seat]
        assert seen["stock"][:pos] == source["stock"][:pos]
        assert sorted(C.ids_of(world.hands[other]) + world.stock[pos:]) == hidden
        in_hand[C.ids_of(world.hands[other])] += 1
    assert np.abs(in_hand[hidden] / 4000 - n_hand / len(hidden)).max() < 0.04
    assert game.state_dict() == source
    world.step(int(np.flatnonzero(world.legal_action_mask())[0]))
    for bad in (2, True, 1.0):
        with pytest.raises(ValueError, match=f"seat must be 0 or 1, got {bad!r}"):
            world.resample_hidden(bad, rng)


# ------------------------------------------------- what a resampled world keeps
def play(core: KoiKoiCore, rng: np.random.Generator) -> np.ndarray:
    return core.sample_legal_actions(rng)


def test_resample_hidden_keeps_what_the_seat_sees() -> None:
    core = KoiKoiCore(32, "nintendo", seed=12)
    rng = np.random.default_rng(12)
    changed = 0
    for step in range(60):
        seat = step % 2
        before = core.state_dict()
        core.resample_hidden(seat, np.random.default_rng(step))
        after = core.state_dict()
        other = 1 - seat
        for key in ("field", "piles", "stock_pos", "mover", "phase", "pending", "dealer",
                    "koikoi_calls", "yaku_total", "turn", "round_index", "match_score"):
            assert np.array_equal(before[key], after[key]), f"resampling changed {key}"
        assert np.array_equal(before["hands"][:, seat], after["hands"][:, seat])
        assert np.array_equal(np.bitwise_count(before["hands"][:, other]),
                              np.bitwise_count(after["hands"][:, other]))
        for g in range(core.n_games):
            pos = int(before["stock_pos"][g])
            assert np.array_equal(before["stock"][g, :pos], after["stock"][g, :pos])
            hidden_before = sorted(C.ids_of(int(before["hands"][g, other]))
                                   + before["stock"][g, pos:].tolist())
            hidden_after = sorted(C.ids_of(int(after["hands"][g, other]))
                                  + after["stock"][g, pos:].tolist())
            assert hidden_before == hidden_after, f"game {g}: the hidden cards changed"
            changed += int(before["hands"][g, other] != after["hands"][g, other])
        core.step(play(core, rng))
    assert changed > 100, "resampling never moved a card"


# ---------------------------------------------------------- the games resampled
def test_resample_hidden_only_touches_the_chosen_games() -> None:
    core = KoiKoiCore(6, "nintendo", seed=3)
    before = core.state_dict()
    core.resample_hidden(0, np.random.default_rng(1), games=[2, 4])
    after = core.state_dict()
    untouched = [0, 1, 3, 5]
    for key in before:
        assert np.array_equal(before[key][untouched], after[key][untouched])
    assert not np.array_equal(before["stock"][[2, 4]], after["stock"][[2, 4]])


def test_shuffle_stock_touches_only_the_chosen_games_undrawn_cards() -> None:
    core = KoiKoiCore(5, "nintendo", seed=8)
    before = core.state_dict()
    core.shuffle_stock(np.random.default_rng(0), games=[1, 3])
    after = core.state_dict()
    for key in before:
        if key != "stock":
            np.testing.assert_array_equal(before[key], after[key])
    np.testing.assert_array_equal(before["stock"][[0, 2, 4]], after["stock"][[0, 2, 4]])
    for g in (1, 3):
        pos = int(before["stock_pos"][g])
        assert C.mask_of(after["stock"][g, pos:].tolist()) == C.mask_of(
            before["stock"][g, pos:].tolist())
        assert not np.array_equal(before["stock"][g], after["stock"][g])


def _midround(n: int = 4, seed: int = 3, steps: int = 5) -> KoiKoiCore:
    return random_play(n, steps, seed)


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


def test_unsorted_game_lists_are_range_checked_as_a_whole() -> None:
    """A negative or too-large index anywhere in the list is refused by name (not only when
    it happens to be first / last): -1 must not silently resample the last game."""
    core = _midround()
    before = core.state_dict()
    for games in ([0, -1], [3, -2, 1], [5, 0]):
        for method in (lambda g: core.resample_hidden(0, np.random.default_rng(1), games=g),
                       lambda g: core.shuffle_stock(np.random.default_rng(1), games=g)):
            with pytest.raises(IndexError, match=r"games must be a list of game indices"):
                method(games)
    assert _same(before, core.state_dict())


def test_an_empty_game_list_resamples_nothing() -> None:
    core = _midround()
    before = core.state_dict()
    core.resample_hidden(0, np.random.default_rng(1), games=[])
    core.shuffle_stock(np.random.default_rng(1), games=[])
    assert _same(before, core.state_dict())


def test_games_are_a_set_order_and_repeats_do_not_matter() -> None:
    a, b = _midround(), _midround()
    a.resample_hidden(1, np.random.default_rng(7), games=[3, 1, 1])
    b.resample_hidden(1, np.random.default_rng(7), games=[1, 3])
    assert _same(a.state_dict(), b.state_dict())
