"""A trained network as an agent, and checkpoint files that are written atomically."""

from __future__ import annotations

import hashlib
import io
import pickle
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots import card_net
from agents.bots.base import check_inputs
from agents.bots.network import (
    ActorCritic,
    CardFeatures,
    actor_critic_shapes,
    sample_actions,
    size_problem,
    weights_problem,
)
from agents.paths import folder_hint
from hanafuda_env.common.files import atomic_write_bytes
from hanafuda_env.koikoi.core import NUM_ACTIONS
from hanafuda_env.koikoi.observation import OBS_DIM, OBS_VERSION

CHECKPOINT_FORMAT = "hanafuda-koikoi/ppo-v1"
# Network sizes a checkpoint may ask for: read before anything is allocated, so a small
# damaged or hostile file cannot ask for gigabytes (the default network is 256 x 2).
MAX_HIDDEN, MAX_LAYERS = 8192, 32


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt or not one of ours."""


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write a checkpoint atomically. Payloads hold only tensors and plain Python values,
    so they load with ``weights_only=True`` (no code runs when a file is opened); a digest
    of the contents lets a load tell a damaged file from a sound one."""
    content = {"format": CHECKPOINT_FORMAT, "observation_version": OBS_VERSION, **payload}
    buffer = io.BytesIO()
    torch.save({**content, "digest": payload_digest(content)}, buffer)
    atomic_write_bytes(path, buffer.getvalue())


