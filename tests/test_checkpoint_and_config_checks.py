"""Checks that run before any training: a checkpoint must name its network as well as hold its
weights, and the training config's bounds are exactly the documented ones (a discount of 0
would make every return one step long; a minibatch needs two samples; keeping best.pt needs
evaluations). test_train_config.py checks values far outside the bounds; these sit on them."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from agents.bots.network import ActorCritic
from agents.bots.policy import CheckpointError, load_checkpoint, save_checkpoint
from agents.train.config import ConfigError, PPOConfig


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


def config(**changes: object) -> PPOConfig:
    """A small config with only baseline opponents (no files are read)."""
    return PPOConfig.from_dict({"n_envs": 2, "n_steps": 4, **changes})


def test_gamma_must_be_above_zero_and_at_most_one() -> None:
    with pytest.raises(ConfigError, match=r"gamma must be a finite number > 0 and <= 1"):
        config(gamma=0)
    assert config(gamma=1.0).gamma == 1.0
    assert config(gamma=1e-3).gamma == 1e-3
    assert config(gae_lambda=0).gae_lambda == 0  # lambda may be 0: one-step advantages


def test_every_minibatch_needs_two_samples() -> None:
    """n_envs * n_steps samples split into n_minibatches: at least two per minibatch."""
    assert config(n_envs=2, n_steps=4, n_minibatches=4).n_minibatches == 4  # 8 = 2 * 4
    with pytest.raises(ConfigError, match=r"n_envs \* n_steps \(7\) must be at least "
                                          r"2 \* n_minibatches \(8\)"):
        config(n_envs=1, n_steps=7, n_minibatches=4)


def test_best_checkpoint_needs_evaluations_against_its_opponent() -> None:
    """best.pt is kept by the evaluation win rate against best_opponent: without
    evaluations (eval_interval 0) there is nothing to keep it by."""
    assert config(best_opponent="random").best_opponent == "random"
    with pytest.raises(ConfigError, match="with eval_interval > 0"):
        config(best_opponent="random", eval_interval=0)
    with pytest.raises(ConfigError, match="best_opponent must be one of"):
        config(best_opponent="random", eval_opponents=["greedy"])


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize(("edit", "detail"), [
    (lambda state: state.pop("optimizer"), "missing 'optimizer'"),
    (lambda state: state.pop("arrays"), "missing 'arrays'"),
    (lambda state: state["config"].update(hidden=128), "size mismatch"),
    (lambda state: state["config"].update(n_envs=16), "has shape"),
])
def test_resume_refuses_a_checkpoint_whose_parts_do_not_fit(tmp_path: Path, capsys, edit,
                                                            detail: str) -> None:
    """An edited checkpoint, or one of another version: a named error (not a KeyError or
    torch's RuntimeError) and the run folder exactly as it was."""
    import shutil

    import yaml

    import train
    from agents.train.run import train as run_training

    smoke = Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml"
    run = tmp_path / "run"
    run_training(PPOConfig.from_dict({**yaml.safe_load(smoke.read_text()), "eval_interval": 0,
                                      "total_decisions": 1024, "progress_bar": False}),
                 run_dir=run)
    broken = tmp_path / "broken"
    shutil.copytree(run, broken)
    state = load_checkpoint(broken / "checkpoints" / "latest.pt")
    edit(state)
    save_checkpoint(broken / "checkpoints" / "latest.pt", state)
    before = _tree(broken)
    capsys.readouterr()
    assert train.main(["--resume", str(broken), "total_decisions=2048"]) == 2
    err = capsys.readouterr().err
    assert "does not hold a training state this run can resume" in err and detail in err, err
    assert "Traceback" not in err
    assert _tree(broken) == before


def test_run_folder_names_that_cannot_be_made_are_refused_by_option(tmp_path: Path,
                                                                     capsys) -> None:
    """A NUL or an over-long exp_name fails with the config (no folder made); a file where
    log_dir or --run-dir needs a folder names that option, not just an OS errno."""
    import train

    smoke = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")
    logs = tmp_path / "logs"
    for name in ('"a\\0b"', "x" * 201):
        assert train.main(["--config", smoke, f"log_dir={logs}", f"exp_name={name}"]) == 2
        assert "exp_name must be a non-empty name of at most 200 bytes" in capsys.readouterr().err
    assert not logs.exists()
    in_the_way = tmp_path / "best.pt"
    in_the_way.write_bytes(b"weights")
    assert train.main(["--config", smoke, f"log_dir={in_the_way}"]) == 2
    assert f"log_dir {str(in_the_way)!r} cannot be made a folder" in capsys.readouterr().err
    assert train.main(["--config", smoke, "--run-dir", str(in_the_way / "run")]) == 2
    err = capsys.readouterr().err
    assert f"--run-dir {str(in_the_way / 'run')!r} cannot be made a folder" in err
    assert "Traceback" not in err and in_the_way.read_bytes() == b"weights"


def test_folders_given_for_checkpoints_point_to_the_file_or_run_folder(tmp_path: Path,
                                                                        capsys) -> None:
    """``init_checkpoint=RUN`` names the run's policy file; ``--resume RUN/checkpoints``
    names the run folder (it used to advise deleting the folder and starting anew)."""
    import train

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    save_checkpoint(run / "checkpoints" / "latest.pt",
                    {"model": ActorCritic(hidden=8).state_dict(), "network": {"hidden": 8}})
    smoke = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")
    assert train.main(["--config", smoke, f"log_dir={tmp_path / 'logs'}",
                       f"init_checkpoint={run}"]) == 2
    err = capsys.readouterr().err
    assert f"checkpoint {str(run)!r} is not a file" in err
    assert f"its policy: {run / 'checkpoints' / 'latest.pt'}" in err
    assert train.main(["--resume", str(run / "checkpoints")]) == 2
    err = capsys.readouterr().err
    assert "is a run's checkpoints folder" in err and f"the run folder ({str(run)!r})" in err
    assert "delete" not in err and sorted(p.name for p in run.rglob("*")) == [
        "checkpoints", "latest.pt"]


def test_a_checkpoint_trained_on_another_observation_version_warns(tmp_path: Path) -> None:
    """Observation entries that changed meaning (version 1 held the match lead twice over)
    leave a checkpoint loadable, but the user is told that it plays on unfamiliar inputs."""
    import torch

    from agents.bots.policy import CHECKPOINT_FORMAT
    from hanafuda_env.observation import OBS_VERSION

    payload = {"model": ActorCritic(hidden=8, layers=1).state_dict(),
               "network": {"hidden": 8, "layers": 1}}
    path = tmp_path / "old.pt"
    torch.save({"format": CHECKPOINT_FORMAT, **payload}, path)  # written before the stamp
    with pytest.warns(UserWarning, match=f"observation version 1, this code encodes "
                                         f"version {OBS_VERSION}"):
        assert set(load_checkpoint(path)) >= {"model", "network"}
    save_checkpoint(path, payload)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_checkpoint(path)["observation_version"] == OBS_VERSION
