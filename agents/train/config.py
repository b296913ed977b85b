"""Every setting of a training run, in one vocabulary for both games (``TrainingConfig``:
``PPOConfig`` for Koi-Koi, ``HanaawaseConfig``), its checks, YAML loading, the run folder
and resuming.

Kept apart from :mod:`agents.train.ppo` so the algorithm reads top to bottom; a bad key or value
fails here, with the allowed ones named, before any env or network is built.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from agents.bots.base import MAX_SEED
from agents.bots.policy import MAX_HIDDEN, MAX_LAYERS, CheckpointError, load_checkpoint
from agents.train.errors import ConfigError
from agents.train.folders import claim_run_dir as claim_run_dir  # read from here too
from hanafuda_env.envs.rewards import DEFAULT_ROUND_SIGMA, check_reward
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.koikoi.rules import RuleSet, resolve_rules

CRITICS = ("shared", "privileged")
# The configs shipped: the checkout's configs/ folder, installed as agents/train/configs
_HERE = Path(__file__).resolve().parent
CONFIGS = next((p for p in (_HERE / "configs", _HERE.parents[1] / "configs") if p.is_dir()),
               _HERE / "configs")
MAX_EXP_NAME_BYTES = 200  # a file name is at most 255 bytes; "__SEED__TIME_N" follows it
# Games played at once, and Koi-Koi decisions per rollout (its buffers hold an observation,
# a mask and more per decision): beyond these a run exhausts memory before it starts.
MAX_ENVS = 1 << 16
MAX_BATCH_DECISIONS = 1 << 22


# Keys an older Hana-awase trainer read, and the key that says the same now.
RENAMED = {"num_envs": "n_envs", "num_minibatches": "n_minibatches",
           "eval_every": "eval_interval", "checkpoint_every": "checkpoint_interval",
           "snapshot_every": "snapshot_interval", "opponents": "baselines",
           "eval_decks": "eval_matches"}
RENAMED_NOTES = {
    "opponents": " (the bots and checkpoint files the learner plays; it plays itself with "
                 "self_play_fraction, and its snapshots join the pool every "
                 "snapshot_interval updates)",
    "eval_decks": " (matches per evaluation opponent, in whole decks of one match per seat)",
}


@dataclass
class TrainingConfig:
    """The settings both games' PPO runs share (YAML keys have these names); each game's
    config adds its own and its defaults."""

    exp_name: str = "selfplay"
    seed: int = 1
    rules: Any = "nintendo"  # the game's rules: a preset name, a mapping of options, a path
    total_decisions: int = 20_000_000  # environment decisions (every seat's) to train for
    n_envs: int = 256
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 1.0
    gae_lambda: float = 0.95
    update_epochs: int = 4
    n_minibatches: int = 4
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    reward_scale: float = 0.1  # points are multiplied by this before learning
    hidden: int = 256
    layers: int = 2
    self_play_fraction: float = 0.5  # games where the learner plays every seat
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy", "expert"])
    snapshot_interval: int = 20  # updates
    max_snapshots: int = 8
    pfsp_power: float = 2.0
    eval_interval: int = 25  # updates; 0 disables evaluation during training
    eval_matches: int = 200
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "expert"])
    best_opponent: str | None = None  # keep checkpoints/best.pt: best eval win rate vs this
    checkpoint_interval: int = 25  # updates
    warmstart_teacher: str = "expert"  # agent whose moves are cloned before self-play
    warmstart_decisions: int = 0  # decisions to clone (0: start from scratch)
    warmstart_epochs: int = 2
    warmstart_learning_rate: float = 1e-3
    init_checkpoint: str | None = None  # start from these weights (no warm start then)
    torch_threads: int = 1  # 2 on an idle 2-core machine: +35 %; with one core busy: -70 %
    log_dir: str = "runs"
    progress_bar: bool = True
    # Rollouts on this many Ray actors, n_envs / ray_workers games each (0: in this process;
    # agents.train.ray_rollouts); ray_address joins a running cluster (null: a local Ray).
    ray_workers: int = 0
    ray_address: str | None = None
    # Where PPO's update runs: "auto" (a CUDA GPU where torch sees one, else the CPU), "cpu" or
    # "cuda"; rollouts always play on the CPU (small batches, one game step at a time).
    device: str = "auto"

    # Resume passes False: checkpoint files named as pool or evaluation opponents are in the
    # run's checkpoint, and the warm-start teacher is done with; the files are not needed
    # (not a config key).
    check_pool_files: InitVar[bool] = True

    game: ClassVar[str] = "koikoi"

    def __post_init__(self, check_pool_files: bool) -> None:
        for name in ("anneal_lr", "clip_vloss", "progress_bar"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if (not isinstance(self.exp_name, str) or self.exp_name.strip(".") == ""
                or any(c in self.exp_name for c in "/\\\0")
                or len(self.exp_name.encode()) > MAX_EXP_NAME_BYTES):
            raise ConfigError(f"exp_name must be a non-empty name of at most "
                              f"{MAX_EXP_NAME_BYTES} bytes without '/', '\\' or NUL (it starts "
                              f"the run folder's name), got {self.exp_name!r}")
        if not isinstance(self.log_dir, str) or not self.log_dir or "\0" in self.log_dir:
            raise ConfigError(f"log_dir must be a folder path, got {self.log_dir!r}")
        if self.init_checkpoint is not None and not isinstance(self.init_checkpoint, str):
            raise ConfigError(f"init_checkpoint must be a checkpoint path or null, got "
                              f"{self.init_checkpoint!r}")
        for name in ("total_decisions", "n_envs", "update_epochs", "n_minibatches", "hidden",
                     "layers", "snapshot_interval", "checkpoint_interval", "torch_threads"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        for name in ("max_snapshots", "warmstart_epochs", "eval_matches"):
            check_number(name, getattr(self, name), low=1, integer=True)
        check_number("seed", self.seed, low=0, high=MAX_SEED, integer=True)
        for name in ("eval_interval", "warmstart_decisions"):
            check_number(name, getattr(self, name), low=0, integer=True)
        for name in ("learning_rate", "warmstart_learning_rate", "clip_coef", "max_grad_norm",
                     "reward_scale"):
            check_number(name, getattr(self, name), low=0, open_low=True)
        for name in ("ent_coef", "vf_coef", "pfsp_power"):
            check_number(name, getattr(self, name), low=0)
        check_number("gamma", self.gamma, low=0, high=1, open_low=True)
        for name in ("gae_lambda", "self_play_fraction"):
            check_number(name, getattr(self, name), low=0, high=1)
        if self.target_kl is not None:
            check_number("target_kl", self.target_kl, low=0, open_low=True)
        self.resolved_rules()  # a wrong rule name fails here, before anything runs
        self.check_sizes()  # before a network or a rollout buffer is allocated
        for name in ("baselines", "eval_opponents"):
            names = getattr(self, name)
            if not isinstance(names, list):
                raise ConfigError(f"{name} must be a list of agent names, got {names!r}")
            for agent in names:
                check_agent(name, agent, files=check_pool_files, game=self.game)
        check_agent("warmstart_teacher", self.warmstart_teacher, files=check_pool_files,
                    game=self.game)
        if self.best_opponent is not None and (self.best_opponent not in self.eval_opponents
                                               or not self.eval_interval):
            raise ConfigError(f"best_opponent must be one of eval_opponents "
                              f"{self.eval_opponents} (with eval_interval > 0), got "
                              f"{self.best_opponent!r}")
        _check_ray(self.ray_workers, self.ray_address, self.n_envs)
        learner_device(self.device)  # an unknown name, or cuda without one, fails now

    def resolve(self, rules: Any) -> Any:
        """The game's rule set that ``rules`` names (as the ``rules`` key may be given)."""
        raise NotImplementedError

    def network_width(self) -> int:
        """The input width of the game's network: its observation and fixed features."""
        raise NotImplementedError

    def check_sizes(self) -> None:
        """Sizes that would exhaust memory, refused by key with the cap: the network's
        (hidden, layers, their weights counted from the sizes alone) and the games played
        at once."""
        check_number("n_envs", self.n_envs, low=1, high=MAX_ENVS, integer=True)
        check_network_size(self.hidden, self.layers, self.network_width())

    def resolved_rules(self) -> Any:
        return self.resolve(self.rules)

    @classmethod
    def from_dict(cls, spec: dict[str, Any], check_pool_files: bool = True
                  ) -> TrainingConfig:
        allowed = [f.name for f in dataclasses.fields(cls)]
        for old, new in RENAMED.items():
            if old in spec and old not in allowed:
                raise ConfigError(f"config key {old!r} is now {new!r}"
                                  f"{RENAMED_NOTES.get(old, '')}")
        unknown = [k for k in spec if k not in allowed]
        if unknown:
            raise ConfigError(f"unknown config key(s) {unknown}; allowed keys: "
                              + ", ".join(allowed))
        int_fields = {f.name for f in dataclasses.fields(cls) if f.type == "int"}
        spec = {k: int(v) if k in int_fields and _whole_float(v) else v for k, v in spec.items()}
        return cls(**spec, check_pool_files=check_pool_files)

    @classmethod
    def load(cls, path: str | Path | None, overrides: list[str] = ()) -> TrainingConfig:
        """A YAML file plus ``key=value`` overrides (values parsed as YAML)."""
        return cls.from_dict(cls.spec(path, overrides))

    @staticmethod
    def spec(path: str | Path | None, overrides: list[str] = ()) -> dict[str, Any]:
        """Just the keys a YAML file and ``key=value`` overrides give (no defaults)."""
        spec: dict[str, Any] = {}
        if path is not None:
            path = config_path(path)
            if not Path(path).is_file():
                shipped = ", ".join(sorted(p.name for p in CONFIGS.glob("*.yaml")))
                raise ConfigError(f"config {str(path)!r}: "
                                  f"{'a folder' if Path(path).is_dir() else 'no such file'}; "
                                  "give a YAML file"
                                  + (f" (in {CONFIGS}: {shipped})" if shipped else ""))
            with open(path, encoding="utf-8") as handle:
                spec = _parse_yaml(handle, f"config {str(path)!r}") or {}
            if not isinstance(spec, dict):
                raise ConfigError(f"{path}: a config must be a mapping of keys to values")
        for item in overrides:
            key, sep, value = item.partition("=")
            if not sep:
                hint = (" (a config file goes after --config)"
                        if item.endswith((".yaml", ".yml")) or Path(item).is_file() else "")
                raise ConfigError(f"override {item!r} must look like key=value{hint}")
            spec[key.strip()] = _parse_yaml(value, f"override {item!r}")
        return spec


