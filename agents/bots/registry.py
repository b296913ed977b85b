"""Build an agent from a short spec (a built-in bot's name, a checkpoint path, ...) for either
game: one registry of built-in bots per game, behind one ``make_agent``."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.bots.base import AgentLike
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.bots.fast import FastAgent
from agents.bots.hanaawase import HANAAWASE_BOTS
from agents.bots.ismcts import ISMCTSAgent
from agents.bots.search import SearchAgent
from agents.paths import folder_hint
from hanafuda_env.hanaawase.rules import resolve_hanaawase_rules
from hanafuda_env.koikoi.rules import RuleSpec, resolve_rules

# The networks shipped with the project, each with the config that trained it and its
# evaluation figures beside it (pretrained/README.md): ``ppo``, masked PPO on an MLP;
# ``clone``, the card-graph network that learned the expert's moves (agents.train.imitation);
# ``distilled``, the clone trained on search labels (agents.train.search_labels);
# ``looped``, ``distilled`` trained on the labels of the search it made stronger (the
# loop's second round, configs/loop_labels.yaml); and ``koikoi_value.pt``, the value network
# the ``netsearch`` bot evaluates positions with.
PRETRAINED = Path(__file__).resolve().parent / "pretrained" / "koikoi_ppo.pt"
PRETRAINED_CLONE = PRETRAINED.with_name("koikoi_clone.pt")
PRETRAINED_DISTILLED = PRETRAINED.with_name("koikoi_distilled.pt")
PRETRAINED_LOOPED = PRETRAINED.with_name("koikoi_looped.pt")
PRETRAINED_VALUE = PRETRAINED.with_name("koikoi_value.pt")
NETSEARCH_DEPTH = 4  # moves a netsearch rollout plays before the value network judges


def _shipped(path: Path, name: str, rules: RuleSpec, seed: int | None) -> AgentLike:
    from agents.bots.policy import PolicyAgent  # torch only for the network

    agent = PolicyAgent.load(path, rules)
    agent.name = name
    if seed is not None:
        agent.seed(seed)
    return agent


def pretrained_agent(rules: RuleSpec = None, seed: int | None = None) -> AgentLike:
    """The shipped PPO network (``make_agent("ppo")``), loaded through the safe loader."""
    return _shipped(PRETRAINED, "ppo", rules, seed)


def clone_agent(rules: RuleSpec = None, seed: int | None = None) -> AgentLike:
    """The shipped clone of the expert (``make_agent("clone")``)."""
    return _shipped(PRETRAINED_CLONE, "clone", rules, seed)


def distilled_agent(rules: RuleSpec = None, seed: int | None = None) -> AgentLike:
    """The shipped clone trained on search labels (``make_agent("distilled")``)."""
    return _shipped(PRETRAINED_DISTILLED, "distilled", rules, seed)


def looped_agent(rules: RuleSpec = None, seed: int | None = None) -> AgentLike:
    """``distilled`` after the loop's second round (``make_agent("looped")``): the
    strongest network here without search."""
    return _shipped(PRETRAINED_LOOPED, "looped", rules, seed)


def netsearch_agent(rules: RuleSpec = None, seed: int | None = None, worlds: int = 64,
                    depth: int | None = NETSEARCH_DEPTH, rollout: str = "expert",
                    confidence: float | None = 1.0, evaluator: str | Any = None,
                    prior: str | Any = None) -> AgentLike:
    """The search with a learned evaluation (``make_agent("netsearch")``): rollouts cut
    after ``depth`` moves are valued by the shipped value network (``evaluator``: another
    checkpoint), and the gate keeps the ``distilled`` network's move (``prior``: another
    checkpoint or a loaded network agent) unless a move beats it by ``confidence`` standard
    errors."""
    return SearchAgent(rules, seed, worlds, rollout, confidence=confidence,
                       evaluator=evaluator or PRETRAINED_VALUE, depth=depth,
                       prior=(prior or PRETRAINED_DISTILLED) if confidence is not None
                       else None, name="netsearch")


BASELINES: dict[str, Callable[..., AgentLike]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
    "fast": FastAgent,
    "search": SearchAgent,
    "netsearch": netsearch_agent,
    "ismcts": ISMCTSAgent,
    "ppo": pretrained_agent,
    "clone": clone_agent,
    "distilled": distilled_agent,
    "looped": looped_agent,
}


# The built-in bots of each game, by name.
BOTS: dict[str, dict[str, Callable[..., AgentLike]]] = {"koikoi": BASELINES,
                                                        "hanaawase": HANAAWASE_BOTS}
GAME_NAMES = {"koikoi": "Koi-Koi", "hanaawase": "Hana-awase"}


def bots_of(game: str) -> dict[str, Callable[..., AgentLike]]:
    """The built-in bots of ``game`` (``koikoi`` or ``hanaawase``)."""
    if game not in BOTS:
        raise ValueError(f"unknown game {game!r}; the games are {', '.join(BOTS)}")
    return BOTS[game]


def game_rules(rules: Any, game: str = "koikoi") -> Any:
    """A rule set of ``game`` from a preset name, a mapping of options, a rule set or None."""
    return resolve_hanaawase_rules(rules) if game == "hanaawase" else resolve_rules(rules)


def is_baseline_name(spec: str, game: str = "koikoi") -> bool:
    """A built-in bot's name as ``make_agent`` reads it (case and surrounding spaces
    ignored)."""
    return spec.strip().lower() in bots_of(game)


def agent_spec_text(spec: Any, bots: Sequence[str]) -> str:
    """``spec`` as the text :func:`make_agent` reads (a path object as its path), or a
    TypeError naming what a spec may be."""
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string: a built-in bot's name ({', '.join(bots)}), "
                        f"a checkpoint file, NAME:key=value, sb3:PATH or module:name; got "
                        f"{spec!r} ({type(spec).__name__})")
    return spec


def make_agent(spec: str, rules: Any = None, seed: int | None = None,
               game: str = "koikoi") -> AgentLike:
    """An agent of ``game`` (``koikoi``, or ``hanaawase``: its bots, its checkpoints and
    ``module:name``; ``rules`` then a HanaawaseRules or a mapping of its options) from a
    short spec:

    - a built-in bot by name (``random``, ``greedy``, ``expert``, ``fast``: the cheap policy
      fitted to the expert that rollouts play; ``search`` and ``ismcts``:
      the search bots with their default budgets; ``ppo``: the shipped trained network);
    - a trained policy from an existing checkpoint file (a path is tried first, so a file
      named like a baseline wins only when it exists);
    - ``NAME:key=value,...``: a built-in bot with options of its constructor, as
      ``search:worlds=256,confidence=none`` or ``ismcts:iterations=1024`` (the search bots'
      budget knobs on a command line; values read as YAML scalars, ``none`` as None);
    - ``sb3:PATH``: a Stable-Baselines3 model file (:class:`agents.bots.sb3.SB3Agent`);
    - ``module:name``: an object with ``act(obs, mask)`` importable from ``module``, or a
      callable returning one (given ``rules=`` and ``seed=`` where it takes them): any bot
      of the user's own plays in ``evaluate.py`` and ``play.py``.
    """
    bots = bots_of(game)
    rules = game_rules(rules, game)
    spec = agent_spec_text(spec, list(bots))
    name, _, options = spec.partition(":")
    if options and is_baseline_name(name, game) and "=" in options and not os.path.exists(spec):
        return _configured_bot(bots, name.strip().lower(), options, rules, seed)
    if spec.startswith("sb3:") and game == "koikoi":
        from agents.bots.sb3 import SB3Agent  # torch and SB3 only for such files

        return SB3Agent.load(spec[len("sb3:"):])
    if ":" in spec and not os.path.exists(spec) and not is_baseline_name(spec, game):
        return _imported_agent(spec, rules, seed)
    if os.path.isfile(spec):
        return load_policy(spec, rules, seed, game)
    if is_baseline_name(spec, game):
        return bots[spec.strip().lower()](rules=rules, seed=seed)
    kind = "agent" if game == "koikoi" else f"{GAME_NAMES[game]} agent"
    formats = "sb3:PATH or module:name" if game == "koikoi" else "module:name"
    raise ValueError(f"unknown {kind} {spec!r}: not an existing checkpoint file, not a "
                     f"baseline name ({', '.join(bots)}), not {formats}{folder_hint(spec)}")


def load_policy(path: str | Path, rules: Any = None, seed: int | None = None,
                game: str = "koikoi") -> AgentLike:
    """A trained policy of ``game`` from its checkpoint file (torch is imported here)."""
    if game == "hanaawase":
        from agents.bots.hanaawase_policy import load_hanaawase_policy

        return load_hanaawase_policy(path, game_rules(rules, game), seed)
    from agents.bots.policy import PolicyAgent

    agent = PolicyAgent.load(path, rules)
    if seed is not None:
        agent.seed(seed)
    return agent


def policy_agent(payload: dict[str, Any], path: str | Path, rules: Any = None,
                 game: str = "koikoi", greedy: bool = True, seed: int | None = None
                 ) -> AgentLike:
    """A trained policy of ``game`` from a checkpoint's policy already read (``model`` and
    ``network``, and the game's keys), named after the file it came from."""
    if game == "hanaawase":
        from agents.bots.hanaawase_policy import HanaawasePolicyAgent

        return HanaawasePolicyAgent.from_payload(payload, path, game_rules(rules, game),
                                                 greedy, seed)
    from agents.bots.policy import PolicyAgent

    agent = PolicyAgent.from_payload(payload, path, greedy)
    if seed is not None:
        agent.seed(seed)
    return agent


