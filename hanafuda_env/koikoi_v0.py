"""PettingZoo AEC environment: one Koi-Koi game between ``player_0`` and ``player_1``.

Agents are *seats*: who deals changes between rounds, and the dealer moves first, so the agent
to move is whoever the rules say (``agent_selection``), not a fixed alternation.

* Observation: ``{"observation": float32[OBS_DIM], "action_mask": int8[98]}`` from the agent's
  own seat (see :mod:`hanafuda_env.observation`); the mask is non-zero only for the agent to
  move, and the same mask is in ``infos[agent]["action_mask"]``. Arrays and each agent's info
  dict handed out are never written to afterwards: every step makes new ones (the mover's
  mask is one array, shared by its observations and infos until the next step), so a replay
  buffer may keep them as they are (``env.infos`` itself is the live table of the latest).
* Reward: the zero-sum points of every finished round go to the seats that won and lost them,
  whoever made the last move (a stop, an exhausted stock, …). With ``reward="match_win"``
  each round pays instead its change in the seats' match-win chance
  (:mod:`hanafuda_env.rewards`, as ``KoiKoiVectorEnv`` pays it): a ``"match"`` episode's
  rewards add up to its result, +1/0/-1, and round rows carry ``"match_win"``, what the round
  is worth to each seat (paid where ``"rewarded"``). ``reward_scale`` multiplies either.
* ``infos[agent]["round_results"]`` lists the rounds finished since the agent last acted
  (``RoundResults.records()`` rows: yaku breakdown, multiplier, koi-koi calls, plus
  ``"rewarded"``); ``infos[agent]["match_results"]`` the same for matches.
* Episode ``"round"`` ends with the round played (a hand-yaku round dealt right after it has
  no decision: reported, not rewarded); ``"match"`` ends with the match and rewards every
  round, hand-yaku rounds included. A hand-yaku round of the *next* match, dealt right after
  the match ended, is listed twice: at the step that ended the episode, not ``"rewarded"``,
  and in the infos of the ``reset()`` that goes on into its match, ``"rewarded"`` (its reward
  comes with that episode's first step). Count rewarded rows to count each round once.

Turn-based, so no native parallel API (``metadata["is_parallelizable"]`` is False: not for
``aec_to_parallel``; PettingZoo's ``turn_based_aec_to_parallel`` wraps it, one mover per step)
and no ``state()``.

Once the episode is over, ``observe`` shows the last decision of the episode with an all-zero
mask (the game has already dealt the next round). ``reset()`` without seed or options then
goes on from there: the match's next round, or a new match (in "match" episodes).
"""

from __future__ import annotations

import warnings
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from .core import NUM_ACTIONS, IllegalActionError, action_name, describe_actions
from .deals import RESET_OPTIONS
from .env_options import (
    EnvOptions,
    as_action,
    check_render_mode,
    check_seed,
    check_unknown,
    make_options,
    mark_rows,
    not_an_action,
    one_of,
    seat_rewards,
)
from .game import GameStepOutcome, KoiKoiGame
from .observation import OBS_DIM, encode_game, observation_bounds
from .rendering import render_game
from .rewards import DEFAULT_ROUND_SIGMA, ROW_FIELDS, check_reward, paid_split
from .rules import RuleSpec

