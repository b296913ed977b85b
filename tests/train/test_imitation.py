"""Imitation at scale: the expert's decisions with the moves it rates alike, the loss and
the agreement that count a tie as agreeing, a run in its folder whose checkpoints play, the
same weights from the same seed (and after a resume), and its config errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import ConfigError
from agents.train.imitation import (
    ImitationConfig,
    ImitationTrainer,
    agreement,
    collect_expert_decisions,
    tie_loss,
    train_imitation,
)
from hanafuda_cli.train import main as train_main
from hanafuda_env.koikoi.rules import resolve_rules

SMALL_NET = {"architecture": "card_graph", "width": 8, "global_width": 16, "blocks": 1}
TINY = dict(rules={"rounds": 1}, decisions=600, held_out=200, n_envs=16, epochs=2,
            batch_size=128, eval_matches=4, eval_opponents=["random"], best_opponent="random",
            network=SMALL_NET, progress_bar=False)


def test_the_decisions_hold_the_expert_move_among_its_ties() -> None:
    data = collect_expert_decisions(resolve_rules("nintendo"), 3000, seed=3, n_envs=32)
    n = len(data["action"])
    assert n == 3000 and data["obs"].shape == (n, 306)
    rows = np.arange(n)
    assert data["ties"][rows, data["action"]].all()
    assert not (data["ties"] & ~data["mask"]).any()
    assert 0 < (data["ties"].sum(1) > 1).mean() < 0.2  # ties happen, and are few
    assert (np.abs(data["return"]) <= 1.0 + 1e-6).all()  # changes in match-win chance
    assert set(np.unique(data["phase"])) == {0, 1, 2, 3}
    again = collect_expert_decisions(resolve_rules("nintendo"), 3000, seed=3, n_envs=32)
    for key, value in data.items():
        assert np.array_equal(value, again[key]), key


def test_the_tie_loss_is_the_log_probability_of_the_set() -> None:
    logits = torch.tensor([[1.0, 1.0, 0.0, -1e9], [2.0, 0.0, 0.0, -1e9]])
    ties = torch.tensor([[True, True, False, False], [False, True, False, False]])
    p = torch.softmax(logits, 1)
    expected = -(torch.log(p[0, 0] + p[0, 1]) + torch.log(p[1, 1])) / 2
    assert torch.isclose(tie_loss(logits, ties), expected)


def test_agreement_counts_a_tied_move_as_agreeing() -> None:
    mask = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0]], dtype=bool)
    ties = np.array([[1, 1, 0], [0, 1, 0], [1, 0, 0]], dtype=bool)
    data = {"mask": mask, "ties": ties, "action": np.array([0, 1, 0]),
            "phase": np.array([0, 0, 3], dtype=np.int8)}
    result = agreement(np.array([1, 0, 0]), data)
    assert result["plain"] == pytest.approx(1 / 3)  # only the forced row is the very move
    assert result["tie_aware"] == pytest.approx(2 / 3)
    assert result["choice"] == pytest.approx(1 / 2)  # the forced row left out
    assert result["phase/play"] == pytest.approx(1 / 2) and result["phase/koikoi-or-stop"] == 1


def _weights(run_dir) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / "checkpoints" / "latest.pt", weights_only=True)["model"]


def test_a_run_plays_and_resumes_to_the_same_weights(tmp_path) -> None:
    cfg = ImitationConfig(**TINY)
    whole = train_imitation(cfg, run_dir=tmp_path / "whole")
    assert {"agreement/tie_aware", "agreement/phase/play", "eval/win_rate_vs_random",
            "losses/policy_loss", "charts/SPS"} <= set(whole)
    folder = tmp_path / "whole"
    assert list(folder.glob("events.out.tfevents.*"))
    assert (folder / "checkpoints" / "best.pt").is_file()
    agent = make_agent(str(folder / "checkpoints" / "latest.pt"), {"rounds": 1})
    played = play_matches(agent, make_agent("random", {"rounds": 1}, seed=0), 4, {"rounds": 1})
    assert played["a"]["moves"] > 0  # the checkpoint plays as a trained bot
    train_imitation(cfg, run_dir=tmp_path / "split", stop_after=1)
    train_imitation(None, resume=tmp_path / "split")
    for key, value in _weights(folder).items():
        assert torch.equal(value, _weights(tmp_path / "split")[key]), key
    with pytest.raises(ConfigError, match="already complete"):
        train_imitation(None, resume=tmp_path / "split")
    with pytest.raises(ConfigError, match="only progress_bar may change"):
        train_imitation(None, resume=tmp_path / "split", changes={"epochs": 3})


def test_a_value_run_trains_the_value_head_alone_and_plays_no_matches(tmp_path) -> None:
    cfg = ImitationConfig(**{**TINY, "network": {"architecture": "mlp", "hidden": 16,
                                                 "layers": 1}, "policy_coef": 0.0,
                             "vf_coef": 1.0, "eval_matches": 0, "best_opponent": None,
                             "learning_rate": 3e-3})
    start = ImitationTrainer(cfg, tmp_path / "start").network.state_dict()
    metrics = train_imitation(cfg, run_dir=tmp_path / "value")
    assert {"value/mse", "value/explained_variance"} <= set(metrics)
    assert not any(key.startswith("eval/") for key in metrics)
    assert not (tmp_path / "value" / "checkpoints" / "best.pt").exists()
    trained = _weights(tmp_path / "value")
    assert torch.equal(trained["policy.weight"], start["policy.weight"])  # untouched
    assert not torch.equal(trained["value.weight"], start["value.weight"])


def test_train_py_runs_it_from_its_config(tmp_path) -> None:
    overrides = [f"{k}={v}" for k, v in TINY.items() if k not in ("rules", "network")] + [
        "rules={rounds: 1}", "network={architecture: card_graph, width: 8, global_width: 16, "
        "blocks: 1}", "epochs=1"]
    code = train_main(["--config", "configs/imitation.yaml", "--run-dir",
                       str(tmp_path / "r"), *overrides])
    assert code == 0 and (tmp_path / "r" / "summary.json").is_file()


@pytest.mark.parametrize("change, message", [
    ({"decisions": 0}, "decisions must be an integer >= 1"),
    ({"network": {"architecture": "transformer"}}, "allowed: mlp, card_graph"),
    ({"network": {"architecture": "card_graph", "width": 0}}, "width=0"),
    ({"network": {"architecture": "card_graph", "depth": 3}}, "unknown keys \\['depth'\\]"),
    ({"network": {"architecture": "card_graph", "width": 512, "global_width": 4096,
                  "blocks": 16}}, "at most 50,000,000"),
    ({"best_opponent": "expert"}, "best_opponent must be one of eval_opponents"),
    ({"labels": "human"}, "labels must be one of expert, search"),
    ({"search_rollout": "network"}, "search_rollout must be one of"),
    ({"search_worlds": 1}, "search_worlds must be an integer >= 2"),
    ({"eval_matches": 0}, "best_opponent must be null"),
    ({"policy_coef": 0, "vf_coef": 0}, "nothing would be learned"),
    ({"policy_coef": -1}, "policy_coef must be"),
    ({"rules": "nintendo-ish"}, "nintendo-ish"),
])
def test_config_errors_name_the_setting(change, message) -> None:
    with pytest.raises((ConfigError, ValueError), match=message):
        ImitationConfig(**{**TINY, **change})
    with pytest.raises(ConfigError, match="unknown config key"):
        ImitationConfig.from_dict({"worlds": 4})
