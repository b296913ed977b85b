"""Behaviour cloning from game records (``warmstart_records``): every recorded decision of
both players becomes a cloning sample with the observation its player had, and a record the
run's rules do not replay is a config error naming it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots import make_agent
from agents.bots.policy import PolicyAgent
from agents.eval import play_matches
from agents.train.config import ConfigError, PPOConfig
from agents.train.warm_start import collect_record_games, warm_start
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import encode_game
from hanafuda_env.koikoi.records import read_record, replay, write_record
from hanafuda_env.koikoi.rules import resolve_rules
from tests.train.test_warm_start import _Bar, _Writer

RULES = "koikoi-japan"


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("records")
    matches: list = []
    play_matches(make_agent("expert", RULES), make_agent("greedy", RULES), 4, RULES, seed=2,
                 batch=4, records=matches)
    for k, match in enumerate(matches):
        write_record(folder / f"{k}.json", match)
    return folder


def config(records: Path, **changes) -> PPOConfig:
    return PPOConfig.from_dict({"rules": RULES, "n_envs": 2, "n_steps": 8, "n_minibatches": 2,
                                "hidden": 16, "layers": 1, "warmstart_records": str(records),
                                "warmstart_decisions": 64, "eval_interval": 0,
                                "baselines": ["random"], "progress_bar": False, **changes})


def test_every_recorded_decision_is_a_sample_with_its_players_observation(records) -> None:
    data = collect_record_games(config(records), resolve_rules(RULES))
    seen: list[tuple] = []

    def step(game: KoiKoiGame, action: int):
        seen.append((encode_game(game, game.mover), game.mover, action))
        return game.step(action)

    for path in sorted(records.glob("*.json"), key=lambda p: int(p.stem)):
        replay(read_record(path), RULES, step=step)
    assert data["action"].shape == (len(seen), 1)
    assert np.array_equal(data["obs"][:, 0], np.array([obs for obs, _, _ in seen]))
    assert data["seat"][:, 0].tolist() == [seat for _, seat, _ in seen]
    assert data["action"][:, 0].tolist() == [action for _, _, action in seen]
    assert data["mask"][np.arange(len(seen)), 0, data["action"][:, 0]].all()
    assert set(data["seat"][:, 0].tolist()) == {0, 1}  # both players' moves
    # round episodes, points, gamma 1: a decision's return is what its seat's round paid
    done = np.flatnonzero(data["done"][:, 0])
    assert len(done) >= 16 and data["done"][-1, 0]
    end = done[np.searchsorted(done, np.arange(len(seen)))]
    paid = data["reward"][end, 0, data["seat"][:, 0]]
    assert np.allclose(data["return"][:, 0], paid)
    assert np.allclose(data["reward"][done, 0, 0], -data["reward"][done, 0, 1])
    assert (data["reward"][done, 0] != 0).any()


def test_the_warm_start_clones_the_records(records) -> None:
    from agents.train.koikoi import KoiKoiTrainer

    torch.manual_seed(0)
    cfg = config(records, warmstart_decisions=512, warmstart_epochs=4,
                 warmstart_learning_rate=3e-3)
    trainer = KoiKoiTrainer(cfg, "")
    data = collect_record_games(cfg, resolve_rules(RULES))
    obs, mask, action = data["obs"][:, 0], data["mask"][:, 0], data["action"][:, 0]
    agent = PolicyAgent(trainer.network)
    before = float((agent.act(obs, mask) == action).mean())
    writer = _Writer()
    warm_start(trainer, writer, lambda **_kw: _Bar())
    accuracy = [value for key, value, _ in writer.scalars if key == "imitation/accuracy"]
    assert trainer.warm_started and len(accuracy) == 512 // 16
    assert not np.isnan(accuracy).any()
    assert float((agent.act(obs, mask) == action).mean()) > before + 0.1


def test_records_that_the_runs_rules_do_not_replay_are_refused(records, tmp_path) -> None:

    from agents.train.run import train

    run_dir = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"warmstart_records: .*0\.json, round 1: "):
        train(config(records, rules="nintendo"), run_dir=run_dir)
    assert not run_dir.exists()  # refused before the run's folder was made
    with pytest.raises(ConfigError, match="warmstart_records: .* is no folder or file"):
        config(tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="holds no \\*.json game record"):
        train(config(empty), run_dir=tmp_path / "run2")
