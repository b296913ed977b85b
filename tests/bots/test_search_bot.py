"""The search bot: its worlds are built from the observation alone (the real game's hidden
cards cannot change its choice), it plays legal moves reproducibly by seed, reports values
with their paired errors, and takes a stop that wins the round's points now."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.base import decode
from agents.bots.expert import ExpertAgent
from agents.bots.registry import make_agent
from agents.bots.search import SearchAgent
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.state import STOP, check_state
from tests.helpers.scenarios import last_round_decision, random_play


def positions(n: int = 24, steps: int = 9, seed: int = 2) -> KoiKoiCore:
    return random_play(n, steps, seed)


def test_every_world_is_a_state_that_shows_the_players_observation() -> None:
    core = positions()
    agent = SearchAgent(core.rules, seed=0, worlds=8)
    obs = encode_observations(core)
    worlds = agent._worlds(decode(obs, core.rules))
    check_state(worlds)
    seen = KoiKoiCore(len(worlds), core.rules, seed=0)
    seen.records[:] = worlds
    np.testing.assert_allclose(encode_observations(seen, 0), np.repeat(obs, 8, axis=0),
                               atol=1e-6)


def test_the_real_hidden_cards_do_not_change_the_choice() -> None:
    core = positions()
    twin = core.fork(np.arange(core.n_games))
    twin.resample_hidden(twin.mover, np.random.default_rng(9))
    assert (twin.hands != core.hands).any()
    picks = [SearchAgent(core.rules, seed=4, worlds=16).act(encode_observations(c),
                                                             c.legal_action_mask())
             for c in (core, twin)]
    assert np.array_equal(*picks)


@pytest.mark.parametrize("rollout", ["greedy", "expert"])
def test_choices_are_legal_reproducible_and_reported(rollout) -> None:
    core = positions()
    obs, mask = encode_observations(core), core.legal_action_mask()
    agent = SearchAgent(core.rules, seed=1, worlds=8, rollout=rollout, confidence=None)
    first = agent.act(obs, mask)
    assert mask[np.arange(len(first)), first].all()
    assert np.array_equal(first, SearchAgent(core.rules, seed=1, worlds=8, rollout=rollout,
                                             confidence=None).act(obs, mask))
    report = agent.last_search
    for g, actions in enumerate(report.actions):
        assert actions.tolist() == np.flatnonzero(mask[g]).tolist()
        best = int(np.flatnonzero(actions == first[g])[0])
        assert report.values[g][best] == report.values[g].max()
        assert report.paired_errors[g][best] == 0.0 and (report.errors[g] >= 0).all()


def test_a_stop_on_the_last_round_with_the_lead_is_taken() -> None:
    """Koi-koi can only lose what a stop banks when the stop already wins the match."""
    one = last_round_decision()
    agent = SearchAgent(one.rules, seed=0, worlds=64, value="match")
    assert agent.act(encode_observations(one), one.legal_action_mask())[0] == STOP


def test_bad_settings_are_named() -> None:
    with pytest.raises(ValueError, match="worlds must be a positive integer"):
        SearchAgent(worlds=0)
    with pytest.raises(ValueError, match="rollout must be one of greedy, random, expert"):
        SearchAgent(rollout="search")
    with pytest.raises(ValueError, match="value must be one of match, points"):
        SearchAgent(value="wins")
    assert isinstance(make_agent("search", seed=0), SearchAgent)


def test_with_a_confidence_the_base_policy_plays_unless_a_move_stands_out() -> None:
    core = positions()
    obs, mask = encode_observations(core), core.legal_action_mask()
    always_base = SearchAgent(core.rules, seed=1, worlds=16, rollout="expert", confidence=1e9)
    assert isinstance(always_base.base, ExpertAgent)
    played: list[np.ndarray] = []
    expert_act = always_base.base.act
    always_base.base.act = lambda o, m: played.append(expert_act(o, m)) or played[-1]
    assert np.array_equal(always_base.act(obs, mask), played[0])
    gated = SearchAgent(core.rules, seed=1, worlds=16, rollout="expert", confidence=0.0)
    chosen = gated.act(obs, mask)
    report = gated.last_search
    for g, actions in enumerate(report.actions):  # the best mean, the base's where it ties
        best = int(np.flatnonzero(actions == chosen[g])[0])
        assert report.values[g][best] == report.values[g].max()
    with pytest.raises(ValueError, match="confidence must be None or a number >= 0"):
        SearchAgent(confidence=-1.0)
