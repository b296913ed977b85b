"""The single-agent Gymnasium environment: Gymnasium's checks, the registered id and the tools
that build it (``make_vec``, SB3's ``make_vec_env``, MaskablePPO training on it unchanged), its
opponent (seeded by ``reset``, given bool masks, warned about when built for other rules, its
errors undone), the masks once an episode is over and which resets start a new match."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hanafuda_env
from agents.bots.baselines import RandomAgent
from agents.bots.expert import ExpertAgent
from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.koikoi.core import STOP, IllegalActionError
from hanafuda_env.koikoi.observation import (
    OBS_DIM,
)
from tests.helpers.envs import (
    HANAMI_DECK,
    first_legal,
    gym_trajectory,
    hanami_deck,
    stopper,
)


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


def test_tools_that_probe_render_modes_can_build_the_env():
    from gymnasium.wrappers import RecordEpisodeStatistics

    with pytest.raises(TypeError, match="render_mode must be one of"):  # and a ValueError
        KoiKoiSingleAgentEnv(render_mode="rgb_array_list")
    with pytest.raises(ValueError, match="'rgb_array', None, got 'rgb_array_list'"):
        KoiKoiSingleAgentEnv(render_mode="rgb_array_list")
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
    at construction (not by a failure inside a later reset); a seed(n) opponent is taken."""

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


# ----------------------------------------------------------------- the opponent
def test_gym_callable_opponent_is_handed_a_bool_mask() -> None:
    """A callable opponent gets its mask as bool, as an object opponent's act() does."""
    dtypes = []

    def opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        dtypes.append(mask.dtype)
        return stopper(obs, mask)

    env = KoiKoiSingleAgentEnv(opponent=opponent, learner_seat=1)
    env.reset(seed=0, options={"dealer": 0})
    for _ in range(4):
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
    assert dtypes and all(d == np.dtype(bool) for d in dtypes)


def test_the_single_agent_env_names_an_opponent_built_for_other_rules() -> None:
    with pytest.warns(UserWarning, match="opponent 'expert' was built for rule set 'nintendo'"):
        KoiKoiSingleAgentEnv(ExpertAgent("nintendo"), rules="ten-base")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KoiKoiSingleAgentEnv(ExpertAgent("ten-base"), rules="ten-base")
        KoiKoiSingleAgentEnv(RandomAgent("nintendo", seed=0), rules="ten-base")  # reads none


class Switchable:
    """A deterministic opponent that, while ``fault`` is set, errs: an illegal action or
    ``fault`` itself when it is an exception."""

    def __init__(self):
        self.fault: object = None

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if isinstance(self.fault, Exception):
            raise self.fault
        return 99 if self.fault else first_legal(obs, mask)


@pytest.mark.parametrize("fault", [True, RuntimeError("policy crashed")])
def test_gym_opponent_error_in_step_undoes_the_learners_move(fault):
    opponent, reference = Switchable(), Switchable()
    env = KoiKoiSingleAgentEnv(opponent=opponent, learner_seat=0, episode="match", rounds=2)
    ref = KoiKoiSingleAgentEnv(opponent=reference, learner_seat=0, episode="match", rounds=2)
    obs, _ = env.reset(seed=1, options={"dealer": 0})
    ref.reset(seed=1, options={"dealer": 0})
    state, mask = env.game.state_dict(), env.action_masks()
    rng_state = env.np_random.bit_generator.state
    opponent.fault = fault
    error = IllegalActionError if fault is True else RuntimeError
    text = (r"opponent \(seat 1\) chose illegal action 99; its legal actions: \[\d"
            if fault is True else "policy crashed")
    with pytest.raises(error, match=text):
        env.step(first_legal(obs, mask))
    assert env.game.state_dict() == state and env.game.mover == env.seat == 0
    np.testing.assert_array_equal(env.action_masks(), mask)
    assert env.np_random.bit_generator.state == rng_state
    opponent.fault = None
    assert gym_trajectory(env) == gym_trajectory(ref)


@pytest.mark.parametrize("fault", [True, RuntimeError("policy crashed")])
def test_gym_opponent_error_in_reset_changes_nothing(fault):
    opponent, reference = Switchable(), Switchable()
    env = KoiKoiSingleAgentEnv(opponent=opponent)
    ref = KoiKoiSingleAgentEnv(opponent=reference)
    env.reset(seed=0)
    ref.reset(seed=0)
    state, seat = env.game.state_dict(), env.seat
    opponent.fault = fault
    with pytest.raises(IllegalActionError if fault is True else RuntimeError):
        env.reset(seed=4, options={"learner_seat": 1, "dealer": 0})  # the opponent deals
    assert env.game.state_dict() == state and env.seat == seat
    opponent.fault = None
    assert gym_trajectory(env) == gym_trajectory(ref)


class Faulty:
    """An opponent that raises while ``fault`` is set, else stops or plays its lowest move."""

    def __init__(self) -> None:
        self.fault = False

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.fault:
            raise RuntimeError("policy crashed")
        return stopper(obs, mask)


def test_gym_unseeded_reset_that_fails_puts_the_rng_back() -> None:
    """An unseeded reset draws the game seed from the env's RNG; when the opponent then errs,
    the reset is undone, RNG included, so the next reset deals what it would have dealt."""
    opponent = Faulty()
    env = KoiKoiSingleAgentEnv(opponent=opponent)
    ref = KoiKoiSingleAgentEnv(opponent=Faulty())
    env.reset(seed=0)
    ref.reset(seed=0)
    before = env.np_random.bit_generator.state
    opponent.fault = True
    with pytest.raises(RuntimeError, match="policy crashed"):
        env.reset(options={"learner_seat": 1, "dealer": 0})  # the opponent moves first
    assert env.np_random.bit_generator.state == before
    opponent.fault = False
    options = {"learner_seat": 1, "dealer": 0}
    obs, info = env.reset(options=options)
    ref_obs, ref_info = ref.reset(options=options)
    np.testing.assert_array_equal(obs, ref_obs)
    assert env.game.state_dict() == ref.game.state_dict()


# --------------------------------------------------------------------- episodes
def test_gym_masks_are_all_false_once_the_episode_is_over() -> None:
    """After the episode's last step, action_masks() allows nothing (as the info's mask)."""
    env = KoiKoiSingleAgentEnv(learner_seat=0)
    env.reset(seed=0, options={"deck": HANAMI_DECK, "dealer": 0})
    env.step(8)
    _, _, terminated, _, info = env.step(STOP)
    assert terminated
    assert env.action_masks().dtype == bool and not env.action_masks().any()
    assert not info["action_mask"].any()


def test_gym_reset_with_a_learner_seat_starts_a_new_match() -> None:
    """Only ``reset()`` without seed or options goes on with the match; choosing the learner's
    seat is an option, so it deals a new match (round 0, no score), as ``dealer`` does."""
    def finished_round() -> KoiKoiSingleAgentEnv:
        env = KoiKoiSingleAgentEnv(opponent=stopper, rounds=6, learner_seat=0)
        env.reset(seed=5, options=hanami_deck(0))
        assert env.step(8)[2] is False and env.step(STOP)[2]  # a 5-point round, episode over
        return env

    going_on = finished_round()
    going_on.reset()
    assert going_on.game.round_index == 1 and going_on.game.match_score != [0, 0]
    for options in ({"learner_seat": 1}, {"learner_seat": 0}, {"dealer": 0}):
        env = finished_round()
        env.reset(options=options)
        assert env.game.round_index == 0 and list(env.game.match_score) == [0, 0], options
    assert env.seat == 0