@dataclass
class PPOConfig(TrainingConfig):
    """A Koi-Koi run: the shared settings and Koi-Koi's own."""

    episode: str = "round"  # "round" or "match"
    reward: str = "points"  # "points" or "match_win" (hanafuda_env.envs.rewards)
    round_sigma: float = DEFAULT_ROUND_SIGMA  # match_win: one round's margin spread
    n_steps: int = 64  # decisions per game per rollout
    # "shared": the policy network's value head; "privileged": a critic of its own that also
    # sees the hidden cards (training only: policies never do), for less noisy advantages
    critic: str = "shared"
    card_features: bool = False  # add networks.CardFeatures (same-month and yaku-group sums)
    # A folder (or file) of game records (hanafuda_env.koikoi.records) whose moves, both
    # players', the warm start clones instead of warmstart_teacher's, cycling through them;
    # they must replay under the run's rules.
    warmstart_records: str | None = None

    def __post_init__(self, check_pool_files: bool) -> None:
        if self.episode not in ("round", "match"):
            raise ConfigError(f"episode must be 'round' or 'match', got {self.episode!r}")
        if not isinstance(self.card_features, bool):
            raise ConfigError(f"card_features must be true or false, got "
                              f"{self.card_features!r}")
        if self.critic not in CRITICS:
            raise ConfigError(f"critic must be one of {', '.join(map(repr, CRITICS))}, got "
                              f"{self.critic!r}")
        try:
            check_reward(self.reward, self.round_sigma)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        if not isinstance(self.n_steps, int) or isinstance(self.n_steps, bool) or (
                self.n_steps < 1):
            raise ConfigError(f"n_steps must be a positive integer, got {self.n_steps!r}")
        super().__post_init__(check_pool_files)
        if self.n_envs * self.n_steps > MAX_BATCH_DECISIONS:
            raise ConfigError(f"n_envs * n_steps ({self.n_envs * self.n_steps:,} decisions a "
                              f"rollout) must be at most {MAX_BATCH_DECISIONS:,}, the cap that "
                              f"keeps a rollout's buffers within memory")
        if self.n_envs * self.n_steps < 2 * self.n_minibatches:
            raise ConfigError(f"n_envs * n_steps ({self.n_envs * self.n_steps}) must be at least "
                              f"2 * n_minibatches ({2 * self.n_minibatches}): a minibatch needs "
                              "two samples")
        if self.warmstart_records is not None and (
                not isinstance(self.warmstart_records, str)
                or not Path(self.warmstart_records).exists()):
            raise ConfigError(f"warmstart_records: {self.warmstart_records!r} is no folder or "
                              "file of game records")

    def resolve(self, rules: Any) -> RuleSet:
        return resolve_rules(rules)

    def network_width(self) -> int:
        from agents.bots.network import CardFeatures
        from hanafuda_env.koikoi.observation import OBS_DIM

        return OBS_DIM + (CardFeatures.size if self.card_features else 0)


