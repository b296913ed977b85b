"""Agents used outside the trainer: a trained policy checks its inputs as the baselines do,
and a match warns when a baseline was built for another rule set than the one it plays."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent
from agents.eval.matches import play_matches
from hanafuda_env.core import NUM_ACTIONS
from hanafuda_env.observation import OBS_DIM
from hanafuda_env.rules import resolve_rules


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
    (lambda obs, mask: (obs[0], mask[0]), r"obs must have shape \(B, 303\), got \(303,\)"),
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


def test_a_match_warns_about_an_expert_built_for_other_rules() -> None:
    """The expert reads scores and rounds left in its own rule set's units: built for
    ``ten-base`` (ten times the points) or 12 rounds, it misjudges a Nintendo or 3-round
    match. Random and greedy play the same under any rules, and matching rules say nothing."""
    short = resolve_rules({"preset": "nintendo", "rounds": 3})
    with pytest.warns(UserWarning, match=r"agent 'expert' was built for rule set 'ten-base' "
                      r"but plays 'nintendo' \(they differ in .*\)"):
        play_matches(ExpertAgent("ten-base"), RandomAgent(), 2)
    with pytest.warns(UserWarning, match=r"differ in rounds\)"):
        play_matches(GreedyAgent(), ExpertAgent(), 2, rules=short)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play_matches(RandomAgent("ten-base"), GreedyAgent("ten-base"), 2, rules=short)
        play_matches(ExpertAgent(short), PolicyAgent(ActorCritic(hidden=16)), 2, rules=short)


def test_a_league_warns_once_per_agent_at_the_callers_line() -> None:
    """``round_robin`` says it once per mis-built agent, pointing at the user's call (not
    inside evaluation.py), however many pairs that agent plays."""
    from agents.eval.league import round_robin

    with pytest.warns(UserWarning, match="agent 'expert' was built for rule set 'ten-base'"
                      ) as caught:
        round_robin([ExpertAgent("ten-base"), RandomAgent(), GreedyAgent()], 2)
    assert len(caught) == 1 and caught[0].filename == __file__
    with pytest.warns(UserWarning) as caught:
        play_matches(ExpertAgent("ten-base"), RandomAgent(), 2)
    assert caught[0].filename == __file__


def test_a_league_leaves_other_warnings_as_python_shows_them() -> None:
    """The league's own once-per-agent rules warning must not reset Python's "already
    shown" record: an agent's warning shown once stays once, however many pairs it plays."""
    import subprocess
    import sys

    code = (
        "import warnings\n"
        "from agents.bots.baselines import RandomAgent\n"
        "from agents.eval.league import round_robin\n"
        "class Noisy(RandomAgent):\n"
        "    name = 'noisy'\n"
        "    def _act(self, obs, mask):\n"
        "        warnings.warn('noisy')\n"
        "        return super()._act(obs, mask)\n"
        "round_robin([Noisy()] + [RandomAgent(name=f'r{i}') for i in range(4)], 2)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("UserWarning: noisy") == 1, done.stderr
