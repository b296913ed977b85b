"""The trainer's rollouts on Ray actors (``ray_workers: N``), for either game; the learner stays
in this process.

Each of the ``N`` workers is a Ray actor with ``n_envs / N`` games of its own (the game's
collector, the code the local path collects with: ``Trainer.collector_type``), a copy of the
policy (and privileged critic) and of the opponent pool. Every update the driver puts
the weights and the pool's state in Ray's object store once; each worker loads them, plays
its rollout (advantages included: its games' reward streams are its own) and sends back the
buffer, its statistics and its games' state. The buffers are joined in worker order along
the games' axis, the pool is credited with the workers' finished episodes in worker order,
and PPO's update (``Trainer.learn``) runs here, unchanged: a trainer with ``ray_workers``
holds :class:`RayRollouts` where a local one holds ``ppo.LocalRollouts``.

Worker ``i`` plays from its own seed (the run's seed and ``i``), so the same seed and the
same number of workers give the same run. The driver keeps each worker's state as of its
last rollout: a checkpoint holds them (``--resume`` continues each worker where it was), and
a worker that dies (``RayActorError``) is replaced by a new actor started from its seed and
that state, which plays its share of the update again; the update goes on as if nothing
happened.

What scales: the rollouts (games, the policy's forward passes, the opponents' moves). What
does not: the warm start, PPO's update and the in-run evaluations, which stay in the driver.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch

from agents.bots.policy import CheckpointError, to_arrays, to_tensors
from agents.eval.ray_tasks import cpus_per_worker, import_ray, init_ray
from agents.train.config import TrainingConfig

MAX_RESTARTS = 3  # replacements of one worker within one update before the run gives up


def worker_seed(seed: int, index: int) -> int:
    """Worker ``index``'s seed (its games, seats, opponents and action sampling)."""
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


class RolloutWorker:
    """One Ray actor's games, policy and opponent pool (see the module docstring)."""

    def __init__(self, trainer_type: Any, cfg: TrainingConfig, rules: Any, index: int,
                 sync: dict[str, Any], state: dict[str, Any] | None = None):
        """``trainer_type``: the game's trainer class (what builds the network, the pool and
        the collector); ``sync``: the driver's weights and pool; ``state``: the games as a
        worker left them (None: fresh from the worker's seed)."""
        torch.set_num_threads(cfg.torch_threads)
        seed = worker_seed(cfg.seed, index)
        self.network = trainer_type.build_network(cfg, rules)
        self.critic = trainer_type.build_critic(cfg)
        self.pool = trainer_type.new_pool(cfg, rules)
        self._load(sync)
        self.collector = trainer_type.collector_type(
            cfg, rules, self.network, self.critic, self.pool, cfg.n_envs // cfg.ray_workers,
            seed, np.random.default_rng(seed), torch.Generator().manual_seed(seed),
            pool_seed=lambda rollout_seed: worker_seed(rollout_seed, index))
        if state is not None:
            self.restore(state)

    def _load(self, sync: dict[str, Any]) -> None:
        self.network.load_state_dict(sync["model"])
        if self.critic is not None:
            self.critic.load_state_dict(sync["critic"])
        self.pool.load_state_dict(sync["pool"], keep_agents=True)

    def collect(self, sync: dict[str, Any], update: int
                ) -> tuple[dict[str, np.ndarray], dict[str, Any], dict[str, Any]]:
        """Update ``update``'s rollout with the driver's weights and pool: the buffer, the
        statistics and the games' state after it."""
        self._load(sync)
        buf, stats = self.collector.collect(update)
        return buf, stats, self.state()

    def state(self) -> dict[str, Any]:
        return {"arrays": self.collector.arrays(),
                "rng": self.collector.rng.bit_generator.state,
                "torch_rng": self.collector.torch_rng.get_state()}

    def restore(self, state: dict[str, Any]) -> None:
        state = _copied(state)  # arguments arrive read-only
        self.collector.load_arrays(state["arrays"])
        self.collector.rng.bit_generator.state = state["rng"]
        self.collector.torch_rng.set_state(state["torch_rng"])


