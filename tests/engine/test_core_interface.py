"""Both games' batched cores are one interface (``hanafuda_env.common.interface.BatchCore``):
code written against it (an env, a search) runs either game unchanged."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from hanafuda_env import HanaawaseCore, KoiKoiCore
from hanafuda_env.common.interface import BatchCore

CORES = {
    "koikoi": lambda n, seed: KoiKoiCore(n, seed=seed),
    "hanaawase-3": lambda n, seed: HanaawaseCore(n, num_players=3, seed=seed),
    "hanaawase-6": lambda n, seed: HanaawaseCore(n, num_players=6, seed=seed),
}
PROTOCOL_METHODS = [name for name, member in vars(BatchCore).items()
                    if callable(member) and not name.startswith("_")]


@pytest.mark.parametrize("make", CORES.values(), ids=CORES.keys())
def test_each_core_has_the_interfaces_methods_and_parameters(make) -> None:
    core = make(2, 0)
    assert isinstance(core, BatchCore)
    for name in PROTOCOL_METHODS:
        wanted = list(inspect.signature(getattr(BatchCore, name)).parameters)[1:]
        given = list(inspect.signature(getattr(type(core), name)).parameters)[1:]
        assert given[:len(wanted)] == wanted, (name, given, wanted)


def play_through_the_interface(core: BatchCore, moves: int, seed: int) -> list[np.ndarray]:
    """Random play using only the interface; returns what was observed."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(moves):
        if core.round_over.any():
            core.deal_next()
        mask = core.legal_action_mask()
        for g in range(core.n_games):
            assert np.flatnonzero(mask[g]).tolist() == core.legal_actions(g)
        obs = core.observe()
        assert obs.shape == (core.n_games, core.observation_size) and obs.dtype == np.float32
        for g in range(core.n_games):
            mover = int(core.records["mover"][g])
            assert np.array_equal(core.observe_one(g, mover), obs[g])
        seen.append(obs)
        actions = core.sample_legal_actions(rng)
        assert mask[np.arange(core.n_games), actions].all()
        core.step(actions)
    return seen


@pytest.mark.parametrize("make", CORES.values(), ids=CORES.keys())
def test_random_play_fork_advance_rollout_and_state_through_the_interface(make) -> None:
    core = make(6, 11)
    seen = play_through_the_interface(core, 30, seed=1)
    # the same seeds give the same games
    again = make(6, 11)
    assert all(np.array_equal(a, b) for a, b in zip(seen, play_through_the_interface(again, 30, 1)))

    saved = core.state_dict()
    twin = make(6, 99)
    twin.load_state_dict(saved)
    assert np.array_equal(twin.records, core.records)

    if core.round_over.any():
        core.deal_next()
    fork = core.fork(2, copies=3)
    assert fork.n_games == 3 and all(np.array_equal(r, core.records[2]) for r in fork.records)
    action = core.legal_actions(2)[0]
    fork.advance(0, action)
    whole = core.fork(np.arange(core.n_games))
    chosen = whole.sample_legal_actions(np.random.default_rng(0))
    chosen[2] = action
    whole.step(chosen)
    assert np.array_equal(fork.records[0], whole.records[2])
    assert np.array_equal(fork.records[1], core.records[2]), "advance moved one game only"

    rolled = core.fork(np.arange(core.n_games))
    rolled.rollout("greedy", "round", seed=4)
    assert rolled.round_over.all()
