"""The trained-policy agent: it checks its inputs as the baselines do (any float and mask dtype,
a wrong layout named), values final states, samples when loaded to sample, and repeats its
sampled moves for a seed (seed 0 when none is given)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.baselines import RandomAgent
from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent, save_checkpoint
from hanafuda_env.koikoi.core import NUM_ACTIONS
from hanafuda_env.koikoi.observation import OBS_DIM
from tests.helpers.agents import actions_of


def inputs(n: int = 3) -> tuple[np.ndarray, np.ndarray]:
    obs = np.random.default_rng(0).random((n, OBS_DIM), dtype=np.float32)
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    mask[:, [5, 9]] = True
    return obs, mask


def test_policy_agent_takes_any_float_and_mask_dtype() -> None:
    agent = PolicyAgent(ActorCritic(hidden=16))
    obs, mask = inputs()
    expected = agent.act(obs, mask)
    assert set(expected.tolist()) <= {5, 9}
    assert np.array_equal(agent.act(obs.astype(np.float64), mask.astype(np.int8)), expected)


@pytest.mark.parametrize(("change", "message"), [
    (lambda obs, mask: (obs[0], mask[0]),
     rf"obs must have shape \(B, {OBS_DIM}\), got \({OBS_DIM},\)"),
    (lambda obs, mask: (obs, mask[:, :96]), r"mask must have shape \(3, 98\), got \(3, 96\)"),
    (lambda obs, mask: (obs, np.where(np.arange(3)[:, None] == 1, False, mask)),
     "row 1 of the mask allows no action"),
])
def test_policy_agent_refuses_a_wrong_layout_by_name(change, message) -> None:
    """As the baselines do: a single observation, a cut mask or a row with nothing legal
    (which the network would answer with action 0, an illegal move) fail naming the problem."""
    agent = PolicyAgent(ActorCritic(hidden=16))
    bad_obs, bad_mask = change(*inputs())
    with pytest.raises(ValueError, match=message):
        agent.act(bad_obs, bad_mask)
    with pytest.raises(ValueError, match=message):
        RandomAgent(seed=0).act(bad_obs, bad_mask)


def test_policy_value_of_a_final_state_needs_no_legal_action() -> None:
    agent = PolicyAgent(ActorCritic(hidden=16))
    obs, mask = inputs()
    assert np.array_equal(agent.value(obs, np.zeros_like(mask)), agent.value(obs, mask))


def test_policy_value_takes_any_dtype_and_refuses_a_wrong_layout() -> None:
    from agents.bots.network import ActorCritic
    from agents.bots.policy import PolicyAgent
    from hanafuda_env.koikoi.core import NUM_ACTIONS
    from hanafuda_env.koikoi.observation import OBS_DIM

    agent = PolicyAgent(ActorCritic(hidden=16))
    obs = np.random.default_rng(0).random((3, OBS_DIM), dtype=np.float32)
    mask = np.zeros((3, NUM_ACTIONS), bool)
    mask[:, 5] = True
    expected = agent.value(obs, mask)
    np.testing.assert_allclose(agent.value(obs.astype(np.float64), mask.astype(np.int8)),
                               expected, rtol=1e-6)
    with pytest.raises(ValueError, match=rf"obs must have shape \(B, {OBS_DIM}\)"):
        agent.value(obs[0], mask[0])


# --------------------------------------------------------------------- sampling
def test_an_unseeded_sampling_policy_repeats_its_moves() -> None:
    """PolicyAgent without a seed starts from seed 0: two such agents sample alike."""
    torch.manual_seed(0)
    network = ActorCritic(hidden=8, layers=1)
    first = actions_of(PolicyAgent(network, greedy=False), 256)
    np.testing.assert_array_equal(first, actions_of(PolicyAgent(network, greedy=False), 256))
    seeded = PolicyAgent(network, greedy=False, seed=0)
    np.testing.assert_array_equal(first, actions_of(seeded, 256))


def test_a_policy_loaded_to_sample_samples(tmp_path: Path) -> None:
    """PolicyAgent.load(path, greedy=False) samples from the policy instead of taking its
    most likely move."""
    torch.manual_seed(0)
    path = tmp_path / "policy.pt"
    save_checkpoint(path, {"model": ActorCritic(hidden=8, layers=1).state_dict(),
                           "network": {"hidden": 8, "layers": 1}})
    sampling = PolicyAgent.load(path, greedy=False)
    greedy = PolicyAgent.load(path)
    assert not sampling.greedy and greedy.greedy
    assert not np.array_equal(actions_of(sampling, 256), actions_of(greedy, 256))
