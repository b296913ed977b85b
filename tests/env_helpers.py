"""Decks, random play and a scripted policy shared by the tests."""

from __future__ import annotations

import random

import numpy as np

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
