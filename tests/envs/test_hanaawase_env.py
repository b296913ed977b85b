"""hanaawase_v0 (PettingZoo AEC) and the batched Hana-awase env: PettingZoo's api, seed and
render tests at every player count, rewards to the right seats, and no hidden information
in an observation."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from hanafuda_env.envs import hanaawase_v0
from hanafuda_env.envs.hanaawase_vector_env import HanaawaseVectorEnv
from hanafuda_env.hanaawase.core import HanaawaseCore
from hanafuda_env.koikoi.core import IllegalActionError

PLAYER_COUNTS = range(2, 8)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_api_seed_and_render_tests_pass(n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(hanaawase_v0.env(num_players=n), num_cycles=300)
    seed_test(functools.partial(hanaawase_v0.env, num_players=n), num_cycles=100)
    render_test(functools.partial(hanaawase_v0.env, num_players=n),
                custom_tests={"ansi": lambda text: f"player_{n - 1}" in text})


def play_match(env, rng: np.random.Generator) -> tuple[dict[str, float], list[list[dict]]]:
    """Random legal play to the episode's end; each agent's return and the round results."""
    returns = dict.fromkeys(env.possible_agents, 0.0)
    rounds = []
    for agent in env.agent_iter():
        _, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if env.unwrapped.round_results and any(env.unwrapped.rewards.values()):
            rounds.append(env.unwrapped.round_results)
            assert min(seat["rank"] for seat in rounds[-1]) == 0
    return returns, rounds


@pytest.mark.parametrize("n", [3, 5])
def test_each_seat_is_paid_its_score_minus_the_mean_and_a_match_sums_them(n: int) -> None:
    env = hanaawase_v0.env(num_players=n, rounds=3)
    env.reset(seed=3)
    returns, rounds = play_match(env, np.random.default_rng(0))
    assert len(rounds) == 3
    scores = np.array([[seat["score"] for seat in r] for r in rounds], dtype=float)
    expected = (scores - scores.mean(axis=1, keepdims=True)).sum(axis=0)
    assert np.allclose([returns[f"player_{p}"] for p in range(n)], expected)
    assert abs(sum(returns.values())) < 1e-9


def test_round_episodes_deal_the_match_on_and_a_seed_starts_anew() -> None:
    env = hanaawase_v0.env(num_players=4, rounds=2, episode="round")
    env.reset(seed=1)
    play_match(env, np.random.default_rng(1))
    assert int(env.unwrapped.core.round_index[0]) == 1
    env.reset()
    assert int(env.unwrapped.core.round_index[0]) == 1, "the match's second round"
    env.reset(seed=1)
    assert int(env.unwrapped.core.round_index[0]) == 0


def test_an_illegal_move_raises_or_is_penalized_and_bad_options_are_named() -> None:
    raw = hanaawase_v0.env(num_players=3, illegal_action="raise")
    raw.reset(seed=0)
    before = raw.unwrapped.core.records.copy()
    mask = raw.observe(raw.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        raw.step(bad)
    assert (raw.unwrapped.core.records == before).all()
    penalized = hanaawase_v0.env(num_players=3, illegal_reward=-5.0)
    penalized.reset(seed=0)
    mover = penalized.agent_selection
    penalized.step(bad)
    assert penalized.rewards[mover] == -5.0 and all(penalized.terminations.values())
    with pytest.raises(ValueError, match="unknown option.*'players'"):
        hanaawase_v0.env(players=3)
    with pytest.raises(ValueError, match="from 2 to 7"):
        hanaawase_v0.env(num_players=9)
    with pytest.raises(ValueError, match="episode"):
        hanaawase_v0.env(episode="game")


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_rearranging_what_a_player_cannot_see_leaves_its_observation_unchanged(n: int) -> None:
    core = HanaawaseCore(64, num_players=n, seed=n)
    rng = np.random.default_rng(n)
    for _ in range(int(rng.integers(0, n * core.rules.hand_size))):
        core.step(core.sample_legal_actions(rng))
    core.deal_next()
    for viewer in range(n):
        before = core.observe(viewer)
        moved = core.fork(np.arange(64))
        for g in range(64):
            s = moved.records[g]
            others = [p for p in range(n) if p != viewer]
            sizes = [int(s["hands"][p]).bit_count() for p in others]
            hidden = [c for p in others for c in range(48) if s["hands"][p] >> c & 1]
            stock = s["stock"][s["stock_pos"]:core.rules.stock_size].tolist()
            pool = rng.permutation(hidden + stock).tolist()
            at = 0
            for p, size in zip(others, sizes):
                s["hands"][p] = sum(1 << c for c in pool[at:at + size])
                at += size
            s["stock"][s["stock_pos"]:core.rules.stock_size] = pool[at:]
        assert (moved.observe(viewer) == before).all()


def test_a_declared_hand_is_public_in_every_observation() -> None:
    chaff = [c for c in range(48) if c % 4 >= 2 and c not in (42,)][:7]
    core = HanaawaseCore(1, num_players=3, seed=0, nana_kasu=True)
    core.records["phase"][0] = 4  # round over: deal the given deck
    core.deal_next(decks=chaff + [c for c in range(48) if c not in chaff])
    dealer = int(core.dealer[0])
    for viewer in range(3):
        row = core.observe(viewer)[0]
        k = (dealer - viewer) % 3
        shown = row[192 + 48 * 3 + 48 * k:192 + 48 * 3 + 48 * (k + 1)]
        assert np.flatnonzero(shown).tolist() == sorted(chaff)
        yaku = row[192 + 96 * 3 + 3 + k]
        assert yaku == pytest.approx(0.30)
        if viewer != dealer:
            unseen = row[144:192]
            assert not unseen[chaff].any()


def test_the_vector_env_deals_on_and_pays_zero_sum_rewards() -> None:
    env = HanaawaseVectorEnv(128, num_players=4, rounds=2, seed=1)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    rounds = matches = 0
    while matches < 128:
        mask = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rewards, round_over, match_over, info = env.step(actions)
        assert obs.shape == (128, env.observation_size) and info["action_mask"].any(axis=1).all()
        assert np.allclose(rewards.sum(axis=1), 0.0)
        assert (rewards[~round_over] == 0).all()
        rounds += int(round_over.sum())
        matches += int(match_over.sum())
    assert rounds >= 2 * matches
