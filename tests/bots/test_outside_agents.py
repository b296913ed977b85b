"""Agents from outside the project play like the others: a Stable-Baselines3 model file
(``sb3:PATH``) and any importable object with ``act`` (``module:name``), in ``make_agent``,
``play_matches`` and ``evaluate.py``."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from agents.bots import make_agent
from agents.eval import play_matches
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from tests.helpers.paths import ROOT

BOT_MODULE = '''
import numpy as np


class FirstLegal:
    name = "first-legal"

    def __init__(self, rules=None, seed=None):
        self.rules, self.seed_given = rules, seed

    def act(self, obs, mask):
        return mask.argmax(axis=1).astype(np.int64)


def make():
    return FirstLegal()


NOT_AN_AGENT = 42
'''


@pytest.fixture(scope="module")
def sb3_models(tmp_path_factory) -> dict[str, str]:
    """A tiny MaskablePPO and a tiny (unmasked) PPO model, saved as SB3 writes them."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3 import PPO

    folder = tmp_path_factory.mktemp("sb3")
    os.environ.setdefault("SB3_LOGDIR", str(folder))
    paths = {}
    for name, algorithm in (("maskable", sb3_contrib.MaskablePPO), ("plain", PPO)):
        env = KoiKoiSingleAgentEnv(illegal_action="penalize" if name == "plain" else "raise")
        model = algorithm("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                          verbose=0, device="cpu", policy_kwargs={"net_arch": [16]})
        model.learn(total_timesteps=64)
        paths[name] = str(folder / f"{name}.zip")
        model.save(paths[name])
    return paths


@pytest.mark.parametrize("kind", ["maskable", "plain"])
def test_an_sb3_model_plays_only_legal_moves(sb3_models, kind: str) -> None:
    agent = make_agent(f"sb3:{sb3_models[kind]}")
    assert agent.name == kind
    core = KoiKoiCore(64, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = core.legal_action_mask()
        actions = agent.act(encode_observations(core), mask)
        assert mask[np.arange(64), actions].all()
        core.step(np.where(rng.random(64) < 0.5, actions, core.sample_legal_actions(rng)))
    result = play_matches(agent, make_agent("random"), 4, {"rounds": 2})
    assert result["wins"] + result["draws"] + result["losses"] == 4


def test_a_file_that_is_no_sb3_model_is_named(tmp_path) -> None:
    path = tmp_path / "model.zip"
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="model.zip' is no Stable-Baselines3 model file"):
        make_agent(f"sb3:{path}")


def test_an_importable_bot_is_built_with_the_rules_and_seed(tmp_path, monkeypatch) -> None:
    (tmp_path / "my_bots.py").write_text(BOT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("my_bots:FirstLegal", "ten-base", seed=5)
    assert agent.name == "first-legal" and agent.seed_given == 5
    assert agent.rules.name == "ten-base"
    assert make_agent("my_bots:make").name == "first-legal"
    with pytest.raises(ValueError, match="'my_bots:NOT_AN_AGENT' is no agent"):
        make_agent("my_bots:NOT_AN_AGENT")
    with pytest.raises(ValueError, match="cannot import 'Bot' from module 'no_such_module'"):
        make_agent("no_such_module:Bot")


def test_evaluate_plays_outside_agents(tmp_path, sb3_models) -> None:
    (tmp_path / "my_bots.py").write_text(BOT_MODULE)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "my_bots:FirstLegal",
                           f"sb3:{sb3_models['maskable']}", "--matches", "2", "--rounds", "1"],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "my_bots:FirstLegal vs " in done.stdout and "2 matches" in done.stdout
