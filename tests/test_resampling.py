"""Resampling the hidden cards (``resample_hidden``, ``shuffle_stock``) draws every world
consistent with what a seat knows equally often, per game, in one batched call."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env import cards as C
from hanafuda_env.core import KoiKoiCore

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
    from hanafuda_env.game import KoiKoiGame

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
