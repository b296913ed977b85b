"""Decks, random and scripted play, and the trajectories that the environment tests compare."""

from __future__ import annotations

import random

import numpy as np

from hanafuda_env.envs.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import STOP

# Dealer (seat 0) holds all four pine cards: teshi, a hand yaku that ends round 1 at the deal.
TESHI_DECK = ([0, 1, 2, 3, 4, 8, 12, 16] + [5, 9, 13, 17, 20, 24, 28, 32]
              + [6, 10, 14, 18, 21, 25, 29, 33]
              + [c for c in range(48) if c not in {0, 1, 2, 3, 4, 8, 12, 16, 5, 9, 13, 17, 20,
                                                   24, 28, 32, 6, 10, 14, 18, 21, 25, 29, 33}])
# Seat 0 deals and plays the curtain onto the cherry ribbon, then draws the sake cup onto the
# chrysanthemum ribbon: hanami-zake before seat 1 has moved.
HANAMI_DECK = ([8, 12, 16, 20, 24, 28, 36, 40] + [0, 4, 13, 17, 21, 25, 29, 37]
               + [9, 33, 1, 5, 14, 18, 22, 26] + [32])
HANAMI_DECK += [c for c in range(48) if c not in HANAMI_DECK]


def random_action(env, rng: random.Random):
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return None
    return rng.choice(np.flatnonzero(obs["action_mask"]).tolist())


def play_episode(env, rng: random.Random, on_step=None) -> tuple[dict[str, float], dict]:
    """Random legal play to the end of an AEC episode: each agent's return and final info."""
    returns = dict.fromkeys(env.possible_agents, 0.0)
    final = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last(observe=False)
        returns[agent] += reward
        if term or trunc:
            final[agent] = info
        action = random_action(env, rng)
        if on_step is not None and action is not None:
            on_step(env, agent, action)
        env.step(action)
    return returns, final


def play_single(env, rng: np.random.Generator, seed: int = 0, start: tuple | None = None):
    """Random legal learner moves to the episode's end, from a fresh reset or from the
    ``(obs, info)`` one returned; returns the return and the last info."""
    obs, info = env.reset(seed=seed) if start is None else start
    total = 0.0
    while True:
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        assert env.observation_space.contains(obs) and mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if terminated or truncated:
            return total, info


class FirstLegal:
    """Deterministic: the lowest legal action (so it always stops at a koi-koi decision)."""

    name = "first"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mask.argmax(axis=1).astype(np.int64)


def stopper(obs: np.ndarray, mask: np.ndarray) -> int:
    """Stops whenever it may, else plays its lowest legal action."""
    return STOP if mask[STOP] else int(np.flatnonzero(mask)[0])


def hanami_deck(dealer: int) -> dict:
    """Reset options: ``dealer`` plays the curtain, draws the sake cup: hanami-zake at once."""
    return {"deck": HANAMI_DECK, "dealer": dealer}


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def gym_trajectory(env: KoiKoiSingleAgentEnv, steps: int = 40) -> list:
    """An unseeded reset and first-legal play across episodes: what the env shows."""
    obs, info = env.reset()
    out = [(obs.tobytes(), info["seat"])]
    for _ in range(steps):
        obs, reward, terminated, _, info = env.step(first_legal(obs, env.action_masks()))
        out.append((obs.tobytes(), reward, terminated, info["seat"]))
        if terminated:
            obs, info = env.reset()
            out.append((obs.tobytes(), info["seat"]))
    return out


def aec_trajectory(env, steps: int = 80) -> list:
    env.reset()
    out = []
    for _ in range(steps):
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else first_legal(None, obs["action_mask"]))
    return out


def vector_trajectory(env: KoiKoiVectorEnv, steps: int = 30) -> list:
    obs, _ = env.reset()
    out = [obs.copy()]
    for _ in range(steps):
        obs, rewards, *_ = env.step(env.action_masks().argmax(axis=1))
        out += [obs.copy(), rewards.copy()]
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
