"""A run folder is claimed with its whole config in one step (a kill leaves no folder with
an empty config, and a folder a run left before its config was complete can be taken by a
new run); a resumed run writes its ``rules`` as its fresh start did; sizes that would
exhaust memory are refused in the config by key, with the cap."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
import yaml

from agents.bots.policy import CheckpointError
from agents.train.config import (
    MAX_BATCH_DECISIONS,
    ConfigError,
    HanaawaseConfig,
    PPOConfig,
    claim_run_dir,
    resume_config,
)
from agents.train.expert_iteration import ExItConfig
from hanafuda_env.koikoi.rules import resolve_rules


def config(**changes: object) -> PPOConfig:
    return PPOConfig.from_dict({"n_envs": 2, "n_steps": 4, **changes})


def config_text(cfg: PPOConfig) -> str:
    return yaml.safe_dump({**dataclasses.asdict(cfg),
                           "resolved_rules": cfg.resolved_rules().to_dict()}, sort_keys=False)


# ------------------------------------------------------------------ run folders
def test_the_claim_writes_the_whole_config(tmp_path: Path) -> None:
    cfg = config(log_dir=str(tmp_path / "runs"))
    for run_dir in (tmp_path / "named", None):
        claimed = claim_run_dir(cfg, run_dir, config_text(cfg))
        assert [p.name for p in claimed.iterdir()] == ["config.yaml"]
        assert (claimed / "config.yaml").read_text() == config_text(cfg)


def test_a_kill_during_the_claim_leaves_a_folder_a_new_run_takes(tmp_path: Path,
                                                                monkeypatch) -> None:
    cfg, run_dir = config(), tmp_path / "run"

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link", killed)
    with pytest.raises(KeyboardInterrupt):
        claim_run_dir(cfg, run_dir, config_text(cfg))
    monkeypatch.undo()
    assert not (run_dir / "config.yaml").exists()
    assert claim_run_dir(cfg, run_dir, config_text(cfg)) == run_dir
    assert [p.name for p in run_dir.iterdir()] == ["config.yaml"]


@pytest.mark.parametrize("left", ["", "  \n", "[unclosed"])
def test_a_folder_left_with_an_incomplete_config_is_taken_by_a_new_run(tmp_path: Path,
                                                                      left: str) -> None:
    cfg, run_dir = config(), tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(left)
    (run_dir / ".config.yaml.abc.tmp").write_text("half")
    with pytest.raises(CheckpointError, match="no complete config.yaml.*--run-dir"):
        resume_config(run_dir, {})
    assert claim_run_dir(cfg, run_dir, config_text(cfg)) == run_dir
    assert (run_dir / "config.yaml").read_text() == config_text(cfg)
    assert [p.name for p in run_dir.iterdir()] == ["config.yaml"]


def test_a_folder_with_a_run_in_it_is_never_taken(tmp_path: Path) -> None:
    cfg, run_dir = config(), tmp_path / "run"
    claim_run_dir(cfg, run_dir, config_text(cfg))
    with pytest.raises(ConfigError, match="not an empty folder"):
        claim_run_dir(cfg, run_dir, config_text(cfg))
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.yaml").write_text("")
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not an empty folder"):
        claim_run_dir(cfg, other)
    assert (other / "notes.txt").read_text() == "mine"


# --------------------------------------------------------------- resumed rules
@pytest.mark.parametrize("rules", ["nintendo", "ten-base", {"preset": "ten-base", "rounds": 3}])
def test_a_resumed_run_keeps_its_rules_as_given(tmp_path: Path, rules) -> None:
    cfg = config(rules=rules)
    payload = {"config": dataclasses.asdict(cfg), "rules": cfg.resolved_rules().to_dict()}
    assert resume_config(tmp_path, {}, payload=payload).rules == rules
    (tmp_path / "config.yaml").write_text(config_text(cfg))  # stopped before a checkpoint
    assert resume_config(tmp_path, {}).rules == rules


def test_a_rule_file_changed_since_leaves_the_saved_rule_set(tmp_path: Path) -> None:
    path = tmp_path / "house.yaml"
    path.write_text("preset: ten-base\nrounds: 6\n")
    cfg = config(rules=str(path))
    payload = {"config": dataclasses.asdict(cfg), "rules": cfg.resolved_rules().to_dict()}
    assert resume_config(tmp_path, {}, payload=payload).rules == str(path)
    path.write_text("preset: ten-base\nrounds: 9\n")
    resumed = resume_config(tmp_path, {}, payload=payload)
    assert resolve_rules(resumed.rules).rounds == 6


def test_a_hanaawase_run_keeps_its_options_as_given(tmp_path: Path) -> None:
    cfg = HanaawaseConfig.from_dict({"n_envs": 2, "rules": {"rounds": 2}})
    payload = {"config": dataclasses.asdict(cfg), "rules": cfg.resolved_rules().to_dict()}
    assert resume_config(tmp_path, {}, payload=payload).rules == {"rounds": 2}


# -------------------------------------------------------------------- sizes
@pytest.mark.parametrize(("changes", "words"), [
    ({"hidden": 10_000_000}, r"hidden must be an integer >= 1 and <= 8192, got 10000000"),
    ({"layers": 1000}, r"layers must be an integer >= 1 and <= 32"),
    ({"hidden": 8192, "layers": 32}, r"hidden=8192 and layers=32 make a network of "
                                     r"[\d,]+ weights .* at most 50,000,000 weights"),
    ({"n_envs": 10**7}, r"n_envs must be an integer >= 1 and <= 65536"),
    ({"n_envs": 65536, "n_steps": 4096}, rf"must be at most {MAX_BATCH_DECISIONS:,}"),
])
def test_sizes_that_exhaust_memory_are_refused_by_key(changes: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        config(**changes)


def test_an_override_on_the_command_line_is_refused_the_same_way() -> None:
    with pytest.raises(ConfigError, match="hidden must be an integer >= 1 and <= 8192"):
        PPOConfig.load(None, ["hidden=10000000"])


def test_the_other_trainers_refuse_the_same_sizes() -> None:
    with pytest.raises(ConfigError, match="at most 50,000,000 weights"):
        HanaawaseConfig.from_dict({"hidden": 8192, "layers": 32})
    with pytest.raises(ConfigError, match="hidden must be an integer >= 1 and <= 8192"):
        ExItConfig(hidden=10**7)
    assert config(hidden=512, layers=4).hidden == 512
