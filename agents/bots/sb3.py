"""A Stable-Baselines3 model as an agent: a model trained on ``hanafuda/KoiKoi-v0`` (or any
env with this project's observations and actions) plays in ``evaluate.py``, ``play.py`` and
the league like the other bots.

The model's own action distribution is masked to the legal actions and its most likely one
is played, so a model trained without masks (PPO, A2C) never plays an illegal move; a
MaskablePPO model (sb3-contrib) is read with its masks in the same way.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.base import check_inputs
from hanafuda_env.koikoi.core import NUM_ACTIONS
from hanafuda_env.koikoi.observation import OBS_DIM

# The algorithm that loads a saved model, by the policy class its zip names.
MASKABLE_POLICY = "sb3_contrib.common.maskable.policies"


class SB3Agent:
    """Plays with a Stable-Baselines3 model's categorical policy (PPO, A2C, MaskablePPO)."""

    def __init__(self, model: Any, name: str = "sb3"):
        space = getattr(model, "observation_space", None)
        actions = getattr(model, "action_space", None)
        if getattr(space, "shape", None) != (OBS_DIM,) or getattr(actions, "n", None) != (
                NUM_ACTIONS):
            raise ValueError(f"an SB3 model for this project reads observations of shape "
                             f"({OBS_DIM},) and picks one of {NUM_ACTIONS} actions; this one "
                             f"has {getattr(space, 'shape', None)} and "
                             f"{getattr(actions, 'n', None)}")
        if not hasattr(model.policy, "get_distribution"):
            raise ValueError(f"{type(model).__name__} has no action distribution to mask; "
                             "an SB3Agent plays PPO, A2C or MaskablePPO models")
        self.model, self.name = model, name

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> SB3Agent:
        """A model saved by ``model.save(path)``: MaskablePPO when its policy is maskable,
        else PPO (A2C's saved policy loads as the same actor-critic)."""
        path = Path(path)
        try:
            with zipfile.ZipFile(path) as archive:
                data = json.loads(archive.read("data"))
        except (OSError, zipfile.BadZipFile, KeyError, ValueError) as error:
            raise ValueError(f"{str(path)!r} is no Stable-Baselines3 model file (a zip "
                             f"with its 'data'): {error}") from None
        policy = str(data.get("policy_class", {}).get(":serialized:", "")) + str(
            data.get("policy_class", ""))
        if MASKABLE_POLICY in policy or "Maskable" in policy:
            from sb3_contrib import MaskablePPO as algorithm
        else:
            from stable_baselines3 import PPO as algorithm
        model = algorithm.load(path, device="cpu")
        return cls(model, name or path.stem)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = check_inputs(obs, mask)
        with torch.no_grad():
            tensor = torch.as_tensor(obs, dtype=torch.float32)
            distribution = self.model.policy.get_distribution(tensor).distribution
            logits = distribution.logits.masked_fill(~torch.as_tensor(mask), -torch.inf)
        return logits.argmax(dim=-1).numpy().astype(np.int64)
