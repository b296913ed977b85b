"""The AEC env works unchanged with the RL libraries' own PettingZoo wrappers: TorchRL's
``PettingZooWrapper`` (its spec check and a collector) and Tianshou's ``PettingZooEnv`` (its
vectorized collector with a masked random multi-agent policy). No move is illegal, and the
rewards stay zero-sum."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import env_logger

from hanafuda_env.envs import koikoi_v0


@pytest.fixture
def illegal_moves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts PettingZoo's illegal-move terminations (its wrapper logs each one)."""
    seen: list[int] = []
    monkeypatch.setattr(env_logger.EnvLogger, "warn_on_illegal_move",
                        staticmethod(lambda: seen.append(1)))
    return seen


def test_torchrl_checks_the_specs_and_collects_frames(illegal_moves) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from torchrl.collectors import Collector
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(koikoi_v0.env(), use_mask=True, categorical_actions=True, seed=0)
    assert set(env.group_map) == {"player_0", "player_1"}
    check_env_specs(env)
    generator = torch.Generator().manual_seed(0)

    def masked_random(td):
        for group in env.group_map:
            mask = td[group, "action_mask"]
            keys = torch.rand(mask.shape, generator=generator).masked_fill(~mask, -1.0)
            td[group, "action"] = keys.argmax(-1)
        return td

    frames = episodes = 0
    total = 0.0
    for batch in Collector(env, policy=masked_random, frames_per_batch=1000, total_frames=3000):
        frames += batch.numel()
        episodes += int(batch["next", "done"].sum())
        total += sum(float(batch["next", g, "reward"].sum()) for g in env.group_map)
    assert frames == 3000 and episodes > 50
    assert total == pytest.approx(0.0) and not illegal_moves


def test_tianshou_collects_with_a_masked_multi_agent_policy(illegal_moves) -> None:
    pytest.importorskip("tianshou")
    from tianshou.algorithm import (
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make() -> PettingZooEnv:
        return PettingZooEnv(koikoi_v0.env())

    env = make()
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
                    for _ in env.agents], env=env)
    envs = DummyVectorEnv([make for _ in range(4)])
    envs.seed(0)
    buffer = VectorReplayBuffer(5000, 4)
    collector = Collector(algorithm.policy, envs, buffer)
    collector.reset()
    stats = collector.collect(n_step=3000)
    assert stats.n_collected_steps >= 3000 and stats.n_collected_episodes > 50
    rewards = buffer.rew[:len(buffer)]
    assert np.allclose(np.asarray(rewards).sum(axis=-1), 0.0) and not illegal_moves
