"""PettingZoo AEC environment: one Koi-Koi game between ``player_0`` and ``player_1``.

Agents are *seats*: who deals changes between rounds, and the dealer moves first, so the agent
to move is whoever the rules say (``agent_selection``), not a fixed alternation.

* Observation: ``{"observation": float32[OBS_DIM], "action_mask": int8[98]}`` from the agent's
  own seat (see :mod:`hanafuda_env.observation`); the mask is non-zero only for the agent to
  move, and the same mask is in ``infos[agent]["action_mask"]``.
* Reward: the zero-sum points of every finished round go to the seats that won and lost them,
  whoever made the last move (a stop, an exhausted stock, …).
* ``infos[agent]["round_results"]`` lists the rounds finished since the agent last acted
  (``RoundResults.records()`` rows: yaku breakdown, multiplier, koi-koi calls, plus
  ``"rewarded"``); ``infos[agent]["match_results"]`` the same for matches.
* Episode ``"round"`` ends with the round played (a hand-yaku round dealt right after it has
  no decision: reported, not rewarded); ``"match"`` ends with the match and rewards every
  round, hand-yaku rounds included.

Once the episode is over, ``observe`` shows the last decision of the episode with an all-zero
mask (the game has already dealt the next round). ``reset()`` without seed or options then
goes on from there: the match's next round, or a new match (in "match" episodes).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .core import NUM_ACTIONS, IllegalActionError, action_name
from .env_options import (
    EnvOptions,
    check_unknown,
    make_options,
    reset_split,
    seat_rewards,
    split_rounds,
)
from .game import GameStepOutcome, KoiKoiGame
from .observation import OBS_DIM, encode_game, observation_bounds
from .rendering import render_game

AGENTS = ("player_0", "player_1")
_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}
RESET_OPTIONS = ("dealer", "deck")
_ZERO_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)


def observation_space() -> spaces.Dict:
    """The per-agent observation space: the encoder's exact bounds and dtypes."""
    low, high = observation_bounds()
    return spaces.Dict({
        "observation": spaces.Box(low, high, (OBS_DIM,), np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
    })


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order checks (reset before step, …)."""
    return _OrderEnforcing(raw_env(**kwargs))


def _forwarded(name: str) -> property:
    def get(self: _OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's {name} (only after reset).")


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, with direct paths for what every step reads: the inherited
    ``__getattr__`` forwarding (two Python calls per attribute, six in ``last()``) took a third
    of a random-play step."""

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


def as_action(action: Any) -> int | None:
    """An integer action id, or None for anything that is not one (floats, None, arrays)."""
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(
            action.dtype, np.integer):
        return int(action)
    return None


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """Koi-Koi for two seats. Options (all keywords; unknown ones raise ValueError):

    ``rules`` (preset name, dict, YAML path or RuleSet), ``rounds``, ``target_score``,
    ``episode`` ("round" or "match"), ``illegal_action`` ("raise", the default, or
    "penalize": the offender gets ``illegal_reward``, the others 0, and the episode
    terminates for all, as with PettingZoo's TerminateIllegalWrapper), ``reward_scale``
    (round points are multiplied by it), ``seed`` (used by the first ``reset()`` given none),
    ``render_mode``.
    """

    metadata = {"name": "koikoi_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, *, rules: Any = None, rounds: int | None = None,
                 target_score: int | None = None, episode: str = "round",
                 illegal_action: str = "raise", illegal_reward: float = -1.0,
                 reward_scale: float = 1.0, seed: int | None = None,
                 render_mode: str | None = None, **unknown: Any):
        check_unknown(unknown, ("rules", "rounds", "target_score", "episode", "illegal_action",
                                "illegal_reward", "reward_scale", "seed", "render_mode"),
                      "koikoi_v0")
        EzPickle.__init__(self, rules=rules, rounds=rounds, target_score=target_score,
                          episode=episode, illegal_action=illegal_action,
                          illegal_reward=illegal_reward, reward_scale=reward_scale, seed=seed,
                          render_mode=render_mode)
        super().__init__()
        self.options: EnvOptions = make_options(rules, rounds, target_score, episode,
                                                illegal_action, illegal_reward, reward_scale)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {a: observation_space() for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seed = seed
        self._np_random: np.random.Generator | None = None
        self.game = KoiKoiGame(self.options.rules, seed=0)
        self._final: KoiKoiGame | None = None  # the last decision once the episode is over
        self._carry = [0, 0]  # points of this episode's rounds that ended before its first step
        self._next_rows: list[dict] = []  # the same for the next episode, once a step ends one
        self._next: list[dict] | None = None  # set while reset() may go on with the game
        self._rewarded = False  # self.rewards holds non-zero values from the last step
        self._mask = _ZERO_MASK
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[0]

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode. After an episode that ended by itself, ``reset()`` without seed
        or options goes on with what the game has already dealt: the match's next round
        (episode "round") or a new match (episode "match"), as the batched env does. A seed,
        an option or an interrupted episode starts a new match: ``options`` are ``dealer``
        (first dealer's seat) and ``deck`` (a 48-card order, see ``KoiKoiCore.reset``); other
        keys are ignored with a warning (PettingZoo's api_test passes made-up ones)."""
        game_options = {}
        for key, value in (options or {}).items():
            if key in RESET_OPTIONS:
                game_options[key] = value
            else:
                warnings.warn(f"koikoi_v0.reset ignores option {key!r}; reset options: "
                              f"{', '.join(RESET_OPTIONS)}", stacklevel=2)
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        if seed is None and not game_options and self._next is not None:
            rows, self._next = self._next, None  # rounds of this episode already over
            records = _marked(rows, True)
        else:
            if seed is not None:
                self._np_random, _ = seeding.np_random(seed)
                game_seed = int(seed)
            else:
                if self._np_random is None:
                    self._np_random, _ = seeding.np_random()
                game_seed = int(self._np_random.integers(2**63))
            rows = self.game.reset(seed=game_seed, options=game_options)
            split = reset_split(rows, self.options.episode, self.game.round_index)
            rows = split.carry
            records = _marked(rows, True) + _marked(split.dropped, False)
            self._next = None
        self._carry = seat_rewards(rows)
        self._final = None
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._rewarded = False
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {"round_results": list(records), "match_results": []} for a in AGENTS}
        self._set_masks()

    # -------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        act = action if action.__class__ is int else as_action(action)
        if act is None or not 0 <= act < NUM_ACTIONS or not self._mask[act]:
            self._illegal(agent, action, act)
            return
        game = self.game
        seat = game.mover
        before = game.copy()  # the episode's last decision, should this step end it
        out = game.step(act)
        self._cumulative_rewards[agent] = 0.0
        info = self.infos[agent]
        if info["round_results"] or info["match_results"]:
            info["round_results"], info["match_results"] = [], []
        done = False
        if out.round_over or self._carry != [0, 0]:
            done = self._score(out)
        elif self._rewarded:  # the last step's rewards are no longer this step's
            self.rewards = {AGENTS[0]: 0.0, AGENTS[1]: 0.0}
            self._rewarded = False
        if done:
            self._final = before
            self._next = self._next_rows  # reset() may go on from here
            self.terminations = {a: True for a in AGENTS}
            self._set_masks()
            self.agent_selection = AGENTS[1 - seat]  # the other seat learns the outcome first
        else:
            self._set_masks()
        if self.render_mode == "human":
            self.render()

    def _score(self, out: GameStepOutcome) -> bool:
        """Route the points of finished rounds to their seats; True if the episode ended."""
        reward, self._carry = self._carry, [0, 0]
        done = False
        if out.round_over:
            episode = self.options.episode
            split = split_rounds(out.rounds, episode, out.match_over, self.game.round_index)
            gained = seat_rewards(split.now)
            reward = [reward[0] + gained[0], reward[1] + gained[1]]
            records = (_marked(split.now, True) + _marked(split.carry, False)
                       + _marked(split.dropped, False))
            self._next_rows = split.carry
            for a in AGENTS:
                self.infos[a]["round_results"] = self.infos[a]["round_results"] + records
                self.infos[a]["match_results"] = (self.infos[a]["match_results"]
                                                  + list(out.matches))
            done = episode == "round" or out.match_over
        scale = self.options.reward_scale
        self.rewards = {AGENTS[0]: reward[0] * scale, AGENTS[1]: reward[1] * scale}
        self._rewarded = True
        self._accumulate_rewards()
        return done

    def _illegal(self, agent: str, action: Any, act: int | None) -> None:
        legal = np.flatnonzero(self._mask).tolist()
        if self.options.illegal_action == "raise":
            shown = action_name(act) if act is not None else "not an integer action id"
            raise IllegalActionError(
                f"{agent} cannot take action {action!r} ({shown}) now; legal actions: {legal} "
                f"({', '.join(action_name(a) for a in legal)}). The game was not changed.")
        # As PettingZoo's TerminateIllegalWrapper: the offender gets illegal_reward (unscaled),
        # the others 0, and the episode ends for everyone (a termination, not a truncation).
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in AGENTS}
        self.rewards[agent] = self.options.illegal_reward
        self._rewarded = True
        self._accumulate_rewards()
        self._final = self.game.copy()
        self.terminations = {a: True for a in AGENTS}
        for a in AGENTS:
            self.infos[a]["illegal_action"] = {"agent": agent, "action": action,
                                               "legal_actions": legal}
        self._set_masks()

    def _set_masks(self) -> None:
        """Cache the mover's mask, select the mover and put each agent's mask in its infos."""
        if self._final is not None:
            self._mask = _ZERO_MASK
            for a in self.agents:
                self.infos[a]["action_mask"] = np.zeros(NUM_ACTIONS, dtype=np.int8)
            return
        mover = self.game.mover
        self._mask = self.game.legal_action_mask()
        self.agent_selection = AGENTS[mover]
        self.infos[AGENTS[mover]]["action_mask"] = self._mask
        self.infos[AGENTS[1 - mover]]["action_mask"] = np.zeros(NUM_ACTIONS, dtype=np.int8)

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = _SEAT[agent]
        game = self._final
        if game is not None:
            return {"observation": encode_game(game, seat),
                    "action_mask": np.zeros(NUM_ACTIONS, dtype=np.int8)}
        game = self.game
        mask = (self._mask.copy() if seat == game.mover
                else np.zeros(NUM_ACTIONS, dtype=np.int8))
        return {"observation": encode_game(game, seat), "action_mask": mask}

    # ------------------------------------------------------------------ render
    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("koikoi_v0.render() called without a render_mode; pass "
                        "render_mode='ansi' or 'human' to env().")
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        if self._final is None:
            return render_game(self.game.to_core(), 0)
        lines = ["episode over; last decision:", render_game(self._final.to_core(), 0)]
        info = self.infos.get(self.agent_selection, {})
        if "illegal_action" in info:
            lines.append(f"ended by an illegal action: {info['illegal_action']}")
        for row in info.get("round_results", []):
            yaku = ", ".join(f"{n} {p}" for n, p in row["yaku"].items()) or "none"
            winner = f"player_{row['winner']}" if row["winner"] >= 0 else "nobody"
            lines.append(f"round {row['round_index'] + 1}: {row['reason']}, {winner} wins "
                         f"{row['points']} (base {row['base']} x{row['multiplier']}; "
                         f"yaku: {yaku})")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release; defined so PettingZoo's checks see render/close together."""


def _marked(rows: list[dict], rewarded: bool) -> list[dict]:
    return [{**row, "rewarded": rewarded} for row in rows]