def network_agent(network: Any, name: str, rules: Any = None, game: str = "koikoi",
                  greedy: bool = True, seed: int | None = None) -> AgentLike:
    """An agent that plays with ``network`` as it is (a run's learner, in evaluations)."""
    if game == "hanaawase":
        from agents.bots.hanaawase_policy import HanaawasePolicyAgent

        return HanaawasePolicyAgent(network, game_rules(rules, game), name, greedy, seed)
    from agents.bots.policy import PolicyAgent

    return PolicyAgent(network, name=name, greedy=greedy, seed=seed)


def _configured_bot(bots: dict[str, Callable[..., AgentLike]], name: str, options: str,
                    rules: Any, seed: int | None) -> AgentLike:
    """``NAME:key=value,...`` of :func:`make_agent`."""
    import yaml

    factory = bots[name]
    allowed = [p for p in inspect.signature(factory).parameters
               if p not in ("rules", "seed", "self", "name")]
    given: dict[str, Any] = {}
    for item in options.split(","):
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or key not in allowed:
            raise ValueError(f"agent {name!r}: {item.strip()!r} is not key=value with a key of "
                             f"{', '.join(allowed) or '(none)'}")
        if key in given:
            raise ValueError(f"agent {name!r}: option {key!r} is given twice ({options.strip()!r}"
                             f"); give each of {', '.join(allowed)} at most once")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            raise ValueError(f"agent {name!r}: the value of {key!r} ({text!r}) cannot be "
                             "read") from None
        given[key] = None if isinstance(value, str) and value.lower() == "none" else value
    agent = factory(rules=rules, seed=seed, **given)  # a bad value fails there, by name
    agent.name = f"{name}:{options.strip()}"
    return agent


