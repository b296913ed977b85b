"""The agent registry: ``make_agent`` builds the baselines by name (seeded) and loads a file as
a policy (seeded too), a run folder is pointed to its policy file, and display names keep
checkpoints apart from each other and from the baselines."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.baselines import RandomAgent
from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent, save_checkpoint
from agents.bots.registry import BASELINES, display_names, make_agent
from tests.helpers.agents import actions_of


def test_make_agent_builds_baselines_and_rejects_unknown_names():
    for name in BASELINES:
        assert make_agent(name.upper(), "ten-base").name == name
    with pytest.raises(ValueError, match="random, greedy, expert"):
        make_agent("alphago")


def test_make_agent_seeds_a_baseline() -> None:
    """make_agent(name, seed=s) is that baseline seeded s: its random choices repeat."""
    a = actions_of(make_agent("random", seed=3))
    np.testing.assert_array_equal(a, actions_of(make_agent("random", seed=3)))
    np.testing.assert_array_equal(a, actions_of(RandomAgent(seed=3)))
    assert not np.array_equal(a, actions_of(make_agent("random", seed=4)))


def test_make_agent_seeds_a_checkpoint_policy(tmp_path: Path) -> None:
    """make_agent(path, seed=s) seeds the policy's sampler: sampled moves repeat for s."""
    torch.manual_seed(0)
    path = tmp_path / "policy.pt"
    save_checkpoint(path, {"model": ActorCritic(hidden=8, layers=1).state_dict(),
                           "network": {"hidden": 8, "layers": 1}})

    def sampled(seed: int) -> np.ndarray:
        agent = make_agent(str(path), seed=seed)
        assert isinstance(agent, PolicyAgent)
        agent.greedy = False
        return actions_of(agent, 256)

    reference = PolicyAgent.load(path, greedy=False)
    reference.seed(7)
    np.testing.assert_array_equal(sampled(7), actions_of(reference, 256))
    assert not np.array_equal(sampled(7), sampled(8))


def test_make_agent_loads_an_existing_file_as_a_policy(tmp_path, monkeypatch):
    calls = []

    class FakePolicy:
        @classmethod
        def load(cls, path, rules):
            calls.append((path, rules.name))
            return types.SimpleNamespace(name="fake", act=None)

    monkeypatch.setitem(sys.modules, "agents.bots.policy",
                        types.SimpleNamespace(PolicyAgent=FakePolicy))
    checkpoint = tmp_path / "expert"  # a file named like a baseline is still a checkpoint
    checkpoint.write_bytes(b"weights")
    assert make_agent(str(checkpoint), "ten-base").name == "fake"
    assert calls == [(str(checkpoint), "ten-base")]


def test_a_run_folder_given_as_an_agent_points_to_its_checkpoint(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    with pytest.raises(ValueError, match="is a folder, not a checkpoint file"):
        make_agent(str(run))
    (run / "checkpoints" / "latest.pt").write_bytes(b"weights")
    with pytest.raises(ValueError, match=f"its policy: {run / 'checkpoints' / 'latest.pt'}"):
        make_agent(str(run))


def test_eval_opponent_run_folder_names_its_policy(tmp_path: Path) -> None:
    from agents.bots.policy import CheckpointError
    from agents.bots.registry import read_policy_files

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.pt").write_bytes(b"weights")
    with pytest.raises(CheckpointError,
                       match=re.escape(f"its policy: {run / 'checkpoints' / 'latest.pt'}")):
        read_policy_files([str(run)])


def test_display_names_keep_checkpoints_apart_from_each_other_and_from_baselines(
        tmp_path, monkeypatch):
    specs = ["random", "runs/a/checkpoints/latest.pt", "runs/b/checkpoints/latest.pt",
             "old/random.pt", "random.pt", "best.pt", "/x/ckpt.pt", "/y/x/ckpt.pt",
             "c/latest.pt", "c/latest.PT"]
    assert display_names(specs) == ["random", "a/checkpoints/latest", "b/checkpoints/latest",
                                    "old/random", "random.pt", "best", "/x/ckpt.pt",
                                    "y/x/ckpt", "c/latest.pt", "c/latest.PT"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "expert").write_bytes(b"weights")  # make_agent loads a file named like this
    assert display_names(["expert", "greedy"]) == ["./expert", "greedy"]


def test_a_built_in_bot_takes_its_options_in_the_spec() -> None:
    """``NAME:key=value,...``: the search bots' budget knobs on a command line."""
    agent = make_agent("search:worlds=8,confidence=none", seed=0)
    assert (agent.worlds, agent.confidence) == (8, None)
    assert agent.name == "search:worlds=8,confidence=none"
    tree = make_agent("ISMCTS:iterations=32, prior=none")
    assert (tree.iterations, tree.prior) == (32, None)
    with pytest.raises(ValueError, match="'plies=3' is not key=value with a key of worlds"):
        make_agent("search:plies=3")
    with pytest.raises(ValueError, match="depth .* needs an evaluator"):
        make_agent("search:depth=3")
    with pytest.raises(ValueError, match="worlds must be a positive integer, got 0"):
        make_agent("search:worlds=0")
    assert display_names(["search:worlds=8", "search"]) == ["search:worlds=8", "search"]
