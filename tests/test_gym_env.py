"""The single-agent Gymnasium environment: Gymnasium's checks, the learner's rewards, a
round lost before the learner moves, and MaskablePPO training on it unchanged."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from env_helpers import HANAMI_DECK, play_single
from gymnasium.utils.env_checker import check_env

import hanafuda_env
from hanafuda_env.core import IllegalActionError
from hanafuda_env.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.observation import OBS_DIM


def hashed_random_policy(obs: np.ndarray, mask: np.ndarray) -> int:
    """A random-looking legal move that depends only on what it sees (so seeded episodes
    replay exactly, as check_env demands)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(obs @ np.arange(len(obs))) % len(legal)])


class BatchAgent:
    """An agent object of the trainer's kind: act(obs_batch, mask_batch) -> actions."""

    def __init__(self):
        self.shapes = set()

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.shapes.add((obs.shape, obs.dtype, mask.shape, mask.dtype))
        return np.array([hashed_random_policy(o, m) for o, m in zip(obs, mask)])


@pytest.mark.parametrize("opponent", [None, hashed_random_policy, BatchAgent()])
def test_single_agent_env_passes_check_env(opponent):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(KoiKoiSingleAgentEnv(opponent=opponent), skip_render_check=True)
    if isinstance(opponent, BatchAgent):
        assert opponent.shapes == {((1, OBS_DIM), np.dtype(np.float32), (1, 98), np.dtype(bool))}


def test_registered_gymnasium_id_passes_check_env():
    env = gymnasium.make(hanafuda_env.GYM_ID, opponent=hashed_random_policy, episode="match",
                         rounds=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)  # with a spec: every render mode is made and checked
    assert env.unwrapped.options.rules.rounds == 2


@pytest.mark.parametrize("episode", ["round", "match"])
def test_single_agent_rewards_are_the_learners_points(episode):
    env = KoiKoiSingleAgentEnv(episode=episode, rounds=2)
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(12):
        total, info = play_single(env, rng, seed)
        seat = info["seat"]
        seats.add(seat)
        if episode == "match":
            (match,) = info["match_results"]
            assert total == match["scores"][seat]
        else:
            (row,) = [r for r in info["round_results"] if r["rewarded"]]
            assert total == row["reward"][seat]
    assert seats == {0, 1}


def test_single_agent_illegal_actions():
    env = KoiKoiSingleAgentEnv(learner_seat=1)
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated) == (-1.0, True, False) and "illegal_action" in info
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = KoiKoiSingleAgentEnv(illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions"):
        strict.step(bad)
    cheat = KoiKoiSingleAgentEnv(opponent=lambda obs, mask: 96, learner_seat=1)
    with pytest.raises(IllegalActionError, match="opponent"):
        for seed in range(5):  # raises as soon as the opponent has to move
            cheat.reset(seed=seed)
            cheat.step(int(np.flatnonzero(cheat.action_masks())[0]))


def stopper(obs: np.ndarray, mask: np.ndarray) -> int:
    return 96 if mask[96] else int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("episode", ["round", "match"])
def test_single_agent_round_won_before_the_learner_moves(episode):
    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, episode=episode, rounds=2)
    start = env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    info = start[1]
    total, last = play_single(env, np.random.default_rng(0), start=start)
    if episode == "round":
        (skipped,) = info["skipped"]
        assert (skipped["reason"], skipped["winner"], skipped["yaku"]) == (
            "stop", 0, {"hanami_zake": 5})
        (row,) = [r for r in last["round_results"] if r["rewarded"]]
        assert row["round_index"] == 1 and total == row["reward"][1]
    else:  # the lost round is the match's: rewarded with the learner's first step
        assert info["skipped"] == [] and info["round_results"][0]["reward"] == [5, -5]
        assert total == last["match_results"][0]["scores"][1]


@pytest.mark.parametrize("episode", ["round", "match"])
def test_single_agent_match_ended_before_the_learner_moves_is_reported(episode):
    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, episode=episode, rounds=1)
    _, info = env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    (skipped,) = info["skipped"]  # the one round, and with it the match, before any decision
    assert skipped["winner"] == 0 and skipped["yaku"] == {"hanami_zake": 5}
    (match,) = info["match_results"]
    assert match["winner"] == 0 and match["scores"] == [5, -5] and match["rounds"] == 1


def test_maskable_ppo_trains_unchanged(tmp_path, monkeypatch):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3 makes a log folder even when quiet

    env = KoiKoiSingleAgentEnv(illegal_action="raise")  # a masked learner never errs
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: threads only contend with each other
    try:
        model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128,
                                        n_epochs=1, seed=0, verbose=0, device="cpu")
        model.learn(total_timesteps=2048)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 2048