@dataclass
class HanaawaseConfig(TrainingConfig):
    """A Hana-awase run (``game: hanaawase``): the shared settings, Hana-awase's own and its
    defaults. The learner holds one seat of a table of ``num_players``; a pool opponent plays
    every other seat."""

    game: str = "hanaawase"  # type: ignore[misc]  # marks the config as Hana-awase's
    exp_name: str = "hanaawase"
    num_players: int = 3
    rules: Any = field(default_factory=dict)  # Hana-awase options (rounds, §3.4 variants)
    total_decisions: int = 6_000_000
    rounds_per_update: int = 1  # whole rounds each game plays per update
    reward_scale: float = 0.01  # a round's score minus the table's mean, times this
    baselines: list[str] = field(default_factory=lambda: ["expert", "greedy"])
    self_play_fraction: float = 0.4
    snapshot_interval: int = 10
    eval_interval: int = 20
    eval_matches: int = 90  # rounded up to whole decks: one match per seat, seats rotated
    eval_opponents: list[str] = field(default_factory=lambda: ["expert"])
    checkpoint_interval: int = 10
    warmstart_epochs: int = 4

    def __post_init__(self, check_pool_files: bool) -> None:
        if self.game != "hanaawase":
            raise ConfigError(f"game must be 'hanaawase' for this config, got {self.game!r}")
        check_number("rounds_per_update", self.rounds_per_update, low=1, integer=True)
        if not isinstance(self.rules, dict):
            raise ConfigError(f"rules must be a mapping of Hana-awase options, got "
                              f"{self.rules!r}")
        super().__post_init__(check_pool_files)

    def resolve(self, rules: Any) -> HanaawaseRules:
        return resolve_hanaawase_rules(rules, num_players=self.num_players)

    def network_width(self) -> int:
        from agents.bots.hanaawase_policy import HanaawaseFeatures
        from hanafuda_env.hanaawase.observation import observation_size

        return observation_size(self.num_players) + HanaawaseFeatures.size


