"""A trained network as an agent, and checkpoint files that are written atomically."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .networks import ActorCritic, sample_actions

CHECKPOINT_FORMAT = "hanafuda-koikoi/ppo-v1"


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt or not one of ours."""


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write a checkpoint atomically: a temporary file in the same folder, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save({"format": CHECKPOINT_FORMAT, **payload}, buffer)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(buffer.getvalue())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint, with a clear error for a missing, corrupt or foreign file."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises many types for damaged files
        raise CheckpointError(f"checkpoint {str(path)!r} is corrupt or unreadable: "
                              f"{type(error).__name__}: {error}") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a {CHECKPOINT_FORMAT} checkpoint")
    for key in ("model", "network"):
        if key not in payload:
            raise CheckpointError(f"checkpoint {str(path)!r} lacks {key!r}")
    return payload


def network_from_payload(payload: dict[str, Any]) -> ActorCritic:
    net = ActorCritic(**payload["network"])
    try:
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError) as error:
        raise CheckpointError(f"checkpoint weights do not fit the network: {error}") from None
    return net.eval()


class PolicyAgent:
    """Plays with a network: its most likely legal action (``greedy``, the default for
    evaluation and play) or a sample from the masked policy (diverse self-play opponents)."""

    def __init__(self, network: ActorCritic, name: str = "ppo", greedy: bool = True,
                 seed: int | None = None):
        self.network = network
        self.name = name
        self.greedy = greedy
        self.generator = torch.Generator()
        self.seed(seed if seed is not None else 0)

    def seed(self, seed: int) -> None:
        self.generator.manual_seed(int(seed))

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if len(obs) == 0:
            return np.zeros(0, dtype=np.int64)
        logits, _ = self.network(torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool))
        if self.greedy:
            return logits.argmax(-1).numpy()
        return sample_actions(logits, self.generator).numpy()

    @torch.no_grad()
    def value(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The critic's estimate (in reward units) of each state."""
        _, values = self.network(torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool))
        return values.numpy()

    @classmethod
    def load(cls, path: str | Path, rules: Any = None, greedy: bool = True) -> PolicyAgent:
        """An agent from a checkpoint written by the trainer (``rules`` is accepted so every
        agent factory has one signature; a policy plays whatever rule set it is given)."""
        payload = load_checkpoint(path)
        return cls(network_from_payload(payload), name=Path(path).stem, greedy=greedy)
