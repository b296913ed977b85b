"""PettingZoo AEC environment: one Koi-Koi game between ``player_0`` and ``player_1``.

Agents are *seats*: who deals changes between rounds, and the dealer moves first, so the agent
to move is whoever the rules say (``agent_selection``), not a fixed alternation.

* :func:`env` is the raw env in PettingZoo's stock wrappers, as its classic games are:
  ``TerminateIllegalWrapper`` (an illegal move: the mover gets ``illegal_reward``, the other
  0, and the episode ends), ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
  ``illegal_action="raise"`` keeps only the order checks: then an illegal move, or a value
  that is no action, raises :class:`~hanafuda_env.koikoi.core.IllegalActionError` naming the legal
  actions and changes nothing.
* Observation: ``{"observation": float32[OBS_DIM], "action_mask": int8[98]}`` from the agent's
  own seat (see :mod:`hanafuda_env.koikoi.observation`); the mask is non-zero only for the agent to
  move. ``infos[agent]`` holds the same mask (``"action_mask"``) and nothing else, as
  PettingZoo's classic envs do (arrays only); ``result_infos=True`` adds
  ``"round_results"`` and ``"match_results"``: the rounds and matches finished since the agent
  last acted (``RoundResults.records()`` rows plus ``"rewarded"``). Either way
  ``env.unwrapped.round_results`` / ``match_results`` hold the rows of the latest step or
  reset. Arrays and info dicts handed out are never written to afterwards.
* Reward: the zero-sum points of every finished round go to the seats that won and lost them,
  whoever made the last move (a stop, an exhausted stock, …). With ``reward="match_win"``
  each round pays instead its change in the seats' match-win chance
  (:mod:`hanafuda_env.envs.rewards`): a ``"match"`` episode's rewards add up to its result,
  +1/0/-1, and round rows carry ``"match_win"``. ``reward_scale`` multiplies either.
* Episode ``"round"`` is one round; ``"match"`` is a match, every round rewarded (a dealt
  hand yaku ends its round at the deal: rewarded with the next move, or, dealt before the
  episode's first move, with its first step). Rounds a deal ends before an episode can begin
  (hand-yaku rounds in ``"round"`` episodes, a one-round match ended at the deal) are
  reported, not rewarded.

The engine's rounds end: once the episode is over, ``observe`` shows the table as the round
ended, with an all-zero mask, and nothing is dealt. ``reset()`` without seed or options then
deals on: the match's next round, or a new match (after a match, or in "match" episodes).

Turn-based, so no native parallel API (``metadata["is_parallelizable"]`` is False: not for
``aec_to_parallel``; PettingZoo's ``turn_based_aec_to_parallel`` wraps it, one mover per step)
and no ``state()``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from hanafuda_env.envs.aec_wrappers import check_illegal_options, stock_wrappers
from hanafuda_env.envs.options import (
    EnvOptions,
    as_action,
    check_render_mode,
    check_seed,
    check_unknown,
    make_options,
    mark_rows,
    not_an_action,
    one_of,
    reset_needed,
    seat_rewards,
)
from hanafuda_env.envs.rewards import (
    DEFAULT_ROUND_SIGMA,
    ROW_FIELDS,
    check_reward,
    opening_rows,
    round_end_rows,
)
from hanafuda_env.koikoi.core import NUM_ACTIONS, IllegalActionError, action_name, describe_actions
from hanafuda_env.koikoi.deals import RESET_OPTIONS
from hanafuda_env.koikoi.game import GameStepOutcome, KoiKoiGame
from hanafuda_env.koikoi.observation import OBS_DIM, encode_game, observation_bounds
from hanafuda_env.koikoi.rules import RuleSpec
from hanafuda_env.render.board_image import board_image
from hanafuda_env.render.text import render_game

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


def env(*, illegal_action: str = "penalize", illegal_reward: float = -1.0,
        **kwargs: Any) -> AECEnv:
    """The environment in PettingZoo's stock wrappers (see the module docstring); the other
    keywords are :class:`raw_env`'s."""
    check_illegal_options(illegal_action, illegal_reward)
    return stock_wrappers(raw_env(**kwargs), illegal_action, illegal_reward)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Koi-Koi for two seats. Options (all keywords; unknown ones raise ValueError):

    ``rules`` (preset name, dict, YAML path or RuleSet), ``rounds``, ``target_score``,
    ``episode`` ("round" or "match"), ``reward`` ("points", the default, or "match_win":
    each round's change in match-win chance, see :mod:`hanafuda_env.envs.rewards`),
    ``round_sigma`` (match_win: one round's margin spread, in the rules' ``point_unit``),
    ``reward_scale`` (round rewards are multiplied by it), ``result_infos`` (round and match
    rows in the infos too), ``seed`` (used by the first ``reset()`` given none),
    ``render_mode`` (``"ansi"``: ``render()`` returns the text board; ``"human"``: it prints
    the board after every step and on ``render()``) and ``render_viewer`` (whose board it
    is: ``None``, the default, shows both hands, a spectator's view; ``"player_0"`` or
    ``"player_1"`` that player's, the other hand face down; ``"mover"`` the player to
    move's). ``"rgb_array"``: ``render()`` returns the board as an image (H×W×3 uint8,
    :mod:`hanafuda_env.render.board_image`), always a player's view: ``render_viewer``'s, or with
    ``None`` the player to move's (a picture is what an agent or its recording sees, so the
    hidden hand is face down unless a spectator's text board is asked for). An illegal move
    raises :class:`~hanafuda_env.koikoi.core.IllegalActionError` and changes nothing (:func:`env`
    wraps it to penalize instead).

    ``copy.deepcopy`` and pickling keep the whole state, the game in progress included: a
    copy goes on exactly like the original (e.g. to branch a search).
    """

    metadata = {"name": "koikoi_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, *, rules: RuleSpec = None, rounds: int | None = None,
                 target_score: int | None = None, episode: str = "round",
                 reward_scale: float = 1.0, reward: str = "points",
                 round_sigma: float = DEFAULT_ROUND_SIGMA, result_infos: bool = False,
                 seed: int | None = None, render_mode: str | None = None,
                 render_viewer: str | None = None, **unknown: Any):
        check_unknown(unknown, ("rules", "rounds", "target_score", "episode", "reward_scale",
                                "reward", "round_sigma", "result_infos", "seed",
                                "render_mode", "render_viewer"), "koikoi_v0")
        super().__init__()
        self.options: EnvOptions = make_options(rules, rounds, target_score, episode,
                                                reward_scale=reward_scale)
        check_reward(reward, round_sigma)
        self.reward, self.round_sigma = reward, float(round_sigma)
        self._paid_key = ROW_FIELDS[reward]  # round rows' key of what they pay each seat
        if not isinstance(result_infos, bool):
            raise ValueError(f"result_infos must be True or False, got {result_infos!r}")
        self.result_infos = result_infos
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
        self.game = KoiKoiGame(self.options.rules, seed=0, autoreset=False)
        self._carry = [0, 0]  # rewards of this episode's rounds that ended before its first step
        self._ended = False  # the episode ended by itself: reset() may deal on
        self._started = False  # a reset has dealt an episode (step() needs one)
        self._rewarded = False  # self.rewards holds non-zero values from the last step
        self._legal = _NO_LEGAL  # the mover's mask as bytes: checks without NumPy
        self._mask: np.ndarray | None = None  # the mover's mask array, as handed out
        self.round_results: list[dict] = []  # rows of the latest step or reset
        self.match_results: list[dict] = []
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
        or options deals on: the match's next round (episode "round") or a new match. A
        seed, an option or an interrupted episode starts a new match: ``options`` are
        ``dealer`` (first dealer's seat) and ``deck`` (a 48-card order, see
        ``KoiKoiCore.reset``); other keys are ignored with a warning (PettingZoo's api_test
        passes made-up ones).

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
        game = self.game
        if seed is None and not game_options and self._ended and game.round_over:
            dealt = game.deal_next()
        else:
            if seed is not None:
                self._np_random, _ = seeding.np_random(seed)
                game_seed = seed
            else:
                if self._np_random is None:
                    self._np_random, _ = seeding.np_random()
                game_seed = int(self._np_random.integers(2**63))
            dealt = game.reset(seed=game_seed, options=game_options)
        split, matches = opening_rows(self.reward, self.round_sigma, self.options.episode,
                                      game, dealt)
        self._carry = seat_rewards(split.carry, self._paid_key)
        records = mark_rows(split.carry, True) + mark_rows(split.dropped, False)
        self._ended = False
        self._started = True
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._rewarded = False
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.round_results, self.match_results = records, list(matches)
        self.infos = {a: self._fresh_info(records, matches) for a in AGENTS}
        self._set_masks()

    def _fresh_info(self, rows: list[dict], matches: list[dict]) -> dict:
        info: dict[str, Any] = {"action_mask": np.zeros(NUM_ACTIONS, np.int8)}
        if self.result_infos:
            info["round_results"], info["match_results"] = list(rows), list(matches)
        return info

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
            if not self._started:
                raise reset_needed("koikoi_v0.step")
            legal = [a for a, ok in enumerate(self._legal) if ok]
            raise IllegalActionError(
                f"{agent} cannot take action {action!r} ({action_name(act)}) now; legal "
                f"actions: {describe_actions(legal)}. The game was not changed.")
        game = self.game
        seat = game.mover
        out = game.step(act)
        self._cumulative_rewards[agent] = 0.0
        if self.result_infos:
            info = self.infos[agent]
            if info["round_results"] or info["match_results"]:  # seen when it chose
                self.infos[agent] = {**info, "round_results": [], "match_results": []}
        if self.round_results or self.match_results:
            self.round_results, self.match_results = [], []
        done = False
        if out.round_over or self._carry[0] or self._carry[1]:
            done = self._score(out)
        elif self._rewarded:  # the last step's rewards are no longer this step's
            self.rewards = {AGENTS[0]: 0.0, AGENTS[1]: 0.0}
            self._rewarded = False
        if done:
            self._ended = True
            self.terminations = dict.fromkeys(AGENTS, True)
            self._set_masks()
            self.agent_selection = AGENTS[1 - seat]  # the other seat learns the outcome first
        else:
            self._set_masks()
        if self.render_mode == "human":
            self.render()

    def _score(self, out: GameStepOutcome) -> bool:
        """Route the rewards of finished rounds to their seats, deal on inside a match
        episode; True if the episode ended."""
        reward, self._carry = self._carry, [0, 0]
        done = False
        if out.round_over:
            paid, matches, done = round_end_rows(self.reward, self.round_sigma,
                                                 self.options.episode, self.game, out)
            gained = seat_rewards(paid, self._paid_key)
            reward = [reward[0] + gained[0], reward[1] + gained[1]]
            records = mark_rows(paid, True)
            self.round_results, self.match_results = records, list(matches)
            if self.result_infos:
                for a in AGENTS:
                    info = self.infos[a]
                    self.infos[a] = {**info, "round_results": info["round_results"] + records,
                                     "match_results": info["match_results"] + matches}
        scale = self.options.reward_scale
        self.rewards = {AGENTS[0]: reward[0] * scale, AGENTS[1]: reward[1] * scale}
        self._rewarded = True
        self._accumulate_rewards()
        return done

    def _set_masks(self) -> None:
        """Select the mover and give it a fresh mask (in its infos and from ``observe`` while
        the state stands); the agent that moved before gets zeros, the other keeps its zeros.
        The mask is built from bytes, which also serve ``step``'s legality check."""
        infos = self.infos
        if self._ended:
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
        game = self.game
        moving = (self._mask is not None and seat == game.mover and not self._ended
                  and not self.terminations[agent])
        mask = self._mask if moving else np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": encode_game(game, seat), "action_mask": mask}

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            logger.warn("koikoi_v0.render() called without a render_mode; pass "
                        "render_mode='ansi', 'human' or 'rgb_array' to env().")
            return None
        if self.render_mode == "rgb_array":
            viewer = self._viewer()
            return board_image(self.game, self.game.mover if viewer is None else viewer)
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _viewer(self) -> int | None:
        """The seat whose view ``render_viewer`` names (None: a spectator's)."""
        if self.render_viewer in AGENTS:
            return AGENTS.index(self.render_viewer)
        return self.game.mover if self.render_viewer == "mover" else None

    def _text(self) -> str:
        game = self.game
        board = render_game(game.to_core(), 0, viewer=self._viewer())
        if not (self._ended or any(self.terminations.values())):
            return board
        lines = ["episode over; the table as it ended:", board]
        for row in self.round_results:
            yaku = ", ".join(f"{n} {p}" for n, p in row["yaku"].items()) or "none"
            winner = f"player_{row['winner']}" if row["winner"] >= 0 else "nobody"
            lines.append(f"round {row['round_index'] + 1}: {row['reason']}, {winner} wins "
                         f"{row['points']} (base {row['base']} x{row['multiplier']}; "
                         f"yaku: {yaku})")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release; defined so PettingZoo's checks see render/close together."""
