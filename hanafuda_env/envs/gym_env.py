"""Single-agent Gymnasium environment: a learner seat against a fixed opponent policy.

The learner sees ``float32[OBS_DIM]`` observations from its own seat (the encoding of
:mod:`hanafuda_env.koikoi.observation`) and picks one of 98 actions; the opponent's moves are played
inside ``reset``/``step`` until the learner has to decide again. ``action_masks()`` returns
the legal actions, which is what sb3-contrib's ``MaskablePPO`` reads; the same mask is in
``info["action_mask"]`` (int8, like PettingZoo's).

Illegal learner actions end the episode with ``illegal_reward`` by default
(``illegal_action="penalize"``), because Gymnasium tools (``check_env``, unmasked learners)
sample from the whole ``Discrete(98)``; ``illegal_action="raise"`` raises instead. A value that
is no action id at all (a float, a shape-(1,) array) raises ``NotAnActionError`` either way.

The engine's rounds end: once an episode is over its last observation shows the table as the
round ended. ``reset()`` without seed or options after an episode that ended by itself deals
on (the match's next round, or a new match), as ``koikoi_v0`` does; the learner seat is drawn
again unless fixed.

Rewards are the learner's zero-sum round points, or with ``reward="match_win"`` each round's
change in its match-win chance (:mod:`hanafuda_env.envs.rewards`, as ``KoiKoiVectorEnv`` pays it;
a ``"match"`` episode's rewards add up to its result, +1/0/-1, and round rows carry
``"match_win"``), times ``reward_scale``.

A round (or, in ``"match"`` episodes, a match) that ends before the learner's first decision
is no episode: it is listed in ``info["skipped"]`` and play goes on with the next one. In
``"match"`` episodes, rounds of the match finished before that decision (hand yaku, an
opponent's stop) are rewarded with the learner's first step.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hanafuda_env.envs.options import (
    EnvOptions,
    as_action,
    check_render_mode,
    check_seed,
    check_unknown,
    make_options,
    mark_rows,
    not_an_action,
    other_rules_warning,
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
from hanafuda_env.koikoi.core import NUM_ACTIONS, IllegalActionError, describe_actions
from hanafuda_env.koikoi.deals import RESET_OPTIONS as GAME_RESET_OPTIONS
from hanafuda_env.koikoi.deals import check_seat
from hanafuda_env.koikoi.game import GameResetOutcome, KoiKoiGame
from hanafuda_env.koikoi.observation import OBS_DIM, encode_game, observation_bounds
from hanafuda_env.koikoi.rules import RuleSpec
from hanafuda_env.render.board_image import board_image
from hanafuda_env.render.text import render_game

RESET_OPTIONS = (*GAME_RESET_OPTIONS, "learner_seat")
# What reset/step change besides the game and the RNG: saved so a failed call is undone.
_UNDO_FIELDS = ("seat", "_over", "_ended", "_started", "_carry", "_rounds", "_matches")


def check_opponent_seed(opponent: Any) -> None:
    """An opponent's ``seed`` is called as ``seed(n)`` by ``reset(seed=...)``: one that takes
    no seed is refused here, not with a TypeError in the middle of a later reset."""
    seed = getattr(opponent, "seed", None)
    if not callable(seed):
        return
    try:
        signature = inspect.signature(seed)
    except ValueError:  # no signature to read (a builtin): trust it
        return
    try:
        signature.bind(0)
    except TypeError:
        params = ", ".join(map(str, signature.parameters.values()))
        raise ValueError(f"the opponent's seed({params}) must take one int seed: "
                         "reset(seed=...) calls opponent.seed(n) so that one seed repeats "
                         "the opponent's moves too") from None


class KoiKoiSingleAgentEnv(gym.Env):
    """Koi-Koi against ``opponent``.

    ``opponent``: None (uniformly random legal moves drawn from ``np_random``), an object
    with ``act(obs_batch, mask_batch) -> actions`` (called with batches of one), or a
    callable ``(obs, mask) -> action``; masks given to it are bool. An opponent with a
    ``seed(int)`` method (the baselines, ``PolicyAgent``) is seeded by ``reset(seed=...)``;
    give each env its own opponent object. ``learner_seat``: 0, 1 or None (drawn at every
    reset). ``rules``, ``rounds``, ``target_score``, ``episode``, ``illegal_action``,
    ``illegal_reward``, ``reward_scale``, ``reward``, ``round_sigma`` and ``render_mode`` as
    in ``koikoi_v0.raw_env`` (seeds go to ``reset``, as Gymnasium has it); ``"rgb_array"``
    draws the learner's view, the opponent's hand face down.

    ``info``: ``action_mask``, ``seat`` (the learner's), ``round_results`` and
    ``match_results`` (what the call finished, as ``koikoi_v0`` lists them); after
    ``reset`` also ``skipped``; after an illegal action ``illegal_action``.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, opponent: Any = None, *, learner_seat: int | None = None,
                 rules: RuleSpec = None, rounds: int | None = None, target_score: int | None = None,
                 episode: str = "round", illegal_action: str = "penalize",
                 illegal_reward: float = -1.0, reward_scale: float = 1.0,
                 reward: str = "points", round_sigma: float = DEFAULT_ROUND_SIGMA,
                 render_mode: str | None = None, **unknown: Any):
        check_unknown(unknown, ("opponent", "learner_seat", "rules", "rounds", "target_score",
                                "episode", "illegal_action", "illegal_reward", "reward_scale",
                                "reward", "round_sigma", "render_mode"), "KoiKoiSingleAgentEnv")
        self.options: EnvOptions = make_options(rules, rounds, target_score, episode,
                                                illegal_action, illegal_reward, reward_scale)
        check_reward(reward, round_sigma)
        self.reward, self.round_sigma = reward, float(round_sigma)
        self._paid_key = ROW_FIELDS[reward]  # round rows' key of what they pay each seat
        check_seat(learner_seat, "learner_seat", none_ok=True)
        check_render_mode(render_mode, self.metadata["render_modes"])
        if opponent is not None and not (hasattr(opponent, "act") or callable(opponent)):
            raise ValueError("opponent must be None, a callable (obs, mask) -> action or an "
                             f"object with act(obs_batch, mask_batch); got {opponent!r} (for a "
                             "baseline or checkpoint by name: "
                             "agents.bots.registry.make_agent(name))")
        check_opponent_seed(opponent)
        message = other_rules_warning(opponent, self.options.rules, "opponent",
                                      "make_agent(name, env.unwrapped.options.rules)")
        if message:  # as play_matches warns: it would misjudge every score it reads
            warnings.warn(message, stacklevel=2)
        self.opponent = opponent
        self.render_mode = render_mode
        self._fixed_seat = learner_seat
        low, high = observation_bounds()
        self.observation_space = spaces.Box(low, high, (OBS_DIM,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game = KoiKoiGame(self.options.rules, seed=0, autoreset=False)
        self.seat = 0 if learner_seat is None else learner_seat
        self._started = False  # a reset has dealt an episode (step() needs one)
        self._over = True  # the episode is over (or none began): step() needs a reset first
        self._ended = False  # ... and it ended by itself: reset() may deal on
        self._carry = 0  # learner rewards of rounds that ended before its first decision
        self._rounds: list[dict] = []
        self._matches: list[dict] = []

    # ----------------------------------------------------------------- reset
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict]:
        """Start an episode (see the module docstring). A rejected call (bad seed or
        options, an opponent that errs before the learner's first decision) raises and
        leaves the env as it was, RNG included (an opponent given a seed keeps it)."""
        seed = check_seed(seed, "KoiKoiSingleAgentEnv.reset")
        options = dict(options or {})
        go_on = seed is None and not options  # any option, learner_seat too, starts a match
        check_unknown({k: v for k, v in options.items() if k not in RESET_OPTIONS},
                      RESET_OPTIONS, "KoiKoiSingleAgentEnv.reset")
        seat = options.pop("learner_seat", self._fixed_seat)
        check_seat(seat, "learner_seat", none_ok=True)
        self.game.check_reset_options(options)
        saved = self._snapshot()
        try:
            return self._reset(seed, options, seat, go_on)
        except BaseException:
            self._restore(saved)
            raise

    def _reset(self, seed: int | None, options: dict, seat: int | None, go_on: bool
               ) -> tuple[np.ndarray, dict]:
        """``reset`` once its arguments are checked."""
        super().reset(seed=seed)
        if seed is not None and callable(getattr(self.opponent, "seed", None)):
            # the opponent's own randomness too, so one seed repeats the whole episode
            self.opponent.seed(int(np.random.SeedSequence([seed, 7]).generate_state(1)[0]))
        self.seat = int(self.np_random.integers(2)) if seat is None else int(seat)
        if go_on and self._ended and self.game.round_over:
            self._begin(self.game.deal_next())  # the match's next round, or a new match
        else:
            game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            self._begin(self.game.reset(seed=game_seed, options=options))
        self._over = self._ended = False
        self._started = True
        skipped: list[dict] = []
        while self.game.mover != self.seat:
            reward, done = self._apply(self._opponent_action())
            self._carry += reward
            if done:  # the episode ended before the learner's first decision: not one
                skipped += mark_rows(self._rounds, False)
                reported = self._matches  # its match stays reported
                self._begin(self.game.deal_next())
                self._matches = reported + self._matches
        info = self._info()
        info["skipped"] = skipped
        if self.render_mode == "human":
            self.render()
        return encode_game(self.game, self.seat), info

    def _begin(self, dealt: GameResetOutcome) -> None:
        """Take up a deal (and the deals after it while hand yaku end them at once): the rows
        of this episode's match are carried to the learner's first step in "match"
        episodes; the others are reported only."""
        split, matches = opening_rows(self.reward, self.round_sigma, self.options.episode,
                                      self.game, dealt)
        self._rounds = mark_rows(split.carry, True) + mark_rows(split.dropped, False)
        self._matches = list(matches)
        self._carry = seat_rewards(split.carry, self._paid_key)[self.seat]

    # ------------------------------------------------------------------ step
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's move and the opponent's replies. An opponent that errs (an illegal
        action, an exception) makes the step raise with the env as it was before it."""
        if self._over:
            if not self._started:
                raise reset_needed("KoiKoiSingleAgentEnv.step")
            raise RuntimeError("the episode is over; call reset() before step()")
        act = as_action(action)
        mask = self.game.legal_action_mask()
        if act is None:
            raise not_an_action(f"the learner (seat {self.seat})", action,
                                np.flatnonzero(mask).tolist())
        if not (0 <= act < NUM_ACTIONS) or not mask[act]:
            legal = np.flatnonzero(mask).tolist()
            if self.options.illegal_action == "raise":
                raise IllegalActionError(
                    f"the learner (seat {self.seat}) cannot take action {action!r} now; legal "
                    f"actions: {describe_actions(legal)}. The game was not changed.")
            self._rounds, self._matches = [], []
            self._over = True  # the move is not played: the episode ends where it stood
            info = self._info()
            info["illegal_action"] = {"action": action, "legal_actions": legal}
            return (encode_game(self.game, self.seat), self.options.illegal_reward, True,
                    False, info)
        # An opponent's error must not leave the learner's move half applied: undo it all.
        saved = self._snapshot() if self.opponent is not None else None
        try:
            return self._step(act)
        except BaseException:
            if saved is not None:
                self._restore(saved)
            raise

    def _step(self, act: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """``step`` with a legal learner action: it and the opponent's replies."""
        self._rounds, self._matches = [], []
        reward, done = self._apply(act)
        reward += self._carry
        self._carry = 0
        while not done and self.game.mover != self.seat:
            gained, done = self._apply(self._opponent_action())
            reward += gained
        self._over = self._ended = done
        obs = encode_game(self.game, self.seat)
        if self.render_mode == "human":
            self.render()
        return obs, reward * self.options.reward_scale, done, False, self._info()

    def _apply(self, action: int) -> tuple[float, bool]:
        """One move of whoever is to move: the learner's reward, and whether the episode
        ended."""
        out = self.game.step(action)
        if not out.round_over:
            return 0, False
        paid, matches, done = round_end_rows(self.reward, self.round_sigma,
                                             self.options.episode, self.game, out)
        self._rounds += mark_rows(paid, True)
        self._matches += matches
        return seat_rewards(paid, self._paid_key)[self.seat], done

    def _snapshot(self) -> tuple:
        """Everything reset/step may change (lists copied: ``_apply`` extends them), so
        that :meth:`_restore` can undo a call that failed half way."""
        rng = self._np_random
        fields = {name: getattr(self, name) for name in _UNDO_FIELDS}
        fields = {k: v[:] if isinstance(v, list) else v for k, v in fields.items()}
        return (self.game.copy(), fields, rng, None if rng is None else rng.bit_generator.state,
                self._np_random_seed)

    def _restore(self, saved: tuple) -> None:
        game, fields, rng, rng_state, rng_seed = saved
        self.game = game
        for name, value in fields.items():
            setattr(self, name, value)
        if rng is not None:
            rng.bit_generator.state = rng_state
        self._np_random, self._np_random_seed = rng, rng_seed

    def _opponent_action(self) -> int:
        seat = 1 - self.seat
        mask = self.game.legal_action_mask()
        legal = mask.astype(bool)
        if self.opponent is None:
            action = int(self.np_random.choice(np.flatnonzero(legal)))
        else:
            obs = encode_game(self.game, seat)
            if hasattr(self.opponent, "act"):
                action = self.opponent.act(obs[None], legal[None])[0]
            else:
                action = self.opponent(obs, legal)
            checked = as_action(action)
            if checked is None or not (0 <= checked < NUM_ACTIONS) or not mask[checked]:
                allowed = np.flatnonzero(mask).tolist()
                raise IllegalActionError(
                    f"the opponent (seat {seat}) chose illegal action {action!r}; its legal "
                    f"actions: {describe_actions(allowed)}. The env was left as before this "
                    f"call.")
            action = checked
        return int(action)

    # ----------------------------------------------------------------- masks
    def action_masks(self) -> np.ndarray:
        """(98,) bool: the learner's legal actions now (all False once the episode is over)."""
        if self._over:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.legal_action_mask().astype(bool)

    def _info(self) -> dict:
        mask = (np.zeros(NUM_ACTIONS, dtype=np.int8) if self._over
                else self.game.legal_action_mask())
        return {"action_mask": mask, "seat": self.seat, "round_results": list(self._rounds),
                "match_results": list(self._matches)}

    # ---------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("KoiKoiSingleAgentEnv.render() called without a render_mode")
            return None
        if self.render_mode == "rgb_array":  # the learner's view: the opponent's hand face down
            return board_image(self.game, self.seat)
        text = render_game(self.game.to_core(), 0, viewer=self.seat)
        if self._over:
            text = "episode over; the table as it ended:\n" + text
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
