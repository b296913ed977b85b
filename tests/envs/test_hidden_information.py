"""Each seat sees only what it may: an observation is encoded from its seat's view, every card
sits in exactly one of its blocks, and rearranging what the seat cannot see (the opponent's
hand, the stock) changes nothing in it; the opponent of the single-agent env decides from its
own view, the learner's render hides the opponent's hand, and the privileged critic's hidden
encoding holds exactly what the mover cannot see."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.common.cards import bits_to_bool
from hanafuda_env.envs import koikoi_v0
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import PLAY, KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import BLOCK, encode_game, encode_hidden, encode_observations
from tests.helpers.envs import (
    play_episode,
    random_action,
    stopper,
)

CARD_BLOCKS = ("hand", "field", "own_pile", "opp_pile", "unseen", "pending")


def test_observation_is_the_seats_view():
    """observe(agent) encodes from that agent's seat: the same as the batch encoder's."""
    env = koikoi_v0.env(seed=9)
    env.reset()
    core = KoiKoiCore(1, seed=9)
    for agent, seat in (("player_0", 0), ("player_1", 1)):
        np.testing.assert_array_equal(env.observe(agent)["observation"],
                                      encode_observations(core, seat)[0])
    own = env.observe("player_0")["observation"][BLOCK["hand"]]
    np.testing.assert_array_equal(own, bits_to_bool(core.hands[:, 0])[0])


def test_observations_partition_the_deck():
    """Every card is in exactly one block of every observation, across random matches."""
    env = koikoi_v0.env(episode="match", rounds=2, seed=3)
    rng = random.Random(3)

    def check(env, agent, action):
        for a in env.agents:
            obs = env.observe(a)["observation"]
            blocks = sum(obs[BLOCK[name]] for name in CARD_BLOCKS)
            np.testing.assert_array_equal(blocks, np.ones(48))

    for _ in range(2):
        env.reset()
        play_episode(env, rng, check)


def test_aec_observation_hides_opponent_hand_and_stock():
    env = koikoi_v0.env(seed=11)
    env.reset()
    rng, np_rng = random.Random(1), np.random.default_rng(1)
    changed = 0
    for _ in range(60):
        if env.terminations[env.agent_selection]:
            env.reset()
        raw = env.unwrapped
        for seat, agent in enumerate(env.agents):
            before = env.observe(agent)["observation"]
            core = raw.game.to_core()
            core.resample_hidden(seat, np_rng)
            moved = KoiKoiGame.from_core(core, 0)
            changed += moved.hands[1 - seat] != raw.game.hands[1 - seat]
            raw.game, original = moved, raw.game
            np.testing.assert_array_equal(env.observe(agent)["observation"], before)
            # swapping a visible card with a hidden one does change it
            if moved.hands[seat] and moved.hands[1 - seat]:
                hands = moved.hands
                mine = hands[seat] & -hands[seat]
                theirs = hands[1 - seat] & -hands[1 - seat]
                hands[seat] ^= mine | theirs
                hands[1 - seat] ^= mine | theirs
                moved.hands = hands
                assert not np.array_equal(env.observe(agent)["observation"], before)
            raw.game = original
        env.step(random_action(env, rng))
    assert changed > 30  # the rearrangements really moved hidden cards


def test_vector_observation_hides_opponent_hand_and_stock():
    env = KoiKoiVectorEnv(64, seed=2)
    env.reset()
    rng = np.random.default_rng(2)
    for _ in range(25):
        env.step(env.core.sample_legal_actions(rng))
    for seat in (0, 1):
        seats = np.full(64, seat)
        before = env.observe(seats)
        state = env.core.state_dict()
        env.core.resample_hidden(seats, rng)
        assert (env.core.hands[:, 1 - seat] != state["hands"][:, 1 - seat]).mean() > 0.5
        np.testing.assert_array_equal(env.observe(seats), before)


def test_gym_opponent_decides_from_its_own_seat() -> None:
    """The opponent is handed its own view and its own legal moves, never the learner's
    (which would show it the learner's hand)."""
    env: KoiKoiSingleAgentEnv | None = None
    calls = []

    def opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        assert env is not None
        seat = 1 - env.seat
        calls.append((obs.copy(), encode_game(env.game, seat), encode_game(env.game, env.seat)))
        if env.game.phase == PLAY:
            np.testing.assert_array_equal(np.flatnonzero(mask), C.ids_of(env.game.hands[seat]))
        return stopper(obs, mask)

    env = KoiKoiSingleAgentEnv(opponent=opponent, learner_seat=1)
    obs, _ = env.reset(seed=0, options={"dealer": 0})  # the opponent deals: it moves first
    for _ in range(6):
        obs, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
    assert len(calls) >= 2
    for given, own, learners in calls:
        np.testing.assert_array_equal(given, own)
        assert not np.array_equal(given, learners)


@pytest.mark.parametrize("seat", [0, 1])
def test_gym_render_hides_the_opponents_hand(seat: int) -> None:
    """The learner's render shows its own hand and only a count for the opponent's, during
    and after the episode."""
    env = KoiKoiSingleAgentEnv(learner_seat=seat, render_mode="ansi")
    env.reset(seed=3)

    def hands(text: str) -> dict[int, str]:
        found = re.findall(r"^player_(\d)[^\n]*\n  hand:  ([^\n]*)$", text, re.MULTILINE)
        return {int(s): shown for s, shown in found}

    shown = hands(env.render())
    assert re.fullmatch(r"\d+ hidden cards?", shown[1 - seat])
    assert "hidden" not in shown[seat]
    rng = np.random.default_rng(0)
    while True:
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated:
            break
    text = env.render()
    assert text.startswith("episode over; the table as it ended:\n")
    assert re.fullmatch(r"\d+ hidden cards?|-", hands(text)[1 - seat])


def test_hidden_encoding_holds_what_the_mover_cannot_see() -> None:
    core = KoiKoiCore(32, seed=1)
    core.reset(seed=9)
    rng = np.random.default_rng(4)
    for _ in range(7):
        core.step(core.sample_legal_actions(rng))
    hidden = encode_hidden(core)
    for g in range(32):
        other = 1 - int(core.mover[g])
        assert np.flatnonzero(hidden[g, :48]).tolist() == C.ids_of(int(core.hands[g, other]))
        stock = core.stock[g, int(core.stock_pos[g]):]
        order = hidden[g, 48 + stock.astype(int)]
        assert np.all(np.diff(order) < 0) and order[0] == 1.0  # the next draw first
        assert np.count_nonzero(hidden[g, 48:]) == len(stock)
    # the observation cannot tell worlds apart that the hidden encoding does
    obs = encode_observations(core)
    core.resample_hidden(core.mover, rng)
    np.testing.assert_array_equal(obs, encode_observations(core))
    assert not np.array_equal(hidden, encode_hidden(core))
