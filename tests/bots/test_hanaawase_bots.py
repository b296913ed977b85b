"""The Hana-awase bots: legal moves in random positions at every player count, greedy's
choice in a golden position, the expert and greedy beating random, checked inputs, and the
network bot's checkpoint files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.hanaawase import (
    HANAAWASE_BOTS,
    HanaawaseGreedy,
    HanaawaseRandom,
    read,
)
from agents.bots.hanaawase_policy import (
    HanaawasePolicyAgent,
    load_hanaawase_policy,
    network_for,
    policy_payload,
)
from agents.bots.policy import CheckpointError, PolicyAgent, save_checkpoint
from agents.bots.registry import make_hanaawase_agent
from agents.eval.hanaawase_matches import play_hanaawase_matches
from hanafuda_env.hanaawase.core import HanaawaseCore
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.koikoi.state import ROUND_OVER


@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("name", sorted(HANAAWASE_BOTS))
def test_every_bot_plays_legal_moves_at_every_player_count(name: str, n: int) -> None:
    bot = HANAAWASE_BOTS[name]({"num_players": n}, seed=0)
    core = HanaawaseCore(16, num_players=n, seed=n)
    for _ in range(2 * n * core.rules.hand_size):
        live = np.flatnonzero(core.phase < ROUND_OVER)
        mask = core.legal_action_mask()
        actions = np.full(16, -1)
        actions[live] = bot.act(core.observe()[live], mask[live])
        assert mask[live, actions[live]].all()
        core.step(actions)
        core.deal_next(np.flatnonzero(core.round_over))


def test_the_observation_reads_back_as_the_players_cards() -> None:
    core = HanaawaseCore(1, num_players=4, seed=2)
    seen = read(core.observe(1)[0])
    assert seen.n == 4 and seen.hand == int(core.hands[0, 1])
    assert seen.field == int(core.field[0]) and seen.phase == 0
    assert seen.unseen & seen.hand == 0


def test_greedy_takes_the_capture_worth_most_and_gives_away_its_cheapest_card() -> None:
    core = HanaawaseCore(1, num_players=3, seed=0)
    core.records["phase"][0] = ROUND_OVER
    dealer = int(core.dealer[0])
    # dealer's hand: pine chaff (2), cherry chaff (10), paulownia chaff (45) ...; field has
    # the cherry curtain (8) and a pine chaff (3)
    hand = [2, 10, 45, 13, 17, 21, 25]
    field = [8, 3, 30, 34, 38, 41]
    rest = [c for c in range(48) if c not in hand + field]
    order = hand + rest[:14] + field + rest[14:]
    core.deal_next(decks=order)
    greedy = HanaawaseGreedy(seed=0)
    obs, mask = core.observe(dealer), core.legal_action_mask()
    assert greedy.act(obs, mask)[0] == 10, "cherry chaff takes the curtain (21 points)"
    mask[0, 10] = mask[0, 2] = False  # without the captures: lay down the cheapest card
    assert greedy.act(obs, mask)[0] == 45


def test_expert_and_greedy_beat_random() -> None:
    rows = play_hanaawase_matches([HANAAWASE_BOTS["expert"](seed=1), HanaawaseGreedy(seed=2),
                                   HanaawaseRandom(seed=3)], 40, seed=11)
    expert, greedy, random = (row["mean_score"] for row in rows)
    assert expert["low"] > random["high"] and greedy["low"] > random["high"]


def test_bad_inputs_are_named() -> None:
    bot = HanaawaseGreedy()
    core = HanaawaseCore(2, num_players=4, seed=0)
    with pytest.raises(ValueError, match="197 \\+ 100"):
        bot.act(np.zeros((1, 300)), np.ones((1, 96), bool))
    with pytest.raises(ValueError, match="allows no action"):
        HanaawaseGreedy(num_players=4).act(core.observe(), np.zeros((2, 96), bool))
    with pytest.raises(ValueError, match="unknown Hana-awase agent 'expret'.*random"):
        make_hanaawase_agent("expret")


def test_a_network_checkpoint_plays_and_refuses_other_games(tmp_path: Path) -> None:
    rules = HanaawaseRules(num_players=3)
    torch.manual_seed(0)
    net = network_for(3, hidden=32, layers=1)
    path = tmp_path / "ha.pt"
    save_checkpoint(path, policy_payload(net, rules))
    agent = make_hanaawase_agent(str(path), rules, seed=1)
    assert isinstance(agent, HanaawasePolicyAgent) and agent.name == "ha"
    core = HanaawaseCore(8, rules, seed=0)
    mask = core.legal_action_mask()
    actions = agent.act(core.observe(), mask)
    assert mask[np.arange(8), actions].all()
    four = HanaawaseCore(2, num_players=4, seed=0)
    with pytest.raises(ValueError, match="trained for 3 players"):
        agent.act(four.observe(), four.legal_action_mask())
    with pytest.raises(CheckpointError, match="trained for 3 players; this game has 4"):
        load_hanaawase_policy(path, HanaawaseRules(num_players=4))
    with pytest.raises(CheckpointError, match="hanaawase checkpoint, not a Koi-Koi one"):
        PolicyAgent.load(path)
    koikoi = tmp_path / "koikoi.pt"
    from agents.bots.network import ActorCritic

    save_checkpoint(koikoi, {"model": ActorCritic(hidden=8, layers=1).state_dict(),
                             "network": {"hidden": 8, "layers": 1}})
    with pytest.raises(CheckpointError, match="Koi-Koi checkpoint, not a Hana-awase one"):
        load_hanaawase_policy(koikoi, rules)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="corrupt"):
        make_hanaawase_agent(str(path), rules)
