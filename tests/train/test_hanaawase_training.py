"""The Hana-awase trainer (the PPO core with Hana-awase's rollouts): a short run writes its
events and numbered checkpoints and resumes where it stopped to the same result as an unbroken
run; bad config keys are refused by name (an older trainer's key names the one that replaced
it); only the learner's decisions are trained on; and advantages are GAE over each seat's own
decisions of whole rounds, a round's score credited to the seat's last decision in it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.registry import make_hanaawase_agent
from agents.train.config import RENAMED, ConfigError, HanaawaseConfig, PPOConfig, resume_config
from agents.train.hanaawase import HanaawaseTrainer, advantages
from agents.train.pool import SELF
from agents.train.run import train
from hanafuda_env.hanaawase.core import HanaawaseCore

TURNS = 8 * 3 * 7  # decisions of one update: 8 tables, 3 players, 7 cards each
TINY = dict(n_envs=8, total_decisions=TURNS * 4, hidden=16, layers=1, eval_interval=2,
            eval_matches=6, best_opponent="expert", checkpoint_interval=1, snapshot_interval=1,
            progress_bar=False, baselines=["greedy"], self_play_fraction=0.3,
            warmstart_decisions=TURNS)


def weights(run: Path, name: str = "latest.pt") -> list[torch.Tensor]:
    payload = torch.load(run / "checkpoints" / name, weights_only=True)
    return [payload["model"][k] for k in sorted(payload["model"])]


def test_a_short_run_logs_checkpoints_and_resumes_to_the_same_weights(tmp_path: Path) -> None:
    whole = train(HanaawaseConfig(**TINY), run_dir=tmp_path / "whole")
    assert whole["charts/SPS"] > 0 and "losses/approx_kl" in whole
    assert {"eval/win_rate_vs_expert", "eval/points_per_round_vs_expert"} <= set(whole)
    run = Path(whole["run_dir"])
    assert list(run.glob("events.out.tfevents.*")) and (run / "checkpoints/best.pt").is_file()
    assert sorted(p.name for p in (run / "checkpoints").glob("update_*.pt")) == [
        "update_000002.pt", "update_000003.pt", "update_000004.pt"]
    for name in ("best.pt", "latest.pt"):  # every checkpoint plays as a bot
        bot = make_hanaawase_agent(str(run / "checkpoints" / name), {"num_players": 3})
        core = HanaawaseCore(4, num_players=3, seed=0)
        mask = core.legal_action_mask()
        assert mask[np.arange(4), bot.act(core.observe(), mask)].all()
    train(HanaawaseConfig(**TINY), run_dir=tmp_path / "split", stop_after=2)
    resumed = train(None, resume=tmp_path / "split")
    assert resumed["run_dir"] == str(tmp_path / "split")
    for a, b in zip(weights(run), weights(tmp_path / "split")):
        assert torch.equal(a, b), "an interrupted and resumed run ends as an unbroken one"
    with pytest.raises(ConfigError, match="already complete"):
        train(None, resume=tmp_path / "split")
    with pytest.raises(ConfigError, match="only total_decisions, progress_bar may change"):
        resume_config(tmp_path / "split", {"n_envs": 4})


def test_bad_config_keys_and_values_are_named() -> None:
    with pytest.raises(ConfigError, match="unknown config key.*'n_env'.*allowed keys:.*n_envs"):
        HanaawaseConfig.from_dict({"game": "hanaawase", "n_env": 4})
    for old, new in RENAMED.items():  # the keys of the older Hana-awase trainer
        for config in (HanaawaseConfig, PPOConfig):
            with pytest.raises(ConfigError, match=f"config key '{old}' is now '{new}'"):
                config.from_dict({old: 4})
    with pytest.raises(ConfigError, match="baselines: 'expret' is neither a baseline"):
        HanaawaseConfig(baselines=["expret"])
    with pytest.raises(ConfigError, match="'self' is neither.*self_play_fraction"):
        HanaawaseConfig(baselines=["self"])
    with pytest.raises(ConfigError, match="n_envs"):
        HanaawaseConfig(n_envs=0)
    with pytest.raises(ConfigError, match="rounds_per_update"):
        HanaawaseConfig(rounds_per_update=0)
    with pytest.raises(Exception, match="unknown Hana-awase option 'fukee'"):
        HanaawaseConfig(rules={"fukee": True})


def test_only_the_learners_decisions_are_trained_on(tmp_path: Path) -> None:
    """At a pool table only the learner's seat trains, at a self-play table every seat; a
    table that has played its round waits without a decision; returns are advantage plus
    value."""
    trainer = HanaawaseTrainer(HanaawaseConfig(**{**TINY, "self_play_fraction": 0.5}), tmp_path)
    seating = trainer.rollouts.collector.seating
    learner_seat, opponent = seating.learner_seat.copy(), seating.opponent.copy()
    buf, stats = trainer.collect()
    seat = buf["seat"]
    expected = (seat >= 0) & ((opponent == SELF) | (seat == learner_seat))
    assert buf["train"].tolist() == expected.tolist()
    assert (opponent == SELF).any() and (opponent != SELF).any()
    assert (buf["done"].sum(axis=0) == 1).all(), "one whole round per table"
    assert (seat[-1] == -1).any(), "a table that finished first waits for the others"
    np.testing.assert_allclose(buf["return"] - buf["value"], buf["advantage"], atol=1e-6)
    assert stats["learner_rounds"] == int(np.where(opponent == SELF, 3, 1).sum())


def test_advantages_are_gae_over_each_seats_decisions_of_whole_rounds() -> None:
    """Table 0: seats 0, 1, 0, 2 move and the round ends, paying (2, -1, -1): seat 0's score
    goes to its last decision (step 2), not to seat 2's. Table 1 ends at step 1 and waits."""
    lam = 0.9
    seat = np.array([[0, 0], [1, 1], [0, -1], [2, -1]])
    reward = np.zeros((4, 2, 3), dtype=np.float32)
    reward[3, 0], reward[1, 1] = (2.0, -1.0, -1.0), (1.0, 0.5, -1.5)
    done = np.zeros((4, 2), dtype=bool)
    done[3, 0] = done[1, 1] = True
    values = np.array([[0.1, 0.2], [9.0, 9.0], [0.3, 0.0], [9.0, 0.0]], dtype=np.float32)
    adv = advantages({"reward": reward, "done": done, "seat": seat}, values, 1.0, lam)
    assert adv[2, 0] == pytest.approx(2.0 - 0.3)
    assert adv[0, 0] == pytest.approx((0.3 - 0.1) + lam * (2.0 - 0.3))
    assert adv[1, 0] == pytest.approx(-1.0 - 9.0) and adv[3, 0] == pytest.approx(-1.0 - 9.0)
    assert adv[0, 1] == pytest.approx(1.0 - 0.2) and adv[1, 1] == pytest.approx(0.5 - 9.0)
    assert adv[2, 1] == adv[3, 1] == 0.0, "no decision, no advantage"


