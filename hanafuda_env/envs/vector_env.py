"""Batched self-play environment: ``n_envs`` Koi-Koi games, both seats driven by the caller.

Every call returns the observation of the seat *to move* in each game, its legal actions
(``infos["action_mask"]``, bool) and which seat that is (``infos["seat"]``); the caller acts
for that seat. Rewards are per seat, ``(n_envs, 2)``, zero-sum (round points by default).

Autoreset follows Gymnasium 1.x vector envs in **SAME_STEP** mode
(``metadata["autoreset_mode"]``): when a game's episode terminates, the observation, mask and
seat returned by the same ``step`` already belong to the next episode's first decision, and
the rewards of that step belong to the episode that ended. Episodes never truncate, so there
is nothing to bootstrap from and no ``final_obs``/``final_info`` in ``infos``. It is not a
``gymnasium.vector.VectorEnv`` (rewards are per seat, the caller acts for whichever seat is to
move), so Gymnasium's vector wrappers do not apply.

* ``episode="round"``: an episode is one round. The games keep playing their matches, so
  successive episodes are successive rounds (the next dealer as the rules say, the score goes on). A
  hand-yaku round dealt right after has no decision: it is in ``round_results`` but not
  rewarded (``infos["rewarded"]`` marks the rows that were).
* ``episode="match"``: an episode is a match; every round's points are rewarded when they
  happen. Rounds of the next match that end at its deal are rewarded with its first step.

``reward="points"`` (the default) pays round points; ``reward="match_win"`` pays each round's
change in match-win chance instead (:mod:`hanafuda_env.envs.rewards`; a match's rewards add up to
its result, +1/0/-1), which is what a player who wants to win matches maximises. ``koikoi_v0``
and the single-agent env take the same options and pay the same.

Per-seat learners (TD, DQN): a seat's transition runs from one of its decisions to its next
decision in the same episode, or to the episode's end; both seats' rewards arrive at every
step, so add up each seat's rewards between its decisions. Rewards paid before a seat's first
decision of an episode (rounds of a new match that ended at its deal) belong to that first
decision (``agents.train.ppo.compute_gae`` does all this for the trainer's interleaved streams).

``infos``: ``action_mask`` (B, 98) bool and ``seat`` (B,) of the seat to move,
``round_results`` (the core's :class:`RoundResults` of this step, hand-yaku rounds included),
``match_results`` (:class:`MatchResults`), ``rewarded`` (one bool per round row: its points
are in this step's rewards, or, for rounds of a match that just began, in the next step's) and
``next_episode`` (one bool per round row: it was dealt after its game's episode ended in this
step, so it belongs to the next episode's players, e.g. when a trainer draws new seats).
``reset``'s infos report the same for what ended at its deal (every row ``next_episode``).

Speed: the observation array is written in place (``encode_observations(out=...)``), so the
array returned by ``reset``/``step`` is overwritten by the next call: copy it to keep it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from hanafuda_env.common.results import END_HAND_YAKU, MatchResults, RoundResults
from hanafuda_env.common.seeding import is_integer, lone_game_seeds
from hanafuda_env.envs.options import (
    EnvOptions,
    check_unknown,
    make_options,
    match_boundaries,
    reset_needed,
)
from hanafuda_env.envs.rewards import DEFAULT_ROUND_SIGMA, check_reward, match_win_rewards
from hanafuda_env.koikoi.core import NUM_ACTIONS, KoiKoiCore
from hanafuda_env.koikoi.observation import OBS_DIM, encode_observations, observation_bounds
from hanafuda_env.koikoi.rules import RuleSpec
from hanafuda_env.koikoi.state import StateError


def _add_rows(rewards: np.ndarray, games: np.ndarray, rows: np.ndarray) -> None:
    """Add each row's (2,) rewards to its game's (a game may have several rows); a bincount
    per seat, as ``np.add.at`` into float32 from other dtypes is three times slower."""
    for seat in (0, 1):
        rewards[:, seat] += np.bincount(games, weights=rows[:, seat], minlength=len(rewards))


class KoiKoiVectorEnv:
    """B games at once on one :class:`KoiKoiCore` (``.core``)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, n_envs: int, rules: RuleSpec = None, episode: str = "round",
                 seed: int | None = None, rounds: int | None = None,
                 target_score: int | None = None, reward: str = "points",
                 round_sigma: float = DEFAULT_ROUND_SIGMA, **unknown: Any):
        check_unknown(unknown, ("n_envs", "rules", "episode", "seed", "rounds", "target_score",
                                "reward", "round_sigma"), "KoiKoiVectorEnv")
        if not is_integer(n_envs) or n_envs < 1:
            raise ValueError(f"KoiKoiVectorEnv: n_envs must be a positive integer, got "
                             f"{n_envs!r}")
        self.options: EnvOptions = make_options(rules, rounds, target_score, episode)
        check_reward(reward, round_sigma)
        self.reward, self.round_sigma = reward, float(round_sigma)
        self.episode = self.options.episode
        self.core = KoiKoiCore(n_envs, self.options.rules, seed=seed)
        self.n_envs = self.core.n_games
        self.num_envs = self.n_envs  # Gymnasium's name
        low, high = observation_bounds()
        self.single_observation_space = spaces.Box(low, high, (OBS_DIM,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = spaces.Box(np.tile(low, (self.n_envs, 1)),
                                            np.tile(high, (self.n_envs, 1)),
                                            (self.n_envs, OBS_DIM), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(self.n_envs, NUM_ACTIONS))
        self._first_seed = seed
        self._rng = np.random.default_rng(seed)
        self._obs = np.empty((self.n_envs, OBS_DIM), dtype=np.float32)
        self._carry = np.zeros((self.n_envs, 2), dtype=np.float64)
        self._has_carry = False
        self._started = False  # a reset (or a loaded state) gave the games their episodes

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | Sequence[int] | np.ndarray | None = None,
              options: dict | None = None) -> tuple[np.ndarray, dict]:
        """New matches in every game. ``seed`` (else the constructor's on the first reset,
        else one drawn from the env's generator) seeds the games as ``KoiKoiCore`` does,
        except that a list gives one seed per env: env i plays as a lone env seeded
        ``seed[i]``; ``options`` are the core's (``dealer``, ``deck``). A rejected call (bad
        seed or options) changes nothing: the constructor's seed still waits for the next
        reset."""
        self.core.check_reset(seed, options)  # before anything changes
        rng = self._rng
        if seed is None and self._first_seed is not None:
            seed = self._first_seed
        if seed is None:
            seed = int(rng.integers(2**63))
        else:
            rng = np.random.default_rng(seed)
        # one seed per env (Gymnasium's convention): env i plays as a lone env seeded seed[i]
        game_seed = lone_game_seeds(seed) if np.ndim(seed) == 1 else seed
        dealt = self.core.reset(seed=game_seed, options=options)
        self._first_seed, self._rng = None, rng  # an explicit seed supersedes the first one
        rounds = dealt.rounds
        self._carry[:] = 0
        rewarded = np.zeros(len(rounds), dtype=bool)
        if self.episode == "match" and len(rounds):
            over = np.zeros(self.n_envs, dtype=bool)
            over[rounds.game] = True
            row_rewards = self._row_rewards(rounds, dealt.matches, dealt.match_over)
            self._split_match(rounds, row_rewards, over, rewarded, self._carry, at_reset=True)
        self._has_carry = bool(self._carry.any())
        self._started = True
        infos = self._infos(rounds, dealt.matches, rewarded, np.ones(len(rounds), dtype=bool))
        return encode_observations(self.core, out=self._obs), infos

    # ------------------------------------------------------------------- step
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict]:
        """One action per game for its seat to move; see the module docstring."""
        if not self._started:
            raise reset_needed("KoiKoiVectorEnv.step")
        out = self.core.step(actions)
        rounds = out.rounds
        rewards = np.zeros((self.n_envs, 2), dtype=np.float32)
        if self._has_carry:
            rewards += self._carry
            self._carry[:] = 0
            self._has_carry = False
        rewarded = np.zeros(len(rounds), dtype=bool)
        next_episode = np.zeros(len(rounds), dtype=bool)
        if len(rounds):
            row_rewards = self._row_rewards(rounds, out.matches, out.match_over)
            if self.episode == "round":
                terminated = out.round_over.copy()
                rewarded = rounds.reason != END_HAND_YAKU
                next_episode = ~rewarded  # hand yaku are dealt after the played round
                _add_rows(rewards, rounds.game[rewarded], row_rewards[rewarded])
            else:
                terminated = out.match_over.copy()
                plain = ~out.match_over[rounds.game]
                rewarded[plain] = True
                _add_rows(rewards, rounds.game[plain], row_rewards[plain])
                if terminated.any():
                    gained = np.zeros((self.n_envs, 2), dtype=np.float64)
                    self._split_match(rounds, row_rewards, out.match_over, rewarded,
                                      self._carry, gained, next_episode)
                    rewards += gained
                    self._has_carry = bool(self._carry.any())
        else:
            terminated = np.zeros(self.n_envs, dtype=bool)
        obs = encode_observations(self.core, out=self._obs)
        infos = self._infos(rounds, out.matches, rewarded, next_episode)
        return obs, rewards, terminated, np.zeros(self.n_envs, dtype=bool), infos

    def _row_rewards(self, rounds: RoundResults, matches: MatchResults,
                     match_over: np.ndarray) -> np.ndarray:
        """(K, 2) reward of each round row: its points, or its match-value change."""
        if self.reward == "points":
            return rounds.reward
        return match_win_rewards(rounds, matches, match_over, self.core.match_score[:, 0],
                                 self.core.round_index, self.options.rules, self.round_sigma)

    def _split_match(self, rounds: RoundResults, row_rewards: np.ndarray, over: np.ndarray,
                     rewarded: np.ndarray, carry: np.ndarray, gained: np.ndarray | None = None,
                     next_episode: np.ndarray | None = None, at_reset: bool = False) -> None:
        """Rows of games whose match ended: the played match's rows are rewarded now (into
        ``gained``), those of the match now in progress are carried (into ``carry``); the
        rows after the played match are marked in ``next_episode``."""
        games = rounds.game
        for g in np.unique(games[over[games]]):
            rows = np.flatnonzero(games == g)
            index = rounds.round_index[rows].tolist()
            open_rounds = int(self.core.round_index[g])
            if at_reset:  # no played match: every row is a later one
                end, start = 0, len(rows) - open_rounds
            else:
                end, start = match_boundaries(index, open_rounds)
                gained[g] += row_rewards[rows[:end]].sum(axis=0)
                rewarded[rows[:end]] = True
                next_episode[rows[end:]] = True
            carry[g] += row_rewards[rows[start:]].sum(axis=0)
            rewarded[rows[start:]] = True

    def _infos(self, rounds: RoundResults, matches: Any, rewarded: np.ndarray,
               next_episode: np.ndarray) -> dict:
        return {"action_mask": self.core.legal_action_mask(),
                "seat": self.core.mover.astype(np.int64), "round_results": rounds,
                "match_results": matches, "rewarded": rewarded, "next_episode": next_episode}

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, np.ndarray]:
        """Everything needed to continue exactly: the games and any carried reward."""
        return {**self.core.state_dict(), "carry": self._carry.copy()}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`state_dict` returned (same number of games)."""
        if not isinstance(state, dict) or "carry" not in state:
            raise StateError("env state lacks 'carry' (the rewards waiting for the next step)")
        given = np.asarray(state["carry"])
        if given.dtype.kind not in "iuf":
            raise StateError(f"env state 'carry' must hold numbers (the rewards waiting for "
                             f"the next step), got dtype {given.dtype}")
        carry = given.astype(np.float64)
        if carry.shape != self._carry.shape:
            raise StateError(f"env state 'carry' has shape {carry.shape}, "
                             f"expected {self._carry.shape}")
        if not np.isfinite(carry).all():
            g = int(np.flatnonzero(~np.isfinite(carry).all(axis=1))[0])
            raise StateError(f"game {g}: env state 'carry' must hold finite rewards, got "
                             f"{carry[g].tolist()}")
        self.core.load_state_dict({k: v for k, v in state.items() if k != "carry"})
        self._carry = carry.copy()
        self._has_carry = bool(carry.any())
        self._started = True

    # --------------------------------------------------------------- observe
    def observe(self, seats: Any) -> np.ndarray:
        """(B, OBS_DIM) observations of any seats (an int or one per game), a new array."""
        return encode_observations(self.core, seats)

    def action_masks(self) -> np.ndarray:
        """(B, 98) bool: legal actions of the seat to move in each game."""
        return self.core.legal_action_mask()

    def close(self) -> None:
        """Nothing to release."""
