"""Training: masked PPO with self-play (:mod:`agents.train.ppo`), its config
(:mod:`agents.train.config`), a run in its folder with checkpoints and TensorBoard
(:mod:`agents.train.run`), the opponent pool (:mod:`agents.train.pool`), the warm start that
clones a teacher (:mod:`agents.train.warm_start`), the privileged critic
(:mod:`agents.train.critic`) and the rollouts on Ray actors (:mod:`agents.train.ray_rollouts`,
imported only when a run asks for Ray)."""

from agents.train.config import ConfigError, PPOConfig
from agents.train.ppo import Trainer
from agents.train.run import TrainingInterrupted, train

__all__ = ["ConfigError", "PPOConfig", "Trainer", "TrainingInterrupted", "train"]
