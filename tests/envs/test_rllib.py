"""RLlib trains on the AEC env: multi-agent PPO self-play (one shared policy for both seats)
with RLlib's action-masking RL module, through ``hanafuda_env.envs.integrations.rllib_env``, for
two iterations on a local Ray. RLlib pins its own gymnasium, so this runs in the separate
environment ``scripts/test.sh`` makes (``.venv-rllib``); elsewhere it is skipped."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import env_logger

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")  # plain Ray ships RLlib's code without its dependencies


def test_the_rllib_observations_are_rllibs_names_and_dtypes() -> None:
    from hanafuda_env.envs.integrations import RLlibObservations, rllib_env
    from hanafuda_env.envs.koikoi_v0 import env

    wrapped = RLlibObservations(env())
    wrapped.reset(seed=0)
    obs = wrapped.observe(wrapped.agent_selection)
    assert set(obs) == {"observations", "action_mask"}
    assert obs["action_mask"].dtype == np.float32 and obs["action_mask"].sum() > 0
    assert wrapped.observation_space(wrapped.agent_selection).contains(obs)
    multi = rllib_env({"seed": 0})
    first, _ = multi.reset(seed=0)
    assert len(first) == 1 and set(next(iter(first.values()))) == {"observations",
                                                                   "action_mask"}


def test_rllib_multi_agent_ppo_self_play_trains_with_masked_actions(monkeypatch) -> None:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    from hanafuda_env.envs.integrations import rllib_env

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        register_env("koikoi", rllib_env)
        module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                              model_config={"head_fcnet_hiddens": [64]})
        config = (PPOConfig().environment("koikoi", env_config={"seed": 0})
                  .multi_agent(policies={"shared"},
                               policy_mapping_fn=lambda agent_id, *args, **kwargs: "shared")
                  .rl_module(rl_module_spec=MultiRLModuleSpec(
                      rl_module_specs={"shared": module}))
                  .env_runners(num_env_runners=0)
                  .training(train_batch_size_per_learner=512, minibatch_size=128,
                            num_epochs=1))
        algo = config.build_algo()  # RLlib's env checker steps unmasked actions here
        illegal: list[int] = []
        monkeypatch.setattr(env_logger.EnvLogger, "warn_on_illegal_move",
                            staticmethod(lambda: illegal.append(1)))
        for _ in range(2):
            result = algo.train()
        runners = result["env_runners"]
        assert runners["num_env_steps_sampled_lifetime"] >= 1024
        assert runners["num_episodes_lifetime"] > 10
        assert not illegal  # the masked policy never plays an illegal move
        algo.stop()
    finally:
        ray.shutdown()


def test_the_readme_rllib_example_runs() -> None:
    import re

    from tests.helpers.paths import ROOT

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    (example,) = [b for b in blocks if "from ray" in b]
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        exec(compile(example, "README.md RLlib example", "exec"), {})
    finally:
        ray.shutdown()