def payload_digest(tree: Any) -> str:
    """SHA-256 of a payload's contents: keys, plain values, and each tensor's dtype, shape
    and bytes, walked in a fixed order (independent of how torch lays out the file)."""
    digest = hashlib.sha256()

    def walk(node: Any) -> None:
        if isinstance(node, torch.Tensor):
            data = node.detach().cpu().contiguous()
            digest.update(f"T{data.dtype}{tuple(data.shape)}".encode())
            digest.update(data.reshape(-1).view(torch.uint8).numpy().tobytes())
        elif isinstance(node, dict):
            digest.update(f"D{len(node)}".encode())
            for key in sorted(node, key=repr):
                digest.update(repr(key).encode())
                walk(node[key])
        elif isinstance(node, (list, tuple)):
            digest.update(f"L{len(node)}".encode())
            for item in node:
                walk(item)
        else:
            digest.update(f"V{type(node).__name__}:{node!r}".encode())

    walk(tree)
    return digest.hexdigest()


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint, with a clear error for a missing, corrupt or foreign file."""
    path = Path(path)
    if not path.is_file():
        missing = "is not a file" if path.exists() else "does not exist"
        raise CheckpointError(f"checkpoint {str(path)!r} {missing}{folder_hint(str(path))}")
    try:
        with warnings.catch_warnings():  # a plain pickle warns before it fails; we explain
            warnings.simplefilter("ignore")
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for damaged or unsafe files
        raise CheckpointError(f"checkpoint {str(path)!r} {_why_unreadable(path, error)}"
                              ) from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a {CHECKPOINT_FORMAT} checkpoint")
    digest = payload.pop("digest", None)
    if digest != payload_digest(payload):
        raise CheckpointError(f"checkpoint {str(path)!r} is damaged: its contents do not match "
                              "the digest written with them" if digest is not None else
                              f"checkpoint {str(path)!r} has no digest of its contents, so "
                              "damage could not be told; save_checkpoint writes one")
    for key in ("model", "network"):
        if key not in payload:
            raise CheckpointError(f"checkpoint {str(path)!r} lacks {key!r}")
    trained_on = payload.get("observation_version")
    if trained_on != OBS_VERSION:
        raise CheckpointError(f"checkpoint {str(path)!r} was trained on observation version "
                              f"{trained_on}, but this code encodes version {OBS_VERSION} "
                              "(hanafuda_env.koikoi.observation.OBS_VERSION): its network would "
                              "play "
                              "on inputs it was not trained on; train it again")
    return payload


def _why_unreadable(path: Path, error: Exception) -> str:
    """What a failed ``torch.load`` means for the user (torch's own advice to load unsafely
    is not repeated)."""
    if isinstance(error, PermissionError):
        return f"cannot be read: {error.strerror}"
    unsafe = re.search(r"(?:Unsupported global: GLOBAL|unsupported GLOBAL) ([\w.]+)",
                       str(error))
    if not zipfile.is_zipfile(path):
        if _starts_like_a_pickle(path):
            what = f" ({unsafe.group(1)})" if unsafe else ""
            return (f"is a pickle (torch's legacy format or a plain pickle) holding more than "
                    f"tensors and plain values{what}: an unsafe, unsupported checkpoint "
                    f"format, as loading it could run code; only zip checkpoints "
                    f"(torch.save's format) that this project writes are loaded")
        return "is corrupt or not a checkpoint at all (torch.save writes a zip archive)"
    if unsafe or isinstance(error, pickle.UnpicklingError):
        what = f" ({unsafe.group(1)})" if unsafe else ""
        return (f"is not a safe checkpoint: it holds more than tensors and plain values{what}, "
                "which could run code when loaded; only checkpoints this project writes are "
                "loaded")
    text = str(error).splitlines()[0] if str(error) else ""
    return f"is corrupt or unreadable: {type(error).__name__}: {text}"


def _starts_like_a_pickle(path: Path) -> bool:
    """A pickle of protocol 2 or later (torch's legacy format is one) opens with PROTO."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
    except OSError:
        return False
    return len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5


ARCHITECTURES = ("mlp", card_net.ARCHITECTURE)  # what a checkpoint's network may be


def build_network(spec: dict[str, Any]) -> torch.nn.Module:
    """A fresh network of the architecture ``spec`` names (``architecture``: ``mlp``, the
    default, for :class:`ActorCritic`, or ``card_graph``), sizes checked first; a
    :class:`CheckpointError` names what is wrong."""
    architecture = spec.get("architecture", "mlp")
    if architecture not in ARCHITECTURES:
        raise CheckpointError(f"network architecture={architecture!r}; allowed: "
                              f"{', '.join(ARCHITECTURES)}")
    spec = {k: v for k, v in spec.items() if k != "architecture" or v != "mlp"}
    if architecture == card_net.ARCHITECTURE:
        problem = card_net.spec_problem(spec)
        if problem is None:
            try:
                problem = size_problem(card_net.card_graph_shapes(spec))
            except ValueError as error:
                problem = str(error)
        if problem:
            raise CheckpointError(f"network {spec!r}: {problem}")
        return card_net.CardGraphNet(**spec)
    width = OBS_DIM + (CardFeatures.size if spec.get("card_features") else 0)
    problem = size_problem(actor_critic_shapes(width, spec.get("hidden", 256),
                                               spec.get("layers", 2)))
    if problem:
        raise CheckpointError(f"network {spec!r}: {problem}")
    return ActorCritic(**spec)


def _card_graph_from_payload(payload: dict[str, Any]) -> torch.nn.Module:
    spec = payload["network"]
    problem = card_net.spec_problem(spec)
    if problem is None:
        try:
            shapes = card_net.card_graph_shapes(spec)
        except ValueError as error:
            problem = str(error)
    problem = problem or weights_problem(payload["model"], shapes)
    if problem:
        raise CheckpointError(f"checkpoint network {spec!r}: {problem}")
    net = card_net.CardGraphNet(**spec)
    net.load_state_dict(payload["model"])
    return net.eval()


def network_from_payload(payload: dict[str, Any]) -> torch.nn.Module:
    """The saved network; it must read this project's observations and emit its actions."""
    if payload.get("game", "koikoi") != "koikoi":
        raise CheckpointError(f"this is a {payload['game']} checkpoint, not a Koi-Koi one; "
                              f"play it in its own game (e.g. play.py --game hanaawase)")
    kwargs = payload["network"] if isinstance(payload["network"], dict) else {}
    architecture = kwargs.get("architecture", "mlp")
    if architecture not in ARCHITECTURES:
        raise CheckpointError(f"checkpoint network has architecture={architecture!r}; "
                              f"allowed: {', '.join(ARCHITECTURES)}")
    if architecture == card_net.ARCHITECTURE:
        return _card_graph_from_payload(payload)
    sizes = {"obs_dim": OBS_DIM, "n_actions": NUM_ACTIONS}
    wrong = {k: kwargs[k] for k, size in sizes.items() if k in kwargs and kwargs[k] != size}
    if wrong:
        raise CheckpointError(f"checkpoint network has {wrong}; this project's networks take "
                              f"obs_dim={OBS_DIM} and give n_actions={NUM_ACTIONS}")
    for key, high in (("hidden", MAX_HIDDEN), ("layers", MAX_LAYERS)):
        value = kwargs.get(key, 1)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high:
            raise CheckpointError(f"checkpoint network asks for {key}={value!r}; a network "
                                  f"here has {key} from 0 to {high}")
    card_features = kwargs.get("card_features", False)
    if not isinstance(card_features, bool):
        raise CheckpointError(f"checkpoint network asks for card_features={card_features!r}; "
                              f"it is true or false")
    width = OBS_DIM + (CardFeatures.size if card_features else 0)
    shapes = actor_critic_shapes(width, kwargs.get("hidden", 256), kwargs.get("layers", 2))
    problem = weights_problem(payload["model"], shapes)  # before anything is allocated
    if problem:
        raise CheckpointError(f"checkpoint network {payload.get('network')!r}: {problem}")
    try:
        net = ActorCritic(**{k: v for k, v in kwargs.items() if k != "architecture"})
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"checkpoint weights do not fit the network "
                              f"{payload.get('network')!r}: {error}") from None
    return net.eval()



