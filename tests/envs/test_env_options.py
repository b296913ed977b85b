"""Env options particular to one env: koikoi_v0's option values and where its rule options
end up, seeds given to the constructors and to ``reset``, and the Gymnasium env's
``learner_seat``."""

from __future__ import annotations

import pytest

from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.rules import RuleError


@pytest.mark.parametrize("kwargs, error, text", [
    ({"episode": "game"}, ValueError, "episode"),
    ({"illegal_action": "ignore"}, ValueError, "illegal_action"),
    ({"rules": "hanafuda"}, RuleError, "preset"),
    ({"rules": {"koikoi": True}}, RuleError, "koikoi"),
    ({"rounds": 0}, RuleError, "rounds"),
    ({"target_score": -5}, RuleError, "target_score"),
    ({"reward_scale": 0}, ValueError, "reward_scale"),
    ({"render_mode": "svg"}, ValueError, "render_mode"),
])
def test_bad_option_values(kwargs, error, text):
    with pytest.raises(error, match=text):
        koikoi_v0.raw_env(**kwargs)


def test_rule_options_reach_the_game(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text("preset: ten-base\nrounds: 6\n")
    for spec, name in ((str(path), "ten-base"), ("ten-base", "ten-base"),
                       ({"multiple_koikoi": True}, "nintendo+custom")):
        env = koikoi_v0.raw_env(rules=spec, target_score=30)
        assert env.game.rules.name.startswith(name) and env.game.rules.target_score == 30
    assert koikoi_v0.raw_env(rules=str(path)).game.rules.rounds == 6
    assert KoiKoiVectorEnv(2, rules="ten-base", rounds=3).core.rules.rounds == 3


def test_seed_options_are_checked():
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(ValueError, match="seed must be None or an integer"):
            koikoi_v0.raw_env(seed=seed)
        with pytest.raises(ValueError, match="seed must be None or an integer"):
            KoiKoiSingleAgentEnv().reset(seed=seed)
        for make in (KoiKoiCore, KoiKoiVectorEnv):
            with pytest.raises(ValueError, match="seed must be an integer"):
                make(2, seed=seed)


@pytest.mark.parametrize("seat", [True, 1.0, 2, "1"])
def test_gym_learner_seat_must_be_an_int_seat(seat):
    with pytest.raises(ValueError, match=r"learner_seat must be 0, 1 or None, got "):
        KoiKoiSingleAgentEnv(learner_seat=seat)
    env = KoiKoiSingleAgentEnv()
    with pytest.raises(ValueError, match=r"learner_seat must be 0, 1 or None, got "):
        env.reset(seed=0, options={"learner_seat": seat})


def test_gym_rejects_a_bad_learner_seat_when_built() -> None:
    """learner_seat is 0, 1 or None, checked by the constructor already."""
    for seat in (2, -1, "0"):
        with pytest.raises(ValueError, match="learner_seat must be 0, 1 or None"):
            KoiKoiSingleAgentEnv(learner_seat=seat)
