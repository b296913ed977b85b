"""Matches and leagues warn when an agent was built for another rule set than the one it plays
(the expert reads scores and rounds left in its own rule set's units), once per agent and at
the caller's line; agents that read no rules say nothing."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.bots.network import ActorCritic
from agents.bots.policy import PolicyAgent
from agents.eval.matches import play_matches
from hanafuda_env.koikoi.rules import resolve_rules


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
    inside agents.eval), however many pairs that agent plays."""
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


def test_a_duck_typed_agent_with_other_rules_is_warned_about() -> None:
    """Only agents that say ``reads_rules = False`` are exempt; one without the attribute
    (not an ``Agent`` subclass) that carries a rule set is checked."""
    from agents.bots.baselines import RandomAgent
    from agents.eval.matches import play_matches

    class Custom:
        name = "custom"
        rules = resolve_rules("ten-base")

        def __init__(self) -> None:
            self._inner = RandomAgent(seed=0)

        def act(self, obs, mask):
            return self._inner.act(obs, mask)

    with pytest.warns(UserWarning, match="agent 'custom' was built for rule set 'ten-base'"):
        play_matches(Custom(), RandomAgent(), 2)
