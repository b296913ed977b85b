"""Expert iteration (Anthony, Tian and Barber 2017, "Thinking fast and slow"): a search bot
plays, the network learns what the search chose, and the next search is guided by the network.

One iteration:

1. **Search games.** The ISMCTS bot (:mod:`agents.bots.ismcts`, compiled rollouts) plays
   ``matches_per_iteration`` whole matches against itself. Its prior is the network trained so
   far (from the second iteration on, or from the start with ``init_checkpoint``), else
   ``first_prior`` (the expert heuristic, or none). Every decision with a choice is kept:
   the observation, the mask, the root's visit distribution (the policy target) and, once
   the round ends, the round's outcome for the seat that decided: the match-win value of the
   margin after the round (:func:`hanafuda_env.envs.rewards.match_values`, in [-1, 1]; the value
   target).
2. **Distillation.** The network is trained on the last ``replay_iterations`` iterations'
   decisions: cross-entropy to the visit distribution plus ``vf_coef`` times the squared
   error of the value head.
3. **Evaluation.** The network alone (its most likely move, no search) plays
   ``eval_matches`` paired matches against each of ``eval_opponents``.

The run folder is the PPO trainer's: ``config.yaml``, TensorBoard events, each iteration's
decisions in ``data/``, ``checkpoints/latest.pt`` (the training state; a policy checkpoint
that plays as any trained bot) and ``best.pt`` (the iteration that did best against
``best_opponent``). Every random number of an iteration comes from the run's seed and the
iteration's number, so a run stopped and resumed (at an iteration's boundary: an interrupted
iteration is played again) ends with the same weights as one run straight through.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.base import MAX_SEED
from agents.bots.ismcts import ISMCTSAgent, visit_distribution
from agents.bots.network import ActorCritic, CardFeatures
from agents.bots.policy import (
    CheckpointError,
    PolicyAgent,
    load_checkpoint,
    network_from_payload,
    save_checkpoint,
)
from agents.bots.search import ROLLOUTS
from agents.train.config import (
    ConfigError,
    check_network_size,
    check_number,
)
from agents.train.run import (
    finished_run,
    interrupted_run,
    marked_config,
)
from agents.train.run_parts import (
    check_run_settings,
    config_from_spec,
    evaluate_network,
    open_run,
)
from hanafuda_env.common.files import atomic_write_bytes
from hanafuda_env.envs.rewards import DEFAULT_ROUND_SIGMA, match_value
from hanafuda_env.koikoi.core import MATCH_OVER, NUM_ACTIONS, ROUND_OVER, KoiKoiCore
from hanafuda_env.koikoi.observation import OBS_DIM, encode_observations
from hanafuda_env.koikoi.rules import RuleSet, resolve_rules

ALGORITHM = "expert_iteration"
RESUMABLE = ("iterations", "progress_bar")
# The stages a run draws random numbers for (from "train" on: agents.train.imitation's).
STAGES = ("init", "search", "games", "fit", "eval", "train", "held_out", "epoch",
          "search_play", "prior")  # append only: an index is part of every seed


def stage_seed(seed: int, stage: str, iteration: int = 0) -> int:
    """The seed of one stage of one iteration, from the run's seed alone (exact resumes)."""
    words = np.random.SeedSequence([seed, STAGES.index(stage), iteration]).generate_state(2)
    return int(words[0]) << 31 | int(words[1]) >> 1


