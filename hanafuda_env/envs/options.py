"""Options shared by the environments, and how round results become episode rewards.

Every environment takes the same game keywords (``rules``, ``rounds``, ``target_score``,
``episode``, ``reward``, ``round_sigma``), and the single-game ones also ``illegal_action``,
``illegal_reward`` and ``reward_scale``; they are validated here once (``reward`` and
``round_sigma`` by ``rewards.check_reward``, which each env calls) so that a typo fails
loudly with the list of keys that exist instead of being silently ignored.

Episode accounting: a deal can end rounds at once (a dealt hand yaku), before the episode it
opens has had a decision. The single-game envs deal on rounds that end in the engine, so only
the deals that begin an episode need sorting (:func:`reset_split`); the batched env steps an
autoreset core, whose steps can also finish rounds of the *next* episode
(:func:`match_boundaries`). In ``"match"`` episodes such rounds of the episode's match are
carried to its first step, so an episode's return is always its match's: the score in points,
or the result (+1/0/-1) with ``reward="match_win"`` (times ``reward_scale`` in the single-game
envs).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hanafuda_env.common.results import END_HAND_YAKU, END_NAMES
from hanafuda_env.common.seeding import check_seed_value, is_integer
from hanafuda_env.koikoi.core import IllegalActionError
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules

EPISODES = ("round", "match")
ILLEGAL_ACTIONS = ("raise", "penalize")
HAND_YAKU_REASON = END_NAMES[END_HAND_YAKU]


@dataclass(frozen=True)
class EnvOptions:
    """Validated environment options; ``rules`` already carries ``rounds``/``target_score``."""

    rules: RuleSet
    episode: str = "round"
    illegal_action: str = "raise"
    illegal_reward: float = -1.0
    reward_scale: float = 1.0


def check_unknown(unknown: dict[str, Any], allowed: Iterable[str], where: str) -> None:
    """Raise a ValueError naming unknown keyword options and listing the allowed ones."""
    if unknown:
        names = ", ".join(repr(k) for k in sorted(unknown))
        raise ValueError(f"{where}: unknown option(s) {names}; allowed options: "
                         + ", ".join(sorted(allowed)))


class RenderModeError(ValueError, TypeError):
    """A render mode the env does not have. Also a TypeError: tools that try a render mode
    and fall back without one on TypeError (stable-baselines3's ``make_vec_env`` does) then
    build the env."""


def one_of(name: str, value: Any, allowed: Iterable[Any]) -> str:
    """The message for a value outside a fixed set, worded the same everywhere."""
    return f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}"


def other_rules_warning(agent: Any, rules: RuleSet, who: str,
                        fix: str = "make_agent(name, rules)") -> str | None:
    """What to warn when ``agent`` reads the rules (e.g. the expert: score units, rounds left)
    but was built for other ones; None when it is fine. Policies carry no rule set."""
    own = getattr(agent, "rules", None)
    if not isinstance(own, RuleSet) or not getattr(agent, "reads_rules", True):
        return None
    differ = own.differences(rules)
    if not differ:
        return None
    return (f"{who} {getattr(agent, 'name', agent)!r} was built for rule set {own.name!r} but "
            f"plays {rules.name!r} (they differ in {', '.join(differ)}); build it with the same "
            f"rules, e.g. {fix}")


def check_render_mode(render_mode: Any, modes: list[str]) -> None:
    if render_mode is not None and render_mode not in modes:
        raise RenderModeError(one_of("render_mode", render_mode, [*modes, None]))


def check_number(name: str, value: Any, positive: bool = False) -> float:
    """A finite float option: NaN or an infinity would silently poison every reward."""
    kind = "positive number" if positive else "number"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a {kind}, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite {kind}, got {value!r}")
    if positive and number <= 0:
        raise ValueError(f"{name} must be a {kind}, got {value!r}")
    return number


def check_seed(seed: Any, where: str) -> int | None:
    """None or an int seed every engine takes (0 .. 2**64 - 1), checked before a reset
    changes anything, so that a bad seed cannot leave an env half reset."""
    return check_seed_value(seed, f"{where}: seed", allow_none=True)


def make_options(rules: RuleSpec = None, rounds: int | None = None,
                 target_score: int | None = None, episode: str = "round",
                 illegal_action: str = "raise", illegal_reward: float = -1.0,
                 reward_scale: float = 1.0) -> EnvOptions:
    """Check every option and fold ``rounds``/``target_score`` into the rule set."""
    ruleset = resolve_rules(rules)
    changes: dict[str, Any] = {}
    if rounds is not None:
        changes["rounds"] = rounds
    if target_score is not None:
        changes["target_score"] = target_score
    if changes:
        ruleset = ruleset.replace(**changes)  # validated by RuleSet (RuleError is a ValueError)
    if episode not in EPISODES:
        raise ValueError(one_of("episode", episode, EPISODES))
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(one_of("illegal_action", illegal_action, ILLEGAL_ACTIONS))
    return EnvOptions(ruleset, episode, illegal_action,
                      check_number("illegal_reward", illegal_reward),
                      check_number("reward_scale", reward_scale, positive=True))


@dataclass
class RoundSplit:
    """Rows of the deals that begin an episode, sorted (see the module docstring)."""

    carry: list[dict]  # rounds of the episode's match that already ended: rewarded at its start
    dropped: list[dict]  # whole episodes that ended without a decision: reported only


def match_boundaries(round_index: Sequence[int], open_rounds: int) -> tuple[int, int]:
    """For one game's rows of a step in which a match ended: ``end``, the number of rows of
    the played match, and ``carry_start``, where the rows of the match now in progress begin
    (``open_rounds`` of them: all of that match's finished rounds ended in this step)."""
    n = len(round_index)
    # The played match ends before the first later row that opens a match (round_index 0).
    end = next((k for k in range(1, n) if round_index[k] == 0), n)
    return end, max(end, n - open_rounds)


def seat_rewards(rows: Iterable[dict], field: str = "reward") -> list[float]:
    """Sum of the zero-sum per-seat rewards of some rounds: their points, or another per-seat
    field of the rows (``"match_win"``, see :func:`hanafuda_env.envs.rewards.paid_rows`)."""
    total = [0, 0]
    for row in rows:
        paid = row[field]
        total[0] += paid[0]
        total[1] += paid[1]
    return total


def reset_split(rows: Sequence[dict], episode: str, open_rounds: int) -> RoundSplit:
    """Rounds that ended at a reset's deal (hand yaku). In ``"match"`` episodes those of the
    match now in progress are carried to the first step; with ``rounds=1`` a hand yaku can end
    whole matches at the deal, which are only reported."""
    rows = list(rows)
    if episode == "round" or not open_rounds:
        return RoundSplit([], rows)
    return RoundSplit(rows[-open_rounds:], rows[:-open_rounds])


def as_action(action: Any) -> int | None:
    """An integer action id, or None for anything that is not one (floats, None, arrays)."""
    if is_integer(action):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(
            action.dtype, np.integer):
        return int(action)
    return None


class NotAnActionError(IllegalActionError, TypeError):
    """A value that is no action id at all: raised even with ``illegal_action="penalize"``,
    which penalizes ids the rules forbid, not a policy's wrongly shaped output."""


def not_an_action(where: str, action: Any, legal: list[int]) -> NotAnActionError:
    shape = f" of shape {action.shape}" if isinstance(action, np.ndarray) else ""
    return NotAnActionError(
        f"{where}: an action is one integer id (int, NumPy integer or 0-d integer array), got "
        f"{action!r}{shape}; legal actions: {legal}. The game was not changed.")


class ResetNeededError(RuntimeError):
    """A step before the first reset(): the env holds no episode yet (the game it was built
    with is a placeholder, not a deal anyone asked for)."""


def reset_needed(where: str) -> ResetNeededError:
    return ResetNeededError(f"{where}: call reset() first; step() needs an episode, and none "
                            f"has started yet")


def mark_rows(rows: list[dict], rewarded: bool) -> list[dict]:
    """Round/match records tagged with whether their points were rewarded."""
    return [{**row, "rewarded": rewarded} for row in rows]
