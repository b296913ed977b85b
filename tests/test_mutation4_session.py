"""Tests that kill the mutants of this session's changes the suite let survive (fourth
mutation audit): resampled games, rule bounds at their limits, info dicts, input checks."""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hanafuda_env.core import KoiKoiCore
from hanafuda_env.rules import PointTable, RuleError, RuleSet, resolve_rules

ROOT = Path(__file__).resolve().parent.parent


def _midround(n: int = 4, seed: int = 3, steps: int = 5) -> KoiKoiCore:
    core = KoiKoiCore(n, "nintendo", seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        core.step(core.sample_legal_actions(rng))
    return core


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


# ------------------------------------------------------------- core: games chosen (C5, C9, C17)
def test_unsorted_game_lists_are_range_checked_as_a_whole() -> None:
    """A negative or too-large index anywhere in the list is refused by name (not only when
    it happens to be first / last): -1 must not silently resample the last game."""
    core = _midround()
    before = core.state_dict()
    for games in ([0, -1], [3, -2, 1], [5, 0]):
        for method in (lambda g: core.resample_hidden(0, np.random.default_rng(1), games=g),
                       lambda g: core.shuffle_stock(np.random.default_rng(1), games=g)):
            with pytest.raises(IndexError, match=r"games must be a list of game indices"):
                method(games)
    assert _same(before, core.state_dict())


def test_an_empty_game_list_resamples_nothing() -> None:
    core = _midround()
    before = core.state_dict()
    core.resample_hidden(0, np.random.default_rng(1), games=[])
    core.shuffle_stock(np.random.default_rng(1), games=[])
    assert _same(before, core.state_dict())


def test_games_are_a_set_order_and_repeats_do_not_matter() -> None:
    a, b = _midround(), _midround()
    a.resample_hidden(1, np.random.default_rng(7), games=[3, 1, 1])
    b.resample_hidden(1, np.random.default_rng(7), games=[1, 3])
    assert _same(a.state_dict(), b.state_dict())


# ------------------------------------------------------------------ core: deck shape (C12)
def test_a_deck_batch_of_the_wrong_size_is_refused_by_name() -> None:
    core = KoiKoiCore(2, seed=1)
    for deck in (np.tile(np.arange(48), (3, 1)), np.arange(48)[None, None]):
        with pytest.raises(ValueError, match=r"deck must have shape \(48,\) or \(2, 48\)"):
            core.check_reset(seed=1, options={"deck": deck})


# ----------------------------------------------------------------- rules bounds (U1 U3 U5 U6 U10)
def test_rule_bounds_are_inclusive_exactly_at_the_documented_limits() -> None:
    assert RuleSet(rounds=1000).rounds == 1000
    assert PointTable(kasu=1000).kasu == 1000
    assert RuleSet(exhaustion_points=1000).exhaustion_points == 1000
    assert RuleSet(target_score=1).target_score == 1
    assert RuleSet(target_score=1_000_000).target_score == 1_000_000
    for make in (lambda: RuleSet(rounds=1001), lambda: PointTable(kasu=1001),
                 lambda: RuleSet(exhaustion_points=1001), lambda: RuleSet(target_score=0),
                 lambda: RuleSet(target_score=1_000_001)):
        with pytest.raises(RuleError):
            make()


def test_point_values_must_not_be_bools() -> None:
    with pytest.raises(RuleError, match=r"points for 'kasu' must be an integer"):
        PointTable(kasu=True)
    with pytest.raises(RuleError, match=r"points for 'tan' must be an integer"):
        resolve_rules({"points": {"tan": False}})


# ------------------------------------------------------------- koikoi_v0 infos (K8)
def test_a_penalized_move_writes_into_no_info_dict_already_in_infos() -> None:
    """The other seat's info dict (public in ``env.infos``) is not written to when the
    offender errs: a new dict carries ``illegal_action``."""
    from hanafuda_env import koikoi_v0

    env = koikoi_v0.env(illegal_action="penalize")
    env.reset(seed=0)
    offender = env.agent_selection
    other = next(a for a in env.possible_agents if a != offender)
    held = {a: env.infos[a] for a in env.possible_agents}
    snapshot = copy.deepcopy(held)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))
    assert env.infos[other]["illegal_action"] == {"agent": offender}
    for a in env.possible_agents:
        assert held[a].keys() == snapshot[a].keys() and "illegal_action" not in held[a]