@dataclass
class ExItConfig:
    """Every setting of an expert-iteration run (YAML keys have these names)."""

    algorithm: str = ALGORITHM  # marks the config as this trainer's for train.py
    exp_name: str = "exit"
    seed: int = 1
    rules: Any = "nintendo"  # preset name, mapping of rule options, or YAML path
    iterations: int = 4  # search games, then distillation, this many times
    matches_per_iteration: int = 32  # self-play matches of the search bot per iteration
    search_iterations: int = 128  # the ISMCTS budget: worlds (and rollouts) per decision
    search_wave: int = 64  # worlds walked and rolled out together
    exploration: float = 0.7  # UCB1 / PUCT exploration constant
    rollout: str = "expert"  # the compiled policy of the search's rollouts
    first_prior: str | None = "expert"  # the first search's prior without init_checkpoint
    round_sigma: float = DEFAULT_ROUND_SIGMA  # the match-win value's spread of one round
    replay_iterations: int = 2  # the network learns from this many latest iterations' games
    epochs: int = 4  # passes over those decisions per iteration
    batch_size: int = 256
    learning_rate: float = 1e-3
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    layers: int = 2
    card_features: bool = True  # agents.bots.network.CardFeatures in front of the MLP
    init_checkpoint: str | None = None  # start from these weights (and search with them)
    eval_matches: int = 200  # per opponent and iteration; the network alone plays
    eval_opponents: list[str] = field(default_factory=lambda: ["greedy", "expert"])
    best_opponent: str | None = "expert"  # keep checkpoints/best.pt: best win rate vs it
    torch_threads: int = 1
    log_dir: str = "runs"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        if self.algorithm != ALGORITHM:
            raise ConfigError(f"algorithm must be {ALGORITHM!r} here, got {self.algorithm!r}")
        for name in ("iterations", "matches_per_iteration", "search_iterations", "search_wave",
                     "replay_iterations", "epochs", "batch_size", "hidden", "layers",
                     "eval_matches", "torch_threads"):
            check_number(name, getattr(self, name), low=1, integer=True)
        check_number("seed", self.seed, low=0, high=MAX_SEED, integer=True)
        for name in ("learning_rate", "max_grad_norm", "round_sigma"):
            check_number(name, getattr(self, name), low=0, open_low=True)
        for name in ("exploration", "vf_coef"):
            check_number(name, getattr(self, name), low=0)
        for name in ("card_features", "progress_bar"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be true or false, got {getattr(self, name)!r}")
        check_network_size(self.hidden, self.layers,
                           OBS_DIM + (CardFeatures.size if self.card_features else 0))
        if self.rollout not in ROLLOUTS:
            raise ConfigError(f"rollout must be one of {', '.join(ROLLOUTS)}, got "
                              f"{self.rollout!r}")
        if self.first_prior not in (None, "expert"):
            raise ConfigError(f"first_prior must be 'expert' or null, got {self.first_prior!r}")
        check_run_settings(self)

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> ExItConfig:
        return config_from_spec(cls, spec, ALGORITHM)


# ------------------------------------------------------------------ 1. search games
def play_search_games(search: ISMCTSAgent, rules: RuleSet, n_matches: int, seed: int,
                      sigma: float, on_match: Any = None) -> dict[str, np.ndarray]:
    """``n_matches`` matches of the search bot against itself; its decisions with a choice:
    ``obs``, ``mask``, ``target`` (visit distribution), ``choice``, ``value`` (the round's
    outcome for the deciding seat), ``seat``, ``game`` and ``round`` (its index in the match)."""
    core = KoiKoiCore(n_matches, rules, seed=seed, autoreset=False)
    scale = sigma * rules.point_unit
    kept: dict[str, list] = {k: [] for k in ("obs", "mask", "target", "choice", "seat", "game",
                                             "round")}
    values: list[float] = []
    open_rows: list[list[int]] = [[] for _ in range(n_matches)]  # this round's decisions
    while True:
        live = np.flatnonzero(core.phase < ROUND_OVER)
        if not len(live):
            break
        obs, mask = encode_observations(core)[live], core.legal_action_mask()[live]
        actions = search.act(obs, mask)
        report = search.last_search
        for k, g in enumerate(live.tolist()):
            if mask[k].sum() > 1:
                open_rows[g].append(len(values))
                values.append(0.0)
                for key, item in (("obs", obs[k]), ("mask", mask[k]),
                                  ("target", visit_distribution(report, k, NUM_ACTIONS)),
                                  ("choice", actions[k]), ("seat", core.mover[g]),
                                  ("game", g), ("round", core.round_index[g])):
                    kept[key].append(item)
            if core.advance(g, int(actions[k])):
                margin = float(core.match_score[g, 0])
                left = 0 if core.phase[g] == MATCH_OVER else rules.rounds - int(
                    core.round_index[g])
                won = match_value(margin, left, scale)
                for row in open_rows[g]:
                    values[row] = won if kept["seat"][row] == 0 else -won
                open_rows[g] = []
                while core.phase[g] == ROUND_OVER:  # a dealt hand yaku ends a round at once
                    core.deal_next([g])
                if core.phase[g] == MATCH_OVER and on_match is not None:
                    on_match()
    return {"obs": np.array(kept["obs"], dtype=np.float32).reshape(-1, OBS_DIM),
            "mask": np.array(kept["mask"], dtype=bool).reshape(-1, NUM_ACTIONS),
            "target": np.array(kept["target"], dtype=np.float32).reshape(-1, NUM_ACTIONS),
            "choice": np.array(kept["choice"], dtype=np.int64),
            "value": np.array(values, dtype=np.float32),
            "seat": np.array(kept["seat"], dtype=np.int8),
            "game": np.array(kept["game"], dtype=np.int32),
            "round": np.array(kept["round"], dtype=np.int32)}


# ------------------------------------------------------------------ 2. distillation
def distil(network: ActorCritic, optimizer: torch.optim.Optimizer, data: dict[str, np.ndarray],
           cfg: ExItConfig, generator: torch.Generator) -> dict[str, float]:
    """``cfg.epochs`` passes of minibatch descent on the search's decisions; the last
    epoch's mean losses and the network's agreement with the search's choices."""
    obs, mask = torch.as_tensor(data["obs"]), torch.as_tensor(data["mask"])
    target, value = torch.as_tensor(data["target"]), torch.as_tensor(data["value"])
    n = len(obs)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    sums = {"policy": 0.0, "value": 0.0}
    for _ in range(cfg.epochs):
        sums = {"policy": 0.0, "value": 0.0}
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, cfg.batch_size):
            idx = order[start:start + cfg.batch_size]
            logits, predicted = network(obs[idx], mask[idx])
            log_probs = torch.log_softmax(logits, dim=-1)
            policy_loss = -(target[idx] * log_probs).sum(-1).mean()
            value_loss = 0.5 * ((predicted - value[idx]) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + cfg.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            sums["policy"] += policy_loss.item() * len(idx)
            sums["value"] += value_loss.item() * len(idx)
    return {"losses/policy_loss": sums["policy"] / n, "losses/value_loss": sums["value"] / n,
            "losses/agreement": agreement(network, data)}


@torch.no_grad()
def agreement(network: ActorCritic, data: dict[str, np.ndarray]) -> float:
    """How often the network's most likely move is the search's choice."""
    logits, _ = network(torch.as_tensor(data["obs"]), torch.as_tensor(data["mask"]))
    return float((logits.argmax(-1).numpy() == data["choice"]).mean())


# ------------------------------------------------------------------ the run
class ExItTrainer:
    """The network, its optimizer and the iteration count of a run in ``run_dir``."""

    def __init__(self, cfg: ExItConfig, run_dir: Path):
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(stage_seed(cfg.seed, "init"))
        self.cfg, self.run_dir = cfg, run_dir
        self.rules = resolve_rules(cfg.rules)
        self.net_kwargs = {"hidden": cfg.hidden, "layers": cfg.layers,
                           "card_features": cfg.card_features}
        self.network = ActorCritic(**self.net_kwargs)
        self.guided = cfg.init_checkpoint is not None  # the network is the search's prior
        if self.guided:
            start = network_from_payload(load_checkpoint(cfg.init_checkpoint))
            try:
                self.network.load_state_dict(start.state_dict())
            except RuntimeError as error:
                raise ConfigError(f"init_checkpoint {cfg.init_checkpoint!r} does not fit "
                                  f"hidden={cfg.hidden}, layers={cfg.layers}, card_features="
                                  f"{cfg.card_features}: {error}") from None
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=cfg.learning_rate)
        self.iteration, self.decisions = 0, 0
        self.history: list[dict[str, float]] = []
        self.best_win_rate = -1.0

    def searcher(self) -> ISMCTSAgent:
        cfg = self.cfg
        prior: Any = cfg.first_prior
        if self.iteration > 0 or self.guided:
            prior = PolicyAgent(self.network, name="prior")
        return ISMCTSAgent(self.rules, seed=stage_seed(cfg.seed, "search", self.iteration),
                           iterations=cfg.search_iterations, wave=cfg.search_wave,
                           exploration=cfg.exploration, rollout=cfg.rollout, prior=prior,
                           round_sigma=cfg.round_sigma)

    def _replayed(self, end: int) -> range:
        """The iterations whose games the distillation ending at ``end`` (exclusive) uses."""
        return range(max(0, end - self.cfg.replay_iterations), end)

    def data_path(self, iteration: int) -> Path:
        return self.run_dir / "data" / f"iteration_{iteration:04d}.npz"

    def run_iteration(self, on_match: Any = None) -> dict[str, float]:
        cfg = self.cfg
        started = time.perf_counter()
        self.network.eval()
        data = play_search_games(self.searcher(), self.rules, cfg.matches_per_iteration,
                                 stage_seed(cfg.seed, "games", self.iteration),
                                 cfg.round_sigma, on_match)
        searched = time.perf_counter() - started
        before = agreement(self.network, data)  # before it learns these games
        self._save_data(data)
        replay = [np.load(self.data_path(k)) for k in self._replayed(self.iteration + 1)]
        train_on = {key: np.concatenate([part[key] for part in replay]) for key in data}
        self.network.train()
        generator = torch.Generator().manual_seed(stage_seed(cfg.seed, "fit", self.iteration))
        metrics = distil(self.network, self.optimizer, train_on, cfg, generator)
        self.network.eval()
        self.iteration += 1
        self.decisions += len(data["choice"])
        metrics.update({"charts/search_decisions": float(len(data["choice"])),
                        "charts/search_decisions_per_s": len(data["choice"]) / max(searched,
                                                                                   1e-9),
                        "charts/agreement_before": before,
                        "charts/mean_outcome_seat0": float(
                            data["value"][data["seat"] == 0].mean()) if len(data["value"])
                        else 0.0})
        metrics.update(self.evaluate())
        self.history.append({"iteration": float(self.iteration), **metrics})
        self.save()
        return metrics

    def _save_data(self, data: dict[str, np.ndarray]) -> None:
        import io

        buffer = io.BytesIO()
        np.savez_compressed(buffer, **data)
        atomic_write_bytes(self.data_path(self.iteration), buffer.getvalue())

    def evaluate(self) -> dict[str, float]:
        """The network alone against each evaluation opponent (keeps ``best.pt``)."""
        cfg = self.cfg
        metrics, self.best_win_rate = evaluate_network(
            self.network, cfg, self.rules, stage_seed(cfg.seed, "eval", self.iteration),
            self.best_win_rate, self.run_dir, self._policy())
        return metrics

    def _policy(self) -> dict[str, Any]:
        return {"model": self.network.state_dict(), "network": self.net_kwargs,
                "trainer": ALGORITHM, "iteration": self.iteration,
                "value": "match-win value of the round's end, in [-1, 1]"}

    def save(self) -> None:
        save_checkpoint(self.run_dir / "checkpoints" / "latest.pt", {
            **self._policy(), "optimizer": self.optimizer.state_dict(),
            "config": dataclasses.asdict(self.cfg), "decisions": self.decisions,
            "history": self.history, "best_win_rate": self.best_win_rate})

    def restore(self, payload: dict[str, Any]) -> None:
        self.network.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.iteration, self.decisions = int(payload["iteration"]), int(payload["decisions"])
        self.history = list(payload["history"])
        self.best_win_rate = float(payload["best_win_rate"])
        missing = [k for k in self._replayed(self.iteration + 1)[:-1]
                   if not self.data_path(k).is_file()]
        if missing:
            raise CheckpointError(f"{str(self.run_dir)!r} lacks the search games of iteration(s) "
                                  f"{missing} (data/) that its next distillation learns from")


