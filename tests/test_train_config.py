"""train.py's command line and the training config: bad keys, values and files are clear
errors before anything runs; hints name commands that work."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import train
from agents.train.config import ConfigError, PPOConfig

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "smoke.yaml"


def test_cli_reports_bad_config_keys_rules_and_checkpoints(tmp_path, capsys) -> None:
    assert train.main(["--config", str(SMOKE), "learning_rat=0.1"]) == 2
    assert "unknown config key" in capsys.readouterr().err
    assert train.main(["--config", str(SMOKE), "rules=hanafuda-classic"]) == 2
    assert "unknown rule preset" in capsys.readouterr().err
    broken = tmp_path / "broken"
    (broken / "checkpoints").mkdir(parents=True)
    (broken / "checkpoints" / "latest.pt").write_bytes(b"\x00garbage")
    assert train.main(["--resume", str(broken)]) == 2
    assert "corrupt" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["n_envs=0", "episode=season", "self_play_fraction=2"])
def test_bad_values_are_rejected_before_training(bad, capsys) -> None:
    assert train.main(["--config", str(SMOKE), bad]) == 2
    assert bad.split("=")[0] in capsys.readouterr().err


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


def test_malformed_yaml_seeds_out_of_range_and_the_default_config(tmp_path, capsys,
                                                                   monkeypatch) -> None:
    assert train.main(["--config", str(SMOKE), "n_envs=["]) == 2
    assert "override 'n_envs=[' is not valid YAML" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    broken.write_text("seed: [\n")
    assert train.main(["--config", str(broken)]) == 2
    assert "is not valid YAML" in capsys.readouterr().err
    assert train.main(["--config", str(SMOKE), f"rules={broken}"]) == 2
    assert "is not valid YAML" in capsys.readouterr().err
    assert train.main(["--config", str(SMOKE), "seed=100000000000"]) == 2
    assert "seed must be an integer >= 0 and <= 4294967295" in capsys.readouterr().err
    seen = {}

    def fake_train(cfg: PPOConfig, **_) -> dict:
        seen["cfg"] = cfg
        return {"run_dir": "x"}

    import agents.train.run

    monkeypatch.setattr(agents.train.run, "train", fake_train)
    assert train.main([]) == 0  # no --config: the documented default run
    default = PPOConfig.load(ROOT / "configs" / "default.yaml")
    assert seen["cfg"] == default


def test_numbers_in_e_notation_and_misplaced_config_files(tmp_path, capsys) -> None:
    """YAML 1.1 reads 3e-4 as text: a config means the number; a count may be 1e6."""
    cfg = PPOConfig.load(SMOKE, ["learning_rate=3e-4", "total_decisions=1e6", "seed=2E0"])
    assert (cfg.learning_rate, cfg.total_decisions, cfg.seed) == (3e-4, 1_000_000, 2)
    assert type(cfg.total_decisions) is int and type(cfg.seed) is int
    written = tmp_path / "lr.yaml"
    written.write_text("learning_rate: 1e-3\nwarmstart_learning_rate: -2.5E-4\n")
    with pytest.raises(ConfigError, match="warmstart_learning_rate must be .* got -0.00025"):
        PPOConfig.load(written)
    with pytest.raises(ConfigError, match="total_decisions must be a positive integer"):
        PPOConfig.load(SMOKE, ["total_decisions=1.5e0"])
    assert train.main([str(SMOKE)]) == 2  # the file given where an override goes
    err = capsys.readouterr().err
    assert err.startswith("train.py: error: ") and "goes after --config" in err
    for missing in (tmp_path / "nope.yaml", tmp_path):
        assert train.main(["--config", str(missing)]) == 2
        err = capsys.readouterr().err
        assert "give a YAML file" in err and "default.yaml" in err and "Errno" not in err
    with pytest.raises(SystemExit) as stopped:
        train.main(["--resume", str(tmp_path), "--config", str(SMOKE)])
    assert stopped.value.code == 2 and "without --config" in capsys.readouterr().err


def test_printed_commands_run_this_python(tmp_path, monkeypatch) -> None:
    """A hint to resume says the Python that has torch, not whatever ``python`` is on PATH."""
    from cli.commands import program, train_command

    monkeypatch.setenv("PATH", str(tmp_path))  # no python on PATH at all
    assert Path(program("python")).absolute() == Path(sys.executable).absolute()
    assert train_command("--resume", "runs/x").endswith(" train.py --resume runs/x")
    assert program("no-such-program") == "no-such-program"
    if Path(sys.executable).name == "python":  # e.g. an activated virtual environment
        monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
        assert program("python") == "python"


def test_empty_paths_and_text_that_is_not_utf8_are_errors(tmp_path, capsys) -> None:
    for option in ("--config", "--resume", "--run-dir"):
        with pytest.raises(SystemExit) as stopped:
            train.main([option, ""])
        assert stopped.value.code == 2 and "empty" in capsys.readouterr().err
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00seed: 1")
    assert train.main(["--config", str(binary), "--run-dir", str(tmp_path / "a")]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert train.main(["--config", str(SMOKE), f"rules={binary}",
                       "--run-dir", str(tmp_path / "b")]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_resume_given_a_checkpoint_names_its_run_folder(tmp_path, capsys) -> None:
    checkpoint = tmp_path / "run" / "checkpoints" / "latest.pt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(b"state")
    assert train.main(["--resume", str(checkpoint)]) == 2
    assert f"takes the run folder ({str(tmp_path / 'run')!r})" in capsys.readouterr().err
