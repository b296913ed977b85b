"""Warm start: teach the network a teacher's moves before self-play begins (either game: the
game's trainer supplies the teacher's decisions, ``teacher_batches``).

PPO from scratch spends most of a short budget rediscovering what a heuristic already
knows (take brights, stop with a safe lead). Cloning the teacher first — cross-entropy on its
legal-masked choices, the value head regressed on the Monte Carlo episode returns of the same
games — hands PPO a policy at the teacher's level, and self-play then improves on it. A
privileged critic (``critic: privileged``) is regressed on the same returns from its own
input, so PPO does not start with an untrained baseline. The teacher is an agent playing
both seats, or the players of recorded games (``warmstart_records``: behaviour cloning from
game records, human ones included). Koi-Koi's teacher games and records are collected here;
Hana-awase's in :mod:`agents.train.hanaawase`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.bots.base import AgentLike
from agents.bots.network import ActorCritic
from agents.train.config import ConfigError, PPOConfig
from agents.train.critic import CRITIC_INPUT_DIM, Critic, critic_input
from agents.train.ppo import compute_gae, minibatches  # the same credit assignment as training
from hanafuda_env.envs.rewards import ROW_FIELDS, paid_rows
from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import encode_game
from hanafuda_env.koikoi.records import RecordError, read_record, record_files, replay
from hanafuda_env.koikoi.rules import RuleSet

if TYPE_CHECKING:
    from agents.train.ppo import Trainer


def collect_teacher_games(env: KoiKoiVectorEnv, teacher: AgentLike, n_steps: int,
                          reward_scale: float, with_hidden: bool = False, gamma: float = 1.0
                          ) -> dict[str, np.ndarray]:
    """``n_steps`` decisions per game with the teacher on both seats, plus each decision's
    return (the rest of its seat's episode reward, discounted by ``gamma`` per decision of
    that seat, as PPO's value targets are) and, ``with_hidden``, the privileged critic's
    input (observation and hidden cards)."""
    n = env.n_envs
    obs, mask, seat = env.observe(env.core.mover), env.core.legal_action_mask(), env.core.mover
    data = {"obs": np.zeros((n_steps, n, obs.shape[1]), dtype=np.float32),
            "mask": np.zeros((n_steps, n, mask.shape[1]), dtype=bool),
            "action": np.zeros((n_steps, n), dtype=np.int64),
            "seat": np.zeros((n_steps, n), dtype=np.int64),
            "reward": np.zeros((n_steps, n, 2), dtype=np.float32),
            "done": np.zeros((n_steps, n), dtype=bool)}
    if with_hidden:
        data["critic_obs"] = np.zeros((n_steps, n, CRITIC_INPUT_DIM), dtype=np.float32)
    for t in range(n_steps):
        if with_hidden:
            data["critic_obs"][t] = critic_input(obs, env.core)
        action = teacher.act(obs, mask)
        data["obs"][t], data["mask"][t], data["action"][t], data["seat"][t] = (
            obs, mask, action, seat)
        obs, rewards, terminated, truncated, info = env.step(action)
        data["reward"][t] = rewards * reward_scale
        data["done"][t] = terminated | truncated
        mask, seat = info["action_mask"], info["seat"]
    # Unfinished episodes at the end are cut off: bootstrap with 0 and drop their decisions.
    data["return"], data["keep"] = episode_returns(data["reward"], data["done"], data["seat"],
                                                   gamma)
    return data


def episode_returns(reward: np.ndarray, done: np.ndarray, seat: np.ndarray, gamma: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(T, B) each decision's return — the rest of its seat's episode reward, discounted by
    ``gamma`` per decision of that seat, as PPO's value targets are — and whether its
    episode ended within the T steps (the others' returns lack what followed)."""
    n_steps, n = done.shape
    finished = np.zeros((n_steps, n), dtype=bool)
    closed = np.zeros(n, dtype=bool)
    for t in reversed(range(n_steps)):
        closed |= done[t]
        finished[t] = closed
    returns, _ = compute_gae(reward, done, seat, np.zeros((n_steps, n), dtype=np.float32),
                             np.zeros((n, 2), dtype=np.float32), gamma=gamma, lam=1.0)
    return returns, finished


def collect_record_games(cfg: PPOConfig, rules: RuleSet, with_hidden: bool = False
                         ) -> dict[str, np.ndarray]:
    """Every decision of the game records in ``cfg.warmstart_records``, both players', as
    :func:`collect_teacher_games` returns a teacher's (one stream of shape (T, 1, …)): each
    record replayed under ``rules``, rewards as the run's envs pay them (``cfg.reward``,
    ``cfg.episode``). A record that does not replay is a :class:`ConfigError` naming it."""
    path = Path(cfg.warmstart_records)
    files = list(record_files(path)) if path.is_dir() else [path]
    if not files:
        raise ConfigError(f"warmstart_records: {str(path)!r} holds no *.json game record")
    kind, field = cfg.reward, ROW_FIELDS[cfg.reward]
    rows: dict[str, list] = {key: [] for key in ("obs", "mask", "action", "seat", "reward",
                                                 "done", "critic_obs")}

    def step(game: KoiKoiGame, action: int) -> Any:
        rows["obs"].append(encode_game(game, game.mover))
        rows["mask"].append(game.legal_action_mask().astype(bool))
        rows["action"].append(action)
        rows["seat"].append(game.mover)
        if with_hidden:
            rows["critic_obs"].append(critic_input(rows["obs"][-1][None], game.to_core())[0])
        outcome = game.step(action)
        paid = paid_rows(kind, cfg.round_sigma, outcome.rounds, outcome.matches, game)
        rows["reward"].append(np.sum([row[field] for row in paid], axis=0) if paid
                              else np.zeros(2))
        rows["done"].append(outcome.match_over if cfg.episode == "match"
                            else outcome.round_over)
        return outcome

    for file in files:
        before = len(rows["action"])
        try:
            replay(read_record(file), rules, source=str(file), step=step)
        except RecordError as error:
            raise ConfigError(f"warmstart_records: {error}") from None
        if len(rows["action"]) > before:
            rows["done"][-1] = True  # one record's stream ends with it (an unfinished match's
            # last episode is cut off: its returns lack what followed)
    if not rows["action"]:
        raise ConfigError(f"warmstart_records: {str(path)!r} holds no decision")
    data = {"obs": np.array(rows["obs"], dtype=np.float32)[:, None],
            "mask": np.array(rows["mask"])[:, None],
            "action": np.array(rows["action"], dtype=np.int64)[:, None],
            "seat": np.array(rows["seat"], dtype=np.int64)[:, None],
            "reward": (np.array(rows["reward"], dtype=np.float32)
                       * cfg.reward_scale)[:, None],
            "done": np.array(rows["done"])[:, None]}
    if with_hidden:
        data["critic_obs"] = np.array(rows["critic_obs"], dtype=np.float32)[:, None]
    values = np.zeros(data["action"].shape, dtype=np.float32)
    data["return"], _ = compute_gae(data["reward"], data["done"], data["seat"], values,
                                    np.zeros((1, 2), dtype=np.float32), gamma=cfg.gamma,
                                    lam=1.0)
    data["keep"] = np.ones(data["action"].shape, dtype=bool)
    return data


def record_batches(data: dict[str, np.ndarray], size: int, generator: np.random.Generator
                   ) -> Any:
    """Batches of ``size`` record decisions (all of them if fewer), shuffled anew on each
    pass, without end; a pass's remainder smaller than a batch waits for the next pass."""
    n = len(data["action"])
    size = min(size, n)
    while True:
        order = generator.permutation(n)
        for start in range(0, n - size + 1, size):
            rows = order[start:start + size]
            yield {key: value[rows] for key, value in data.items()}


def clone_step(network: ActorCritic, optimizer: torch.optim.Optimizer,
               data: dict[str, np.ndarray], epochs: int, n_minibatches: int, vf_coef: float,
               max_grad_norm: float, generator: torch.Generator,
               critic: Critic | None = None) -> dict[str, float]:
    """Supervised epochs on one batch of teacher decisions; returns the last losses.
    ``optimizer`` holds the network's parameters (and the critic's, when one is given)."""
    keep = data["keep"].reshape(-1)
    keys = ("obs", "mask", "action", "return") + (("critic_obs",) if critic is not None else ())
    flat = {k: torch.as_tensor(data[k].reshape(-1, *data[k].shape[2:])[keep]) for k in keys}
    params = [p for group in optimizer.param_groups for p in group["params"]]
    n = len(flat["action"])
    nan = float("nan")  # what a batch with under two finished decisions reports
    stats = {"imitation/policy_loss": nan, "imitation/value_loss": nan,
             "imitation/accuracy": nan}
    for _ in range(epochs):
        for idx in minibatches(n, n_minibatches, generator):
            logits, value = network(flat["obs"][idx], flat["mask"][idx])
            log_probs = torch.log_softmax(logits, dim=-1)
            target = flat["action"][idx]
            policy_loss = -log_probs.gather(1, target[:, None]).mean()
            value_loss = 0.5 * ((value - flat["return"][idx]) ** 2).mean()
            if critic is not None:
                critic_value = critic(flat["critic_obs"][idx])
                value_loss = value_loss + 0.5 * ((critic_value - flat["return"][idx]) ** 2).mean()
            loss = policy_loss + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
            optimizer.step()
            stats = {"imitation/policy_loss": policy_loss.item(),
                     "imitation/value_loss": value_loss.item(),
                     "imitation/accuracy": (logits.argmax(-1) == target).float().mean().item()}
    return stats


def clone(trainer: Trainer, data: dict[str, np.ndarray]) -> dict[str, float]:
    """One batch of teacher decisions learned with the run's settings."""
    cfg = trainer.cfg
    return clone_step(trainer.network, trainer.optimizer, data, cfg.warmstart_epochs,
                      cfg.n_minibatches, cfg.vf_coef, cfg.max_grad_norm, trainer.torch_rng,
                      critic=trainer.critic)


def warm_start(trainer: Trainer, writer: Any, progress: Callable[..., Any]) -> None:
    """Clone the teacher's play into ``trainer``'s network (and privileged critic), one of
    its batches (``trainer.teacher_batches``, games apart from training's) after another;
    ``progress`` is a tqdm-like bar factory."""
    cfg = trainer.cfg
    batches = trainer.teacher_batches()
    trainer.optimizer.param_groups[0]["lr"] = cfg.warmstart_learning_rate
    done = 0
    bar = progress(total=cfg.warmstart_decisions, unit="dec", desc="warm start",
                   disable=not cfg.progress_bar, dynamic_ncols=True)
    try:
        while done < cfg.warmstart_decisions:
            stats = clone(trainer, next(batches))
            done += trainer.batch_steps
            for key, value in stats.items():
                writer.add_scalar(key, value, done)
            bar.update(min(done, cfg.warmstart_decisions) - bar.n)  # a last batch runs over
            bar.set_postfix_str(f"accuracy={stats['imitation/accuracy']:.2f}")
    finally:  # also on Ctrl-C: a bar left open redraws itself under the message
        bar.close()
    trainer.optimizer.param_groups[0]["lr"] = cfg.learning_rate
    trainer.warm_started = True
