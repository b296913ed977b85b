"""The network built for cards: it plays through every door an MLP does (agents, checkpoints,
the registry), scores each card action from its own card, cannot see what its player cannot,
and a checkpoint that names it wrongly or hugely is refused before anything is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.bots import card_net
from agents.bots.card_net import CardGraphNet
from agents.bots.network import MASKED_LOGIT
from agents.bots.policy import CheckpointError, PolicyAgent, build_network, save_checkpoint
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.observation import BLOCK

SPEC = {"architecture": "card_graph", "width": 8, "global_width": 16, "blocks": 2}


def positions(n_envs: int = 32, steps: int = 12, seed: int = 0):
    env = KoiKoiVectorEnv(n_envs, "nintendo", seed=seed)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(steps):
        rows.append((obs.copy(), info["action_mask"].copy()))
        legal = info["action_mask"]
        action = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        obs, _, _, _, info = env.step(action)
    return (np.concatenate([o for o, _ in rows]), np.concatenate([m for _, m in rows]))


def checkpoint(net: torch.nn.Module, spec: dict[str, Any]) -> dict[str, Any]:
    return {"model": net.state_dict(), "network": spec}


def test_logits_are_masked_and_a_checkpoint_plays_the_same(tmp_path: Path) -> None:
    torch.manual_seed(0)
    net = build_network(SPEC)
    assert isinstance(net, CardGraphNet)
    obs, mask = positions()
    logits, values = net(torch.as_tensor(obs), torch.as_tensor(mask))
    assert logits.shape == mask.shape and values.shape == (len(obs),)
    assert (logits[~torch.as_tensor(mask)] == MASKED_LOGIT).all()
    path = tmp_path / "card.pt"
    save_checkpoint(path, checkpoint(net, SPEC))
    agent = make_agent(str(path), "nintendo")
    assert isinstance(agent, PolicyAgent)
    assert np.array_equal(agent.act(obs, mask), PolicyAgent(net.eval()).act(obs, mask))
    played = play_matches(agent, make_agent("random", {"rounds": 1}, seed=0), 4, {"rounds": 1})
    assert played["a"]["moves"] > 0


def test_each_card_action_is_scored_from_its_own_card() -> None:
    """Swapping two same-month cards between places swaps their play scores: the weights
    read every card alike, and only identity embeddings tell them apart (zero here)."""
    torch.manual_seed(1)
    net = CardGraphNet(width=8, global_width=16, blocks=2).eval()
    with torch.no_grad():
        net.identity.zero_()
    obs, mask = positions(steps=1)
    hand = obs[:, BLOCK["hand"]]
    # a position with a chaff card of a month in hand and its month mate unseen
    for row in range(len(obs)):
        a, b = 46, 47  # the two chaff of December: alike in month, kind and yaku groups
        if hand[row, a] == 1 and obs[row, BLOCK["unseen"]][b] == 1:
            swapped = obs[row].copy()
            for block in ("hand", "unseen"):
                cards = swapped[BLOCK[block]]
                cards[[a, b]] = cards[[b, a]]
            both = np.stack([obs[row], swapped])
            logits, values = net(torch.as_tensor(both), torch.ones(2, 98, dtype=torch.bool))
            assert torch.isclose(logits[0, a], logits[1, b], atol=1e-5)
            assert torch.isclose(values[0], values[1], atol=1e-5)
            return
    pytest.skip("no such position among the deals")  # pragma: no cover


@pytest.mark.parametrize("spec, message", [
    ({"architecture": "transformer"}, "allowed: mlp, card_graph"),
    ({**SPEC, "heads": 4}, r"unknown keys \['heads'\]"),
    ({**SPEC, "blocks": 0}, "blocks=0"),
    ({**SPEC, "width": 512, "global_width": 4096, "blocks": 16}, "at most 50,000,000"),
    ({**SPEC, "width": 16},
     r"weight '\w+' has shape \(48, 8\); the network its sizes name needs \(48, 16\)"),
])
def test_a_checkpoint_naming_another_network_is_refused(tmp_path: Path, spec, message) -> None:
    torch.manual_seed(0)
    path = tmp_path / "bad.pt"
    save_checkpoint(path, checkpoint(CardGraphNet(width=8, global_width=16, blocks=2), spec))
    assert path.stat().st_size < 200_000  # a small file, whatever it asks for
    with pytest.raises(CheckpointError, match=message):
        make_agent(str(path))


def test_its_sizes_are_checked_against_the_caps() -> None:
    assert card_net.spec_problem({**SPEC, "width": card_net.MAX_WIDTH + 1})
    assert card_net.spec_problem({**SPEC, "blocks": True})  # a bool is not a size
    assert card_net.spec_problem(SPEC) is None
    shapes = card_net.card_graph_shapes(SPEC)
    net = CardGraphNet(width=8, global_width=16, blocks=2)
    assert shapes == {k: tuple(v.shape) for k, v in net.state_dict().items()}
