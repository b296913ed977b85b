"""The ISMCTS bot: it searches from the observation alone (the real game's hidden cards cannot
change its choice), plays legal moves reproducibly by seed, spends its budget at the root,
takes a stop that wins the match, follows a prior at its own nodes, and plays whole matches."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.ismcts import ExpertPrior, ISMCTSAgent, visit_distribution
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from hanafuda_env.koikoi.core import NUM_ACTIONS, KoiKoiCore
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.state import STOP
from tests.helpers.scenarios import last_round_decision, random_play


def positions(n: int = 12, steps: int = 9, seed: int = 2) -> KoiKoiCore:
    return random_play(n, steps, seed)


def test_the_real_hidden_cards_do_not_change_the_choice() -> None:
    core = positions()
    twin = core.fork(np.arange(core.n_games))
    twin.resample_hidden(twin.mover, np.random.default_rng(9))
    assert (twin.hands != core.hands).any()
    picks = [ISMCTSAgent(core.rules, seed=4, iterations=48, wave=16).act(
        encode_observations(c), c.legal_action_mask()) for c in (core, twin)]
    assert np.array_equal(*picks)


@pytest.mark.parametrize("rollout", ["greedy", "expert"])
def test_choices_are_legal_reproducible_and_the_most_visited(rollout) -> None:
    core = positions()
    obs, mask = encode_observations(core), core.legal_action_mask()
    agent = ISMCTSAgent(core.rules, seed=1, iterations=40, wave=16, rollout=rollout)
    first = agent.act(obs, mask)
    assert mask[np.arange(len(first)), first].all()
    again = ISMCTSAgent(core.rules, seed=1, iterations=40, wave=16, rollout=rollout)
    assert np.array_equal(first, again.act(obs, mask))
    report = agent.last_search
    for g, actions in enumerate(report.actions):
        assert actions.tolist() == np.flatnonzero(mask[g]).tolist()
        best = int(np.flatnonzero(actions == first[g])[0])
        if len(actions) > 1:  # every iteration passes the root once
            assert report.visits[g].sum() == 40
            assert report.visits[g][best] == report.visits[g].max()
            assert np.all(np.abs(report.values[g]) <= 1.0)
        target = visit_distribution(report, g, NUM_ACTIONS)
        assert target.shape == (NUM_ACTIONS,) and np.isclose(target.sum(), 1.0)
        assert (target[~mask[g]] == 0).all()


def test_a_stop_on_the_last_round_with_the_lead_is_taken() -> None:
    """Koi-koi can only lose what a stop banks when the stop already wins the match."""
    one = last_round_decision()
    agent = ISMCTSAgent(one.rules, seed=0, iterations=64, wave=16)
    assert agent.act(encode_observations(one), one.legal_action_mask())[0] == STOP


class _Favourite:
    """A prior that puts nearly all its weight on the highest legal action id, and records
    what it was asked."""

    def __init__(self):
        self.masks: list[np.ndarray] = []

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.masks.append(mask.copy())
        probs = np.where(mask, 1e-3, 0.0)
        top = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
        probs[np.arange(len(mask)), top] = 1.0
        return probs / probs.sum(axis=1, keepdims=True)


def test_a_prior_steers_the_players_own_nodes() -> None:
    core = positions()
    obs, mask = encode_observations(core), core.legal_action_mask()
    prior = _Favourite()
    agent = ISMCTSAgent(core.rules, seed=3, iterations=64, wave=16, exploration=50.0,
                        prior=prior)
    chosen = agent.act(obs, mask)
    several = mask.sum(axis=1) > 1
    top = NUM_ACTIONS - 1 - np.argmax(mask[:, ::-1], axis=1)
    assert np.array_equal(chosen[several], top[several])
    assert len(prior.masks) > several.sum()  # asked at the root and at deeper own nodes


def test_the_expert_prior_puts_its_share_on_the_experts_move() -> None:
    core = positions()
    obs, mask = encode_observations(core), core.legal_action_mask()
    prior = ExpertPrior(core.rules, seed=0, share=0.75)
    probs = prior.probabilities(obs, mask)
    assert np.allclose(probs.sum(axis=1), 1.0) and (probs[~mask] == 0).all()
    assert (probs.max(axis=1) >= 0.75).all()
    agent = ISMCTSAgent(core.rules, seed=0, iterations=16, wave=16, prior="expert")
    assert isinstance(agent.prior, ExpertPrior)
    assert mask[np.arange(len(obs)), agent.act(obs, mask)].all()


def test_it_plays_whole_matches_as_an_agent() -> None:
    rules = {"rounds": 2}
    agent = make_agent("ismcts", rules, seed=0)
    agent.iterations, agent.wave = 16, 16
    result = play_matches(agent, make_agent("expert", rules, seed=1), 4, rules, seed=3,
                          batch=4)
    assert result["a"]["moves"] > 0 and 0.0 <= result["win_rate"]["value"] <= 1.0


def test_bad_settings_are_named() -> None:
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        ISMCTSAgent(iterations=0)
    with pytest.raises(ValueError, match="wave must be a positive integer"):
        ISMCTSAgent(wave=1.5)
    with pytest.raises(ValueError, match="exploration must be a number >= 0"):
        ISMCTSAgent(exploration=-1)
    with pytest.raises(ValueError, match="rollout must be one of greedy, random, expert"):
        ISMCTSAgent(rollout="search")
    with pytest.raises(ValueError, match="prior must be None, 'expert' or have probabilities"):
        ISMCTSAgent(prior=object())