def _imported_agent(spec: str, rules: Any, seed: int | None) -> AgentLike:
    """``module:name`` of :func:`make_agent`: the object is checked to be an agent, an agent
    class or a factory function of the user's own before anything is called."""
    module_name, _, attribute = spec.rpartition(":")
    top = module_name.partition(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise ValueError(f"agent {spec!r}: {module_name!r} is a standard-library module, and no "
                         f"agent lives there; give module:name of your own agent class, "
                         f"instance or factory function")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as error:
        raise ValueError(f"agent {spec!r}: cannot import {attribute!r} from module "
                         f"{module_name!r} ({error})") from None
    if inspect.isclass(target) or inspect.isfunction(target):
        accepted = _factory_parameters(spec, target)
        given = {key: value for key, value in (("rules", rules), ("seed", seed))
                 if key in accepted}
        target = target(**given)
    elif callable(target) and not callable(getattr(target, "act", None)):
        raise ValueError(f"agent {spec!r} is no agent: a {type(target).__name__} that is "
                         f"neither an agent class nor a factory function (Python functions "
                         f"taking only rules= and seed= are called; nothing else is)")
    if not callable(getattr(target, "act", None)):
        raise ValueError(f"agent {spec!r} is no agent: it needs act(obs, mask) -> actions")
    if not hasattr(target, "name"):
        target.name = attribute
    return target


def _factory_parameters(spec: str, target: Any) -> list[str]:
    """The parameters an agent class or factory function takes, once it is known to be one:
    a class must define ``act``; a factory needs no argument but ``rules`` and ``seed``, and
    a return annotation, where given, must be an agent class."""
    if inspect.isclass(target) and not callable(getattr(target, "act", None)):
        raise ValueError(f"agent {spec!r} is no agent: class {target.__name__} has no "
                         f"act(obs, mask) method")
    returns = getattr(target, "__annotations__", {}).get("return") \
        if inspect.isfunction(target) else None
    if inspect.isclass(returns) and not callable(getattr(returns, "act", None)):
        raise ValueError(f"agent {spec!r} is no agent factory: it returns {returns.__name__}, "
                         f"which has no act(obs, mask) method")
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        raise ValueError(f"agent {spec!r}: its signature cannot be read, so it is not "
                         f"called") from None
    needed = [name for name, p in params.items() if p.default is p.empty
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and name not in ("rules", "seed")]
    if needed:
        raise ValueError(f"agent {spec!r}: it needs {', '.join(needed)}; an agent class or "
                         f"factory is called with rules= and seed= only (where it takes them)")
    return list(params)


def display_names(specs: Sequence[str]) -> list[str]:
    """Names to report agents by: a baseline's name, a checkpoint's file stem, lengthened
    with its folders (``run_a/checkpoints/latest``) where a stem is shared or is a
    baseline's name, so results never credit a checkpoint to a baseline or mix two files up."""
    names: list[str | None] = [spec.strip().lower() if is_baseline_name(spec)
                               and not os.path.isfile(spec) else None for spec in specs]
    parts = [Path(spec).with_suffix("").parts for spec in specs]
    parts = [p[1:] if p and p[0] == Path(spec).anchor else p for p, spec in zip(parts, specs)]
    depth = 1
    while any(name is None for name in names):
        trial = [name if name is not None else "/".join(parts[k][-depth:])
                 for k, name in enumerate(names)]
        for k, name in enumerate(names):
            if name is None and trial[k] not in BASELINES and trial.count(trial[k]) == 1:
                names[k] = trial[k]
            elif name is None and depth >= len(parts[k]):  # the whole path, as given
                names[k] = (os.path.join(".", specs[k]) if is_baseline_name(specs[k])
                            else str(specs[k]))
        depth += 1
    return [str(name) for name in names]


def read_policy_files(specs: list[str], game: str = "koikoi", rules: Any = None
                      ) -> dict[str, dict[str, Any]]:
    """The policies of the agent specs that are checkpoint files (of ``game``; a Hana-awase
    one must fit ``rules``' players). A spec that is neither a file nor a baseline name fails
    now (a run must not find out at its first evaluation)."""
    from agents.bots.policy import CheckpointError, policy_weights  # torch

    weights = {}
    for spec in specs:
        if os.path.isfile(spec) and game == "hanaawase":
            from agents.bots.hanaawase_policy import hanaawase_policy_weights

            weights[spec] = hanaawase_policy_weights(spec, game_rules(rules, game))
        elif os.path.isfile(spec):
            weights[spec] = policy_weights(spec)
        elif not is_baseline_name(spec, game):
            raise CheckpointError(f"checkpoint {spec!r} does not exist (and it is not a "
                                  f"baseline name: {', '.join(bots_of(game))})"
                                  f"{folder_hint(spec)}")
    return weights


def make_hanaawase_agent(spec: str, rules: Any = None, seed: int | None = None) -> AgentLike:
    """``make_agent(spec, rules, seed, game="hanaawase")``."""
    return make_agent(spec, rules, seed, game="hanaawase")
