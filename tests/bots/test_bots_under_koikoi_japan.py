"""The baselines play the KoiKoi-Japan rules (RULES.md §2.10) as they read them: whole
matches end by the stake or after 8 rounds, and the expert still beats greedy and random."""

from __future__ import annotations

from agents.bots import make_agent
from agents.eval import play_matches

RULES = "koikoi-japan"


def test_the_expert_beats_greedy_and_random_under_koikoi_japan() -> None:
    versus_greedy = play_matches(make_agent("expert", RULES, seed=1),
                                 make_agent("greedy", RULES, seed=2), 200, RULES, seed=4)
    assert versus_greedy["win_rate"]["low"] > 0.6, versus_greedy["win_rate"]
    versus_random = play_matches(make_agent("expert", RULES, seed=1),
                                 make_agent("random", RULES, seed=2), 20, RULES, seed=4)
    assert versus_random["wins"] >= 18
    assert versus_greedy["round_ends"].get("exhaustion-win", 0) > 0
    assert versus_greedy["rounds"] <= 200 * 8


def test_the_expert_calls_koikoi_more_than_once_a_round_where_every_call_pays() -> None:
    result = play_matches(make_agent("expert", RULES, seed=1), make_agent("expert", RULES,
                                                                          seed=3), 20, RULES)
    koikoi = result["a"]["koikoi"]
    assert koikoi["decisions"] > 0 and koikoi["calls"] > koikoi["rounds_called"]
