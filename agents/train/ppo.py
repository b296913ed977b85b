"""Masked PPO with self-play against an opponent pool, in one readable module.

The algorithm, top to bottom (the CleanRL layout):

1. ``n_envs`` Koi-Koi games run in a batched self-play env. In each game the learner holds
   one seat against an opponent from the pool, or (``self_play_fraction``) both seats.
2. Every step, every game makes one decision: the learner's network acts where the learner
   is to move, the game's opponent elsewhere. All decisions are stored; only the learner's
   are trained on.
3. Rewards are zero-sum per seat: round points, or (``reward: match_win``) each round's
   change in match-win chance. A seat's reward is credited to that seat's latest decision;
   GAE runs backwards over each (game, seat) stream of decisions.
4. The clipped PPO objective with a value loss and an entropy bonus over legal actions
   only (``critic: privileged``: the value comes from a separate critic that also sees the
   opponent's hand and the stock order — advantages with less luck in them; only the
   policy is ever used to act), minibatch epochs, gradient clipping and linear
   learning-rate annealing.
5. Every ``snapshot_interval`` updates the learner joins the pool; opponents are drawn by
   how often the learner still fails to beat them (see ``selfplay``). Evaluation against
   the baselines, TensorBoard scalars and atomic checkpoints follow their own intervals.

Steps 1–3 are :class:`RolloutCollector`'s: the trainer's own, or (``ray_workers``) one per
Ray actor, whose buffers the learner joins (:mod:`agents.train.ray_rollouts`). The settings
(:class:`~agents.train.config.PPOConfig`), their checks and resuming rules live in
:mod:`agents.train.config`; opening, resuming and interrupting a run (``train``) in
:mod:`agents.train.run`.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.network import ActorCritic, sample_actions
from agents.bots.policy import CheckpointError, PolicyAgent, load_checkpoint, save_checkpoint
from agents.bots.registry import read_policy_files
from agents.train.config import ConfigError, PPOConfig, learner_device
from agents.train.critic import CRITIC_INPUT_DIM, Critic, critic_input
from agents.train.pool import SELF, OpponentPool
from hanafuda_env.common.results import RoundResults
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.core import DECIDE, KOIKOI, STOP
from hanafuda_env.koikoi.observation import BLOCK
from hanafuda_env.koikoi.rules import RuleSpec, resolve_rules

_PHASE_DECIDE = BLOCK["phase"].start + DECIDE  # observation entry: a koi-koi decision


@dataclasses.dataclass
class WaitingRewards:
    """Per game and seat (B, 2): rewards paid in the running episode before the seat's first
    decision there (a hand-yaku round at a match's deal), waiting to be credited to that
    decision when a later rollout reaches it."""

    amount: np.ndarray  # float32
    undecided: np.ndarray  # bool: the seat has not decided yet in the running episode

    @classmethod
    def fresh(cls, n_games: int, undecided: bool = True) -> WaitingRewards:
        """Nothing waiting; ``undecided`` True at the start of training (every episode is
        new), False where the running episodes' decisions are unknown."""
        return cls(np.zeros((n_games, 2), dtype=np.float32),
                   np.full((n_games, 2), undecided, dtype=bool))


def minibatches(n: int, n_minibatches: int, generator: torch.Generator) -> list[torch.Tensor]:
    """A random split of ``n`` samples into up to ``n_minibatches`` parts of at least two
    (one sample has no spread: normalising its advantage would give NaN); none if n < 2."""
    order = torch.randperm(n, generator=generator)
    parts = min(n_minibatches, n // 2)
    return list(torch.tensor_split(order, parts)) if parts else []


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over legal actions only (masked terms are exactly zero, never NaN)."""
    probs = log_probs.exp()
    return -(probs * log_probs).masked_fill(~mask, 0.0).sum(-1)


def compute_gae(rewards: np.ndarray, dones: np.ndarray, seats: np.ndarray, values: np.ndarray,
                last_values: np.ndarray, gamma: float, lam: float,
                waiting: WaitingRewards | None = None) -> tuple[np.ndarray, WaitingRewards]:
    """Advantages for interleaved two-seat streams, and the rewards still waiting for a
    decision to credit (pass them to the next rollout's call).

    ``rewards`` (T, B, 2) arrive after step t's action; ``seats`` (T, B) is who decided at t;
    ``dones`` (T, B) marks the step that ended an episode; ``last_values`` (B, 2) bootstraps
    each seat's stream after the last step. A seat's rewards since its previous decision are
    credited to that decision. Rewards of an episode that came before a seat's first
    decision in it go to that first decision, in this rollout or a later one. A seat with no
    decision in an episode gets no credit. Without ``waiting``, the episodes running at the
    rollout's start are taken to have had both seats' decisions already. ``gamma`` discounts
    per decision of the seat; rewards between two of its decisions (and early ones) add up
    undiscounted.
    """
    steps, n = seats.shape
    games = np.arange(n)
    next_value = last_values.astype(np.float32).copy()
    next_adv = np.zeros((n, 2), dtype=np.float32)
    carry = np.zeros((n, 2), dtype=np.float32)
    first = np.full((n, 2), -1)  # each seat's earliest decision seen so far in its episode
    after_end = WaitingRewards.fresh(n, undecided=False)
    in_last_episode = np.ones(n, dtype=bool)  # no episode end seen yet (going backwards)
    advantages = np.zeros((steps, n), dtype=np.float32)
    for t in reversed(range(steps)):
        ended = dones[t]
        early = ended[:, None] & (carry != 0) & (first >= 0)  # the next episode's, unclaimed
        if early.any():
            g, s = np.nonzero(early)
            advantages[first[g, s], g] += carry[g, s]
        # the episode running at the rollout's end, for seats with no decision in it yet
        undecided = (ended & in_last_episode)[:, None] & (first < 0)
        after_end.undecided |= undecided
        after_end.amount[undecided] = carry[undecided]
        in_last_episode &= ~ended
        first[ended] = -1
        next_value[ended] = 0.0
        next_adv[ended] = 0.0
        carry[ended] = 0.0
        carry += rewards[t]
        seat = seats[t]
        reward = carry[games, seat]
        carry[games, seat] = 0.0
        delta = reward + gamma * next_value[games, seat] - values[t]
        adv = delta + gamma * lam * next_adv[games, seat]
        advantages[t] = adv
        next_value[games, seat] = values[t]
        next_adv[games, seat] = adv
        first[games, seat] = t
    if waiting is None:
        return advantages, after_end
    # The episode running at the rollout's start: a seat that had not decided in it yet gets
    # what it was paid so far (earlier rollouts' and this one's) at its first decision.
    amount = waiting.amount + np.where(waiting.undecided, carry, 0.0).astype(np.float32)
    g, s = np.nonzero(waiting.undecided & (first >= 0))
    advantages[first[g, s], g] += amount[g, s]
    running = in_last_episode[:, None]  # that episode did not end in this rollout
    still = waiting.undecided & (first < 0) & running
    return advantages, WaitingRewards(np.where(running, np.where(still, amount, 0.0),
                                               after_end.amount).astype(np.float32),
                                      np.where(running, still, after_end.undecided))


class Trainer:
    """State of one run: env, network, optimizer, pool, RNGs, logging."""

    def __init__(self, cfg: PPOConfig, run_dir: str | Path, resuming: bool = False):
        """``resuming``: the weights will come from the run's checkpoint (``restore``), so
        ``init_checkpoint`` is not read (it may be gone)."""
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)  # the network's initial weights
        self.rules = resolve_rules(cfg.rules)
        self.net_kwargs: dict[str, Any] = {"hidden": cfg.hidden, "layers": cfg.layers}
        if cfg.card_features:
            self.net_kwargs["card_features"] = True
        self.network = ActorCritic(**self.net_kwargs)
        if cfg.init_checkpoint is not None and not resuming:
            self._load_initial_weights(cfg.init_checkpoint)
        self.critic = (Critic(CRITIC_INPUT_DIM, cfg.hidden, cfg.layers)
                       if cfg.critic == "privileged" else None)
        self.params = [*self.network.parameters(),
                       *(self.critic.parameters() if self.critic is not None else ())]
        self.optimizer = torch.optim.Adam(self.params, lr=cfg.learning_rate, eps=1e-5)
        self.device = learner_device(cfg.device)
        self._learner_on = "cpu"
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_rng = torch.Generator().manual_seed(cfg.seed)
        self.pool = OpponentPool(self.rules, list(cfg.baselines), self.net_kwargs,
                                 cfg.max_snapshots, cfg.pfsp_power)
        # Checkpoint files named as evaluation opponents, read once (a resumed run restores
        # them from its state): what a run measures against does not change mid-run.
        self.eval_weights: dict[str, dict[str, Any]] = {}
        if not resuming:  # a resumed pool and run have their weights in their state
            self.pool.read_checkpoint_opponents()
            self.eval_weights = read_policy_files(cfg.eval_opponents)
        self.batch_steps = cfg.n_envs * cfg.n_steps
        self.n_updates = max(1, cfg.total_decisions // self.batch_steps)
        self.update = 0
        self.global_step = 0
        self._open_collection()
        self.history: list[dict[str, float]] = []
        self.best_win_rate = -1.0  # of checkpoints/best.pt against cfg.best_opponent
        self.saved_update: int | None = None  # of checkpoints/latest.pt
        self.warm_started = cfg.warmstart_decisions == 0 or cfg.init_checkpoint is not None
        # the decisions of cfg.warmstart_records, once read (warm_start.load_records)
        self.record_decisions: dict[str, np.ndarray] | None = None
        if not self.warm_started and not resuming and cfg.warmstart_records is None:
            try:  # a bad teacher file fails before any folder
                read_policy_files([cfg.warmstart_teacher])
            except CheckpointError as error:
                raise CheckpointError(f"warmstart_teacher: {error}") from None

    def _load_initial_weights(self, path: str) -> None:
        try:
            payload = load_checkpoint(path)
        except CheckpointError as error:
            raise ConfigError(f"init_checkpoint: {error}") from None
        if payload["network"] != self.net_kwargs:
            raise ConfigError(f"init_checkpoint {path!r} holds a network {payload['network']}, "
                              f"but the config asks for {self.net_kwargs}")
        self.network.load_state_dict(payload["model"])

    # ---------------------------------------------------------------- rollout
    def _open_collection(self) -> None:
        """The games the rollouts play, in this process (``RayTrainer``: on Ray actors)."""
        self.collector = RolloutCollector(self.cfg, self.rules, self.network, self.critic,
                                          self.pool, self.cfg.n_envs, self.cfg.seed, self.rng,
                                          self.torch_rng)

    def collect(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """One rollout of ``n_steps`` on every env: the learner's rows (the buffer PPO
        learns from) and what the rollout saw (episode returns, pool results, koi-koi)."""
        buf, stats = self.collector.collect(self.update)
        self.global_step += self.batch_steps
        return buf, stats

    def close(self) -> None:
        """Release what the rollouts hold outside this process (nothing here)."""

    # The collector's state, by the names a run's code and tests read.
    env = property(lambda self: self.collector.env)
    obs = property(lambda self: self.collector.obs)
    mask = property(lambda self: self.collector.mask)
    seat = property(lambda self: self.collector.seat)
    learner_seat = property(lambda self: self.collector.learner_seat)
    opponent = property(lambda self: self.collector.opponent)
    episode_return = property(lambda self: self.collector.episode_return)
    waiting = property(lambda self: self.collector.waiting)

    # ----------------------------------------------------------------- update
    def learn(self, buf: dict[str, np.ndarray]) -> dict[str, float]:
        """PPO's update on one rollout (GAE, clipped losses, minibatch epochs); returns the
        losses and statistics logged under ``losses/``."""
        cfg = self.cfg
        if cfg.anneal_lr:
            frac = 1.0 - self.update / self.n_updates
            self.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
        keep = buf["train"].reshape(-1)
        flat = {k: torch.as_tensor(v.reshape(-1, *v.shape[2:])[keep]).to(self.device)
                for k, v in buf.items() if k not in ("reward", "done", "seat", "train")}
        self._place_learner(self.device)
        n = len(flat["action"])
        clipfracs, approx_kl = [], torch.zeros(())
        nan = torch.tensor(float("nan"))  # the losses of an update with under two samples
        pg_loss = v_loss = entropy = nan
        for _ in range(cfg.update_epochs):
            for idx in minibatches(n, cfg.n_minibatches, self.torch_rng):
                mask = flat["mask"][idx]
                logits, value = self.network(flat["obs"][idx], mask)
                if self.critic is not None:
                    value = self.critic(flat["critic_obs"][idx])
                log_probs = torch.log_softmax(logits, dim=-1)
                new_logprob = log_probs.gather(1, flat["action"][idx, None]).squeeze(1)
                entropy = masked_entropy(log_probs, mask)
                log_ratio = new_logprob - flat["logprob"][idx]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                adv = flat["advantage"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio,
                                    -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
                                    ).mean()
                returns, old_value = flat["return"][idx], flat["value"][idx]
                if cfg.clip_vloss:
                    clipped = old_value + (value - old_value).clamp(-cfg.clip_coef,
                                                                    cfg.clip_coef)
                    v_loss = 0.5 * torch.max((value - returns) ** 2,
                                             (clipped - returns) ** 2).mean()
                else:
                    v_loss = 0.5 * ((value - returns) ** 2).mean()
                loss = pg_loss - cfg.ent_coef * entropy.mean() + cfg.vf_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
                self.optimizer.step()
            if cfg.target_kl is not None and approx_kl > cfg.target_kl:
                break
        self._place_learner("cpu")  # the rollouts play with the updated weights on the CPU
        values, returns = flat["value"].cpu().numpy(), flat["return"].cpu().numpy()
        var = np.var(returns) if n else 0.0
        explained = float("nan") if var == 0 else float(1 - np.var(returns - values) / var)
        self.update += 1
        return {"losses/policy_loss": pg_loss.item(), "losses/value_loss": v_loss.item(),
                "losses/entropy": entropy.mean().item(), "losses/approx_kl": approx_kl.item(),
                "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else float("nan"),
                "losses/explained_variance": explained,
                "charts/learning_rate": self.optimizer.param_groups[0]["lr"]}

    def _place_learner(self, device: str) -> None:
        """Move the network, the critic and Adam's moments to ``device`` (in place: the
        optimizer keeps its parameters); a no-op on the CPU-only path."""
        if self._learner_on == device:
            return
        for module in (self.network, self.critic):
            if module is not None:
                module.to(device)
        for state in self.optimizer.state.values():
            for key, value in state.items():
                if torch.is_tensor(value) and key != "step":
                    state[key] = value.to(device)
        self._learner_on = device

    # -------------------------------------------------------- save / resume
    def state(self) -> dict[str, Any]:
        """Everything a resumed run needs, as tensors and plain values (loads safely)."""
        return {
            "model": self.network.state_dict(), "network": self.net_kwargs,
            "critic": self.critic.state_dict() if self.critic is not None else None,
            "optimizer": self.optimizer.state_dict(), "config": dataclasses.asdict(self.cfg),
            "rules": self.rules.to_dict(), "update": self.update,
            "global_step": self.global_step, "pool": self.pool.state_dict(),
            "rng": self.rng.bit_generator.state, "torch_rng": self.torch_rng.get_state(),
            **self._collection_state(), "warm_started": self.warm_started,
            "history": [{k: float(v) for k, v in row.items()} for row in self.history],
            "best_win_rate": self.best_win_rate, "eval_weights": self.eval_weights,
        }

    def restore(self, payload: dict[str, Any]) -> None:
        self.network.load_state_dict(payload["model"])
        if self.critic is not None:
            self.critic.load_state_dict(payload["critic"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.update, self.global_step = payload["update"], payload["global_step"]
        self.saved_update = self.update
        self.pool.load_state_dict(payload["pool"])
        self.rng.bit_generator.state = payload["rng"]
        self.torch_rng.set_state(payload["torch_rng"])
        self._restore_collection(payload)
        self.history = list(payload["history"])
        self.best_win_rate = float(payload["best_win_rate"])
        self.eval_weights = payload["eval_weights"]
        self.warm_started = payload["warm_started"]

    def _collection_state(self) -> dict[str, Any]:
        return {"arrays": to_tensors(self.collector.arrays())}

    def _restore_collection(self, payload: dict[str, Any]) -> None:
        self.collector.load_arrays(to_arrays(payload["arrays"]))

    def save(self, keep: int = 3) -> Path:
        """``latest.pt`` plus the last ``keep`` numbered checkpoints."""
        folder = self.run_dir / "checkpoints"
        state = self.state()
        save_checkpoint(folder / "latest.pt", state)
        self.saved_update = self.update
        save_checkpoint(folder / f"update_{self.update:06d}.pt", state)
        for old in sorted(folder.glob("update_*.pt"))[:-keep]:
            old.unlink()
        return folder / "latest.pt"

    def save_if_best(self, win_rate: float) -> bool:
        """Keep the policy as ``best.pt`` when it beats every earlier evaluation's win rate
        against ``best_opponent`` (a policy checkpoint: weights only, no training state)."""
        if win_rate <= self.best_win_rate:
            return False
        self.best_win_rate = win_rate
        save_checkpoint(self.run_dir / "checkpoints" / "best.pt", {
            "model": self.network.state_dict(), "network": self.net_kwargs,
            "update": self.update, "global_step": self.global_step,
            "opponent": self.cfg.best_opponent, "win_rate": win_rate})
        return True


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
        self.learner_seat = self.rng.integers(0, 2, n_envs)
        self.opponent = self.pool.sample(n_envs, self.rng, cfg.self_play_fraction) if len(
            self.pool) else np.full(n_envs, SELF)
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
            learner = (self.opponent == SELF) | (self.seat == self.learner_seat)
            with torch.no_grad():
                logits, value = self.network(torch.as_tensor(self.obs),
                                             torch.as_tensor(self.mask))
                if self.critic is not None:
                    buf["critic_obs"][t] = critic_input(self.obs, self.env.core)
                    value = self.critic(torch.as_tensor(buf["critic_obs"][t]))
                action = sample_actions(logits, self.torch_rng)
                logprob = torch.log_softmax(logits, dim=-1).gather(1, action[:, None]).squeeze(1)
            action = action.numpy()
            for opp in np.unique(self.opponent[~learner]):
                idx = np.flatnonzero(~learner & (self.opponent == opp))
                action[idx] = self.pool.agent(int(opp)).act(self.obs[idx], self.mask[idx])
            deciding = learner & (self.obs[:, _PHASE_DECIDE] > 0)
            stats["koikoi_calls"] += int((deciding & (action == KOIKOI)).sum())
            stats["stops"] += int((deciding & (action == STOP)).sum())
            buf["obs"][t], buf["mask"][t], buf["action"][t] = self.obs, self.mask, action
            buf["logprob"][t], buf["value"][t] = logprob.numpy(), value.numpy()
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
                self._episodes_ended(np.flatnonzero(done), stats["pool_results"])
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

    def _episodes_ended(self, games: np.ndarray, results: list[tuple[int, float]]) -> None:
        for g in games:
            if self.opponent[g] != SELF:
                result = (int(self.opponent[g]), self.episode_return[g, self.learner_seat[g]])
                self.pool.record(*result)
                results.append(result)
        self.episode_return[games] = 0.0
        if len(self.pool):
            self.opponent[games] = self.pool.sample(len(games), self.rng,
                                                    self.cfg.self_play_fraction)
        self.learner_seat[games] = self.rng.integers(0, 2, len(games))

    def _round_stats(self, rounds: RoundResults, stats: dict, rows: np.ndarray) -> None:
        """Add the round rows selected by ``rows`` to the statistics, as played by the seats
        each game's learner and opponent hold now."""
        for k in np.flatnonzero(rows):
            g = rounds.game[k]
            seats = (0, 1) if self.opponent[g] == SELF else (int(self.learner_seat[g]),)
            for s in seats:
                if self.opponent[g] != SELF:
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
        return {"env": self.env.state_dict(), "learner_seat": self.learner_seat,
                "opponent": self.opponent, "episode_return": self.episode_return,
                "waiting_amount": self.waiting.amount,
                "waiting_undecided": self.waiting.undecided}

    def load_arrays(self, arrays: dict[str, Any]) -> None:
        self.env.load_state_dict(arrays["env"])
        self.learner_seat, self.opponent = arrays["learner_seat"], arrays["opponent"]
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


def to_tensors(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: to_tensors(v) for k, v in tree.items()}
    return torch.from_numpy(np.ascontiguousarray(tree))


def to_arrays(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: to_arrays(v) for k, v in tree.items()}
    return tree.numpy().copy()


def run_updates(trainer: Trainer, writer: Any, last_update: int) -> dict[str, float]:
    """PPO updates up to ``last_update``: rollout, learning, snapshots, evaluations, logs and
    checkpoints; returns the last update's metrics."""
    from tqdm import tqdm

    cfg = trainer.cfg
    metrics: dict[str, float] = {}
    eval_note = ""
    with tqdm(total=trainer.n_updates * trainer.batch_steps, initial=trainer.global_step,
              unit="dec", disable=not cfg.progress_bar, dynamic_ncols=True) as bar:
        while trainer.update < last_update:
            started = time.perf_counter()
            buf, stats = trainer.collect()
            metrics = trainer.learn(buf)
            sps = trainer.batch_steps / (time.perf_counter() - started)
            metrics.update(_rollout_metrics(stats, trainer, sps))
            if cfg.snapshot_interval and trainer.update % cfg.snapshot_interval == 0:
                trainer.pool.add_snapshot(trainer.network, trainer.global_step,
                                          in_use=trainer.opponent)
            if cfg.eval_interval and (trainer.update % cfg.eval_interval == 0
                                      or trainer.update == trainer.n_updates):
                metrics.update(_evaluate_learner(trainer))
                eval_note = " ".join(f"{k.rsplit('_', 1)[-1]}={v:.2f}"
                                     for k, v in metrics.items() if k.startswith("eval/win_rate"))
            for key, value in metrics.items():
                writer.add_scalar(key, value, trainer.global_step)
            trainer.history.append({"step": trainer.global_step, **metrics})
            if (trainer.update % cfg.checkpoint_interval == 0
                    or trainer.update in (trainer.n_updates, last_update)):
                trainer.save()
            bar.update(trainer.batch_steps)
            bar.set_postfix_str(f"SPS={sps:,.0f} win={metrics['charts/round_win_rate']:.2f} "
                                f"{eval_note}".strip())
    return metrics


def _evaluate_learner(trainer: Trainer) -> dict[str, float]:
    """Win rate and points per round against each evaluation opponent (keeps ``best.pt``)."""
    from agents.bots.registry import make_agent
    from agents.eval.matches import play_matches

    cfg, seed = trainer.cfg, trainer.cfg.seed + trainer.update
    agent = PolicyAgent(trainer.network, name="learner", greedy=True)
    metrics = {}
    for name in cfg.eval_opponents:
        if name in trainer.eval_weights:  # a checkpoint, as it was when the run started
            opponent = PolicyAgent.from_payload(trainer.eval_weights[name], name)
        else:
            opponent = make_agent(name, trainer.rules, seed=seed)
        result = play_matches(agent, opponent, cfg.eval_matches, rules=trainer.rules, seed=seed)
        metrics[f"eval/win_rate_vs_{name}"] = result["win_rate"]["value"]
        metrics[f"eval/points_per_round_vs_{name}"] = result["points_per_round"]["mean"]
    if cfg.best_opponent is not None:
        trainer.save_if_best(metrics[f"eval/win_rate_vs_{cfg.best_opponent}"])
        metrics["eval/best_win_rate"] = trainer.best_win_rate
    return metrics


def _rollout_metrics(stats: dict, trainer: Trainer, sps: float) -> dict[str, float]:
    pool_points = np.asarray(stats["pool_points"], dtype=np.float64)
    decisions = stats["koikoi_calls"] + stats["stops"]
    metrics = {
        "charts/SPS": sps,
        "charts/round_win_rate": float((pool_points > 0).mean()) if len(pool_points) else 0.5,
        "charts/points_per_round_vs_pool": float(pool_points.mean()) if len(pool_points) else 0.0,
        "charts/rounds": float(stats["learner_rounds"]),  # seat-rounds (self-play: both seats)
        "koikoi/call_rate": stats["koikoi_calls"] / decisions if decisions else 0.0,
        "koikoi/paid_off_rate": (stats["koikoi_won"] / stats["koikoi_rounds"]
                                 if stats["koikoi_rounds"] else 0.0),
        "elo/learner": trainer.pool.learner_elo,
        "pool/size": float(sum(not e.retired for e in trainer.pool.entries)),
    }
    won = max(stats["learner_rounds_won"], 1)
    for name, count in zip(stats["yaku_names"], stats["yaku"]):
        metrics[f"yaku/{name}"] = float(count / won)
    for entry in trainer.pool.entries:
        if entry.kind == "baseline":
            metrics[f"elo/{entry.name}"] = entry.elo
    return metrics
