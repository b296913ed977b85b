"""Imitation at scale: a network learns the expert's moves from millions of its decisions.

A clone of the expert is the start of everything learned after it (PPO, search labels), so
it must hold its teacher. Three things make that possible here:

- **Data.** The compiled expert plays both seats of ``n_envs`` games at once
  (:func:`collect_expert_decisions`): tens of thousands of decisions a second, so a run
  learns from millions, not the tens of thousands a PPO warm start sees.
- **Ties.** At a few percent of decisions the expert rates several moves exactly alike (two
  chaff cards of one month, say) and picks one by a coin: its
  :meth:`~agents.bots.expert.ExpertAgent.action_values` give the whole set. The loss is the
  log-probability of the set (``-log Σ_{a in set} p(a)``), and agreement counts a move in
  the set as agreeing (:func:`agreement`): a clone is not asked to guess the coin.
- **A network built for cards** (:class:`~agents.bots.card_net.CardGraphNet`), or the MLP.

With ``labels: search`` the targets are the expert's moves corrected by a search where it
is sure (:mod:`agents.train.search_labels`), usually from a clone (``init_checkpoint``).

The value head learns each decision's return as PPO's does (``reward: match_win``: the
change in match-win chance over the round), so a clone can start PPO or a search.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.base import MAX_SEED
from agents.bots.expert import ExpertAgent, tie_sets
from agents.bots.policy import (
    CheckpointError,
    build_network,
    load_checkpoint,
    network_from_payload,
    save_checkpoint,
)
from agents.bots.search import ROLLOUTS, SearchAgent
from agents.train.config import ConfigError, check_number
from agents.train.expert_iteration import stage_seed
from agents.train.run import finished_run, interrupted_run, marked_config
from agents.train.run_parts import (
    check_run_settings,
    config_from_spec,
    evaluate_network,
    open_run,
)
from agents.train.search_labels import search_labels
from agents.train.warm_start import episode_returns
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.observation import BLOCK
from hanafuda_env.koikoi.rules import RuleSet, resolve_rules
from hanafuda_env.koikoi.state import N_DECISION_PHASES, PHASE_NAMES

CHUNK_STEPS = 256  # decisions per game collected at once; episodes cut at a chunk's end drop
SEARCH_PLAY_ENVS = 256  # games the search plays at once in self-play (its worlds multiply them)


def collect_expert_decisions(rules: RuleSet, n_decisions: int, seed: int, n_envs: int = 1024,
                             reward_scale: float = 1.0, progress: Any = None,
                             player: Any = None) -> dict[str, np.ndarray]:
    """At least ``n_decisions`` decisions of the expert playing both seats of ``n_envs``
    games (seeded by ``seed``), one row each: ``obs``, ``mask``, ``action`` (the expert's),
    ``ties`` (the moves it rates as good as its own), ``return`` (the rest of the deciding
    seat's round reward: the change in match-win chance) and ``phase``. Decisions of
    rounds that a chunk cut off are left out (their returns are unknown).

    With a ``player`` (an agent) its moves are played instead, in both seats: the
    positions and returns are then its self-play's (a search's, for a value network that
    judges the search's own leaves), ``action`` is its move and ``ties`` still the
    expert's rating of the moves."""
    env = KoiKoiVectorEnv(n_envs, rules, episode="round", reward="match_win", seed=seed)
    expert = ExpertAgent(rules, seed=seed)
    obs, info = env.reset(seed=seed)
    mask, seat = info["action_mask"], env.core.mover.copy()
    parts: list[dict[str, np.ndarray]] = []
    kept = 0
    while kept < n_decisions:
        chunk = {"obs": np.empty((CHUNK_STEPS, n_envs, obs.shape[1]), np.float32),
                 "mask": np.empty((CHUNK_STEPS, n_envs, mask.shape[1]), bool),
                 "ties": np.empty((CHUNK_STEPS, n_envs, mask.shape[1]), bool),
                 "action": np.empty((CHUNK_STEPS, n_envs), np.int64),
                 "seat": np.empty((CHUNK_STEPS, n_envs), np.int64),
                 "reward": np.empty((CHUNK_STEPS, n_envs, 2), np.float32),
                 "done": np.empty((CHUNK_STEPS, n_envs), bool)}
        for t in range(CHUNK_STEPS):
            values = expert.action_values(obs, mask)
            action = expert.act(obs, mask) if player is None else player.act(obs, mask)
            chunk["obs"][t], chunk["mask"][t], chunk["ties"][t] = obs, mask, tie_sets(values)
            chunk["action"][t], chunk["seat"][t] = action, seat
            obs, rewards, terminated, truncated, info = env.step(action)
            chunk["reward"][t] = rewards * reward_scale
            chunk["done"][t] = terminated | truncated
            mask, seat = info["action_mask"], info["seat"]
        returns, finished = episode_returns(chunk["reward"], chunk["done"], chunk["seat"],
                                            gamma=1.0)
        rows = {key: chunk[key][finished] for key in ("obs", "mask", "ties", "action")}
        rows["return"] = returns[finished].astype(np.float32)
        parts.append(rows)
        kept += len(rows["action"])
        if progress is not None:
            progress(len(rows["action"]))
    data = {key: np.concatenate([p[key] for p in parts])[:n_decisions] for key in parts[0]}
    data["phase"] = phases(data["obs"])
    return data


def played_targets(data: dict[str, np.ndarray]) -> np.ndarray:
    """The moves to learn from decisions as played: the expert's tie set where the move
    played is in it (every expert decision), else the move played alone."""
    rows = np.arange(len(data["action"]))
    targets = data["ties"].copy()
    off = ~targets[rows, data["action"]]
    targets[off] = False
    targets[rows[off], data["action"][off]] = True
    return targets


def phases(obs: np.ndarray) -> np.ndarray:
    """Each observation's decision phase (an index into ``PHASE_NAMES``)."""
    return obs[:, BLOCK["phase"]].argmax(1).astype(np.int8)


def tie_loss(logits: torch.Tensor, ties: torch.Tensor) -> torch.Tensor:
    """Mean of ``-log Σ_{a in ties} p(a)`` over the rows (``logits`` already masked)."""
    tied = torch.logsumexp(logits.masked_fill(~ties, -torch.inf), dim=1)
    return (torch.logsumexp(logits, dim=1) - tied).mean()


@torch.no_grad()
def predict(network: torch.nn.Module, obs: np.ndarray, mask: np.ndarray,
            batch: int = 8192, with_values: bool = False
            ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """The network's most likely legal action for every row (and its values)."""
    out = np.empty(len(obs), dtype=np.int64)
    values = np.empty(len(obs), dtype=np.float32)
    for start in range(0, len(obs), batch):
        logits, value = network(torch.as_tensor(obs[start:start + batch]),
                                torch.as_tensor(mask[start:start + batch]))
        out[start:start + batch] = logits.argmax(1).numpy()
        values[start:start + batch] = value.numpy()
    return (out, values) if with_values else out


def value_fit(values: np.ndarray, returns: np.ndarray) -> dict[str, float]:
    """How well the value head predicts the returns: mean squared error and the share of
    their variance explained (1 is perfect, 0 no better than their mean)."""
    error = float(np.mean((values - returns) ** 2))
    spread = float(np.var(returns))
    return {"value/mse": error,
            "value/explained_variance": 1.0 - error / spread if spread > 0 else float("nan")}


def agreement(actions: np.ndarray, data: dict[str, np.ndarray]) -> dict[str, float]:
    """How often ``actions`` agree with the expert on ``data``'s decisions: ``plain`` (its
    very move), ``tie_aware`` (a move it rates as good), the same among decisions with a
    choice (``choice``), and ``tie_aware`` per decision phase (``phase/<name>``)."""
    rows = np.arange(len(actions))
    in_set = data["ties"][rows, actions]
    choice = data["mask"].sum(1) > 1
    result = {"plain": float((actions == data["action"]).mean()),
              "tie_aware": float(in_set.mean()),
              "choice": float(in_set[choice].mean()) if choice.any() else float("nan")}
    for index, name in enumerate(PHASE_NAMES[:N_DECISION_PHASES]):
        at = data["phase"] == index
        if at.any():
            result[f"phase/{name}"] = float(in_set[at].mean())
    return result


# ------------------------------------------------------------------ the trainer

ALGORITHM = "imitation"
RESUMABLE = ("progress_bar",)
LABELS = ("expert", "search")
DEFAULT_NETWORK = {"architecture": "card_graph", "width": 48, "global_width": 192, "blocks": 2}


@dataclass
class ImitationConfig:
    """Every setting of an imitation run (YAML keys have these names)."""

    algorithm: str = ALGORITHM  # marks the config as this trainer's for train.py
    exp_name: str = "imitation"
    seed: int = 1
    rules: Any = "nintendo"  # preset name, mapping of rule options, or YAML path
    decisions: int = 2_000_000  # expert decisions to learn from (collected at the start)
    held_out: int = 50_000  # expert decisions of other games, for agreement
    n_envs: int = 1024  # games the expert plays at once while collecting
    network: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_NETWORK))
    epochs: int = 3  # passes over the decisions
    batch_size: int = 1024
    learning_rate: float = 1e-3  # the peak of a warm-up then cosine-decay schedule
    vf_coef: float = 0.25  # weight of the value head's squared error
    policy_coef: float = 1.0  # weight of the policy loss; 0 trains the value head alone (a
    # search's leaf evaluator, agents.bots.search)
    max_grad_norm: float = 1.0
    labels: str = "expert"  # what to learn: the expert's moves, or "search": the expert's
    # moves with a search's where it is sure (agents.train.search_labels)
    search_worlds: int = 64  # the search's worlds per legal move (labels: search)
    search_rollout: str = "fast"  # its compiled rollout policy
    search_confidence: float = 2.0  # standard errors its move must gain to replace the expert's
    search_evaluator: str | None = None  # a value network checkpoint: the search's rollouts
    # stop after search_depth moves and it values the position reached (agents.bots.search)
    search_depth: int | None = None
    search_play_decisions: int = 0  # decisions of games the gated search (the search_*
    # settings, over the expert's moves) plays in both seats, added to the training ones:
    # their positions and outcomes are the search's self-play, their targets its moves
    init_checkpoint: str | None = None  # start from these weights (their network: `network`)
    eval_matches: int = 1000  # per opponent, after each epoch: the network alone plays (0:
    # none, for a value network)
    eval_opponents: list[str] = field(default_factory=lambda: ["expert"])
    best_opponent: str | None = "expert"  # keep checkpoints/best.pt: best win rate vs it
    torch_threads: int = 0  # 0: PyTorch's choice
    log_dir: str = "runs"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        if self.algorithm != ALGORITHM:
            raise ConfigError(f"algorithm must be {ALGORITHM!r} here, got {self.algorithm!r}")
        for name in ("decisions", "held_out", "n_envs", "epochs", "batch_size"):
            check_number(name, getattr(self, name), low=1, integer=True)
        check_number("eval_matches", self.eval_matches, low=0, integer=True)
        check_number("search_play_decisions", self.search_play_decisions, low=0, integer=True)
        if self.eval_matches == 0 and self.best_opponent is not None:
            raise ConfigError("eval_matches: 0 plays no evaluation matches, so best_opponent "
                              "must be null (no best.pt is kept)")
        check_number("torch_threads", self.torch_threads, low=0, integer=True)
        check_number("seed", self.seed, low=0, high=MAX_SEED, integer=True)
        for name in ("learning_rate", "max_grad_norm"):
            check_number(name, getattr(self, name), low=0, open_low=True)
        check_number("vf_coef", self.vf_coef, low=0)
        check_number("policy_coef", self.policy_coef, low=0)
        if self.vf_coef == 0 and self.policy_coef == 0:
            raise ConfigError("vf_coef and policy_coef are both 0: nothing would be learned")
        if not isinstance(self.progress_bar, bool):
            raise ConfigError(f"progress_bar must be true or false, got {self.progress_bar!r}")
        if not isinstance(self.network, dict):
            raise ConfigError(f"network must be a mapping (architecture and sizes), got "
                              f"{self.network!r}")
        try:
            build_network(self.network)  # a wrong size or name fails here
        except (CheckpointError, TypeError) as error:
            raise ConfigError(f"network: {error}") from None
        if self.labels not in LABELS:
            raise ConfigError(f"labels must be one of {', '.join(LABELS)}, got {self.labels!r}")
        check_number("search_worlds", self.search_worlds, low=2, integer=True)
        check_number("search_confidence", self.search_confidence, low=0)
        if self.search_evaluator is not None and not isinstance(self.search_evaluator, str):
            raise ConfigError(f"search_evaluator must be a checkpoint path or null, got "
                              f"{self.search_evaluator!r}")
        if self.search_depth is not None:
            check_number("search_depth", self.search_depth, low=1, integer=True)
            if self.search_evaluator is None:
                raise ConfigError("search_depth cuts the search's rollouts short, so it needs "
                                  "search_evaluator: the value network that judges where they "
                                  "stop")
        if self.search_rollout not in ROLLOUTS:
            raise ConfigError(f"search_rollout must be one of {', '.join(ROLLOUTS)}, got "
                              f"{self.search_rollout!r}")
        check_run_settings(self)

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> ImitationConfig:
        return config_from_spec(cls, spec, ALGORITHM)


class ImitationTrainer:
    """The network, its optimizer and schedule, and the epochs done; its data come from
    the run's seed, so a resumed run collects the same decisions again."""

    def __init__(self, cfg: ImitationConfig, run_dir: Path):
        self.cfg, self.run_dir = cfg, run_dir
        self.rules = resolve_rules(cfg.rules)
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(stage_seed(cfg.seed, "init"))
        self.network = build_network(cfg.network)
        if cfg.init_checkpoint is not None:
            payload = load_checkpoint(cfg.init_checkpoint)
            if payload["network"] != cfg.network:
                raise ConfigError(f"init_checkpoint {cfg.init_checkpoint!r} holds the network "
                                  f"{payload['network']!r}, not network {cfg.network!r}")
            self.network.load_state_dict(network_from_payload(payload).state_dict())
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=cfg.learning_rate)
        self.epoch, self.history, self.best_win_rate = 0, [], -1.0
        self.label_stats: dict[str, float] = {}

    def collect(self, progress: Any = None, label_progress: Any = None,
                play_progress: Any = None) -> tuple[dict, dict]:
        """The training decisions and the held-out ones (games of their own seeds); with
        ``labels: search``, the expert decisions' targets are the search's labels; with
        ``search_play_decisions``, the search's self-play decisions follow them."""
        cfg = self.cfg
        train = collect_expert_decisions(self.rules, cfg.decisions, stage_seed(cfg.seed, "train"),
                                         cfg.n_envs, progress=progress)
        held = collect_expert_decisions(self.rules, cfg.held_out,
                                        stage_seed(cfg.seed, "held_out"), cfg.n_envs)
        train["targets"] = train["ties"]
        if cfg.search_play_decisions:
            started = time.perf_counter()
            play = collect_expert_decisions(
                self.rules, cfg.search_play_decisions, stage_seed(cfg.seed, "search_play"),
                min(cfg.n_envs, SEARCH_PLAY_ENVS), progress=play_progress,
                player=self.search_player())
            play["targets"] = played_targets(play)
            rows = np.arange(len(play["action"]))
            self.label_stats.update({
                "play/overridden": float(1.0 - play["ties"][rows, play["action"]].mean()),
                "play/per_second": len(rows) / (time.perf_counter() - started)})
        if cfg.labels == "search":
            started = time.perf_counter()
            labels = search_labels(train, self.rules, cfg.search_worlds, cfg.search_rollout,
                                   cfg.search_confidence, stage_seed(cfg.seed, "search"),
                                   progress=label_progress, evaluator=cfg.search_evaluator,
                                   depth=cfg.search_depth)
            self.label_stats.update({
                "labels/overridden": float(labels["overridden"].mean()),
                "labels/per_second": len(train["action"]) / (time.perf_counter() - started)})
            train["targets"] = labels["targets"]
        if cfg.search_play_decisions:
            train = {key: np.concatenate([train[key], play[key]]) for key in train}
        return train, held

    def search_player(self) -> SearchAgent:
        """The search that plays the self-play games: the run's search settings, its gate
        over the expert's moves."""
        cfg = self.cfg
        return SearchAgent(self.rules, seed=stage_seed(cfg.seed, "search_play"),
                           worlds=cfg.search_worlds, rollout=cfg.search_rollout,
                           confidence=cfg.search_confidence, evaluator=cfg.search_evaluator,
                           depth=cfg.search_depth,
                           prior=ExpertAgent(self.rules, seed=stage_seed(cfg.seed, "prior")))

    def learning_rate(self, step: int, total: int) -> float:
        """A linear warm-up over the first 5 % of the steps, then a cosine decay to zero."""
        warm = max(1, total // 20)
        if step < warm:
            return self.cfg.learning_rate * (step + 1) / warm
        return self.cfg.learning_rate * 0.5 * (1 + math.cos(math.pi * (step - warm)
                                                           / max(1, total - warm)))

    def run_epoch(self, train: dict[str, np.ndarray], on_batch: Any = None) -> dict[str, float]:
        """One pass over ``train`` in an order drawn from the seed and the epoch."""
        cfg, n = self.cfg, len(train["action"])
        size = min(cfg.batch_size, n)
        per_epoch = n // size
        order = np.random.default_rng(stage_seed(cfg.seed, "epoch", self.epoch)).permutation(n)
        self.network.train()
        sums = np.zeros(2)
        for b in range(per_epoch):
            rows = np.sort(order[b * size:(b + 1) * size])
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate(self.epoch * per_epoch + b,
                                                 cfg.epochs * per_epoch)
            logits, value = self.network(torch.as_tensor(train["obs"][rows]),
                                         torch.as_tensor(train["mask"][rows]))
            policy_loss = tie_loss(logits, torch.as_tensor(train["targets"][rows]))
            value_loss = 0.5 * ((value - torch.as_tensor(train["return"][rows])) ** 2).mean()
            self.optimizer.zero_grad()
            (cfg.policy_coef * policy_loss + cfg.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), cfg.max_grad_norm)
            self.optimizer.step()
            sums += (policy_loss.item(), value_loss.item())
            if on_batch is not None:
                on_batch(size)
        self.epoch += 1
        self.network.eval()
        return {"losses/policy_loss": sums[0] / per_epoch, "losses/value_loss": sums[1] / per_epoch}

    def evaluate(self, held: dict[str, np.ndarray]) -> dict[str, float]:
        """Agreement and the value head's fit on the held-out decisions, and the network
        alone (its most likely move) against each evaluation opponent (keeps ``best.pt``)."""
        cfg = self.cfg
        actions, values = predict(self.network, held["obs"], held["mask"], with_values=True)
        metrics = {f"agreement/{k}": v for k, v in agreement(actions, held).items()}
        metrics.update(value_fit(values, held["return"]))
        if cfg.eval_matches:
            played, self.best_win_rate = evaluate_network(
                self.network, cfg, self.rules, stage_seed(cfg.seed, "eval", self.epoch),
                self.best_win_rate, self.run_dir, self.policy())
            metrics.update(played)
        self.history.append(metrics)
        return metrics

    def policy(self) -> dict[str, Any]:
        return {"model": self.network.state_dict(), "network": dict(self.cfg.network),
                "trainer": ALGORITHM, "epoch": self.epoch,
                "value": "the round's change in match-win chance, in [-1, 1]"}

    def save(self) -> None:
        save_checkpoint(self.run_dir / "checkpoints" / "latest.pt", {
            **self.policy(), "optimizer": self.optimizer.state_dict(),
            "config": dataclasses.asdict(self.cfg), "history": self.history,
            "best_win_rate": self.best_win_rate})

    def restore(self, payload: dict[str, Any]) -> None:
        self.network.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.epoch = int(payload["epoch"])
        self.history = list(payload["history"])
        self.best_win_rate = float(payload["best_win_rate"])


