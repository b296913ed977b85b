"""Checkpoint files: a policy saved and loaded plays and values as the network did; a file that
is corrupt, cut short, unreadable, a plain pickle, code, for other observation or action
sizes, or without its weights or network is refused saying why; one of another observation
version warns; and every file is written atomically, so a failed write leaves the old one."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.bots.network import ActorCritic
from agents.bots.policy import (
    CheckpointError,
    PolicyAgent,
    load_checkpoint,
    payload_digest,
    save_checkpoint,
)
from hanafuda_env.common import files
from hanafuda_env.common.files import atomic_write_bytes
from hanafuda_env.koikoi.observation import OBS_DIM


def test_checkpoint_roundtrip_and_corrupt_file_errors(tmp_path) -> None:
    net = ActorCritic(hidden=16)
    path = tmp_path / "ckpt.pt"
    save_checkpoint(path, {"model": net.state_dict(), "network": {"hidden": 16, "layers": 2}})
    agent = PolicyAgent.load(path)
    obs = np.random.default_rng(0).random((3, OBS_DIM), dtype=np.float32)
    mask = np.zeros((3, 98), dtype=bool)
    mask[:, [5, 9]] = True
    assert set(agent.act(obs, mask).tolist()) <= {5, 9}
    values = agent.value(obs, mask)  # the saved value head, one per observation
    with torch.no_grad():
        expected = net.value(net.trunk(torch.as_tensor(obs))).squeeze(-1).numpy()
    assert values.shape == (3,) and np.allclose(values, expected)
    assert not list(tmp_path.glob("*.tmp"))
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt or not a checkpoint"):
        load_checkpoint(tmp_path / "bad.pt")
    (tmp_path / "cut.pt").write_bytes(path.read_bytes()[:-200])  # a truncated download
    with pytest.raises(CheckpointError, match="corrupt") as raised:
        load_checkpoint(tmp_path / "cut.pt")
    assert "weights_only" not in str(raised.value)  # torch's advice to load it unsafely
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt")


def test_an_unreadable_checkpoint_says_why(tmp_path, monkeypatch) -> None:
    path = tmp_path / "locked.pt"
    save_checkpoint(path, {"model": {}, "network": {}})

    def no_permission(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(torch, "load", no_permission)
    with pytest.raises(CheckpointError, match="cannot be read: Permission denied"):
        load_checkpoint(path)


def test_a_plain_pickle_is_refused_without_torch_warnings(tmp_path) -> None:
    import pickle
    import warnings

    path = tmp_path / "plain.pt"
    path.write_bytes(pickle.dumps({"model": 1}, protocol=4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(CheckpointError, match="plain.pt"):
            load_checkpoint(path)
    assert not caught


def test_checkpoint_with_arbitrary_objects_is_refused(tmp_path) -> None:
    from fractions import Fraction  # any class outside torch's allow-list stands for code

    path = tmp_path / "evil.pt"
    torch.save({"format": "hanafuda-koikoi/ppo-v1", "model": {}, "network": {},
                "extra": Fraction(1, 3)}, path)
    from agents.bots.policy import CheckpointError

    with pytest.raises(CheckpointError, match=r"plain values \(fractions.Fraction\)") as raised:
        load_checkpoint(path)
    assert "weights_only" not in str(raised.value)


def test_checkpoints_for_other_observation_or_action_sizes_are_refused(tmp_path) -> None:
    from agents.bots.network import ActorCritic
    from agents.bots.policy import CheckpointError, save_checkpoint

    for sizes in ({"obs_dim": 100}, {"n_actions": 50}):
        path = tmp_path / "other.pt"
        save_checkpoint(path, {"model": ActorCritic(hidden=8, layers=1, **sizes).state_dict(),
                               "network": {"hidden": 8, "layers": 1, **sizes}})
        with pytest.raises(CheckpointError, match=f"obs_dim={OBS_DIM} and give n_actions=98"):
            PolicyAgent.load(path)


@pytest.mark.parametrize("missing", ["model", "network"])
def test_a_checkpoint_without_its_weights_or_its_network_is_refused(tmp_path: Path,
                                                                     missing: str) -> None:
    """Both are needed to play: the weights and the shape of the network they fit."""
    payload = {"model": ActorCritic(hidden=8, layers=1).state_dict(),
               "network": {"hidden": 8, "layers": 1}}
    path = tmp_path / "partial.pt"
    save_checkpoint(path, {k: v for k, v in payload.items() if k != missing})
    with pytest.raises(CheckpointError, match=f"lacks '{missing}'"):
        load_checkpoint(path)
    save_checkpoint(path, payload)
    assert set(load_checkpoint(path)) >= {"model", "network"}


def test_a_checkpoint_of_another_observation_version_is_refused(tmp_path: Path) -> None:
    """Its network would read other inputs than it was trained on: refused by name, one
    without a version too; what save_checkpoint writes loads."""
    import torch

    from agents.bots.policy import CHECKPOINT_FORMAT
    from hanafuda_env.koikoi.observation import OBS_VERSION

    payload = {"model": ActorCritic(hidden=8, layers=1).state_dict(),
               "network": {"hidden": 8, "layers": 1}}
    path = tmp_path / "other.pt"
    for version in (None, OBS_VERSION - 1):
        stamp = {} if version is None else {"observation_version": version}
        content = {"format": CHECKPOINT_FORMAT, **stamp, **payload}
        torch.save({**content, "digest": payload_digest(content)}, path)
        with pytest.raises(CheckpointError, match=f"trained on observation version {version}, "
                                                  f"but this code encodes version {OBS_VERSION}"):
            load_checkpoint(path)
    save_checkpoint(path, payload)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_checkpoint(path)["observation_version"] == OBS_VERSION


def test_flipped_bytes_inside_a_weight_tensor_are_found(tmp_path: Path) -> None:
    """torch reads a zip entry without checking it: the digest written with the contents
    tells the damage, and the file is refused by name wherever a checkpoint is read."""
    network = ActorCritic(hidden=16, layers=1)
    path = tmp_path / "flipped.pt"
    save_checkpoint(path, {"model": network.state_dict(), "network": {"hidden": 16,
                                                                      "layers": 1}})
    raw = bytearray(path.read_bytes())
    weights = network.state_dict()["trunk.0.weight"].numpy().tobytes()
    at = bytes(raw).find(weights[:64])
    assert at > 0
    raw[at + 40] ^= 0xFF  # one byte in the middle of a weight
    path.write_bytes(bytes(raw))
    assert torch.load(path, weights_only=True)["format"]  # torch itself sees nothing wrong
    with pytest.raises(CheckpointError, match=r"flipped.pt' is damaged: its contents do not "
                                              r"match the digest"):
        load_checkpoint(path)
    with pytest.raises(CheckpointError, match="is damaged"):
        PolicyAgent.load(path)


def test_a_checkpoint_without_a_digest_is_refused(tmp_path: Path) -> None:
    from agents.bots.policy import CHECKPOINT_FORMAT

    path = tmp_path / "bare.pt"
    torch.save({"format": CHECKPOINT_FORMAT, "model": {}, "network": {}}, path)
    with pytest.raises(CheckpointError, match="bare.pt' has no digest of its contents"):
        load_checkpoint(path)


@pytest.mark.parametrize(("network", "words"), [
    ({"hidden": 10**6, "layers": 1}, "hidden=1000000; a network here has hidden from 0 to"),
    ({"hidden": 8, "layers": 10**4}, "layers=10000; a network here has layers from 0 to"),
    ({"hidden": "8", "layers": 1}, "hidden='8'"),
])
def test_network_sizes_are_bounded_before_anything_is_allocated(tmp_path: Path, network,
                                                                words: str) -> None:
    """A file of a kilobyte must not ask for a network of gigabytes."""
    path = tmp_path / "huge.pt"
    save_checkpoint(path, {"model": {}, "network": network})
    assert path.stat().st_size < 4096
    with pytest.raises(CheckpointError, match=re.escape(words)):
        PolicyAgent.load(path)


def test_a_pickled_object_that_would_run_code_is_not_a_safe_checkpoint(tmp_path) -> None:
    """The message says why the file is refused and never suggests loading it unsafely."""

    class RunsCode:
        def __reduce__(self):
            return (os.system, ("true",))

    path = tmp_path / "code.pt"
    torch.save({"format": "hanafuda-koikoi/ppo-v1", "model": RunsCode()}, path)
    with pytest.raises(CheckpointError) as raised:
        load_checkpoint(path)
    message = str(raised.value)
    assert "code.pt' is not a safe checkpoint" in message and "system" in message
    assert "weights_only" not in message and "Re-running" not in message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_something_that_is_neither_file_nor_folder_is_not_called_a_folder(
        tmp_path: Path) -> None:
    """A named pipe exists but is no checkpoint file: said as such, and not called a folder
    (nor said not to exist)."""
    from agents.bots.policy import CheckpointError, load_checkpoint
    from agents.paths import folder_hint

    pipe = tmp_path / "pipe.pt"
    os.mkfifo(pipe)
    assert folder_hint(str(pipe)) == ""
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {str(pipe)!r} is not a "
                                                        "file")) as error:
        load_checkpoint(pipe)
    assert "folder" not in str(error.value)


# ---------------------------------------------------------------- atomic writes
class _DiesMidWrite:
    """A file handle that writes half of what it is given, then fails."""

    def __init__(self, handle: Any, error: BaseException):
        self.handle, self.error = handle, error

    def __enter__(self) -> _DiesMidWrite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, data: bytes) -> int:
        self.handle.write(data[:len(data) // 2])
        self.handle.flush()
        raise self.error


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"),
                                   KeyboardInterrupt()])
@pytest.mark.parametrize("existed", [True, False])
def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temp_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException,
        existed: bool) -> None:
    """A full disk or Ctrl-C while a checkpoint or summary is written: the previous file is
    still there byte for byte (or none, if there was none), with no stray temp file."""
    target = tmp_path / "latest.pt"
    old = bytes(range(256)) * 4
    if existed:
        target.write_bytes(old)
    real_fdopen = os.fdopen
    monkeypatch.setattr(files.os, "fdopen",
                        lambda fd, mode: _DiesMidWrite(real_fdopen(fd, mode), error))
    with pytest.raises(type(error)):
        atomic_write_bytes(target, b"new checkpoint " * 1000)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["latest.pt"] if existed else [])
    if existed:
        assert target.read_bytes() == old


def test_a_completed_write_replaces_the_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    target.write_bytes(b"old")
    atomic_write_bytes(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