def check_network_size(hidden: int, layers: int, width: int) -> None:
    """``hidden`` and ``layers`` refused by key where the network they make on a
    ``width``-wide input would not fit in memory (its weights counted, not allocated)."""
    from agents.bots.network import MAX_PARAMETERS, actor_critic_shapes, parameter_count

    check_number("hidden", hidden, low=1, high=MAX_HIDDEN, integer=True)
    check_number("layers", layers, low=1, high=MAX_LAYERS, integer=True)
    weights = parameter_count(actor_critic_shapes(width, hidden, layers))
    if weights > MAX_PARAMETERS:
        raise ConfigError(f"hidden={hidden} and layers={layers} make a network of {weights:,} "
                          f"weights (about {weights * 16 / 2**30:.1f} GiB with its gradients "
                          f"and Adam's moments); a run's network has at most "
                          f"{MAX_PARAMETERS:,} weights: lower hidden or layers")


def config_class(spec: dict[str, Any]) -> type[TrainingConfig]:
    """The config a spec's ``game`` asks for (Koi-Koi's without one)."""
    game = spec.get("game", "koikoi")
    if game == "hanaawase":
        return HanaawaseConfig
    if game != "koikoi":
        raise ConfigError(f"game must be 'koikoi' (or left out) or 'hanaawase', got {game!r}")
    return PPOConfig


def load_config(spec: dict[str, Any], check_pool_files: bool = True) -> TrainingConfig:
    """The config of either game from a spec (``TrainingConfig.spec``)."""
    cls = config_class(spec)
    if cls is PPOConfig:
        spec = {k: v for k, v in spec.items() if k != "game"}
    return cls.from_dict(spec, check_pool_files)


class _ConfigLoader(yaml.SafeLoader):
    """YAML 1.1 reads ``3e-4`` and ``1e6`` as text; a config means numbers (as YAML 1.2)."""


_ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def _parse_yaml(text: Any, where: str) -> Any:
    try:
        return yaml.load(text, Loader=_ConfigLoader)  # a SafeLoader: no arbitrary objects
    except UnicodeDecodeError:
        raise ConfigError(f"{where} is not UTF-8 text") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{where} is not valid YAML: {' '.join(str(error).split())}"
                          ) from None


def _whole_float(value: Any) -> bool:
    """A float that is a whole number, as ``1e6`` for a count."""
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def check_number(name: str, value: Any, low: float, high: float | None = None,
                  open_low: bool = False, integer: bool = False) -> None:
    kind = int if integer else (int, float)
    ok = isinstance(value, kind) and not isinstance(value, bool) and (
        isinstance(value, int) or math.isfinite(value))
    if ok:
        ok = (value > low if open_low else value >= low) and (high is None or value <= high)
    if not ok:
        bounds = f"{'>' if open_low else '>='} {low}" + (f" and <= {high}" if high else "")
        raise ConfigError(f"{name} must be {'an integer' if integer else 'a finite number'} "
                          f"{bounds}, got {value!r}")


def _check_ray(workers: Any, address: Any, n_envs: int) -> None:
    """Ray workers split the games evenly, and need Ray installed (checked without importing
    it: the default path never does)."""
    check_number("ray_workers", workers, low=0, integer=True)
    if address is not None and (not isinstance(address, str) or not address):
        raise ConfigError(f"ray_address must be a Ray cluster address (host:port, 'auto', "
                          f"ray://host:port) or null, got {address!r}")
    if address is not None and not workers:
        raise ConfigError("ray_address names a Ray cluster for the rollout workers; give "
                          "ray_workers=N (N > 0) too")
    if workers and n_envs % workers:
        raise ConfigError(f"n_envs ({n_envs}) must be a multiple of ray_workers ({workers}): "
                          "each worker plays n_envs / ray_workers games")
    if workers and importlib.util.find_spec("ray") is None:
        raise ConfigError(f"ray_workers={workers} needs Ray: pip install -e '.[ray]'")


def check_agent(key: str, spec: Any, files: bool = True, game: str = "koikoi") -> None:
    """A built-in bot of ``game`` or (``files``: an existing) checkpoint path."""
    from agents.bots.registry import bots_of, folder_hint, is_baseline_name

    if not isinstance(spec, str) or (files and not is_baseline_name(spec, game)
                                     and not Path(spec).is_file()):
        hint = folder_hint(spec) if isinstance(spec, str) else ""
        if spec in ("self", "past"):  # the older Hana-awase trainer's pool entries
            hint = (" (the learner plays itself in self_play_fraction of the games, and its "
                    "snapshots join the pool every snapshot_interval updates)")
        raise ConfigError(f"{key}: {spec!r} is neither a baseline "
                          f"({', '.join(bots_of(game))}) nor an existing checkpoint "
                          f"file{hint}")


# Keys that may change when a run is resumed; any other change would make it another run.
RESUMABLE_KEYS = ("total_decisions", "progress_bar")
# Where a resumed run's workers run may change too: the run stays the same.
PLACEMENT_KEYS = ("ray_address", "device")