def test_a_value_that_is_no_action_id_raises_even_when_illegal_moves_are_penalized():
    from hanafuda_env import koikoi_v0
    from hanafuda_env.env_options import NotAnActionError

    env = KoiKoiSingleAgentEnv(learner_seat=1)  # illegal_action="penalize"
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    before = env.game.state_dict()
    with pytest.raises(NotAnActionError, match=r"shape \(1,\)"):
        env.step(np.array([legal]))  # a policy's batch of one, not an action
    assert env.game.state_dict() == before
    env.step(np.array(legal))  # a 0-d array is one
    aec = koikoi_v0.env(illegal_action="penalize")
    aec.reset(seed=0)
    with pytest.raises(TypeError, match="one integer id"):
        aec.step(None)
    assert not any(aec.terminations.values())


def test_tools_that_probe_render_modes_can_build_the_env():
    from gymnasium.wrappers import RecordEpisodeStatistics

    with pytest.raises(TypeError, match="render_mode must be one of"):  # and a ValueError
        KoiKoiSingleAgentEnv(render_mode="rgb_array")
    with pytest.raises(ValueError, match="text only"):
        KoiKoiSingleAgentEnv(render_mode="rgb_array")
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium warns about the render mode it tried
        vec = env_util.make_vec_env("hanafuda/KoiKoi-v0", n_envs=2,
                                    wrapper_class=RecordEpisodeStatistics)
    assert vec.reset().shape == (2, OBS_DIM)


def test_readme_make_vec_env_line_works_in_a_fresh_interpreter():
    """README's ``make_vec_env("hanafuda_env:hanafuda/KoiKoi-v0", ...)`` needs no import of
    the package first: the prefix imports it, which registers the id."""
    import subprocess
    import sys

    pytest.importorskip("stable_baselines3")
    code = ("import sys; from stable_baselines3.common.env_util import make_vec_env; "
            "assert 'hanafuda_env' not in sys.modules; "
            "v = make_vec_env('hanafuda_env:hanafuda/KoiKoi-v0', n_envs=2, "
            "env_kwargs={'render_mode': None}); print(v.reset().shape)")
    out = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", code],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"(2, {OBS_DIM})"


def test_reset_seed_repeats_episodes_against_a_seeded_opponent_and_envs_pickle():
    import pickle

    from agents.bots.registry import make_agent

    def episode(env: gymnasium.Env, seed: int) -> list:
        obs, info = env.reset(seed=seed)
        seen = [obs.tobytes()]
        for _ in range(40):
            obs, reward, terminated, _, info = env.step(
                hashed_random_policy(obs, info["action_mask"]))
            seen.append((obs.tobytes(), reward))
            if terminated:
                break
        return seen

    for name in ("random", "greedy"):  # their ties are broken at random
        env = gymnasium.make("hanafuda/KoiKoi-v0", opponent=make_agent(name, seed=0))
        first = episode(env, 7)
        episode(env, 8)
        assert episode(env, 7) == first
        copy = pickle.loads(pickle.dumps(env))  # e.g. for a subprocess vector env
        assert episode(copy, 7) == first


def test_an_opponent_whose_seed_takes_no_seed_is_refused_when_built() -> None:
    """reset(seed=n) calls opponent.seed(n): an opponent whose seed() takes nothing is named
    at construction (it used to fail inside a later reset); a seed(n) opponent is taken."""

    class Unseedable:
        def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            return np.array([int(np.flatnonzero(mask[0])[0])])

        def seed(self) -> None:
            pass

    class Seedable(Unseedable):
        def seed(self, seed: int | None = None) -> None:  # type: ignore[override]
            self.seeded = seed

    with pytest.raises(ValueError, match=r"opponent's seed\(\) must take one int seed"):
        KoiKoiSingleAgentEnv(Unseedable())
    opponent = Seedable()
    KoiKoiSingleAgentEnv(opponent).reset(seed=3)
    assert isinstance(opponent.seeded, int)


def test_readme_mask_recipe_for_gymnasium_make_vec_next_step_autoreset():
    """Under ``gymnasium.make_vec`` a done env's mask is all False for the step that resets
    it; README's recipe fills that row so a masked sampler never sees an empty mask, and
    every action taken on a live env is legal (no penalty ever)."""
    envs = gymnasium.make_vec("hanafuda/KoiKoi-v0", num_envs=4)
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = empty_rows = 0
    for _ in range(200):
        raw = info["action_mask"].astype(bool)
        empty_rows += int((~raw.any(axis=1)).sum())
        mask = np.where(raw.any(axis=1, keepdims=True), raw, True)
        obs, reward, terminated, truncated, info = envs.step(
            np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        assert "illegal_action" not in info
        episodes += int(terminated.sum())
    envs.close()
    assert episodes > 20 and empty_rows == episodes - int(terminated.sum())