def saved_exit_config(run_dir: str | Path) -> dict[str, Any] | None:
    """The config an expert-iteration run wrote into its folder, or None (not such a run)."""
    return marked_config(run_dir, "algorithm", ALGORITHM)


def train_exit(cfg: ExItConfig | None, run_dir: str | Path | None = None,
               resume: str | Path | None = None, changes: dict[str, Any] | None = None,
               stop_after: int | None = None) -> dict[str, Any]:
    """Run or continue an expert-iteration run; ``changes`` (with ``resume``): the RESUMABLE
    keys to alter. ``stop_after`` ends this call after that many iterations, as an
    interruption would."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    cfg, trainer, run_dir = open_run(
        ExItConfig, cfg, run_dir, resume, changes, ALGORITHM, RESUMABLE, ExItTrainer,
        lambda cfg, trainer: "give a larger iterations=N to train it further"
        if trainer.iteration >= cfg.iterations else None)
    writer = SummaryWriter(str(run_dir), purge_step=trainer.decisions + 1 if resume else None)
    last = cfg.iterations if stop_after is None else min(cfg.iterations,
                                                         trainer.iteration + stop_after)
    metrics: dict[str, float] = {}
    try:
        with tqdm(total=cfg.iterations * cfg.matches_per_iteration,
                  initial=trainer.iteration * cfg.matches_per_iteration, unit="match",
                  disable=not cfg.progress_bar, dynamic_ncols=True) as bar:
            while trainer.iteration < last:
                metrics = trainer.run_iteration(on_match=lambda: bar.update(1))
                for key, value in metrics.items():
                    writer.add_scalar(key, value, trainer.decisions)
                bar.set_postfix_str(" ".join(f"{k.rsplit('_', 1)[-1]}={v:.2f}"
                                             for k, v in metrics.items()
                                             if k.startswith("eval/win_rate")))
    except KeyboardInterrupt:
        raise interrupted_run(run_dir, "the last finished iteration",
                              "the run's first iteration ended") from None
    finally:
        writer.close()
    return finished_run(run_dir, metrics)
