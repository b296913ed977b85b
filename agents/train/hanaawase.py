"""Hana-awase's part of the PPO trainer (:mod:`agents.train.ppo`): the network, the rollouts,
the warm start's teacher and the evaluation tables.

A rollout plays ``rounds_per_update`` whole rounds in each of ``n_envs`` games of
``num_players`` (:class:`~hanafuda_env.hanaawase.core.HanaawaseCore`; matches carry on across
updates), so no reward waits past a rollout and no stream needs a bootstrap value. In each
game the learner holds one seat and a pool opponent every other seat, or the learner plays
them all; a round is an episode, paid at its end: each seat's round score minus the table's
mean. Decisions count as the turns of a round (``num_players × hand size``); a choice between
two field cards belongs to its turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from agents.bots.hanaawase_policy import HanaawaseNetwork, network_for, policy_spec
from agents.bots.registry import make_agent
from agents.eval.hanaawase_matches import play_hanaawase_matches
from agents.train.config import HanaawaseConfig
from agents.train.pool import SELF, OpponentPool, Seating
from agents.train.ppo import Trainer, compute_gae, policy_step
from hanafuda_env.hanaawase.core import HanaawaseCore, HanaawaseStep
from hanafuda_env.hanaawase.rules import HanaawaseRules

Decide = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], dict[str, np.ndarray]]


def play_rounds(core: HanaawaseCore, rounds: int, decide: Decide,
                ended: Callable[[HanaawaseStep], None] = lambda out: None
                ) -> dict[str, np.ndarray]:
    """``rounds`` whole rounds in every game of ``core`` (a finished round is dealt on first):
    the steps as (T, B) arrays: ``obs``, ``mask``, ``seat`` (the mover; -1 where a game has
    played its rounds and waits for the others), ``reward`` (T, B, N), ``done`` (the step
    ended a round) and what ``decide(obs, mask, mover, live)`` returned for the step, its
    ``action`` among them. ``ended`` sees each step's finished rounds before they are dealt
    on."""
    core.deal_next(np.flatnonzero(core.round_over))
    rounds_left = np.full(core.n_games, rounds)
    steps: list[dict[str, np.ndarray]] = []
    while not core.round_over.all():
        live = ~core.round_over
        obs, mask, mover = core.observe(), core.legal_action_mask(), core.mover.astype(np.int64)
        step = decide(obs, mask, mover, live)
        out = core.step(step["action"])
        ended(out)
        steps.append({"obs": obs, "mask": mask, "seat": np.where(live, mover, -1),
                      "reward": out.rewards.astype(np.float32), "done": out.round_over, **step})
        rounds_left[out.row_games] -= 1
        again = out.row_games[rounds_left[out.row_games] > 0]
        if len(again):
            core.deal_next(again)
    return {key: np.stack([step[key] for step in steps]) for key in steps[0]}


def advantages(buf: dict[str, np.ndarray], values: np.ndarray, gamma: float, lam: float
               ) -> np.ndarray:
    """GAE over every seat's stream of whole rounds (nothing left to bootstrap)."""
    n, seats = buf["reward"].shape[1:]
    advantage, _ = compute_gae(buf["reward"], buf["done"], buf["seat"], values,
                               np.zeros((n, seats), dtype=np.float32), gamma, lam)
    return advantage


