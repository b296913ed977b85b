"""Values keep their meaning from where they are made to where they are read: the lead and
totals come back from an observation as whole points, every scale uses the rule set's point
unit (even where further cards add nothing), and an agent built for other rules is named."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from agents.analysis.koikoi_value import decision_features
from agents.bots.base import decode
from agents.bots.baselines import RandomAgent
from agents.bots.expert import ExpertAgent
from hanafuda_env import cards as C
from hanafuda_env.core import DECIDE, KoiKoiCore
from hanafuda_env.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.observation import SCORE_CLIP, encode_observations, score_unit
from hanafuda_env.rules import NINTENDO, resolve_rules
from hanafuda_env.scoring import score_pile, yaku_table
from hanafuda_env.vector_env import KoiKoiVectorEnv

NO_EXTRA = NINTENDO.replace(points={"extra_card": 0})


@pytest.mark.parametrize("preset", ["nintendo", "ten-base"])
def test_the_decoded_lead_is_the_encoded_one_in_whole_points(preset: str) -> None:
    rules = resolve_rules(preset)
    clip = int(SCORE_CLIP * score_unit(rules))
    leads = np.arange(-clip, clip + 1, rules.point_unit)
    core = KoiKoiCore(len(leads), rules, seed=0)
    core.match_score[:] = np.stack([leads, -leads], axis=1)
    view = decode(encode_observations(core, 0), rules)
    assert view.score_diff.dtype.kind == "i"
    np.testing.assert_array_equal(view.score_diff, leads)


def test_a_table_whose_further_cards_add_nothing_keeps_the_unit_of_one() -> None:
    assert NO_EXTRA.point_unit == 1 and resolve_rules("ten-base").point_unit == 10
    ribbons = C.mask_of([1, 5, 9, 21, 33, 37])  # the three red and the three blue ribbons
    assert score_pile(ribbons, yaku_table(NO_EXTRA))["akatan_aotan"] == 10


def test_match_win_rewards_stay_finite_when_further_cards_add_nothing() -> None:
    env = KoiKoiVectorEnv(64, rules=NO_EXTRA, reward="match_win", seed=3)
    env.reset()
    rng = np.random.default_rng(3)
    paid = []
    for _ in range(300):
        _, rewards, _, _, _ = env.step(env.core.sample_legal_actions(rng))
        paid.append(rewards)
    paid = np.concatenate(paid)
    assert np.isfinite(paid).all()
    assert ((np.abs(paid) > 0) & (np.abs(paid) < 1)).any()  # graded, not only match results


def test_the_expert_decides_alike_whether_further_cards_add_one_point_or_none() -> None:
    """Sanko (no further cards) 6 behind with 12 rounds left: a spread of 0 would make every
    round the last and the stop hopeless."""
    choices = []
    for rules in (NINTENDO, NO_EXTRA):
        core = KoiKoiCore(1, rules, seed=0)
        own, opp = [0, 8, 28, 2], [1, 5, 3]
        rest = [c for c in range(48) if c not in own + opp]
        core.hands[0] = [C.mask_of(rest[:5]), C.mask_of(rest[5:10])]
        core.field[0] = C.mask_of(rest[10:15])
        core.piles[0] = [C.mask_of(own), C.mask_of(opp)]
        core.stock[0] = [*(own + opp + rest[:-18]), *rest[-18:]][-24:]
        core.stock_pos[0] = 6
        core.mover[0], core.phase[0], core.pending[0] = 0, DECIDE, -1
        core.yaku_total[0] = [5, 0]
        core.match_score[0] = [-6, 6]
        obs = encode_observations(core)
        choices.append(int(ExpertAgent(rules).act(obs, core.legal_action_mask())[0]))
    assert choices[0] == choices[1]


def test_seven_plus_follows_the_rule_set() -> None:
    """Ten-base has no seven-point doubling: a 60-point sanko is not 'seven plus'."""
    core = KoiKoiCore(1, "ten-base", seed=0)
    core.piles[0] = [C.mask_of([0, 8, 28]), 0]
    core.yaku_total[0] = [60, 0]
    core.mover[0], core.phase[0] = 0, DECIDE
    features = decision_features(core)
    assert features["yaku_total"].tolist() == [60]
    assert features["seven_plus"].tolist() == [False]
    assert features["stop_points"].tolist() == [60]


def test_the_single_agent_env_names_an_opponent_built_for_other_rules() -> None:
    with pytest.warns(UserWarning, match="opponent 'expert' was built for rule set 'nintendo'"):
        KoiKoiSingleAgentEnv(ExpertAgent("nintendo"), rules="ten-base")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KoiKoiSingleAgentEnv(ExpertAgent("ten-base"), rules="ten-base")
        KoiKoiSingleAgentEnv(RandomAgent("nintendo", seed=0), rules="ten-base")  # reads none