def policy_weights(path: str | Path) -> dict[str, Any]:
    """A checkpoint's policy alone (``model`` weights, ``network`` shape), checked to build:
    a run keeps it in its state, so a file changed or deleted later does not change the run."""
    payload = load_checkpoint(path)
    network_from_payload(payload)  # a file that cannot play fails now, not mid-run
    return {"model": payload["model"], "network": payload["network"]}


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

    def check(self, obs: np.ndarray, mask: np.ndarray, need_action: bool = True
              ) -> tuple[np.ndarray, np.ndarray]:
        """The batch as arrays, or a ValueError naming what is wrong with its layout (as the
        baselines check theirs)."""
        return check_inputs(obs, mask, need_action)

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = self.check(obs, mask)
        if len(obs) == 0:
            return np.zeros(0, dtype=np.int64)
        logits, _ = self.network(torch.as_tensor(obs), torch.as_tensor(mask))
        if self.greedy:
            return logits.argmax(-1).numpy()
        return sample_actions(logits, self.generator).numpy()

    @torch.no_grad()
    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B, 98) the policy's action probabilities (0 where illegal): a search's prior."""
        obs, mask = self.check(obs, mask)
        logits, _ = self.network(torch.as_tensor(obs), torch.as_tensor(mask))
        return torch.softmax(logits, dim=-1).numpy().astype(np.float64)

    @torch.no_grad()
    def value(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's own value head (in its run's reward units). Runs with
        ``critic: privileged`` train that head only during the warm start: their PPO critic is
        a separate network that needs hidden cards, so it is not part of a policy."""
        obs, mask = self.check(obs, mask, need_action=False)  # a final state has a value
        _, values = self.network(torch.as_tensor(obs), torch.as_tensor(mask))
        return values.numpy()

    @classmethod
    def load(cls, path: str | Path, rules: Any = None, greedy: bool = True) -> PolicyAgent:
        """An agent from a checkpoint written by the trainer (``rules`` is accepted so every
        agent factory has one signature; a policy plays whatever rule set it is given)."""
        return cls.from_payload(load_checkpoint(path), path, greedy)

    @classmethod
    def from_payload(cls, payload: dict[str, Any], path: str | Path, greedy: bool = True
                     ) -> PolicyAgent:
        """An agent from a checkpoint's ``model`` and ``network`` already read (a run keeps
        them in its state), named after the file they came from."""
        return cls(network_from_payload(payload), name=Path(path).stem, greedy=greedy)


def to_tensors(tree: Any) -> Any:
    """A tree of numpy arrays as tensors, for a checkpoint (which holds only tensors and plain
    values, so it loads safely)."""
    if isinstance(tree, dict):
        return {k: to_tensors(v) for k, v in tree.items()}
    return torch.from_numpy(np.ascontiguousarray(tree))


def to_arrays(tree: Any) -> Any:
    """The arrays of :func:`to_tensors` back, writable copies."""
    if isinstance(tree, dict):
        return {k: to_arrays(v) for k, v in tree.items()}
    return tree.numpy().copy()
