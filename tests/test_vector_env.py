"""The batched self-play environment: same-step autoreset, match episodes, seeding."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from hanafuda_env.core import PLAY, KoiKoiCore
from hanafuda_env.observation import encode_observations
from hanafuda_env.results import END_NAMES
from hanafuda_env.vector_env import KoiKoiVectorEnv


# ---------------------------------------------------------------------- batched self-play
def test_vector_env_same_step_autoreset_round_episodes():
    env = KoiKoiVectorEnv(128, episode="round", seed=6)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs, info = env.reset()
    rng = np.random.default_rng(6)
    ended = 0
    for _ in range(120):
        mask, seat = info["action_mask"], info["seat"]
        np.testing.assert_array_equal(seat, env.core.mover)
        actions = env.core.sample_legal_actions(rng)
        assert mask[np.arange(128), actions].all()
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.dtype == np.float32 and (rewards.sum(axis=1) == 0).all()
        assert not truncated.any()
        rounds = info["round_results"]
        np.testing.assert_array_equal(terminated, np.isin(np.arange(128),
                                                          rounds.game[info["rewarded"]]))
        played = np.zeros((128, 2))
        np.add.at(played, rounds.game[info["rewarded"]], rounds.reward[info["rewarded"]])
        np.testing.assert_array_equal(rewards, played)
        assert (rounds.reason[~info["rewarded"]] == END_NAMES.index("hand-yaku")).all()
        # already the next round's first decision
        g = np.flatnonzero(terminated)
        ended += len(g)
        assert (env.core.turn[g] == 0).all() and (env.core.phase[g] == PLAY).all()
        np.testing.assert_array_equal(info["seat"][g], env.core.dealer[g])
        np.testing.assert_array_equal(obs, encode_observations(env.core))
        np.testing.assert_array_equal(info["action_mask"], env.core.legal_action_mask())
        assert (rewards[~terminated] == 0).all()
    assert ended > 100


@pytest.mark.parametrize("rounds", [1, 2])
def test_vector_env_match_episode_return_is_the_match_score(rounds):
    """With rounds=1 a hand yaku dealt to a fresh match ends it without a decision: it is
    no episode and must not leak into the neighbouring ones."""
    env = KoiKoiVectorEnv(128, episode="match", rounds=rounds, seed=7)
    env.reset()
    rng = np.random.default_rng(7)
    returns = np.zeros((128, 2))
    checked = dropped = 0
    for _ in range(300 * rounds):
        _, rewards, terminated, _, info = env.step(env.core.sample_legal_actions(rng))
        returns += rewards
        matches = info["match_results"]
        for g in np.flatnonzero(terminated):
            scores = matches.scores[matches.game == g]
            dropped += len(scores) - 1
            np.testing.assert_array_equal(returns[g], scores[0])
            checked += 1
        returns[terminated] = 0
    assert checked > 200 and (rounds == 2 or dropped > 0)


def test_vector_env_determinism_and_seeding():
    def trajectory(env, steps=40, seed=0):
        obs, _ = env.reset()
        rng, out = np.random.default_rng(seed), [obs.copy()]
        for _ in range(steps):
            obs, rewards, *_ = env.step(env.core.sample_legal_actions(rng))
            out += [obs.copy(), rewards.copy()]
        return out

    a, b = trajectory(KoiKoiVectorEnv(16, seed=1)), trajectory(KoiKoiVectorEnv(16, seed=1))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    c = trajectory(KoiKoiVectorEnv(16, seed=2))
    assert not np.array_equal(a[0], c[0])
    env = KoiKoiVectorEnv(16)
    env.reset(seed=1)
    np.testing.assert_array_equal(env.observe(env.core.mover), a[0])
    np.testing.assert_array_equal(a[0], encode_observations(KoiKoiCore(16, seed=1)))


@pytest.mark.parametrize(("episode", "rounds"), [("round", 12), ("match", 1), ("match", 2)])
def test_rounds_dealt_after_an_episode_end_are_marked_next_episode(episode, rounds):
    """``next_episode`` marks exactly the rows a game dealt after its episode ended in that
    step (hand yaku at the next deal), so a trainer can credit them to the next seats."""
    hand_yaku = END_NAMES.index("hand-yaku")
    env = KoiKoiVectorEnv(256, episode=episode, rounds=rounds, seed=4)
    _, info = env.reset()
    assert info["next_episode"].all() and len(info["next_episode"]) == len(info["round_results"])
    rng = np.random.default_rng(0)
    marked = 0
    for _ in range(300):
        _, _, terminated, _, info = env.step(env.core.sample_legal_actions(rng))
        rows, later = info["round_results"], info["next_episode"]
        for g in np.unique(rows.game):
            mine = np.flatnonzero(rows.game == g)
            flags = later[mine].tolist()
            assert flags[0] is False and flags == sorted(flags)  # the played round comes first
            assert (rows.reason[mine[1:]] == hand_yaku).all()  # then rounds ended at the deal
            if episode == "round":
                assert terminated[g] and all(flags[1:])
            elif any(flags):  # the next match's rounds, from its first
                assert terminated[g] and rows.round_index[mine[flags.index(True)]] == 0
            marked += sum(flags)
    assert marked > 0


def test_a_seed_per_env_plays_each_env_as_one_seeded_alone():
    """As Gymnasium's vector envs have it: ``reset(seed=[s0, s1])`` makes env i play what a
    lone env seeded with s_i plays (same deals, same episodes)."""
    seeds = [5, 11]
    batch = KoiKoiVectorEnv(2, episode="match", rounds=2)
    alone = [KoiKoiVectorEnv(1, episode="match", rounds=2) for _ in seeds]
    obs, _ = batch.reset(seed=seeds)
    for i, (env, seed) in enumerate(zip(alone, seeds, strict=True)):
        np.testing.assert_array_equal(env.reset(seed=seed)[0][0], obs[i])
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = batch.core.sample_legal_actions(rng)
        obs, rewards, terminated, _, _ = batch.step(actions)
        for i, env in enumerate(alone):
            one_obs, one_rewards, one_terminated, _, _ = env.step(actions[i:i + 1])
            np.testing.assert_array_equal(one_obs[0], obs[i])
            np.testing.assert_array_equal(one_rewards[0], rewards[i])
            assert one_terminated[0] == terminated[i]
    with pytest.raises(ValueError, match="2 ints"):
        batch.reset(seed=[5, 6, 7])
