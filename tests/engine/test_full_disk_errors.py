"""A write that fails for want of space (ENOSPC) or another OS error names the file it was
writing, keeps what the file held before and leaves no temporary file behind."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest

from hanafuda_env.common import files


class FullDisk(io.BytesIO):
    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        os.close(fd)
        return FullDisk()

    monkeypatch.setattr(files.os, "fdopen", fdopen)


@pytest.mark.parametrize("write", [
    lambda path: files.atomic_write_bytes(path, b"new"),
    lambda path: files.atomic_write_text(path, "new"),
    lambda path: files.atomic_write_json(path, {"new": 1}),
])
def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path: Path, write: Any,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    target = tmp_path / "results.json"
    target.write_text("old")
    full_disk(monkeypatch)
    with pytest.raises(OSError) as error:
        write(target)
    assert error.value.errno == errno.ENOSPC
    assert str(target) in str(error.value) and "disk is full" in str(error.value)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_other_os_errors_name_the_file_and_keep_their_kind(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / ".x.tmp"))

    monkeypatch.setattr(files.tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError, match=r"cannot write the file.*model\.pt"):
        files.atomic_write_bytes(tmp_path / "model.pt", b"x")


def test_a_checkpoint_on_a_full_disk_names_its_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from agents.bots.policy import save_checkpoint

    full_disk(monkeypatch)
    with pytest.raises(OSError, match=r"disk is full.*latest\.pt"):
        save_checkpoint(tmp_path / "latest.pt", {"model": {"w": torch.zeros(2)}, "network": {}})
    assert not any(tmp_path.iterdir())