# ------------------------------------------------------------- PolicyAgent.value (P3)
def test_policy_value_takes_any_dtype_and_refuses_a_wrong_layout() -> None:
    from agents.bots.network import ActorCritic
    from agents.bots.policy import PolicyAgent
    from hanafuda_env.core import NUM_ACTIONS
    from hanafuda_env.observation import OBS_DIM

    agent = PolicyAgent(ActorCritic(hidden=16))
    obs = np.random.default_rng(0).random((3, OBS_DIM), dtype=np.float32)
    mask = np.zeros((3, NUM_ACTIONS), bool)
    mask[:, 5] = True
    expected = agent.value(obs, mask)
    np.testing.assert_allclose(agent.value(obs.astype(np.float64), mask.astype(np.int8)),
                               expected, rtol=1e-6)
    with pytest.raises(ValueError, match=r"obs must have shape \(B, 303\)"):
        agent.value(obs[0], mask[0])


# ------------------------------------------------------------- folder hints (P6, X4)
def test_eval_opponent_run_folder_names_its_policy(tmp_path: Path) -> None:
    from agents.bots.policy import CheckpointError
    from agents.bots.registry import read_policy_files

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.pt").write_bytes(b"weights")
    with pytest.raises(CheckpointError,
                       match=re.escape(f"its policy: {run / 'checkpoints' / 'latest.pt'}")):
        read_policy_files([str(run)])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_something_that_is_neither_file_nor_folder_is_not_called_a_folder(
        tmp_path: Path) -> None:
    """A named pipe exists but is no checkpoint file: said as such, and not called a folder
    (nor said not to exist)."""
    from agents.bots.policy import CheckpointError, load_checkpoint
    from agents.files import folder_hint

    pipe = tmp_path / "pipe.pt"
    os.mkfifo(pipe)
    assert folder_hint(str(pipe)) == ""
    with pytest.raises(CheckpointError, match=re.escape(f"checkpoint {str(pipe)!r} is not a "
                                                        "file")) as error:
        load_checkpoint(pipe)
    assert "folder" not in str(error.value)


# ------------------------------------------------------------- rules warning (V7)
def test_a_duck_typed_agent_with_other_rules_is_warned_about() -> None:
    """Only agents that say ``reads_rules = False`` are exempt; one without the attribute
    (not an ``Agent`` subclass) that carries a rule set is checked."""
    from agents.bots.baselines import RandomAgent
    from agents.eval.matches import play_matches

    class Custom:
        name = "custom"
        rules = resolve_rules("ten-base")

        def __init__(self) -> None:
            self._inner = RandomAgent(seed=0)

        def act(self, obs, mask):
            return self._inner.act(obs, mask)

    with pytest.warns(UserWarning, match="agent 'custom' was built for rule set 'ten-base'"):
        play_matches(Custom(), RandomAgent(), 2)


# ------------------------------------------------------------- PPOConfig names (F2 F4 F5)
def _config(**changes):
    from agents.train.config import PPOConfig

    return PPOConfig.from_dict({"n_envs": 2, "n_steps": 4, **changes})


def test_exp_name_is_bounded_in_bytes_not_characters() -> None:
    from agents.train.config import ConfigError

    assert _config(exp_name="x" * 200).exp_name == "x" * 200
    with pytest.raises(ConfigError, match="at most 200 bytes"):
        _config(exp_name="\u00e9" * 101)  # 101 characters, 202 bytes


def test_a_nul_in_log_dir_or_run_dir_is_refused_by_option(tmp_path: Path) -> None:
    from agents.train.config import ConfigError, claim_run_dir

    with pytest.raises(ConfigError, match="log_dir must be a folder path"):
        _config(log_dir="a\0b")
    with pytest.raises(ConfigError, match="--run-dir must be a folder path"):
        claim_run_dir(_config(log_dir=str(tmp_path)), str(tmp_path / "a\0b"))


# ------------------------------------------------------------- resume (F8)
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


# ------------------------------------------------------------- _restore (R3, R5)
class _Stub:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def restore(self, payload) -> None:
        raise self.error


def test_restore_passes_an_opponent_files_error_and_code_bugs_through() -> None:
    from agents.bots.policy import CheckpointError
    from agents.train.run import _restore

    with pytest.raises(CheckpointError) as error:
        _restore(_Stub(CheckpointError("checkpoint 'opp.pt' does not exist")), {}, Path("x"))
    assert str(error.value) == "checkpoint 'opp.pt' does not exist"
    with pytest.raises(TypeError, match="a bug"):
        _restore(_Stub(TypeError("a bug")), {}, Path("x"))
    with pytest.raises(CheckpointError, match="missing 'optimizer'"):
        _restore(_Stub(KeyError("optimizer")), {}, Path("x"))


# ------------------------------------------------------------- bench --json (X3)
def test_bench_baselines_json_never_replaces_the_rule_file(tmp_path: Path) -> None:
    rule_file = tmp_path / "rules.yaml"
    rule_file.write_text("rounds: 1\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_baselines.py"), "--pairs",
         "greedy:random", "--matches", "2", "--rules", str(rule_file), "--json",
         str(rule_file), "--overwrite"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "the rule file" in done.stderr, done.stderr
    assert rule_file.read_text() == "rounds: 1\n"
