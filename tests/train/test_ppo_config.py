"""The training config (``PPOConfig``): unknown keys and bad values are refused up front,
naming the key; the bounds are exactly the documented ones (a discount of 0 would make every
return one step long; a minibatch needs two samples; keeping best.pt needs evaluations);
overrides read ``key = value`` with spaces; names that start a folder are bounded in bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.train.config import ConfigError, PPOConfig


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


# -------------------------------------------------------------- keys and values
def test_config_rejects_unknown_keys_and_bad_values(tmp_path) -> None:
    with pytest.raises(ConfigError, match="learning_rat.*allowed keys"):
        PPOConfig.from_dict({"learning_rat": 1e-3})
    with pytest.raises(ConfigError, match="episode"):
        PPOConfig(episode="season")
    with pytest.raises(ValueError, match="unknown rule preset"):
        PPOConfig(rules="hanafuda-classic")
    path = tmp_path / "c.yaml"
    path.write_text("n_envs: 8\nseed: 3\n")
    cfg = PPOConfig.load(path, ["seed=5", "baselines=[random]"])
    assert (cfg.n_envs, cfg.seed, cfg.baselines) == (8, 5, ["random"])
    with pytest.raises(ConfigError, match="key=value"):
        PPOConfig.load(path, ["seed"])


@pytest.mark.parametrize(("override", "message"), [
    ({"eval_opponents": ["expret"]}, "neither a baseline"),
    ({"warmstart_teacher": "nobody"}, "neither a baseline"),
    ({"learning_rate": "x"}, "learning_rate must be a finite number"),
    ({"learning_rate": float("inf")}, "learning_rate must be a finite number"),
    ({"n_envs": True}, "n_envs must be a positive integer"),
    ({"seed": 10**400}, "seed must be an integer"),  # no float overflow on the way
    ({"gamma": 5}, "gamma must be"),
    ({"max_snapshots": 0}, "max_snapshots must be"),
    ({"reward": "wins"}, "'points', 'match_win'"),
    ({"round_sigma": -1}, "round_sigma must be"),
    ({"critic": "oracle"}, "'shared', 'privileged'"),
    ({"init_checkpoint": 5}, "init_checkpoint must be a checkpoint path"),
    ({"exp_name": None}, "exp_name must be"),
    ({"exp_name": "a/b"}, "without '/'"),
    ({"exp_name": ".."}, "exp_name must be"),
    ({"log_dir": ""}, "log_dir must be"),
])
def test_config_values_are_checked_up_front(override, message) -> None:
    with pytest.raises(ValueError, match=message):
        PPOConfig.from_dict(override)


def test_override_keys_may_have_spaces_around_them() -> None:
    """``key = value`` overrides read like ``key=value``."""
    cfg = PPOConfig.load(None, ["seed = 3", " n_envs= 4", "exp_name =run"])
    assert (cfg.seed, cfg.n_envs, cfg.exp_name) == (3, 4, "run")


@pytest.mark.parametrize("bad", [0, -0.1, float("nan"), "0.02"])
def test_target_kl_must_be_a_positive_number(bad: object) -> None:
    """target_kl is null or a finite number above zero."""
    with pytest.raises(ConfigError, match="target_kl must be a finite number > 0"):
        PPOConfig(target_kl=bad)
    assert PPOConfig(target_kl=0.02).target_kl == 0.02
    assert PPOConfig(target_kl=None).target_kl is None


# --------------------------------------------------------- names of run folders
def test_exp_name_may_not_hold_a_backslash() -> None:
    """exp_name starts a folder name: neither '/' nor '\\' may be in it."""
    for name in ("a\\b", "a/b"):
        with pytest.raises(ConfigError, match="exp_name must be a non-empty name"):
            PPOConfig(exp_name=name)


def test_exp_name_is_bounded_in_bytes_not_characters() -> None:
    from agents.train.config import ConfigError

    assert config(exp_name="x" * 200).exp_name == "x" * 200
    with pytest.raises(ConfigError, match="at most 200 bytes"):
        config(exp_name="\u00e9" * 101)  # 101 characters, 202 bytes


def test_a_nul_in_log_dir_or_run_dir_is_refused_by_option(tmp_path: Path) -> None:
    from agents.train.config import ConfigError, claim_run_dir

    with pytest.raises(ConfigError, match="log_dir must be a folder path"):
        config(log_dir="a\0b")
    with pytest.raises(ConfigError, match="--run-dir must be a folder path"):
        claim_run_dir(config(log_dir=str(tmp_path)), str(tmp_path / "a\0b"))


def test_the_learner_device_is_checked_by_name() -> None:
    """``device``: auto (a CUDA GPU where torch sees one), cpu or cuda; cuda on a machine
    without one is refused before any run starts."""
    import torch

    from agents.train.config import learner_device

    assert learner_device("cpu") == "cpu"
    assert learner_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ConfigError, match="device must be one of auto, cpu, cuda, got 'gpu'"):
        PPOConfig(device="gpu")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="torch sees no CUDA GPU"):
            PPOConfig(device="cuda")
