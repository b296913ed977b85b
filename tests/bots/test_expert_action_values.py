"""The expert's per-action values (what its choice compares) and the tie sets built on them:
the expert's own move is always among its best, illegal actions are never, and a move the
values rank strictly first is the one it plays."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.baselines import RandomAgent
from agents.bots.expert import ExpertAgent, tie_sets
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.state import KOIKOI, STOP


def decisions(rules: str, n_envs: int = 64, n_steps: int = 60, seed: int = 5):
    """Observations and masks met in games where random and expert moves alternate
    (so that unusual positions come up too)."""
    env = KoiKoiVectorEnv(n_envs=n_envs, rules=rules, seed=seed)
    obs, info = env.reset(seed=seed)
    mask = info["action_mask"]
    expert, rand = ExpertAgent(rules, seed=seed), RandomAgent(seed=seed)
    for t in range(n_steps):
        yield obs, mask
        action = expert.act(obs, mask) if t % 3 else rand.act(obs, mask)
        obs, _, _, _, info = env.step(action)
        mask = info["action_mask"]


@pytest.mark.parametrize("rules", ["nintendo", "koikoi-japan"])
def test_the_expert_move_is_always_among_its_best(rules: str) -> None:
    expert = ExpertAgent(rules, seed=11)
    seen_ties = seen_decide = 0
    for obs, mask in decisions(rules):
        values = expert.action_values(obs, mask)
        best = tie_sets(values)
        actions = expert.act(obs, mask)
        rows = np.arange(len(obs))
        assert best[rows, actions].all()
        assert not (best & ~mask).any()
        assert np.isneginf(values[~mask]).all() and np.isfinite(values[mask]).all()
        unique = best.sum(1) == 1
        assert (values[rows, actions] >= values.max(1) - 1e-7).all()
        assert (actions[unique] == values[unique].argmax(1)).all()
        seen_ties += int((~unique).sum())
        deciding = mask[:, STOP] & mask[:, KOIKOI]
        seen_decide += int(deciding.sum())
        # stop and koi-koi are match-win chances (a hopeless stop: -1)
        chances = values[deciding][:, [STOP, KOIKOI]]
        assert ((chances >= -1.0) & (chances <= 1.0 + 1e-9)).all()
    assert seen_ties > 0 and seen_decide > 0  # both kinds of rows were met
