"""Koi-Koi's part of the PPO trainer (:mod:`agents.train.ppo`): the network, the rollouts, the
warm start's teacher, the evaluation matches and the koi-koi statistics.

A rollout (:class:`RolloutCollector`) plays ``n_steps`` decisions in each of ``n_envs``
games of a batched self-play env (episodes of a round or a match, dealt on at once); the
learner holds one seat against a pool opponent, or both seats. Rewards arrive per seat and
step; those paid before a seat's first decision of an episode (a hand yaku at a match's
deal) wait for it, across rollouts (``WaitingRewards``). ``critic: privileged`` adds a
critic that also sees the opponent's hand and the stock order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.bots.network import ActorCritic
from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import PPOConfig
from agents.train.critic import CRITIC_INPUT_DIM, Critic, critic_input
from agents.train.pool import SELF, OpponentPool, Seating
from agents.train.ppo import Trainer, WaitingRewards, compute_gae, policy_step
from agents.train.warm_start import collect_record_games, collect_teacher_games, record_batches
from hanafuda_env.common.results import RoundResults
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import DECIDE, KOIKOI, STOP
from hanafuda_env.koikoi.observation import BLOCK
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec

_PHASE_DECIDE = BLOCK["phase"].start + DECIDE  # observation entry: a koi-koi decision


class RolloutCollector:
    """``n_envs`` games of self-play, the learner's seat and opponent in each, and what they
    carry from one rollout to the next: what a trainer collects with, in its own process or
    in a Ray worker (``agents.train.ray_rollouts``). ``network``, ``critic``, ``pool`` and
    the generators are the owner's (the trainer's own, or a worker's copies)."""

    def __init__(self, cfg: PPOConfig, rules: RuleSpec, network: ActorCritic,
                 critic: Critic | None, pool: OpponentPool, n_envs: int, seed: int,
                 rng: np.random.Generator, torch_rng: torch.Generator,
                 pool_seed: Any = lambda seed: seed):
        """``pool_seed`` maps a rollout's seed for the opponents' own randomness to this
        collector's (a worker's stream of its own)."""
        self.cfg, self.network, self.critic, self.pool = cfg, network, critic, pool
        self.n_envs, self.rng, self.torch_rng, self.pool_seed = n_envs, rng, torch_rng, pool_seed
        self.env = make_env(cfg, rules, seed, n_envs)
        self.obs, info = self.env.reset(seed=seed)
        self.mask, self.seat = info["action_mask"], info["seat"]
        self.seating = Seating(pool, n_envs, 2, rng, cfg.self_play_fraction)
        self.episode_return = np.zeros((n_envs, 2), dtype=np.float64)
        self.waiting = WaitingRewards.fresh(n_envs)  # early rewards, not yet credited

    def collect(self, update: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """One rollout of ``n_steps`` on every game (of update number ``update``): the
        buffer with advantages and returns, and what the rollout saw (``Trainer.collect``)."""
        cfg, n = self.cfg, self.n_envs
        shape = (cfg.n_steps, n)
        buf = {
            "obs": np.zeros((*shape, self.obs.shape[1]), dtype=np.float32),
            "mask": np.zeros((*shape, self.mask.shape[1]), dtype=bool),
            "action": np.zeros(shape, dtype=np.int64),
            "logprob": np.zeros(shape, dtype=np.float32),
            "value": np.zeros(shape, dtype=np.float32),
            "seat": np.zeros(shape, dtype=np.int64),
            "train": np.zeros(shape, dtype=bool),
            "reward": np.zeros((*shape, 2), dtype=np.float32),
            "done": np.zeros(shape, dtype=bool),
        }
        self.pool.reseed(self.pool_seed(cfg.seed * 100_003 + update))
        stats = {"learner_rounds": 0, "koikoi_calls": 0, "stops": 0, "koikoi_rounds": 0,
                 "koikoi_won": 0, "yaku": np.zeros(len(self.env.core.yaku_names)),
                 "learner_rounds_won": 0, "pool_points": [], "pool_results": [],
                 "yaku_names": self.env.core.yaku_names}
        if self.critic is not None:
            buf["critic_obs"] = np.zeros((*shape, CRITIC_INPUT_DIM), dtype=np.float32)
        for t in range(cfg.n_steps):
            learner = self.seating.learner(self.seat)
            action, logprob, value = policy_step(self.network, self.obs, self.mask,
                                                 self.torch_rng)
            if self.critic is not None:
                buf["critic_obs"][t] = critic_input(self.obs, self.env.core)
                with torch.no_grad():
                    value = self.critic(torch.as_tensor(buf["critic_obs"][t])).numpy()
            self.pool.act(self.seating.opponent, ~learner, self.obs, self.mask, action)
            deciding = learner & (self.obs[:, _PHASE_DECIDE] > 0)
            stats["koikoi_calls"] += int((deciding & (action == KOIKOI)).sum())
            stats["stops"] += int((deciding & (action == STOP)).sum())
            buf["obs"][t], buf["mask"][t], buf["action"][t] = self.obs, self.mask, action
            buf["logprob"][t], buf["value"][t] = logprob, value
            buf["seat"][t], buf["train"][t] = self.seat, learner
            self.obs, rewards, terminated, truncated, info = self.env.step(action)
            done = terminated | truncated
            buf["reward"][t] = rewards * cfg.reward_scale
            buf["done"][t] = done
            later = info["next_episode"]  # rounds dealt after an episode ended: new seats
            self._round_stats(info["round_results"], stats, ~later)
            self.mask, self.seat = info["action_mask"], info["seat"]
            self.episode_return += rewards
            if done.any():
                games = np.flatnonzero(done)
                self.seating.episodes_ended(
                    games, self.episode_return[games, self.seating.learner_seat[games]],
                    stats["pool_results"])
                self.episode_return[games] = 0.0
            self._round_stats(info["round_results"], stats, later)
        with torch.no_grad():
            # The critic is trained on states where its seat is to move: bootstrap the
            # mover's stream with its value and the other seat's with the negation (zero-sum).
            _, value = self.network(torch.as_tensor(self.obs), torch.as_tensor(self.mask))
            if self.critic is not None:
                value = self.critic(torch.as_tensor(critic_input(self.obs, self.env.core)))
        mover_value = value.numpy()
        last = np.where(self.seat[:, None] == np.arange(2), mover_value[:, None],
                        -mover_value[:, None]).astype(np.float32)
        buf["advantage"], self.waiting = compute_gae(
            buf["reward"], buf["done"], buf["seat"], buf["value"], last, cfg.gamma,
            cfg.gae_lambda, self.waiting)
        buf["return"] = buf["advantage"] + buf["value"]
        return buf, stats

    def _round_stats(self, rounds: RoundResults, stats: dict, rows: np.ndarray) -> None:
        """Add the round rows selected by ``rows`` to the statistics, as played by the seats
        each game's learner and opponent hold now."""
        opponent, learner_seat = self.seating.opponent, self.seating.learner_seat
        for k in np.flatnonzero(rows):
            g = rounds.game[k]
            seats = (0, 1) if opponent[g] == SELF else (int(learner_seat[g]),)
            for s in seats:
                if opponent[g] != SELF:
                    stats["pool_points"].append(rounds.reward[k, s])
                stats["learner_rounds"] += 1
                if rounds.koikoi_calls[k, s] > 0:
                    stats["koikoi_rounds"] += 1
                    stats["koikoi_won"] += int(rounds.winner[k] == s)
                if rounds.winner[k] == s:
                    stats["learner_rounds_won"] += 1
                    stats["yaku"] += rounds.yaku[k] > 0

    def arrays(self) -> dict[str, Any]:
        """What the games carry between rollouts, as arrays (a checkpoint's ``arrays``)."""
        return {"env": self.env.state_dict(), "learner_seat": self.seating.learner_seat,
                "opponent": self.seating.opponent, "episode_return": self.episode_return,
                "waiting_amount": self.waiting.amount,
                "waiting_undecided": self.waiting.undecided}

    def load_arrays(self, arrays: dict[str, Any]) -> None:
        self.env.load_state_dict(arrays["env"])
        self.seating.learner_seat, self.seating.opponent = (arrays["learner_seat"],
                                                            arrays["opponent"])
        self.episode_return = arrays["episode_return"]
        self.waiting = WaitingRewards(arrays["waiting_amount"], arrays["waiting_undecided"])
        self.obs = self.env.observe(self.env.core.mover)
        self.mask = self.env.core.legal_action_mask()
        self.seat = self.env.core.mover.astype(np.int64)


def make_env(cfg: PPOConfig, rules: RuleSpec, seed: int, n_envs: int | None = None
             ) -> KoiKoiVectorEnv:
    return KoiKoiVectorEnv(cfg.n_envs if n_envs is None else n_envs, rules=rules,
                           episode=cfg.episode, seed=seed, reward=cfg.reward,
                           round_sigma=cfg.round_sigma)


class KoiKoiTrainer(Trainer):
    """The PPO trainer on Koi-Koi (see the module docstring)."""

    game = "koikoi"
    collector_type = RolloutCollector

    def __init__(self, cfg: PPOConfig, run_dir: Any, resuming: bool = False):
        # the decisions of cfg.warmstart_records, once read (load_records)
        self.record_decisions: dict[str, np.ndarray] | None = None
        super().__init__(cfg, run_dir, resuming)

    @classmethod
    def policy_of(cls, cfg: PPOConfig, rules: RuleSet) -> dict[str, Any]:
        network: dict[str, Any] = {"hidden": cfg.hidden, "layers": cfg.layers}
        if cfg.card_features:
            network["card_features"] = True
        return {"network": network}

    @classmethod
    def build_network(cls, cfg: PPOConfig, rules: RuleSet) -> ActorCritic:
        return ActorCritic(**cls.policy_of(cfg, rules)["network"])

    @classmethod
    def build_critic(cls, cfg: PPOConfig) -> Critic | None:
        return (Critic(CRITIC_INPUT_DIM, cfg.hidden, cfg.layers)
                if cfg.critic == "privileged" else None)

    @classmethod
    def decisions_per_update(cls, cfg: PPOConfig, rules: RuleSet) -> int:
        return cfg.n_envs * cfg.n_steps

    # The local collector's state, by the names a run's code and tests read.
    collector = property(lambda self: self.rollouts.collector)
    env = property(lambda self: self.collector.env)
    obs = property(lambda self: self.collector.obs)
    mask = property(lambda self: self.collector.mask)
    seat = property(lambda self: self.collector.seat)
    learner_seat = property(lambda self: self.collector.seating.learner_seat)
    opponent = property(lambda self: self.collector.seating.opponent)
    episode_return = property(lambda self: self.collector.episode_return)
    waiting = property(lambda self: self.collector.waiting)

    def _check_teacher(self) -> None:
        if self.cfg.warmstart_records is None:  # recorded games need no teacher
            super()._check_teacher()

    def read_inputs(self) -> None:
        if not self.warm_started:  # a bad game record fails before the run's folder
            load_records(self)

    def teacher_batches(self) -> Any:
        """Batches of ``n_envs × n_steps`` decisions: the teacher's on games of their own
        (both seats), or the game records' (``warmstart_records``), cycled through."""
        cfg = self.cfg
        load_records(self)
        if self.record_decisions is not None:
            yield from record_batches(self.record_decisions, self.batch_steps,
                                      np.random.default_rng(cfg.seed))
        else:
            teacher = make_agent(cfg.warmstart_teacher, self.rules, seed=cfg.seed)
            env = make_env(cfg, self.rules, cfg.seed + 1)
            env.reset()
            while True:
                yield teacher_batch(self, env, teacher)

    def play_evaluation(self, agent: Any, opponent: str, seed: int) -> tuple[float, float]:
        result = play_matches(agent, self.eval_opponent(opponent, seed), self.cfg.eval_matches,
                              rules=self.rules, seed=seed)
        return result["win_rate"]["value"], result["points_per_round"]["mean"]

    def game_metrics(self, stats: dict[str, Any]) -> dict[str, float]:
        decisions = stats["koikoi_calls"] + stats["stops"]
        metrics = {
            "koikoi/call_rate": stats["koikoi_calls"] / decisions if decisions else 0.0,
            "koikoi/paid_off_rate": (stats["koikoi_won"] / stats["koikoi_rounds"]
                                     if stats["koikoi_rounds"] else 0.0),
        }
        won = max(stats["learner_rounds_won"], 1)
        for name, count in zip(stats["yaku_names"], stats["yaku"]):
            metrics[f"yaku/{name}"] = float(count / won)
        return metrics


def teacher_batch(trainer: KoiKoiTrainer, env: KoiKoiVectorEnv, teacher: Any
                  ) -> dict[str, np.ndarray]:
    """One warm-start batch of the teacher's decisions on ``env`` (``n_steps`` per game)."""
    cfg = trainer.cfg
    return collect_teacher_games(env, teacher, cfg.n_steps, cfg.reward_scale, gamma=cfg.gamma,
                                 with_hidden=trainer.critic is not None)


def load_records(trainer: KoiKoiTrainer) -> None:
    """Read the run's ``warmstart_records`` into ``trainer.record_decisions``, once (a run
    does it before it makes its folder, so a bad record changes nothing)."""
    if trainer.record_decisions is None and trainer.cfg.warmstart_records is not None:
        trainer.record_decisions = collect_record_games(trainer.cfg, trainer.rules,
                                                        with_hidden=trainer.critic is not None)
