"""The batched self-play environment: same-step autoreset, match episodes, rounds dealt after
an episode's end, seeding (the constructor's seed serves the first reset only; a seed per
env), observations inside the declared space and never overwritten, the carried rewards of a
saved state, and its options."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from hanafuda_env.common.results import END_NAMES
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import PLAY, KoiKoiCore
from hanafuda_env.koikoi.observation import BLOCK, OBS_DIM, encode_observations


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


def test_the_constructor_seed_serves_only_the_first_reset() -> None:
    """reset() without a seed after the first one deals new games, and the sequence of
    deals repeats for another env built with the same seed."""
    def deals(env: KoiKoiVectorEnv) -> list[np.ndarray]:
        return [env.reset()[0].copy() for _ in range(3)]

    first = deals(KoiKoiVectorEnv(2, seed=9))
    again = deals(KoiKoiVectorEnv(2, seed=9))
    assert not np.array_equal(first[0], first[1])
    assert not np.array_equal(first[1], first[2])
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("rules", ["nintendo", "ten-base", "koikoi-japan",
                                   {"multiple_koikoi": True, "on_exhaustion": "dealer-wins"}])
def test_observations_stay_in_the_declared_space(rules):
    env = KoiKoiVectorEnv(128, rules=rules, episode="match", seed=4)
    space = env.single_observation_space
    obs, _ = env.reset()
    rng = np.random.default_rng(4)
    lows, highs = np.full(OBS_DIM, np.inf), np.full(OBS_DIM, -np.inf)
    for _ in range(400):
        obs, *_ = env.step(env.core.sample_legal_actions(rng))
        for view in (obs, env.observe(np.ones(128, dtype=int))):
            assert view.dtype == space.dtype and view.shape[1:] == space.shape
            assert (view >= space.low).all() and (view <= space.high).all()
            lows, highs = np.minimum(lows, view.min(0)), np.maximum(highs, view.max(0))
    assert not np.isnan(lows).any()
    # the declared bounds are the encoder's: card and phase entries use all of [0, 1]
    assert (lows[:BLOCK["scalars"].start] == 0).all()
    assert (highs[BLOCK["hand"]] == 1).all() and (highs[BLOCK["phase"]] == 1).all()


def test_observe_returns_arrays_that_later_steps_leave_alone() -> None:
    """observe(seats) makes a new array; stepping the env does not overwrite it."""
    env = KoiKoiVectorEnv(2, seed=4)
    obs, _ = env.reset()
    seen = env.observe(np.array([0, 1]))
    kept_seen = seen.copy()
    env.step(_first_legal(env))
    np.testing.assert_array_equal(seen, kept_seen)
    assert seen is not env.observe(np.array([0, 1]))
    assert not np.shares_memory(seen, obs)


# --------------------------------------------- carried rewards in a saved state
CARRY = np.array([[3.0, -3.0], [0.0, 0.0]])


def _first_legal(env: KoiKoiVectorEnv) -> np.ndarray:
    return env.action_masks().argmax(axis=1)


def _env_with_carry() -> tuple[KoiKoiVectorEnv, np.ndarray]:
    """A 2-game env whose loaded state carries 3 points to seat 0 of game 0; also returns
    the carry array handed to load_state_dict."""
    env = KoiKoiVectorEnv(2, seed=5)
    env.reset()
    state = env.state_dict()
    carry = CARRY.copy()
    state["carry"] = carry
    env.load_state_dict(state)
    return env, carry


def test_a_loaded_carry_is_paid_with_the_next_step() -> None:
    """Rewards carried in a loaded state arrive with the first step after loading."""
    env, _ = _env_with_carry()
    _, rewards, terminated, _, _ = env.step(_first_legal(env))
    assert not terminated.any()
    np.testing.assert_array_equal(rewards, CARRY.astype(np.float32))
    _, rewards, _, _, _ = env.step(_first_legal(env))
    assert not rewards.any()  # paid once


def test_reset_drops_a_carry_from_before() -> None:
    """A reset starts the games afresh: nothing carried before it is paid after it."""
    env, _ = _env_with_carry()
    env.reset(seed=1)
    _, rewards, terminated, _, _ = env.step(_first_legal(env))
    assert not terminated.any() and not rewards.any()
    assert not env.state_dict()["carry"].any()


def test_state_dict_is_a_snapshot_of_the_carry() -> None:
    """A saved state keeps its carry when the env then pays it."""
    env, _ = _env_with_carry()
    saved = env.state_dict()
    env.step(_first_legal(env))
    np.testing.assert_array_equal(saved["carry"], CARRY)
    np.testing.assert_array_equal(env.state_dict()["carry"], np.zeros((2, 2)))


def test_load_state_dict_does_not_keep_the_callers_array() -> None:
    """Paying a loaded carry does not write into the array that was loaded."""
    env, carry = _env_with_carry()
    env.step(_first_legal(env))
    np.testing.assert_array_equal(carry, CARRY)


def test_load_state_dict_checks_the_carry_shape() -> None:
    """A carry that does not have one row per game is refused at load, state untouched."""
    env = KoiKoiVectorEnv(2, seed=5)
    env.reset()
    state = env.state_dict()
    before = env.state_dict()
    state["carry"] = np.zeros((3, 2))
    with pytest.raises(ValueError, match="carry"):
        env.load_state_dict(state)
    after = env.state_dict()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value)


def test_load_state_dict_names_a_missing_carry() -> None:
    """A state without the carried rewards (a core's state_dict) is refused by name."""
    env = KoiKoiVectorEnv(2, seed=5)
    env.reset()
    with pytest.raises(ValueError, match="lacks 'carry'"):
        env.load_state_dict(env.core.state_dict())


# ---------------------------------------------------------------------- options
def test_vector_env_unknown_option_and_bad_n_envs():
    with pytest.raises(ValueError, match=r"'foo'.*allowed options:.*n_envs.*round_sigma"):
        KoiKoiVectorEnv(2, foo=1)
    for n_envs in (2.5, 0, -1, True, "4"):
        with pytest.raises(ValueError, match="n_envs must be a positive integer"):
            KoiKoiVectorEnv(n_envs)
        with pytest.raises(ValueError, match="n_games must be a positive integer"):
            KoiKoiCore(n_envs)
    assert KoiKoiVectorEnv(np.int64(3)).n_envs == 3
