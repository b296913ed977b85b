"""Masked PPO for Hana-awase with N seats: one learning seat per game, the pool in the others.

The whole algorithm is in this file, CleanRL-style. Each update plays ``rounds_per_update``
whole rounds in every one of ``num_envs`` games (:class:`~hanafuda_env.hanaawase.core.
HanaawaseCore`, matches carried across updates). In game g the learner holds seat
``g mod N``; the other seats are played by opponents drawn for the update from the pool:
the learner itself (sampling from its policy), snapshots of its past selves, and the
heuristic bots named in ``opponents``. A round is an episode: the learner's reward is its
round score minus the round's mean (zero-sum), scaled by ``reward_scale``, paid on its last
decision of the round; advantages are GAE over the learner's own decisions (γ = 1).

Optional warm start: ``warmstart_decisions`` decisions of expert play cloned by
cross-entropy before PPO. Evaluation every ``eval_every`` updates: the learner (greedy) in a
table with N − 1 experts on rotated seats (``agents.eval.hanaawase_matches``); the best
checkpoint follows its mean score per round.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.bots.hanaawase import HANAAWASE_BOTS
from agents.bots.hanaawase_policy import HanaawasePolicyAgent, network_for, policy_payload
from agents.bots.network import sample_actions
from agents.bots.policy import save_checkpoint
from agents.eval.hanaawase_matches import play_hanaawase_matches
from hanafuda_env.hanaawase.core import HanaawaseCore
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.koikoi.state import ROUND_OVER

SELF, PAST = "self", "past"


@dataclass
class HanaawaseConfig:
    """A Hana-awase training run (``game: hanaawase`` in a YAML config for ``train.py``)."""

    game: str = "hanaawase"
    """Which game the config trains: always ``hanaawase`` here (Koi-Koi configs omit it)."""
    exp_name: str = "hanaawase"
    """First part of the run folder's name (``runs/EXP__SEED__TIME``)."""
    seed: int = 1
    """Seeds the games, the network's initial weights and every sample: same seed, same run."""
    log_dir: str = "runs"
    """Folder that holds the run folders."""
    num_players: int = 3
    """Players at the table (2–7)."""
    rules: dict = field(default_factory=dict)
    """Hana-awase options (``hanafuda_env.hanaawase.rules``: rounds and the §3.4 variants)."""
    total_decisions: int = 2_000_000
    """Learner decisions to train for (opponents' decisions are not counted)."""
    num_envs: int = 256
    """Games played side by side."""
    rounds_per_update: int = 1
    """Whole rounds each game plays per update (each round is one episode)."""
    opponents: list = field(default_factory=lambda: [SELF, SELF, PAST, "expert", "greedy"])
    """The pool: each game's opponents for an update are drawn from this list (``self``: the
    learner's current policy, sampled; ``past``: a snapshot; or a bot name)."""
    snapshot_every: int = 10
    """Updates between snapshots of the learner added to the pool (the last 8 are kept)."""
    learning_rate: float = 3e-4
    """Adam's step size, annealed linearly to 0 over the run when ``anneal_lr``."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0."""
    gae_lambda: float = 0.95
    """GAE's λ over the learner's decisions of a round."""
    update_epochs: int = 4
    """Passes over each update's decisions."""
    num_minibatches: int = 4
    """Minibatches per pass."""
    clip_coef: float = 0.2
    """PPO's ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient norm clip."""
    reward_scale: float = 0.01
    """Round rewards (score minus the mean, in points) are multiplied by this."""
    hidden: int = 256
    """Units per hidden layer."""
    layers: int = 2
    """Hidden layers."""
    warmstart_decisions: int = 0
    """Expert decisions cloned before PPO (0: none, the policy starts from scratch)."""
    warmstart_epochs: int = 4
    """Passes over the cloned decisions."""
    warmstart_learning_rate: float = 1e-3
    """Adam's step size for the cloning (its own optimizer; PPO's starts afresh after)."""
    eval_every: int = 20
    """Updates between evaluations against the expert (0: none)."""
    eval_decks: int = 30
    """Deck seeds per evaluation (each played N times, seats rotated)."""
    checkpoint_every: int = 10
    """Updates between checkpoints (``checkpoints/latest.pt``; also at the end)."""
    progress_bar: bool = True
    """Show a tqdm progress bar."""
    torch_threads: int = 1
    """Threads torch may use (small batches: one is fastest, and never slower on a busy
    machine)."""

    def __post_init__(self) -> None:
        from agents.train.config import ConfigError

        if self.game != "hanaawase":
            raise ConfigError(f"game must be 'hanaawase' for this trainer, got {self.game!r}")
        for key in ("seed", "total_decisions", "num_envs", "rounds_per_update", "snapshot_every",
                    "update_epochs", "num_minibatches", "hidden", "layers", "eval_decks",
                    "checkpoint_every", "num_players", "torch_threads", "warmstart_epochs"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < (
                    0 if key == "seed" else 1):
                raise ConfigError(f"config key {key!r} must be a positive integer, got {value!r}")
        for key in ("warmstart_decisions", "eval_every"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"config key {key!r} must be an integer ≥ 0, got {value!r}")
        for key in ("learning_rate", "gae_lambda", "clip_coef", "ent_coef", "vf_coef",
                    "max_grad_norm", "reward_scale", "warmstart_learning_rate"):
            value = getattr(self, key)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"config key {key!r} must be a number ≥ 0, got {value!r}")
        allowed = [SELF, PAST, *HANAAWASE_BOTS]
        if not isinstance(self.opponents, list) or not self.opponents or any(
                o not in allowed for o in self.opponents):
            raise ConfigError(f"config key 'opponents' must be a non-empty list of "
                              f"{', '.join(allowed)}; got {self.opponents!r}")
        if not isinstance(self.rules, dict):
            raise ConfigError(f"config key 'rules' must be a mapping of Hana-awase options, "
                              f"got {self.rules!r}")
        self.resolved_rules()  # a bad option fails now, by name

    def resolved_rules(self) -> HanaawaseRules:
        return resolve_hanaawase_rules(self.rules, num_players=self.num_players)

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> HanaawaseConfig:
        from agents.train.config import ConfigError

        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(spec) - set(names))
        if unknown:
            raise ConfigError(f"unknown config key(s) {', '.join(map(repr, unknown))}; allowed "
                              f"keys: {', '.join(names)}")
        return cls(**spec)


