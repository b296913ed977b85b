"""A retired snapshot's slot in the opponent pool, once reused, plays the new snapshot: the
agent built for the old one must not outlive it (test_ppo_parts.py checks which slot is reused
and that games in progress keep their old agent)."""

from __future__ import annotations

import torch

from agents.bots.network import ActorCritic
from agents.train.pool import OpponentPool
from hanafuda_env.rules import NINTENDO

KWARGS = {"hidden": 8, "layers": 1}


def network(seed: int) -> ActorCritic:
    """A small network with weights of its own (torch's global RNG is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return ActorCritic(**KWARGS)


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_a_reused_slot_plays_the_new_snapshot() -> None:
    pool = OpponentPool(NINTENDO, ["random"], KWARGS, max_snapshots=1)
    first, second = network(1), network(2)
    assert not same_weights(first, second)
    pool.add_snapshot(first, 100)
    old = pool.agent(1)  # built and cached while @100 is drawn
    assert old.name == "snapshot@100" and same_weights(old.network, first)
    pool.add_snapshot(second, 200)  # the pool is full and no game plays @100: slot 1 reused
    assert [e.name for e in pool.entries] == ["random", "snapshot@200"]
    new = pool.agent(1)
    assert new is not old and new.name == "snapshot@200"
    assert same_weights(new.network, second)


def test_a_slot_still_in_use_keeps_its_agent_until_freed() -> None:
    """While a game plays the retired @100, the new snapshot takes a new slot and slot 1
    keeps its agent; the next snapshot reuses slot 1 and brings its own."""
    pool = OpponentPool(NINTENDO, ["random"], KWARGS, max_snapshots=1)
    pool.add_snapshot(network(1), 100)
    old = pool.agent(1)
    pool.add_snapshot(network(2), 200, in_use=[1])
    assert pool.agent(1) is old and pool.agent(2).name == "snapshot@200"
    third = network(3)
    pool.add_snapshot(third, 300)
    assert [e.name for e in pool.entries] == ["random", "snapshot@300", "snapshot@200"]
    assert pool.agent(1).name == "snapshot@300" and same_weights(pool.agent(1).network, third)