class RayRollouts:
    """A trainer's rollouts gathered from ``cfg.ray_workers`` Ray actors. Ray and the actors
    start at the first rollout, so building one only checks the settings."""

    def __init__(self, trainer: Any):
        self.trainer = trainer
        self.workers: list[Any] = []  # the actors, in worker order
        self.worker_states: list[dict[str, Any] | None] = [None] * trainer.cfg.ray_workers
        self.replaced = 0  # workers that died and were replaced, in this process
        self._ray: Any = None
        self._owns_ray = False  # Ray was started here, so close() shuts it down

    def collect(self, update: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        trainer = self.trainer
        ray = self._start_ray()
        sync = ray.put({"model": trainer.network.state_dict(),
                        "critic": (trainer.critic.state_dict() if trainer.critic is not None
                                   else None),
                        "pool": trainer.pool.state_dict()})
        if not self.workers:
            self.workers = [self._new_worker(i, sync) for i in range(len(self.worker_states))]
        calls = [worker.collect.remote(sync, update) for worker in self.workers]
        parts = [self._gather(i, call, sync, update) for i, call in enumerate(calls)]
        self.worker_states = [_copied(state) for _, _, state in parts]
        buf = join_buffers([part[0] for part in parts])
        stats = merge_stats([part[1] for part in parts])
        for opponent, learner_return in stats["pool_results"]:
            trainer.pool.record(opponent, learner_return)
        return buf, stats

    def _start_ray(self) -> Any:
        if self._ray is None:
            ray = import_ray()
            self._owns_ray = not ray.is_initialized()
            self._ray = init_ray(self.trainer.cfg.ray_address)
            self._actor = ray.remote(RolloutWorker).options(
                num_cpus=cpus_per_worker(len(self.worker_states)))
        return self._ray

    def _new_worker(self, index: int, sync: Any) -> Any:
        trainer = self.trainer
        return self._actor.remote(type(trainer), trainer.cfg, trainer.rules, index, sync,
                                  self.worker_states[index])

    def _gather(self, index: int, call: Any, sync: Any, update: int) -> tuple:
        """Worker ``index``'s rollout; a worker that died is replaced (its seed, its state
        at the start of this update) and plays the rollout again."""
        ray = self._ray
        for restarts in range(MAX_RESTARTS + 1):
            try:
                return ray.get(call)
            except ray.exceptions.RayActorError as error:
                if restarts == MAX_RESTARTS:
                    raise RuntimeError(f"Ray worker {index} died {restarts + 1} times in "
                                       f"update {update + 1}; the run stops "
                                       f"({type(error).__name__}: {error})") from None
                warnings.warn(f"Ray worker {index} died in update {update + 1} "
                              f"({type(error).__name__}); a new worker with its seed and "
                              "state plays its share again", stacklevel=2)
                self.replaced += 1
                self.workers[index] = self._new_worker(index, sync)
                call = self.workers[index].collect.remote(sync, update)
        raise AssertionError("unreachable")

    @property
    def opponent(self) -> np.ndarray:
        """Every worker's games' opponents (the pool keeps the snapshots they play)."""
        known = [state["arrays"]["opponent"] for state in self.worker_states if state]
        return np.concatenate(known) if known else np.zeros(0, dtype=np.int64)

    def close(self) -> None:
        """Stop the workers (and Ray, when this trainer started it)."""
        if self._ray is None:
            return
        for worker in self.workers:
            self._ray.kill(worker)
        self.workers = []
        if self._owns_ray:
            self._ray.shutdown()
        self._ray = None

    def state(self) -> dict[str, Any]:
        return {"arrays": {}, "ray_workers": [
            None if state is None else {**state, "arrays": to_tensors(state["arrays"])}
            for state in self.worker_states]}

    def restore(self, payload: dict[str, Any]) -> None:
        states = payload.get("ray_workers")
        if not isinstance(states, list) or len(states) != len(self.worker_states):
            found = len(states) if isinstance(states, list) else "no"
            raise CheckpointError(f"the checkpoint holds {found} Ray workers' states; the run "
                                  f"has ray_workers={len(self.worker_states)}")
        self.worker_states = [None if state is None else
                              {**state, "arrays": to_arrays(state["arrays"])}
                              for state in states]


def join_buffers(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The workers' rollouts (T, B_i, ...) as one along the games' axis, in worker order. A
    rollout of whole rounds may take one worker fewer steps than another: its tail is filled
    with steps at which nobody decides (seat -1, never trained on)."""
    steps = max(len(part["seat"]) for part in parts)

    def padded(part: dict[str, np.ndarray], key: str) -> np.ndarray:
        value = part[key]
        tail = np.full((steps - len(value), *value.shape[1:]), -1 if key == "seat" else 0,
                       dtype=value.dtype)
        return np.concatenate([value, tail]) if len(tail) else value

    return {key: np.concatenate([padded(part, key) for part in parts], axis=1)
            for key in parts[0]}


def merge_stats(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The workers' rollout statistics as one rollout's: counts added, lists joined in
    worker order."""
    merged: dict[str, Any] = {}
    for key, value in parts[0].items():
        values = [part[key] for part in parts]
        if isinstance(value, tuple):  # names, the same in every worker
            merged[key] = value
        elif isinstance(value, list):
            merged[key] = [item for part in values for item in part]
        else:
            merged[key] = sum(values[1:], values[0])
    return merged


def _copied(tree: Any) -> Any:
    """A worker's state with its arrays writable (Ray hands them over read-only)."""
    if isinstance(tree, dict):
        return {key: _copied(value) for key, value in tree.items()}
    if isinstance(tree, torch.Tensor):
        return tree.clone()
    return tree.copy() if isinstance(tree, np.ndarray) else tree
