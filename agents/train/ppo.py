"""Masked PPO with self-play against an opponent pool, for both games, in one module.

The algorithm, top to bottom (the CleanRL layout):

1. ``n_envs`` games play side by side. In each the learner holds one seat against an
   opponent from the pool (at a Hana-awase table it plays every other seat), or
   (``self_play_fraction``) every seat. Every step, each game's player to move decides: the
   learner's network where the learner is to move, its opponent elsewhere. All decisions are
   stored; only the learner's are trained on. The game's trainer plays these rollouts
   (:mod:`agents.train.koikoi`: ``n_steps`` decisions per game; :mod:`agents.train.hanaawase`:
   ``rounds_per_update`` whole rounds), here or on Ray actors
   (:mod:`agents.train.ray_rollouts`).
2. Rewards are zero-sum per seat: Koi-Koi's round points, or (``reward: match_win``) each
   round's change in match-win chance; Hana-awase's round score minus the table's mean. A
   seat's reward is credited to that seat's latest decision; GAE (:func:`compute_gae`) runs
   backwards over each (game, seat) stream of decisions.
3. :meth:`Trainer.learn`: the clipped PPO objective with a value loss and an entropy bonus
   over legal actions only (Koi-Koi's ``critic: privileged``: the value comes from a separate
   critic that also sees the hidden cards — advantages with less luck in them; only the
   policy is ever used to act), minibatch epochs, gradient clipping and linear learning-rate
   annealing.
4. :func:`run_updates`: every ``snapshot_interval`` updates the learner joins the pool;
   opponents are drawn by how often the learner still fails to beat them
   (:mod:`agents.train.pool`). Evaluation against ``eval_opponents``, TensorBoard scalars and
   atomic checkpoints follow their own intervals.

The settings (:mod:`agents.train.config`), the warm start (:mod:`agents.train.warm_start`)
and opening, resuming and interrupting a run (:mod:`agents.train.run`) live apart.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from agents.bots.network import sample_actions
from agents.bots.policy import (
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
    to_arrays,
    to_tensors,
)
from agents.bots.registry import make_agent, network_agent, policy_agent, read_policy_files
from agents.train.config import ConfigError, TrainingConfig, learner_device
from agents.train.pool import OpponentPool


@dataclasses.dataclass
class WaitingRewards:
    """Per game and seat (B, S): rewards paid in the running episode before the seat's first
    decision there (a hand-yaku round at a match's deal), waiting to be credited to that
    decision when a later rollout reaches it."""

    amount: np.ndarray  # float32
    undecided: np.ndarray  # bool: the seat has not decided yet in the running episode

    @classmethod
    def fresh(cls, n_games: int, undecided: bool = True, seats: int = 2) -> WaitingRewards:
        """Nothing waiting; ``undecided`` True at the start of training (every episode is
        new), False where the running episodes' decisions are unknown."""
        return cls(np.zeros((n_games, seats), dtype=np.float32),
                   np.full((n_games, seats), undecided, dtype=bool))


def compute_gae(rewards: np.ndarray, dones: np.ndarray, seats: np.ndarray, values: np.ndarray,
                last_values: np.ndarray, gamma: float, lam: float,
                waiting: WaitingRewards | None = None) -> tuple[np.ndarray, WaitingRewards]:
    """Advantages for interleaved per-seat streams, and the rewards still waiting for a
    decision to credit (pass them to the next rollout's call).

    ``rewards`` (T, B, S) arrive after step t's action, one per seat; ``seats`` (T, B) is who
    decided at t (-1: nobody, a game whose rounds are done waits while others play on; its
    advantage is 0); ``dones`` (T, B) marks the step that ended an episode; ``last_values``
    (B, S) bootstraps each seat's stream after the last step. A seat's rewards since its
    previous decision are credited to that decision. Rewards of an episode that came before a
    seat's first decision in it go to that first decision, in this rollout or a later one. A
    seat with no decision in an episode gets no credit. Without ``waiting``, the episodes
    running at the rollout's start are taken to have had every seat's decisions already.
    ``gamma`` discounts per decision of the seat; rewards between two of its decisions (and
    early ones) add up undiscounted.
    """
    steps, n = seats.shape
    s = rewards.shape[2]
    games = np.arange(n)
    # One column past the seats: where the steps without a decision (seat -1) go; no reward
    # is ever added to it, so nothing reads from it.
    next_value = np.zeros((n, s + 1), dtype=np.float32)
    next_value[:, :s] = last_values
    next_adv = np.zeros((n, s + 1), dtype=np.float32)
    carry = np.zeros((n, s + 1), dtype=np.float32)
    first = np.full((n, s + 1), -1)  # each seat's earliest decision seen so far in its episode
    after_end = WaitingRewards.fresh(n, undecided=False, seats=s)
    in_last_episode = np.ones(n, dtype=bool)  # no episode end seen yet (going backwards)
    advantages = np.zeros((steps, n), dtype=np.float32)
    for t in reversed(range(steps)):
        ended = dones[t]
        early = ended[:, None] & (carry != 0) & (first >= 0)  # the next episode's, unclaimed
        if early.any():
            g, k = np.nonzero(early)
            advantages[first[g, k], g] += carry[g, k]
        # the episode running at the rollout's end, for seats with no decision in it yet
        undecided = (ended & in_last_episode)[:, None] & (first[:, :s] < 0)
        after_end.undecided |= undecided
        after_end.amount[undecided] = carry[:, :s][undecided]
        in_last_episode &= ~ended
        first[ended] = -1
        next_value[ended] = 0.0
        next_adv[ended] = 0.0
        carry[ended] = 0.0
        carry[:, :s] += rewards[t]
        seat = seats[t]
        reward = carry[games, seat]
        carry[games, seat] = 0.0
        delta = reward + gamma * next_value[games, seat] - values[t]
        adv = np.where(seat >= 0, delta + gamma * lam * next_adv[games, seat], 0.0)
        advantages[t] = adv
        next_value[games, seat] = values[t]
        next_adv[games, seat] = adv
        first[games, seat] = t
    if waiting is None:
        return advantages, after_end
    # The episode running at the rollout's start: a seat that had not decided in it yet gets
    # what it was paid so far (earlier rollouts' and this one's) at its first decision.
    first = first[:, :s]
    amount = waiting.amount + np.where(waiting.undecided, carry[:, :s], 0.0).astype(np.float32)
    g, k = np.nonzero(waiting.undecided & (first >= 0))
    advantages[first[g, k], g] += amount[g, k]
    running = in_last_episode[:, None]  # that episode did not end in this rollout
    still = waiting.undecided & (first < 0) & running
    return advantages, WaitingRewards(np.where(running, np.where(still, amount, 0.0),
                                               after_end.amount).astype(np.float32),
                                      np.where(running, still, after_end.undecided))


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


@torch.no_grad()
def policy_step(network: torch.nn.Module, obs: np.ndarray, mask: np.ndarray,
                generator: torch.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The learner's sampled actions, their log-probabilities and the value head's values."""
    logits, value = network(torch.as_tensor(obs), torch.as_tensor(mask))
    action = sample_actions(logits, generator)
    logprob = torch.log_softmax(logits, dim=-1).gather(1, action[:, None]).squeeze(1)
    return action.numpy(), logprob.numpy(), value.numpy()


class Trainer:
    """One run's state: network (and critic), optimizer, pool, generators, counters, and
    PPO's update. A game's trainer (``KoiKoiTrainer``, ``HanaawaseTrainer``) says how its
    network is built and its rollouts are played, its warm start and its evaluation."""

    game: ClassVar[str]
    collector_type: ClassVar[type]  # the game's rollouts over n games (see LocalRollouts)

    def __init__(self, cfg: TrainingConfig, run_dir: str | Path, resuming: bool = False):
        """``resuming``: the weights will come from the run's checkpoint (``restore``), so
        ``init_checkpoint`` and the opponents' files are not read (they may be gone)."""
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)  # the network's initial weights
        self.rules = cfg.resolved_rules()
        self.policy_spec = self.policy_of(cfg, self.rules)
        self.network = self.build_network(cfg, self.rules)
        if cfg.init_checkpoint is not None and not resuming:
            self._load_initial_weights(cfg.init_checkpoint)
        self.critic = self.build_critic(cfg)
        self.params = [*self.network.parameters(),
                       *(self.critic.parameters() if self.critic is not None else ())]
        self.optimizer = torch.optim.Adam(self.params, lr=cfg.learning_rate, eps=1e-5)
        self.device = learner_device(cfg.device)
        self._learner_on = "cpu"
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_rng = torch.Generator().manual_seed(cfg.seed)
        self.pool = self.new_pool(cfg, self.rules)
        # Checkpoint files named as evaluation opponents, read once (a resumed run restores
        # them from its state): what a run measures against does not change mid-run.
        self.eval_weights: dict[str, dict[str, Any]] = {}
        if not resuming:  # a resumed pool and run have their weights in their state
            self.pool.read_checkpoint_opponents()
            self.eval_weights = read_policy_files(cfg.eval_opponents, self.game, self.rules)
        self.batch_steps = self.decisions_per_update(cfg, self.rules)
        self.n_updates = max(1, cfg.total_decisions // self.batch_steps)
        self.update = 0
        self.global_step = 0
        self.rollouts = self._open_rollouts()
        self.history: list[dict[str, float]] = []
        self.best_win_rate = -1.0  # of checkpoints/best.pt against cfg.best_opponent
        self.saved_update: int | None = None  # of checkpoints/latest.pt
        self.warm_started = cfg.warmstart_decisions == 0 or cfg.init_checkpoint is not None
        if not self.warm_started and not resuming:
            self._check_teacher()

    # ------------------------------------------------------------ the game's parts
    @classmethod
    def policy_of(cls, cfg: TrainingConfig, rules: Any) -> dict[str, Any]:
        """What a policy checkpoint holds besides the weights (``network``, the game's keys)."""
        raise NotImplementedError

    @classmethod
    def build_network(cls, cfg: TrainingConfig, rules: Any) -> torch.nn.Module:
        raise NotImplementedError

    @classmethod
    def build_critic(cls, cfg: TrainingConfig) -> torch.nn.Module | None:
        """A critic of its own (none: the network's value head is the critic)."""
        return None

    @classmethod
    def new_pool(cls, cfg: TrainingConfig, rules: Any) -> OpponentPool:
        return OpponentPool(rules, list(cfg.baselines), cls.policy_of(cfg, rules),
                            cfg.max_snapshots, cfg.pfsp_power, game=cls.game)

    @classmethod
    def decisions_per_update(cls, cfg: TrainingConfig, rules: Any) -> int:
        """The decisions one update counts towards ``total_decisions``."""
        raise NotImplementedError

    def teacher_batches(self) -> Any:
        """The warm start's batches of teacher decisions (see ``warm_start.clone_step``)."""
        raise NotImplementedError

    def play_evaluation(self, agent: Any, opponent: str, seed: int) -> tuple[float, float]:
        """The learner's win rate and points per round against ``opponent``."""
        raise NotImplementedError

    def game_metrics(self, stats: dict[str, Any]) -> dict[str, float]:
        """The game's own statistics of a rollout, as TensorBoard scalars."""
        return {}

    def read_inputs(self) -> None:
        """Read what the run needs from files before its folder is made (a bad file then
        changes nothing)."""

    def _check_teacher(self) -> None:
        try:  # a bad teacher file fails before any folder
            read_policy_files([self.cfg.warmstart_teacher], self.game, self.rules)
        except CheckpointError as error:
            raise CheckpointError(f"warmstart_teacher: {error}") from None

    def _load_initial_weights(self, path: str) -> None:
        try:
            payload = load_checkpoint(path)
        except CheckpointError as error:
            raise ConfigError(f"init_checkpoint: {error}") from None
        wanted = self.policy_spec["network"]
        if payload.get("game", "koikoi") != self.game or payload["network"] != wanted:
            raise ConfigError(f"init_checkpoint {path!r} holds a network {payload['network']} "
                              f"({payload.get('game', 'koikoi')}), but the config asks for "
                              f"{wanted} ({self.game})")
        self.network.load_state_dict(payload["model"])

    # ---------------------------------------------------------------- rollout
    def _open_rollouts(self) -> Any:
        """The games the rollouts play: in this process, or (``ray_workers``) on Ray actors,
        which start at the first rollout (building them only checks the settings)."""
        if self.cfg.ray_workers:
            from agents.train.ray_rollouts import RayRollouts

            return RayRollouts(self)
        return LocalRollouts(self.collector_type(
            self.cfg, self.rules, self.network, self.critic, self.pool, self.cfg.n_envs,
            self.cfg.seed, self.rng, self.torch_rng))

    def collect(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """One rollout on every game: the decisions (T, B) PPO learns from, advantages and
        returns included, and what the rollout saw (pool results, the game's statistics)."""
        buf, stats = self.rollouts.collect(self.update)
        self.global_step += self.batch_steps
        return buf, stats

    def close(self) -> None:
        """Release what the rollouts hold outside this process (Ray's workers)."""
        self.rollouts.close()

    # ----------------------------------------------------------------- update
    def learn(self, buf: dict[str, np.ndarray]) -> dict[str, float]:
        """PPO's update on one rollout's learner decisions (clipped losses, minibatch
        epochs); returns the losses and statistics logged under ``losses/``."""
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

    # ------------------------------------------------------------- evaluation
    def evaluate(self) -> dict[str, float]:
        """Win rate and points per round against each evaluation opponent (keeps ``best.pt``)."""
        cfg, seed = self.cfg, self.cfg.seed + self.update
        agent = network_agent(self.network, "learner", self.rules, self.game)
        metrics = {}
        for name in cfg.eval_opponents:
            win_rate, points = self.play_evaluation(agent, name, seed)
            metrics[f"eval/win_rate_vs_{name}"] = win_rate
            metrics[f"eval/points_per_round_vs_{name}"] = points
        if cfg.best_opponent is not None:
            self.save_if_best(metrics[f"eval/win_rate_vs_{cfg.best_opponent}"])
            metrics["eval/best_win_rate"] = self.best_win_rate
        return metrics

    def eval_opponent(self, name: str, seed: int) -> Any:
        """An evaluation opponent: a checkpoint as it was when the run started, or a bot."""
        if name in self.eval_weights:
            return policy_agent(self.eval_weights[name], name, self.rules, self.game, seed=seed)
        return make_agent(name, self.rules, seed=seed, game=self.game)

    def rollout_metrics(self, stats: dict[str, Any], sps: float) -> dict[str, float]:
        """What a rollout shows: speed, results against the pool, Elo, the game's own."""
        pool_points = np.asarray(stats["pool_points"], dtype=np.float64)
        metrics = {
            "charts/SPS": sps,
            "charts/round_win_rate": float((pool_points > 0).mean()) if len(pool_points)
            else 0.5,
            "charts/points_per_round_vs_pool": float(pool_points.mean()) if len(pool_points)
            else 0.0,
            "charts/rounds": float(stats["learner_rounds"]),  # seat-rounds (self-play: all)
            **self.game_metrics(stats),
            "elo/learner": self.pool.learner_elo,
            "pool/size": float(sum(not e.retired for e in self.pool.entries)),
        }
        for entry in self.pool.entries:
            if entry.kind == "baseline":
                metrics[f"elo/{entry.name}"] = entry.elo
        return metrics

    # -------------------------------------------------------- save / resume
    def policy_payload(self) -> dict[str, Any]:
        """The learner's policy as a checkpoint plays it (any game's bot loader reads it)."""
        return {**self.policy_spec, "model": self.network.state_dict()}

    def state(self) -> dict[str, Any]:
        """Everything a resumed run needs, as tensors and plain values (loads safely)."""
        return {
            **self.policy_payload(),
            "critic": self.critic.state_dict() if self.critic is not None else None,
            "optimizer": self.optimizer.state_dict(), "config": dataclasses.asdict(self.cfg),
            "rules": self.rules.to_dict(), "update": self.update,
            "global_step": self.global_step, "pool": self.pool.state_dict(),
            "rng": self.rng.bit_generator.state, "torch_rng": self.torch_rng.get_state(),
            **self.rollouts.state(), "warm_started": self.warm_started,
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
        self.rollouts.restore(payload)
        self.history = list(payload["history"])
        self.best_win_rate = float(payload["best_win_rate"])
        self.eval_weights = payload["eval_weights"]
        self.warm_started = payload["warm_started"]

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
            **self.policy_payload(), "update": self.update, "global_step": self.global_step,
            "opponent": self.cfg.best_opponent, "win_rate": win_rate})
        return True


class LocalRollouts:
    """A trainer's games in its own process: one collector of the game over ``n_envs`` games,
    which shares the trainer's network, pool and generators. A collector has ``collect(update)
    -> (buf, stats)``, ``seating`` (each game's learner seat and opponent) and its state as
    arrays (``arrays``, ``load_arrays``); a Ray worker holds one as well."""

    def __init__(self, collector: Any):
        self.collector = collector

    def collect(self, update: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return self.collector.collect(update)

    @property
    def opponent(self) -> np.ndarray:
        """Each game's opponent (the pool keeps the snapshots they play)."""
        return self.collector.seating.opponent

    def state(self) -> dict[str, Any]:
        return {"arrays": to_tensors(self.collector.arrays())}

    def restore(self, payload: dict[str, Any]) -> None:
        self.collector.load_arrays(to_arrays(payload["arrays"]))

    def close(self) -> None:
        """Nothing runs outside this process."""


def run_updates(trainer: Trainer, writer: Any, last_update: int) -> dict[str, float]:
    """PPO updates up to ``last_update``: rollout, learning, snapshots, evaluations, logs and
    checkpoints; returns the last update's metrics."""
    from tqdm import tqdm

    cfg = trainer.cfg
    metrics: dict[str, float] = {}
    eval_note = ""
    with tqdm(total=trainer.n_updates * trainer.batch_steps, initial=trainer.global_step,
              unit="dec", desc="self-play PPO", disable=not cfg.progress_bar,
              dynamic_ncols=True) as bar:
        while trainer.update < last_update:
            started = time.perf_counter()
            buf, stats = trainer.collect()
            metrics = trainer.learn(buf)
            sps = trainer.batch_steps / (time.perf_counter() - started)
            metrics.update(trainer.rollout_metrics(stats, sps))
            if cfg.snapshot_interval and trainer.update % cfg.snapshot_interval == 0:
                trainer.pool.add_snapshot(trainer.network, trainer.global_step,
                                          in_use=trainer.rollouts.opponent)
            if cfg.eval_interval and (trainer.update % cfg.eval_interval == 0
                                      or trainer.update == trainer.n_updates):
                metrics.update(trainer.evaluate())
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
