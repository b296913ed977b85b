"""Training: masked PPO with self-play for both games (:mod:`agents.train.ppo`, with
Koi-Koi's and Hana-awase's parts in :mod:`agents.train.koikoi` and
:mod:`agents.train.hanaawase`), its config (:mod:`agents.train.config`), a run in its folder
with checkpoints and TensorBoard (:mod:`agents.train.run`), the opponent pool
(:mod:`agents.train.pool`), the warm start that clones a teacher
(:mod:`agents.train.warm_start`), the privileged critic (:mod:`agents.train.critic`) and the
rollouts on Ray actors (:mod:`agents.train.ray_rollouts`, imported only when a run asks for
Ray)."""

from agents.train.config import ConfigError, HanaawaseConfig, PPOConfig, load_config
from agents.train.ppo import Trainer
from agents.train.run import TrainingInterrupted, make_trainer, train

__all__ = ["ConfigError", "HanaawaseConfig", "PPOConfig", "Trainer", "TrainingInterrupted",
           "load_config", "make_trainer", "train"]