def capped(bar: Any) -> Any:
    """A progress callback that stops ``bar`` at its total (a collection keeps whole chunks,
    so it may gather more decisions than it asked for)."""
    return lambda n: bar.update(min(n, bar.total - bar.n))


def saved_imitation_config(run_dir: str | Path) -> dict[str, Any] | None:
    """The config an imitation run wrote into its folder, or None (not such a run)."""
    return marked_config(run_dir, "algorithm", ALGORITHM)


def train_imitation(cfg: ImitationConfig | None, run_dir: str | Path | None = None,
                    resume: str | Path | None = None, changes: dict[str, Any] | None = None,
                    stop_after: int | None = None) -> dict[str, Any]:
    """Run or continue an imitation run (``changes``: the RESUMABLE keys to alter with
    ``resume``); ``stop_after`` ends this call after that many epochs, as an interruption
    would. The run folder: ``config.yaml``, TensorBoard events, ``checkpoints/latest.pt``
    (after each epoch) and ``best.pt``, ``summary.json``."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    cfg, trainer, run_dir = open_run(
        ImitationConfig, cfg, run_dir, resume, changes, ALGORITHM, RESUMABLE, ImitationTrainer,
        lambda cfg, trainer: f"its {cfg.epochs} epochs are done" if trainer.epoch >= cfg.epochs
        else None)
    last = cfg.epochs if stop_after is None else min(cfg.epochs, trainer.epoch + stop_after)
    metrics: dict[str, float] = {}
    writer = SummaryWriter(str(run_dir))
    try:
        with tqdm(total=cfg.decisions, unit="dec", desc="expert games",
                  disable=not cfg.progress_bar, dynamic_ncols=True) as bar, \
                tqdm(unit="dec", desc="search labels", dynamic_ncols=True,
                     disable=not cfg.progress_bar or cfg.labels != "search") as label_bar, \
                tqdm(total=cfg.search_play_decisions, unit="dec", desc="search self-play",
                     dynamic_ncols=True,
                     disable=not cfg.progress_bar or not cfg.search_play_decisions) as play_bar:
            train, held = trainer.collect(progress=capped(bar), label_progress=label_bar.update,
                                          play_progress=capped(play_bar))
        per_epoch = (len(train["action"]) // min(cfg.batch_size, len(train["action"]))
                     * min(cfg.batch_size, len(train["action"])))
        with tqdm(total=cfg.epochs * per_epoch, initial=trainer.epoch * per_epoch, unit="dec",
                  desc="imitation", disable=not cfg.progress_bar, dynamic_ncols=True) as bar:
            while trainer.epoch < last:
                started = time.perf_counter()
                metrics = trainer.run_epoch(train, on_batch=bar.update)
                metrics["charts/SPS"] = per_epoch / (time.perf_counter() - started)
                metrics.update(trainer.label_stats)
                metrics.update(trainer.evaluate(held))
                trainer.save()
                for key, value in metrics.items():
                    writer.add_scalar(key, value, trainer.epoch * per_epoch)
                bar.set_postfix_str(f"agree={metrics['agreement/tie_aware']:.3f} value_ev="
                                    f"{metrics['value/explained_variance']:.3f} " + " ".join(
                    f"{k.rsplit('_', 1)[-1]}={v:.2f}" for k, v in metrics.items()
                    if k.startswith("eval/win_rate")))
    except KeyboardInterrupt:
        raise interrupted_run(run_dir, "the last finished epoch",
                              "the first epoch ended") from None
    finally:
        writer.close()
    return finished_run(run_dir, metrics)