class HanaawaseTrainer:
    """The state of a run: network, optimizer, the games, the pool and the counters."""

    def __init__(self, cfg: HanaawaseConfig):
        self.cfg = cfg
        self.rules = cfg.resolved_rules()
        self.n = self.rules.num_players
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.net = network_for(self.n, cfg.hidden, cfg.layers, self.rules.card_points)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.generator = torch.Generator().manual_seed(cfg.seed)
        self.core = HanaawaseCore(cfg.num_envs, self.rules, seed=cfg.seed)
        self.learner_seat = np.arange(cfg.num_envs) % self.n
        self.bots = {name: HANAAWASE_BOTS[name](self.rules, seed=cfg.seed + k)
                     for k, name in enumerate(HANAAWASE_BOTS)}
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self.past = network_for(self.n, cfg.hidden, cfg.layers, self.rules.card_points)
        self.update = 0
        self.global_step = 0
        self.warm_started = cfg.warmstart_decisions == 0
        self.best_score = -np.inf
        decisions_per_update = cfg.num_envs * cfg.rounds_per_update * self.rules.hand_size
        self.n_updates = max(1, -(-cfg.total_decisions // decisions_per_update))

    # ------------------------------------------------------------------- rollouts
    def _opponent_actions(self, kinds: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                          games: np.ndarray) -> np.ndarray:
        """Actions of the opponents moving in ``games`` (kinds: index into cfg.opponents)."""
        out = np.zeros(len(games), dtype=np.int64)
        for k, name in enumerate(self.cfg.opponents):
            rows = np.flatnonzero(kinds == k)
            if not len(rows):
                continue
            o, m = obs[games[rows]], mask[games[rows]]
            if name in (SELF, PAST):
                net = self.net if name == SELF or not self.snapshots else self.past
                with torch.no_grad():
                    logits, _ = net(torch.as_tensor(o), torch.as_tensor(m))
                out[rows] = sample_actions(logits, self.generator).numpy()
            else:
                out[rows] = self.bots[name].act(o, m)
        return out

    def collect(self) -> dict[str, Any]:
        """Play ``rounds_per_update`` whole rounds in every game; the learner's decisions."""
        cfg, core = self.cfg, self.core
        if self.snapshots:
            self.past.load_state_dict(self.snapshots[int(self.rng.integers(len(self.snapshots)))])
        kinds = self.rng.integers(len(cfg.opponents), size=cfg.num_envs)
        rounds_left = np.full(cfg.num_envs, cfg.rounds_per_update)
        buffer: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "logp", "value",
                                                   "game")}
        last = np.full(cfg.num_envs, -1)  # index of each game's latest learner decision
        rewards: dict[int, float] = {}
        ends: set[int] = set()
        scores, firsts = [], []
        while True:
            live = np.flatnonzero(core.phase < ROUND_OVER)
            if not len(live):
                break
            obs = core.observe()
            mask = core.legal_action_mask()
            actions = np.full(cfg.num_envs, -1, dtype=np.int64)
            mine = live[core.mover[live] == self.learner_seat[live]]
            theirs = live[core.mover[live] != self.learner_seat[live]]
            if len(mine):
                with torch.no_grad():
                    logits, values = self.net(torch.as_tensor(obs[mine]),
                                              torch.as_tensor(mask[mine]))
                chosen = sample_actions(logits, self.generator)
                logp = torch.log_softmax(logits, -1).gather(1, chosen[:, None])[:, 0]
                actions[mine] = chosen.numpy()
                start = len(buffer["game"])
                buffer["obs"].append(obs[mine])
                buffer["mask"].append(mask[mine])
                buffer["action"].append(chosen.numpy())
                buffer["logp"].append(logp.numpy())
                buffer["value"].append(values.numpy())
                buffer["game"].extend(mine.tolist())
                last[mine] = start + np.arange(len(mine))
            if len(theirs):
                actions[theirs] = self._opponent_actions(kinds[theirs], obs, mask, theirs)
            out = core.step(actions)
            for row, g in zip(out.rows, out.row_games):
                seat = self.learner_seat[g]
                rewards[int(last[g])] = float(out.rewards[g, seat]) * cfg.reward_scale
                ends.add(int(last[g]))
                scores.append(float(row["score"][seat]))
                if row["match_over"]:
                    final = row["match_scores"][:self.n]
                    best = final == final.max()
                    firsts.append(float(best[seat]) / best.sum())
                rounds_left[g] -= 1
            again = out.row_games[rounds_left[out.row_games] > 0]
            if len(again):
                core.deal_next(again)
        done = np.flatnonzero(rounds_left <= 0)
        core.deal_next(done[core.round_over[done]])  # the next update starts a fresh round
        steps = len(buffer["game"])
        batch = {k: np.concatenate(v) if k != "game" else np.array(v)
                 for k, v in buffer.items()}
        batch["reward"] = np.zeros(steps, dtype=np.float32)
        batch["end"] = np.zeros(steps, dtype=bool)
        for i, r in rewards.items():
            batch["reward"][i] = r
        batch["end"][list(ends)] = True
        batch["advantage"], batch["return"] = self._gae(batch)
        return {"batch": batch, "scores": scores, "firsts": firsts}

    def _gae(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """GAE over each game's decisions in order (γ = 1; a round's last decision ends it)."""
        lam = self.cfg.gae_lambda
        adv = np.zeros(len(batch["game"]), dtype=np.float32)
        next_value = np.zeros(self.cfg.num_envs, dtype=np.float32)
        next_adv = np.zeros(self.cfg.num_envs, dtype=np.float32)
        for i in range(len(adv) - 1, -1, -1):
            g = batch["game"][i]
            if batch["end"][i]:
                next_value[g], next_adv[g] = 0.0, 0.0
            delta = batch["reward"][i] + next_value[g] - batch["value"][i]
            adv[i] = next_adv[g] = delta + lam * next_adv[g]
            next_value[g] = batch["value"][i]
        return adv, adv + batch["value"]

    # --------------------------------------------------------------------- update
    def learn(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        cfg = self.cfg
        if cfg.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = cfg.learning_rate * (
                1.0 - self.update / self.n_updates)
        tensors = {k: torch.as_tensor(batch[k]) for k in ("obs", "mask", "action", "logp",
                                                          "advantage", "return", "value")}
        size = len(batch["game"])
        minibatch = max(1, size // cfg.num_minibatches)
        stats: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy",
                                                         "approx_kl", "clipfrac")}
        for _ in range(cfg.update_epochs):
            order = torch.randperm(size, generator=self.generator)
            for start in range(0, size, minibatch):
                idx = order[start:start + minibatch]
                logits, values = self.net(tensors["obs"][idx], tensors["mask"][idx])
                logp_all = torch.log_softmax(logits, -1)
                logp = logp_all.gather(1, tensors["action"][idx, None])[:, 0]
                ratio = (logp - tensors["logp"][idx]).exp()
                adv = tensors["advantage"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(
                    1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                value_loss = 0.5 * ((values - tensors["return"][idx]) ** 2).mean()
                probs = logp_all.exp()
                entropy = -(probs * logp_all.clamp(min=-30)).sum(-1).mean()
                loss = policy_loss - cfg.ent_coef * entropy + cfg.vf_coef * value_loss
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    log_ratio = logp - tensors["logp"][idx]
                    stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    stats["clipfrac"].append(float(((ratio - 1).abs() > cfg.clip_coef)
                                                   .float().mean()))
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
                stats["entropy"].append(entropy.item())
        return {f"losses/{k}": float(np.mean(v)) for k, v in stats.items()}

    def warm_start(self, writer: Any) -> None:
        """Clone the expert: every seat plays expert moves; cross-entropy on them, and the
        value head fitted to each decision's round reward (γ = 1), so that PPO starts with a
        critic that fits the cloned policy instead of one that unlearns it."""
        cfg = self.cfg
        core = HanaawaseCore(cfg.num_envs, self.rules, seed=cfg.seed + 7)
        expert = self.bots["expert"]
        obs_rows, mask_rows, actions = [], [], []
        returns: list[float] = []
        open_rounds: dict[tuple[int, int], list[int]] = {}  # (game, seat) -> decision rows
        while len(returns) < cfg.warmstart_decisions or open_rounds:
            live = np.flatnonzero(core.phase < ROUND_OVER)
            if not len(live):
                core.deal_next(np.flatnonzero(core.round_over))
                continue
            obs, mask = core.observe(), core.legal_action_mask()
            act = np.full(cfg.num_envs, -1, dtype=np.int64)
            act[live] = expert.act(obs[live], mask[live])
            for g in live:
                open_rounds.setdefault((int(g), int(core.mover[g])), []).append(len(returns))
                returns.append(0.0)
            obs_rows.append(obs[live])
            mask_rows.append(mask[live])
            actions.append(act[live])
            out = core.step(act)
            for g in out.row_games:
                for seat in range(self.n):
                    for row in open_rounds.pop((int(g), seat), []):
                        returns[row] = float(out.rewards[g, seat]) * cfg.reward_scale
            if len(returns) < cfg.warmstart_decisions:
                core.deal_next(np.flatnonzero(core.round_over))
        data = [torch.as_tensor(np.concatenate(x)) for x in (obs_rows, mask_rows, actions)]
        target = torch.as_tensor(np.array(returns, dtype=np.float32))
        size = len(target)
        optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.warmstart_learning_rate)
        for epoch in range(cfg.warmstart_epochs):
            order = torch.randperm(size, generator=self.generator)
            losses, value_losses = [], []
            for start in range(0, size, 1024):
                idx = order[start:start + 1024]
                logits, values = self.net(data[0][idx], data[1][idx])
                loss = nn.functional.cross_entropy(logits, data[2][idx])
                value_loss = 0.5 * ((values - target[idx]) ** 2).mean()
                optimizer.zero_grad()
                (loss + cfg.vf_coef * value_loss).backward()
                optimizer.step()
                losses.append(loss.item())
                value_losses.append(value_loss.item())
            writer.add_scalar("warmstart/cross_entropy", float(np.mean(losses)), epoch)
            writer.add_scalar("warmstart/value_loss", float(np.mean(value_losses)), epoch)
        self.warm_started = True

    def evaluate(self) -> dict[str, float]:
        agent = HanaawasePolicyAgent(self.net, self.rules, name="learner")
        others = [HANAAWASE_BOTS["expert"](self.rules, seed=k) for k in range(self.n - 1)]
        row = play_hanaawase_matches([agent, *others], self.cfg.eval_decks, self.rules,
                                     seed=self.cfg.seed + 10_000)[0]
        self.net.train()
        return {"eval/mean_score_vs_expert": row["mean_score"]["mean"],
                "eval/first_place_vs_expert": row["first_place"]["value"]}

    # ---------------------------------------------------------------- checkpoints
    def save(self, path: Path) -> None:
        save_checkpoint(path, {
            **policy_payload(self.net, self.rules),
            "optimizer": self.optimizer.state_dict(), "update": self.update,
            "global_step": self.global_step, "best_score": float(self.best_score),
            "snapshots": self.snapshots, "records": torch.as_tensor(
                self.core.records.view(np.uint8).copy()),
            "numpy_rng": _rng_state(self.rng), "torch_generator": self.generator.get_state(),
            "bot_rngs": {name: _rng_state(bot.rng) for name, bot in self.bots.items()},
            "torch_rng": torch.get_rng_state(), "warm_started": self.warm_started,
            "config": dataclasses.asdict(self.cfg)})

    def restore(self, payload: dict[str, Any]) -> None:
        from agents.bots.hanaawase_policy import network_from_payload

        net = network_from_payload(payload, "latest.pt", self.n, self.rules.card_points)
        self.net.load_state_dict(net.state_dict())
        self.net.train()
        self.optimizer.load_state_dict(payload["optimizer"])
        self.update, self.global_step = int(payload["update"]), int(payload["global_step"])
        self.best_score = float(payload["best_score"])
        self.snapshots = list(payload["snapshots"])
        records = payload["records"].numpy().view(self.core.records.dtype)
        self.core.load_state_dict({"rules": self.rules.to_dict(), "records": records})
        self.rng.bit_generator.state = _rng_from(payload["numpy_rng"])
        for name, state in payload["bot_rngs"].items():
            self.bots[name].rng.bit_generator.state = _rng_from(state)
        self.generator.set_state(payload["torch_generator"])
        torch.set_rng_state(payload["torch_rng"])
        self.warm_started = bool(payload["warm_started"])


def _rng_state(rng: np.random.Generator) -> dict[str, Any]:
    state = rng.bit_generator.state
    return {"bit_generator": state["bit_generator"], "key": str(state["state"]["state"]),
            "inc": str(state["state"]["inc"]), "has_uint32": state["has_uint32"],
            "uinteger": state["uinteger"]}


def _rng_from(saved: dict[str, Any]) -> dict[str, Any]:
    return {"bit_generator": saved["bit_generator"], "has_uint32": saved["has_uint32"],
            "uinteger": saved["uinteger"],
            "state": {"state": int(saved["key"]), "inc": int(saved["inc"])}}


def run_updates(trainer: HanaawaseTrainer, writer: Any, run_dir: Path,
                last_update: int | None = None) -> dict[str, float]:
    """PPO updates until ``last_update`` (default: the run's end), logging and saving."""
    from tqdm import tqdm

    cfg = trainer.cfg
    last_update = trainer.n_updates if last_update is None else last_update
    metrics: dict[str, float] = {}
    bar = tqdm(total=trainer.n_updates, initial=trainer.update, disable=not cfg.progress_bar,
               unit="update", dynamic_ncols=True)
    checkpoints = run_dir / "checkpoints"
    while trainer.update < last_update:
        started = time.perf_counter()
        played = trainer.collect()
        batch = played["batch"]
        metrics = trainer.learn(batch)
        trainer.update += 1
        trainer.global_step += len(batch["game"])
        metrics["charts/SPS"] = len(batch["game"]) / (time.perf_counter() - started)
        metrics["charts/learning_rate"] = trainer.optimizer.param_groups[0]["lr"]
        metrics["charts/mean_score"] = float(np.mean(played["scores"]))
        if played["firsts"]:
            metrics["charts/first_place_rate"] = float(np.mean(played["firsts"]))
        if trainer.update % cfg.snapshot_every == 0:
            trainer.snapshots = [*trainer.snapshots[-7:], {
                k: v.detach().clone() for k, v in trainer.net.state_dict().items()}]
        if cfg.eval_every and (trainer.update % cfg.eval_every == 0
                               or trainer.update == trainer.n_updates):
            metrics.update(trainer.evaluate())
            score = metrics["eval/mean_score_vs_expert"]
            if score > trainer.best_score:
                trainer.best_score = score
                save_checkpoint(checkpoints / "best.pt", policy_payload(trainer.net,
                                                                        trainer.rules))
        for key, value in metrics.items():
            writer.add_scalar(key, value, trainer.global_step)
        if trainer.update % cfg.checkpoint_every == 0 or trainer.update == last_update:
            trainer.save(checkpoints / "latest.pt")
        bar.update(1)
        bar.set_postfix_str(f"SPS={metrics['charts/SPS']:,.0f} "
                            f"score={metrics['charts/mean_score']:+.1f}")
    bar.close()
    return metrics