class HanaawaseCollector:
    """``n_envs`` Hana-awase tables, the learner's seat and opponent at each: what a trainer
    collects with, in its own process or in a Ray worker (as Koi-Koi's collector)."""

    def __init__(self, cfg: HanaawaseConfig, rules: HanaawaseRules, network: HanaawaseNetwork,
                 critic: None, pool: OpponentPool, n_envs: int, seed: int,
                 rng: np.random.Generator, torch_rng: torch.Generator,
                 pool_seed: Any = lambda seed: seed):
        self.cfg, self.network, self.pool = cfg, network, pool
        self.rng, self.torch_rng, self.pool_seed = rng, torch_rng, pool_seed
        self.core = HanaawaseCore(n_envs, rules, seed=seed)
        self.seating = Seating(pool, n_envs, rules.num_players, rng, cfg.self_play_fraction)

    def collect(self, update: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """One rollout of whole rounds (of update number ``update``): the buffer with
        advantages and returns, and what the rollout saw."""
        cfg = self.cfg
        self.pool.reseed(self.pool_seed(cfg.seed * 100_003 + update))
        stats: dict[str, Any] = {"learner_rounds": 0, "pool_points": [], "pool_results": [],
                                 "scores": [], "first_places": []}
        buf = play_rounds(self.core, cfg.rounds_per_update, self._decide,
                          lambda out: self._rounds_ended(out, stats))
        buf["reward"] *= cfg.reward_scale
        buf["advantage"] = advantages(buf, buf["value"], cfg.gamma, cfg.gae_lambda)
        buf["return"] = buf["advantage"] + buf["value"]
        return buf, stats

    def _decide(self, obs: np.ndarray, mask: np.ndarray, mover: np.ndarray, live: np.ndarray
                ) -> dict[str, np.ndarray]:
        """The learner's moves (sampled, with their log-probabilities and values) where it is
        to move, the opponents' elsewhere."""
        n = len(obs)
        learner = live & self.seating.learner(mover)
        step = {"action": np.full(n, -1, dtype=np.int64), "train": learner,
                "logprob": np.zeros(n, dtype=np.float32), "value": np.zeros(n, dtype=np.float32)}
        if learner.any():
            step["action"][learner], step["logprob"][learner], step["value"][learner] = (
                policy_step(self.network, obs[learner], mask[learner], self.torch_rng))
        self.pool.act(self.seating.opponent, live & ~learner, obs, mask, step["action"])
        return step

    def _rounds_ended(self, out: HanaawaseStep, stats: dict[str, Any]) -> None:
        """The learner's results in the rounds that ended, then the tables' next seats."""
        games = out.row_games
        seat = self.seating.learner_seat[games]
        against_pool = self.seating.opponent[games] != SELF
        n = self.core.num_players
        stats["learner_rounds"] += int(np.where(against_pool, 1, n).sum())
        for row, g, s in zip(out.rows[against_pool], games[against_pool], seat[against_pool]):
            stats["pool_points"].append(float(out.rewards[g, s]))
            stats["scores"].append(float(row["score"][s]))
            if row["match_over"]:
                top = row["match_scores"][:n] == row["match_scores"][:n].max()
                stats["first_places"].append(float(top[s] / top.sum()))
        self.seating.episodes_ended(games, out.rewards[games, seat], stats["pool_results"])

    def arrays(self) -> dict[str, Any]:
        """What the tables carry between rollouts, as arrays (a checkpoint's ``arrays``)."""
        return {"records": self.core.records.view(np.uint8).copy(),
                "learner_seat": self.seating.learner_seat, "opponent": self.seating.opponent}

    def load_arrays(self, arrays: dict[str, Any]) -> None:
        records = np.ascontiguousarray(arrays["records"]).view(self.core.records.dtype)
        self.core.load_state_dict({"rules": self.core.rules.to_dict(), "records": records})
        self.seating.learner_seat, self.seating.opponent = (arrays["learner_seat"],
                                                            arrays["opponent"])


class HanaawaseTrainer(Trainer):
    """The PPO trainer on Hana-awase (see the module docstring)."""

    game = "hanaawase"
    collector_type = HanaawaseCollector

    @classmethod
    def policy_of(cls, cfg: HanaawaseConfig, rules: HanaawaseRules) -> dict[str, Any]:
        return policy_spec(rules, cfg.hidden, cfg.layers)

    @classmethod
    def build_network(cls, cfg: HanaawaseConfig, rules: HanaawaseRules) -> HanaawaseNetwork:
        return network_for(rules.num_players, cfg.hidden, cfg.layers, rules.card_points)

    @classmethod
    def decisions_per_update(cls, cfg: HanaawaseConfig, rules: HanaawaseRules) -> int:
        return cfg.n_envs * cfg.rounds_per_update * rules.num_players * rules.hand_size

    def teacher_batches(self) -> Iterator[dict[str, np.ndarray]]:
        """The teacher's whole rounds in every seat of ``n_envs`` tables of their own, a
        rollout's worth each; every decision's return is its seat's round reward."""
        cfg = self.cfg
        teacher = make_agent(cfg.warmstart_teacher, self.rules, seed=cfg.seed, game=self.game)
        core = HanaawaseCore(cfg.n_envs, self.rules, seed=cfg.seed + 1)

        def decide(obs: np.ndarray, mask: np.ndarray, mover: np.ndarray, live: np.ndarray
                   ) -> dict[str, np.ndarray]:
            action = np.full(len(obs), -1, dtype=np.int64)
            action[live] = teacher.act(obs[live], mask[live])
            return {"action": action}

        while True:
            data = play_rounds(core, cfg.rounds_per_update, decide)
            data["reward"] *= cfg.reward_scale
            data["return"] = advantages(data, np.zeros(data["seat"].shape, dtype=np.float32),
                                        cfg.gamma, 1.0)
            data["keep"] = data["seat"] >= 0
            yield data

    def play_evaluation(self, agent: Any, opponent: str, seed: int) -> tuple[float, float]:
        """The learner at a table of ``opponent`` copies, over whole decks (one match per
        seat, rotated): its first-place rate and mean score per round."""
        n = self.rules.num_players
        others = [self.eval_opponent(opponent, seed + k) for k in range(n - 1)]
        row = play_hanaawase_matches([agent, *others], -(-self.cfg.eval_matches // n),
                                     self.rules, seed=seed)[0]
        return row["first_place"]["value"], row["mean_score"]["mean"]

    def game_metrics(self, stats: dict[str, Any]) -> dict[str, float]:
        metrics = {"charts/mean_score": float(np.mean(stats["scores"])) if stats["scores"]
                   else 0.0}
        if stats["first_places"]:
            metrics["charts/first_place_rate"] = float(np.mean(stats["first_places"]))
        return metrics
