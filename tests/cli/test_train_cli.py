"""train.py's command line when a run starts: a smoke run writes its config, events and
checkpoints; bad keys, values, files and folders are clear errors (exit 2) before anything
runs and before a run folder is made; hints name commands that work, run by this Python."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agents.bots.network import ActorCritic
from agents.bots.policy import save_checkpoint
from agents.train.config import ConfigError, PPOConfig
from hanafuda_cli import train
from hanafuda_cli.commands import program, train_command
from hanafuda_env.koikoi.observation import OBS_DIM
from tests.helpers.paths import ROOT, SMOKE


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
    from hanafuda_cli.commands import program, train_command

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


def _smoke(**changes) -> PPOConfig:
    return PPOConfig.from_dict({**yaml.safe_load(SMOKE.read_text()), "eval_interval": 0,
                                "total_decisions": 1024, **changes})


def test_train_script_runs_as_a_program(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), "--run-dir",
         str(tmp_path / "cli"), "total_decisions=1024", "eval_interval=0"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "run folder" in result.stdout
    assert (tmp_path / "cli" / "checkpoints" / "latest.pt").is_file()
    command = result.stdout.split("TensorBoard: ")[1].split(" --logdir")[0]
    assert command == "tensorboard" or (ROOT / command).is_file()  # one that runs as printed


def test_a_new_run_never_writes_into_a_used_folder(tmp_path, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "notes.txt").write_text("mine")
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert "is not an empty folder" in err and f"--resume {run_dir}" in err
    assert sorted(p.name for p in run_dir.iterdir()) == ["notes.txt"]
    assert train.main(["--config", str(SMOKE), "--run-dir", str(run_dir / "notes.txt")]) == 2
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and "--resume" not in err
    # default names: two runs started in the same second get folders of their own
    from agents.train.config import claim_run_dir

    cfg = _smoke(log_dir=str(tmp_path / "runs"))
    first, second = claim_run_dir(cfg, None), claim_run_dir(cfg, None)
    assert first != second and first.is_dir() and second.is_dir()


# ------------------------------------------------------ files and folders given
def test_run_folder_names_that_cannot_be_made_are_refused_by_option(tmp_path: Path,
                                                                     capsys) -> None:
    """A NUL or an over-long exp_name fails with the config (no folder made); a file where
    log_dir or --run-dir needs a folder names that option, not just an OS errno."""
    from hanafuda_cli import train
    smoke = str(SMOKE)
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
    names the run folder (and never advises deleting the folder to start anew)."""
    from hanafuda_cli import train
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    save_checkpoint(run / "checkpoints" / "latest.pt",
                    {"model": ActorCritic(hidden=8).state_dict(), "network": {"hidden": 8}})
    smoke = str(SMOKE)
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


def test_a_bad_opponent_checkpoint_fails_before_the_run_folder_is_made(tmp_path, capsys
                                                                        ) -> None:
    from agents.bots.network import ActorCritic
    from agents.bots.policy import save_checkpoint

    bad = tmp_path / "bad.pt"
    save_checkpoint(bad, {"model": ActorCritic(obs_dim=100, hidden=8, layers=1).state_dict(),
                          "network": {"obs_dim": 100, "hidden": 8, "layers": 1}})
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "run"),
                       f"baselines=[random, {bad}]"]) == 2
    assert f"obs_dim={OBS_DIM}" in capsys.readouterr().err
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "run"),
                       f"eval_opponents=[{bad}]"]) == 2  # not at the first evaluation
    assert f"obs_dim={OBS_DIM}" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_bad_teacher_file_fails_before_the_run_folder_is_made(tmp_path, capsys) -> None:
    bad = tmp_path / "teacher.pt"
    bad.write_bytes(b"not a checkpoint")
    assert train.main(["--config", str(SMOKE), "--run-dir", str(tmp_path / "run"),
                       f"warmstart_teacher={bad}", "warmstart_decisions=1024"]) == 2
    err = capsys.readouterr().err
    assert "warmstart_teacher" in err and "corrupt" in err
    assert not (tmp_path / "run").exists()  # the corrected command may use the same folder


# ------------------------------------------------------------- printed commands
@pytest.fixture
def fake_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding venv/bin/python as sys.executable, with PATH empty."""
    root = tmp_path.resolve()
    bin_dir = root / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "tensorboard"):
        (bin_dir / name).write_text("")
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("PATH", "")
    monkeypatch.chdir(root)
    return root


def test_programs_inside_the_working_folder_are_named_relative_to_it(fake_venv: Path) -> None:
    """A venv's python and tensorboard not on PATH are given relative to the working folder
    when they are inside it."""
    assert program("python") == str(Path("venv", "bin", "python"))
    assert program("tensorboard") == str(Path("venv", "bin", "tensorboard"))
    assert program("no-such-program") == "no-such-program"


def test_train_command_repeats_the_script_path_it_was_started_with(
        fake_venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """train.py started as tools/train.py is to be started the same way again."""
    monkeypatch.setattr(sys, "argv", [str(Path("tools", "train.py")), "--config", "x.yaml"])
    command = train_command("--resume", "runs/a")
    assert command == (f"{Path('venv', 'bin', 'python')} {Path('tools', 'train.py')} "
                       "--resume runs/a")
    monkeypatch.setattr(sys, "argv", ["-c"])
    assert train_command("--resume", "runs/a").endswith(" train.py --resume runs/a")
    monkeypatch.setattr(sys, "argv", [str(Path("venv", "bin", "hanafuda-train")), "smoke"])
    assert train_command("--resume", "runs/a") == "hanafuda-train --resume runs/a"