AGENTS = ("player_0", "player_1")
RENDER_VIEWERS = (*AGENTS, "mover")  # whose board render() draws; None: both hands
_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}
_NO_LEGAL = bytes(NUM_ACTIONS)  # nobody may move: the episode is over


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
    """The wrapped env's ``name``, read by ``attrgetter`` (C, no Python frame) through
    ``_live``, which ``reset()`` sets. Before that the read fails and Python falls back on
    ``__getattr__``: PettingZoo's "cannot be accessed before reset" AttributeError."""
    return property(attrgetter(f"_live.{name}"), doc=f"The wrapped env's {name} (after reset).")


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks (same errors and warnings), with direct paths for what every
    step reads: the inherited ``__getattr__`` forwarding (two Python calls per attribute) and
    the ``super()`` chains of ``observe`` and the agent iterator made ``env()`` a fifth slower
    than ``raw_env()`` in random play."""

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    def __str__(self) -> str:  # the env's name, as PettingZoo prints its own wrapper
        return str(self.env)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._live = self.env  # opens the forwarded attributes
        self.env.reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

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

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator in one Python frame instead of three
    (``performance_benchmark`` makes one per cycle of agents)."""

    def __init__(self, env: _OrderEnforcing, max_iter: int):
        self.env = env
        self.iters_til_term = max_iter

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        if not wrapper._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        wrapper._has_updated = False
        return env.agent_selection


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Koi-Koi for two seats. Options (all keywords; unknown ones raise ValueError):

    ``rules`` (preset name, dict, YAML path or RuleSet), ``rounds``, ``target_score``,
    ``episode`` ("round" or "match"), ``illegal_action`` ("raise", the default, or
    "penalize": the offender gets ``illegal_reward``, the others 0, and the episode
    terminates for all, as with PettingZoo's TerminateIllegalWrapper; every
    ``infos[agent]["illegal_action"]`` names the offender, only the offender's also holds its
    action and legal actions, which would reveal its hand; a value that is no action id at
    all still raises ``NotAnActionError``), ``reward``
    ("points", the default, or "match_win": each round's change in match-win chance, see
    :mod:`hanafuda_env.rewards`), ``round_sigma`` (match_win: one round's margin spread, in
    the rules' ``point_unit``: what a further card adds), ``reward_scale`` (round rewards are
    multiplied by it), ``seed`` (used by the first ``reset()`` given none), ``render_mode``
    (``"ansi"``: ``render()`` returns the text board; ``"human"``: it prints the board after
    every step and on ``render()``) and ``render_viewer`` (whose board it is: ``None``, the
    default, shows both hands, a spectator's view; ``"player_0"`` or ``"player_1"`` that
    player's, the other hand face down; ``"mover"`` the player to move's).

    ``copy.deepcopy`` and pickling keep the whole state, the game in progress included: a
    copy goes on exactly like the original (e.g. to branch a search).
    """

    metadata = {"name": "koikoi_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, *, rules: RuleSpec = None, rounds: int | None = None,
                 target_score: int | None = None, episode: str = "round",
                 illegal_action: str = "raise", illegal_reward: float = -1.0,
                 reward_scale: float = 1.0, reward: str = "points",
                 round_sigma: float = DEFAULT_ROUND_SIGMA, seed: int | None = None,
                 render_mode: str | None = None, render_viewer: str | None = None,
                 **unknown: Any):
        check_unknown(unknown, ("rules", "rounds", "target_score", "episode", "illegal_action",
                                "illegal_reward", "reward_scale", "reward", "round_sigma",
                                "seed", "render_mode", "render_viewer"), "koikoi_v0")
        super().__init__()
        self.options: EnvOptions = make_options(rules, rounds, target_score, episode,
                                                illegal_action, illegal_reward, reward_scale)
        check_reward(reward, round_sigma)
        self.reward, self.round_sigma = reward, float(round_sigma)
        self._paid_key = ROW_FIELDS[reward]  # round rows' key of what they pay each seat
        check_render_mode(render_mode, self.metadata["render_modes"])
        if render_viewer is not None and render_viewer not in RENDER_VIEWERS:
            raise ValueError(one_of("render_viewer", render_viewer, [*RENDER_VIEWERS, None]))
        self.render_mode, self.render_viewer = render_mode, render_viewer
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {a: observation_space() for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seed = check_seed(seed, "koikoi_v0")  # for the first reset given none
        self._np_random: np.random.Generator | None = None
        self.game = KoiKoiGame(self.options.rules, seed=0)
        self._final: KoiKoiGame | None = None  # the last decision once the episode is over
        self._carry = [0, 0]  # rewards of this episode's rounds that ended before its first step
        self._next_rows: list[dict] = []  # the same for the next episode, once a step ends one
        self._next: list[dict] | None = None  # set while reset() may go on with the game
        self._rewarded = False  # self.rewards holds non-zero values from the last step
        self._legal = _NO_LEGAL  # the mover's mask as bytes: checks without NumPy
        self._mask: np.ndarray | None = None  # the mover's mask array, as handed out
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
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
        keys are ignored with a warning (PettingZoo's api_test passes made-up ones).

        The constructor's ``seed`` serves the first reset given none; any reset that succeeds
        uses it up. A rejected reset (bad seed or options) changes nothing."""
        game_options = {}
        for key, value in (options or {}).items():
            if key in RESET_OPTIONS:
                game_options[key] = value
            else:
                warnings.warn(f"koikoi_v0.reset ignores option {key!r}; reset options: "
                              f"{', '.join(RESET_OPTIONS)}", stacklevel=2)
        seed = check_seed(seed, "koikoi_v0.reset")  # everything that can fail, before any change
        self.game.check_reset_options(game_options)
        if seed is None:
            seed = self._seed
        self._seed = None
        matches: list[dict] = []
        if seed is None and not game_options and self._next is not None:
            rows, self._next = self._next, None  # rounds of this episode already over
            records = mark_rows(rows, True)
        else:
            if seed is not None:
                self._np_random, _ = seeding.np_random(seed)
                game_seed = seed
            else:
                if self._np_random is None:
                    self._np_random, _ = seeding.np_random()
                game_seed = int(self._np_random.integers(2**63))
            dealt = self.game.reset(seed=game_seed, options=game_options)
            split = paid_split(self.reward, self.round_sigma, self.options.episode, self.game,
                               dealt.rounds, dealt.matches)
            rows = split.carry
            records = mark_rows(rows, True) + mark_rows(split.dropped, False)
            matches = dealt.matches
            self._next = None
        self._carry = seat_rewards(rows, self._paid_key)
        self._final = None
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._rewarded = False
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {"round_results": list(records), "match_results": list(matches),
                          "action_mask": np.zeros(NUM_ACTIONS, np.int8)} for a in AGENTS}
        self._set_masks()

    # -------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        act = action if action.__class__ is int else as_action(action)
        if act is None:
            raise not_an_action(agent, action, [a for a, ok in enumerate(self._legal) if ok])
        if not 0 <= act < NUM_ACTIONS or not self._legal[act]:
            self._illegal(agent, action, act)
            return
        game = self.game
        seat = game.mover
        # the episode's last decision, kept only where this step may end the round
        before = game.copy() if game.may_end_round(act) else None
        out = game.step(act)
        self._cumulative_rewards[agent] = 0.0
        info = self.infos[agent]
        if info["round_results"] or info["match_results"]:  # seen when it chose this move
            self.infos[agent] = {**info, "round_results": [], "match_results": []}
        done = False
        if out.round_over or self._carry[0] or self._carry[1]:
            done = self._score(out)
        elif self._rewarded:  # the last step's rewards are no longer this step's
            self.rewards = {AGENTS[0]: 0.0, AGENTS[1]: 0.0}
            self._rewarded = False
        if done:
            if before is None:
                raise RuntimeError("koikoi_v0: a step ended the round where may_end_round "
                                   "said it could not; please report this")
            self._final = before
            self._next = self._next_rows  # reset() may go on from here
            self.terminations = dict.fromkeys(AGENTS, True)
            self._set_masks()
            self.agent_selection = AGENTS[1 - seat]  # the other seat learns the outcome first
        else:
            self._set_masks()
        if self.render_mode == "human":
            self.render()

    def _score(self, out: GameStepOutcome) -> bool:
        """Route the rewards of finished rounds to their seats; True if the episode ended."""
        reward, self._carry = self._carry, [0, 0]
        done = False
        if out.round_over:
            episode = self.options.episode
            split = paid_split(self.reward, self.round_sigma, episode, self.game, out.rounds,
                               out.matches, out.match_over)
            gained = seat_rewards(split.now, self._paid_key)
            reward = [reward[0] + gained[0], reward[1] + gained[1]]
            records = (mark_rows(split.now, True) + mark_rows(split.carry, False)
                       + mark_rows(split.dropped, False))
            self._next_rows = split.carry
            for a in AGENTS:
                info = self.infos[a]
                self.infos[a] = {**info, "round_results": info["round_results"] + records,
                                 "match_results": info["match_results"] + list(out.matches)}
            done = episode == "round" or out.match_over
        scale = self.options.reward_scale
        self.rewards = {AGENTS[0]: reward[0] * scale, AGENTS[1]: reward[1] * scale}
        self._rewarded = True
        self._accumulate_rewards()
        return done

    def _illegal(self, agent: str, action: Any, act: int) -> None:
        legal = [a for a, ok in enumerate(self._legal) if ok]
        if self.options.illegal_action == "raise":
            shown = action_name(act)
            raise IllegalActionError(
                f"{agent} cannot take action {action!r} ({shown}) now; legal actions: "
                f"{describe_actions(legal)}. The game was not changed.")
        # As PettingZoo's TerminateIllegalWrapper: the offender gets illegal_reward (unscaled),
        # the others 0, and the episode ends for everyone (a termination, not a truncation).
        self._cumulative_rewards[agent] = 0.0
        # rows it saw before this move are not shown again, as in step
        self.infos[agent] = {**self.infos[agent], "round_results": [], "match_results": []}
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self.rewards[agent] = self.options.illegal_reward
        self._rewarded = True
        self._accumulate_rewards()
        self._final = self.game.copy()
        self.terminations = dict.fromkeys(AGENTS, True)
        for a in AGENTS:  # the others learn who erred, never the offender's options or move
            self.infos[a] = {**self.infos[a], "illegal_action": (
                {"agent": agent, "action": action, "legal_actions": legal} if a == agent
                else {"agent": agent})}
        self._set_masks()

    def _set_masks(self) -> None:
        """Select the mover and give it a fresh mask (in its infos and from ``observe`` while
        the state stands); the agent that moved before gets zeros, the other keeps its zeros.
        The mask is built from bytes (cheaper than ``legal_action_mask()``'s zeros and fancy
        indexing), which also serve ``step``'s legality check without NumPy."""
        infos = self.infos
        if self._final is not None:
            self._legal, self._mask = _NO_LEGAL, None
            for a in self.agents:
                infos[a] = {**infos[a], "action_mask": np.zeros(NUM_ACTIONS, np.int8)}
            return
        game = self.game
        legal = bytearray(NUM_ACTIONS)
        for a in game.legal_actions():
            legal[a] = 1
        self._legal = bytes(legal)  # private: what users do to their masks cannot reach it
        self._mask = np.frombuffer(legal, np.int8)  # the array owns `legal` from here on
        agent, previous = AGENTS[game.mover], self.agent_selection
        self.agent_selection = agent
        infos[agent] = {**infos[agent], "action_mask": self._mask}
        if previous != agent:
            infos[previous] = {**infos[previous], "action_mask": np.zeros(NUM_ACTIONS, np.int8)}

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's view. The mover's mask is the array in its infos; arrays handed out
        are never written to, and each step makes new ones."""
        seat = _SEAT[agent]
        game = self._final
        if game is not None:
            return {"observation": encode_game(game, seat),
                    "action_mask": np.zeros(NUM_ACTIONS, np.int8)}
        game = self.game
        mask = self._mask if seat == game.mover else np.zeros(NUM_ACTIONS, np.int8)
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
        game = self.game if self._final is None else self._final
        viewer = {None: None, "mover": game.mover}.get(self.render_viewer)
        if viewer is None and self.render_viewer in AGENTS:
            viewer = AGENTS.index(self.render_viewer)
        board = render_game(game.to_core(), 0, viewer=viewer)
        if self._final is None:
            return board
        lines = ["episode over; last decision:", board]
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