def test_init_checkpoint_starts_from_a_hanaawase_policy_and_refuses_another_games(
        tmp_path: Path) -> None:
    from agents.bots.hanaawase_policy import network_for, policy_payload
    from agents.bots.network import ActorCritic
    from agents.bots.policy import save_checkpoint
    from hanafuda_env.hanaawase.rules import HanaawaseRules

    start, koikoi = tmp_path / "ha.pt", tmp_path / "koikoi.pt"
    save_checkpoint(start, policy_payload(network_for(3, 16, 1), HanaawaseRules()))
    save_checkpoint(koikoi, {"model": ActorCritic(hidden=16, layers=1).state_dict(),
                             "network": {"hidden": 16, "layers": 1}})
    trainer = HanaawaseTrainer(HanaawaseConfig(**{**TINY, "init_checkpoint": str(start)}),
                               tmp_path)
    assert trainer.warm_started, "the checkpoint replaces the warm start"
    saved = torch.load(start, weights_only=True)["model"]
    assert all(torch.equal(trainer.network.state_dict()[k], saved[k]) for k in saved)
    with pytest.raises(ConfigError, match="holds a network .*koikoi.*hanaawase"):
        HanaawaseTrainer(HanaawaseConfig(**{**TINY, "init_checkpoint": str(koikoi)}), tmp_path)
