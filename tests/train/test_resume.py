"""What a resumed run may change and what it keeps: ``resume_config`` lets only
``total_decisions`` and ``progress_bar`` change (the rules may be named again as they were),
names a run folder's stray files for what they are, and restoring a training state passes an
opponent file's error and code bugs through as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.train.config import ConfigError, resume_config
from hanafuda_env.koikoi.rules import resolve_rules


def test_a_resumed_run_may_change_its_progress_bar(tmp_path: Path) -> None:
    """progress_bar and total_decisions may change on resume; other keys may not."""
    payload = {"config": {"n_envs": 2, "n_steps": 4, "progress_bar": True,
                          "total_decisions": 100},
               "rules": "nintendo"}
    resumed = resume_config(tmp_path, {"progress_bar": False, "total_decisions": 200},
                            payload=payload)
    assert (resumed.progress_bar, resumed.total_decisions) == (False, 200)
    with pytest.raises(ConfigError, match="only total_decisions, progress_bar may change"):
        resume_config(tmp_path, {"n_envs": 4}, payload=payload)


def test_a_resumed_run_may_name_its_rules_as_it_did(tmp_path: Path) -> None:
    """Checkpoints hold the resolved rule set; naming the same rules again (by preset) on
    resume is no change."""
    rules = resolve_rules("nintendo")
    payload = {"config": {"n_envs": 2, "n_steps": 4, "rules": "nintendo"},
               "rules": rules.to_dict()}
    resumed = resume_config(tmp_path, {"rules": "nintendo"}, payload=payload)
    assert resolve_rules(resumed.rules) == rules
    with pytest.raises(ConfigError, match="may change"):
        resume_config(tmp_path, {"rules": "ten-base"}, payload=payload)


def test_a_run_folder_with_a_stray_top_level_latest_is_not_called_a_checkpoints_folder(
        tmp_path: Path) -> None:
    from agents.bots.policy import CheckpointError
    from agents.train.config import resume_config

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "latest.pt").write_bytes(b"a copy the user put here")
    with pytest.raises(CheckpointError) as error:
        resume_config(run, {})
    assert "checkpoints folder" not in str(error.value)


class _Stub:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def restore(self, payload) -> None:
        raise self.error


def test_restore_passes_an_opponent_files_error_and_code_bugs_through() -> None:
    from agents.bots.policy import CheckpointError
    from agents.train.run import restore_trainer

    with pytest.raises(CheckpointError) as error:
        restore_trainer(_Stub(CheckpointError("checkpoint 'opp.pt' does not exist")), {}, Path("x"))
    assert str(error.value) == "checkpoint 'opp.pt' does not exist"
    with pytest.raises(TypeError, match="a bug"):
        restore_trainer(_Stub(TypeError("a bug")), {}, Path("x"))
    with pytest.raises(CheckpointError, match="missing 'optimizer'"):
        restore_trainer(_Stub(KeyError("optimizer")), {}, Path("x"))