def resume_config(run_dir: str | Path, changes: dict[str, Any],
                  payload: dict[str, Any] | None = None) -> TrainingConfig:
    """The saved config of a run, with the (few) keys that may change on resume.

    The rules are the resolved rule set saved with the run, not a rule file read again (it
    may have changed since). ``payload``: the run's ``latest.pt`` if already read. A run
    stopped before its first checkpoint (in the warm start) has only its ``config.yaml``:
    that config is returned, to start the run over (its files must still be there)."""
    if not Path(run_dir).is_dir():
        given = Path(run_dir)
        hint = (f"; --resume takes the run folder ({str(given.parent.parent)!r}), not a "
                "checkpoint" if given.is_file() and given.parent.name == "checkpoints" else "")
        raise CheckpointError(f"--resume {str(run_dir)!r}: no such run folder{hint}")
    if (Path(run_dir) / "latest.pt").is_file() and not (Path(run_dir) / "checkpoints").exists():
        raise CheckpointError(f"--resume {str(run_dir)!r} is a run's checkpoints folder; "
                              f"--resume takes the run folder ({str(Path(run_dir).parent)!r})")
    path = Path(run_dir) / "checkpoints" / "latest.pt"
    restart = payload is None and not path.exists()
    if restart:
        spec = _saved_config(run_dir)
        given_rules = _given_rules(run_dir)
        numbered = sorted(path.parent.glob("update_*.pt"))
        if numbered:
            raise CheckpointError(f"{str(path)!r} is missing but {numbered[-1].name} is there; "
                                  f"copy it to latest.pt to resume from it")
        if spec is None:
            raise CheckpointError(f"{str(run_dir)!r} has no checkpoints/latest.pt and no "
                                  "complete config.yaml: not a run folder train.py wrote (or one "
                                  "stopped before it wrote its config: a new run may take it, "
                                  f"with --run-dir {run_dir})")
    else:
        payload = load_checkpoint(path) if payload is None else payload
        if "config" not in payload or "rules" not in payload:
            raise CheckpointError(f"{str(path)!r} is a policy checkpoint (weights only), not a "
                                  "training run's state; --resume needs a run folder train.py "
                                  "wrote")
        # Checkpoints are written after the warm start and hold the weights of every
        # checkpoint opponent (pool and evaluation): no agent file is read again.
        spec = {**payload["config"], "rules": payload["rules"]}
        given_rules = payload["config"].get("rules") if isinstance(payload["config"], dict) \
            else None
    saved = load_config(spec, check_pool_files=restart)  # restarting reads them
    if _names_same_rules(saved, given_rules):  # the rules key as the run was started with
        spec = {**spec, "rules": given_rules}
        saved = load_config(spec, check_pool_files=restart)
    resumed = load_config({**spec, **changes}, check_pool_files=restart)

    def same(key: str, value: Any) -> bool:
        if key == "rules":
            return saved.resolve(value) == saved.resolved_rules()
        return value == getattr(saved, key, None)

    fixed = sorted(k for k, v in changes.items()
                   if k not in RESUMABLE_KEYS + PLACEMENT_KEYS and not same(k, v))
    if fixed:
        raise ConfigError(f"a resumed run keeps its config; only {', '.join(RESUMABLE_KEYS)} "
                          f"may change (and {', '.join(PLACEMENT_KEYS)}: where its workers "
                          f"run), not {fixed}")
    return resumed


def _names_same_rules(saved: TrainingConfig, given: Any) -> bool:
    """Whether the ``rules`` value a run was started with (a preset name, a mapping, a rule
    file) still names the rule set saved with it: a resumed run then keeps that value, as
    its fresh start wrote it; else it plays the saved rule set (a file edited since, a preset
    changed by another version)."""
    if given is None:
        return False
    try:
        return saved.resolve(given) == saved.resolved_rules()
    except (ValueError, TypeError, OSError):
        return False


def _given_rules(run_dir: str | Path) -> Any:
    try:
        spec = yaml.safe_load((Path(run_dir) / "config.yaml").read_text())
    except (OSError, yaml.YAMLError):
        return None
    return spec.get("rules") if isinstance(spec, dict) else None


def _saved_config(run_dir: str | Path) -> dict[str, Any] | None:
    """The config (with its resolved rules) that train.py wrote into a run folder, or None."""
    try:
        spec = yaml.safe_load((Path(run_dir) / "config.yaml").read_text())
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(spec, dict) or "resolved_rules" not in spec:
        return None
    rules = spec.pop("resolved_rules")
    return {**spec, "rules": rules}


DEVICES = ("auto", "cpu", "cuda")


def learner_device(name: object) -> str:
    """The torch device of PPO's update for a ``device`` setting, refused by name."""
    import torch

    if name not in DEVICES:
        raise ConfigError(f"device must be one of {', '.join(DEVICES)}, got {name!r}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device 'cuda': torch sees no CUDA GPU on this machine (torch "
                          f"{torch.__version__}); use device: auto or cpu")
    return str(name)


def config_path(path: str | Path) -> Path:
    """``path`` itself where it is a file, else the shipped config of that name (``smoke``,
    ``smoke.yaml`` or ``configs/smoke.yaml`` outside the checkout): an installed command
    finds the shipped configs wherever it runs."""
    path = Path(path)
    if path.is_file() or path.parent not in (Path("."), Path("configs")):
        return path
    for name in (path.name, f"{path.name}.yaml"):
        if (CONFIGS / name).is_file():
            return CONFIGS / name
    return path
