"""Expert iteration: the search games it learns from (visit targets, zero-sum outcomes), a
run in its folder with TensorBoard and checkpoints that play, an exact resume, and its
config errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.bots.ismcts import ISMCTSAgent
from agents.bots.policy import PolicyAgent
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import ConfigError
from agents.train.expert_iteration import (
    ExItConfig,
    ExItTrainer,
    play_search_games,
    train_exit,
)
from hanafuda_cli.train import main as train_main
from hanafuda_env.koikoi.rules import resolve_rules

TINY = dict(rules={"rounds": 1}, matches_per_iteration=2, search_iterations=8, search_wave=8,
            epochs=2, batch_size=32, hidden=32, layers=1, eval_matches=4,
            eval_opponents=["random"], best_opponent="random", progress_bar=False)


def test_search_games_hold_visit_targets_and_zero_sum_outcomes() -> None:
    rules = resolve_rules({"rounds": 2})
    search = ISMCTSAgent(rules, seed=0, iterations=8, wave=8)
    data = play_search_games(search, rules, 3, seed=4, sigma=1.0)
    n = len(data["choice"])
    assert n > 20 and data["obs"].shape[0] == data["mask"].shape[0] == n
    assert np.allclose(data["target"].sum(axis=1), 1.0)
    assert (data["target"][~data["mask"]] == 0).all() and (data["mask"].sum(axis=1) > 1).all()
    assert data["mask"][np.arange(n), data["choice"]].all()
    assert (np.abs(data["value"]) <= 1.0).all()
    assert set(data["round"].tolist()) == {0, 1}
    for g in range(3):  # in each round, each seat's outcome is the other's negative
        for r in (0, 1):
            here = (data["game"] == g) & (data["round"] == r)
            outcome = {seat: set(data["value"][here & (data["seat"] == seat)].tolist())
                       for seat in (0, 1)}
            assert len(outcome[0]) <= 1 and len(outcome[1]) <= 1
            if outcome[0] and outcome[1]:
                assert outcome[0] == {-v for v in outcome[1]}

def _weights(run_dir) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / "checkpoints" / "latest.pt", weights_only=True)["model"]


def test_a_run_resumed_ends_as_one_run_through(tmp_path) -> None:
    cfg = ExItConfig(iterations=2, **TINY)
    whole = train_exit(cfg, run_dir=tmp_path / "whole")
    assert "eval/win_rate_vs_random" in whole and "losses/policy_loss" in whole
    folder = tmp_path / "whole"
    assert list(folder.glob("events.out.tfevents.*")) and (folder / "data").is_dir()
    assert (folder / "checkpoints" / "best.pt").is_file()
    agent = make_agent(str(folder / "checkpoints" / "latest.pt"), {"rounds": 1})
    played = play_matches(agent, make_agent("random", {"rounds": 1}, seed=0), 4, {"rounds": 1})
    assert played["a"]["moves"] > 0  # the checkpoint plays as a trained bot
    train_exit(cfg, run_dir=tmp_path / "split", stop_after=1)
    train_exit(None, resume=tmp_path / "split")
    for key, value in _weights(folder).items():
        assert torch.equal(value, _weights(tmp_path / "split")[key]), key
    with pytest.raises(ConfigError, match="already complete"):
        train_exit(None, resume=tmp_path / "split")
    with pytest.raises(ConfigError, match="only iterations, progress_bar may change"):
        train_exit(None, resume=tmp_path / "split", changes={"epochs": 3})


def test_train_py_runs_it_from_a_config(tmp_path, capsys) -> None:
    overrides = [f"{k}={v}" for k, v in TINY.items() if k != "rules"] + [
        "rules={rounds: 1}", "iterations=1", "init_checkpoint=null"]
    code = train_main(["--config", "configs/exit.yaml", "--run-dir", str(tmp_path / "r"),
                       *overrides])
    assert code == 0 and (tmp_path / "r" / "summary.json").is_file()
    assert train_main(["--config", "configs/exit.yaml", "algorithm=sarsa"]) == 2
    assert ("algorithm must be one of expert_iteration, imitation or left out"
            in capsys.readouterr().err)


def test_it_starts_from_a_checkpoint_and_searches_with_it(tmp_path) -> None:
    from agents.bots.registry import PRETRAINED

    cfg = ExItConfig(iterations=1, init_checkpoint=str(PRETRAINED),
                     **{**TINY, "hidden": 256, "layers": 2})
    trainer = ExItTrainer(cfg, tmp_path)
    start = PolicyAgent.load(PRETRAINED).network.state_dict()
    assert all(torch.equal(v, trainer.network.state_dict()[k]) for k, v in start.items())
    assert isinstance(trainer.searcher().prior, PolicyAgent)  # the network guides at once
    with pytest.raises(ConfigError, match="does not fit hidden=32"):
        ExItTrainer(ExItConfig(init_checkpoint=str(PRETRAINED), **TINY), tmp_path)


@pytest.mark.parametrize("change, message", [
    ({"search_iterations": 0}, "search_iterations must be an integer >= 1"),
    ({"rollout": "network"}, "rollout must be one of greedy, random, expert"),
    ({"first_prior": "greedy"}, "first_prior must be 'expert' or null"),
    ({"best_opponent": "expert"}, "best_opponent must be one of eval_opponents"),
    ({"rules": "nintendo-ish"}, "nintendo-ish"),
])
def test_config_errors_name_the_setting(change, message) -> None:
    with pytest.raises((ConfigError, ValueError), match=message):
        ExItConfig(**{**TINY, **change})
    with pytest.raises(ConfigError, match="unknown config key"):
        ExItConfig.from_dict({"worlds": 4})
