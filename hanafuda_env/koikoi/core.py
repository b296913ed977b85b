"""Koi-Koi engine: B independent matches in one state array, stepped by the compiled kernel.

Each game waits at one decision of the player to move (``mover``), see
:mod:`hanafuda_env.koikoi.state`: ``PLAY`` a card (0–47), ``CHOOSE_PLAYED`` / ``CHOOSE_DRAWN`` a
field card (48 + its id), ``DECIDE`` stop (96) or koi-koi (97). Drawing, captures, scoring
and the round's end happen inside :meth:`KoiKoiCore.step` (in :mod:`hanafuda_env.koikoi.kernel`).

Rounds end: with ``autoreset=False`` a step leaves a finished game in phase ``ROUND_OVER``
(or ``MATCH_OVER``) and :meth:`KoiKoiCore.deal_next` deals its next round; with
``autoreset=True`` (training loops) the step deals it at once, so a batch runs forever. Each
finished round yields a row in a :class:`RoundResults` table (a dealt hand yaku ends its
round at the deal, which reports it the same way: :class:`ResetOutcome`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.common.indices import check_index
from hanafuda_env.common.results import MatchResults, ResetOutcome, RoundResults, StepOutcome
from hanafuda_env.common.seeding import check_seed_value, game_seeds, is_integer
from hanafuda_env.common.worlds import deal_hidden, shuffle_undrawn
from hanafuda_env.koikoi import batch as B
from hanafuda_env.koikoi import kernel as K
from hanafuda_env.koikoi import loops as L
from hanafuda_env.koikoi.deals import (
    HAND_SIZE,
    STOCK_SIZE,
    check_decks,
    check_option_names,
    check_seats,
)
from hanafuda_env.koikoi.expert import kernel as E
from hanafuda_env.koikoi.observation import OBS_DIM, encode_observations
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules
from hanafuda_env.koikoi.state import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    MATCH_OVER,
    NUM_ACTIONS,
    PHASE_NAMES,
    PLAY,
    RESULT_DTYPE,
    ROUND_OVER,
    STATE_FIELDS,
    STOP,
    State,
    check_state,
    new_states,
)

__all__ = ["CHOOSE_DRAWN", "CHOOSE_OFFSET", "CHOOSE_PLAYED", "DECIDE", "HAND_SIZE", "KOIKOI",
           "MATCH_OVER", "NUM_ACTIONS", "PHASE_NAMES", "PLAY", "ROUND_OVER", "STOCK_SIZE",
           "STOP", "IllegalActionError", "KoiKoiCore", "action_name", "describe_actions",
           "kernel_action"]

_RESULT_SLOTS = 3  # rows a game may finish in one autoreset step before Python deals on


class IllegalActionError(ValueError):
    """An action that the game's rules do not allow at its current decision."""


def refuse_playing(games: np.ndarray, round_over: np.ndarray, phase: np.ndarray) -> None:
    """Only games whose round is over are dealt again (both games' ``deal_next``)."""
    playing = games[~round_over[games]]
    if len(playing):
        raise ValueError(f"game {int(playing[0])} is in phase "
                         f"{PHASE_NAMES[phase[playing[0]]]}: only games whose round "
                         f"is over (phase round-over or match-over) are dealt again")


class KoiKoiCore:
    """B Koi-Koi matches as one structured array (``records``). Seats are 0 and 1; who deals
    changes between rounds. ``hands``, ``phase`` … are views of the state's fields. It is a
    :class:`~hanafuda_env.common.interface.BatchCore`."""

    num_players = 2

    def __init__(self, n_games: int, rules: RuleSpec = None, seed: int | None = None, *,
                 autoreset: bool = True):
        if not is_integer(n_games) or n_games < 1:
            raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r}")
        self.n_games = int(n_games)
        self.autoreset = autoreset
        self.rules: RuleSet = resolve_rules(rules)
        self._compiled = K.compile_rules(self.rules)
        self.yaku_names = self._compiled.yaku_names
        self._set_records(new_states(self.n_games))
        self.reset(seed=seed)

    @classmethod
    def wrapping(cls, records: np.ndarray, rules: RuleSet, autoreset: bool) -> KoiKoiCore:
        """A core over ``records`` (taken as they are: a fork's copy, a one-game engine's
        state), without dealing; ``load_state_dict`` checks a state from elsewhere."""
        core = object.__new__(cls)
        core.n_games, core.autoreset, core.rules = len(records), autoreset, rules
        core._compiled = K.compile_rules(rules)
        core.yaku_names = core._compiled.yaku_names
        core._set_records(records)
        return core

    def _set_records(self, records: np.ndarray) -> None:
        self.records = records
        self.view = State.of(records)
        n = len(records)
        self._games = np.arange(n)
        self._rows = np.zeros(n * _RESULT_SLOTS, dtype=RESULT_DTYPE)
        self._row_games = np.zeros(n * _RESULT_SLOTS, dtype=np.int64)
        self._n_results = np.zeros(n, dtype=np.int8)
        self._shuffles = np.full((n, C.NUM_CARDS), -1, dtype=np.int64)

    # State fields as views (writes go into the state).
    hands = property(lambda self: self.records["hands"])
    field = property(lambda self: self.records["field"])
    piles = property(lambda self: self.records["piles"])
    stock = property(lambda self: self.records["stock"])
    stock_pos = property(lambda self: self.records["stock_pos"])
    dealer = property(lambda self: self.records["dealer"])
    mover = property(lambda self: self.records["mover"])
    phase = property(lambda self: self.records["phase"])
    pending = property(lambda self: self.records["pending"])
    koikoi_calls = property(lambda self: self.records["koikoi_calls"])
    yaku_total = property(lambda self: self.records["yaku_total"])
    turn = property(lambda self: self.records["turn"])
    round_index = property(lambda self: self.records["round_index"])
    match_score = property(lambda self: self.records["match_score"])
    points_won = property(lambda self: self.records["points_won"])
    seeds = property(lambda self: self.records["seed"])
    deal_count = property(lambda self: self.records["deal_count"])

    @property
    def round_over(self) -> np.ndarray:
        """(B,) bool: the game's round (or match) is finished and waits for its next deal."""
        return self.records["phase"] >= ROUND_OVER

    # ----------------------------------------------------------------- setup
    def reset(self, seed: int | Sequence[int] | np.ndarray | None = None,
              options: dict | None = None) -> ResetOutcome:
        """Start new matches in every game.

        ``seed``: an int (game i gets a seed derived from it and i) or one game seed per game
        (used as is, like the ``seeds`` a core holds; ``seeding.lone_game_seeds`` gives those of
        games each seeded alone).
        ``options``: ``dealer`` (first dealer, int or per game) and ``deck`` (a 48-card order,
        one for all games or one per game: [0:8] dealer's hand, [8:16] the other hand,
        [16:24] field, [24:48] stock top first). Returns the rounds and matches that ended
        at the deal.
        """
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        seeds, deck, dealer = self.check_reset(seed, options)
        # Everything is checked: from here on the state changes.
        fresh = new_states(self.n_games)
        fresh["seed"] = seeds
        self.records[:] = fresh
        if dealer is not None:  # a new match with its first dealer given, not drawn
            self.records["phase"] = ROUND_OVER
            self.records["dealer"] = dealer
        return self._deal(self._games, deck)

    def check_reset(self, seed: int | Sequence[int] | np.ndarray | None = None,
                    options: dict | None = None
                    ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """``reset``'s checked game seeds (None for no seed), deck and dealer: envs call
        this before changing anything, so a rejected reset leaves them as they were."""
        options = dict(options or {})
        check_option_names(options)
        seeds = None
        if seed is not None and np.ndim(seed) == 0:
            seeds = game_seeds(check_seed_value(seed), self.n_games)
        elif seed is not None:
            if np.ndim(seed) != 1 or len(seed) != self.n_games:
                raise ValueError(f"seed must be an int or a list of {self.n_games} ints (one "
                                 f"per game), got shape {np.shape(seed)}")
            per_game = [check_seed_value(s, "every seed of the list") for s in seed]
            seeds = np.array(per_game, dtype=np.uint64)
        deck = None
        if options.get("deck") is not None:
            deck = check_decks(options["deck"], self.n_games, self.rules)
        dealer = None
        if options.get("dealer") is not None:
            dealer = check_seats(options["dealer"], self.n_games, "dealer")
        return seeds, deck, dealer

    def deal_next(self, games: int | Sequence[int] | np.ndarray | None = None,
                  decks: np.ndarray | Sequence[int] | None = None) -> ResetOutcome:
        """Deal the next round of finished games (all finished ones by default): the match's
        next round, or a new match after its end. ``decks``: the 48-card orders to deal (one
        for all or one per game), else each game's next shuffle. A dealt hand yaku ends its
        round at once (reported; the game waits for another deal)."""
        g = self._games[self.round_over] if games is None else self._chosen(games)
        refuse_playing(g, self.round_over, self.phase)
        deck = None if decks is None else check_decks(decks, len(g), self.rules)
        return self._deal(g, deck)

    def _deal(self, games: np.ndarray, deck: np.ndarray | None) -> ResetOutcome:
        """Deal ``games`` once (with autoreset: until none ends at its deal)."""
        c = self._compiled
        orders = self._shuffles[:len(games)] if deck is None else deck.astype(np.int64)
        rows: list[tuple[np.ndarray, np.ndarray]] = []
        while len(games):
            k = L.deal_games(self.records, games, orders, *c.ctx, self._rows, self._row_games,
                             self._n_results)
            ended = self._row_games[:k].copy()
            if k:
                rows.append((ended, self._rows[:k].copy()))
            if not self.autoreset:
                break
            games, orders = ended, self._shuffles[:k]
        rounds, matches = self._tables(rows)
        return ResetOutcome(self._rewards(rounds), self._match_over(matches), rounds, matches)

    # ---------------------------------------------------------- legal actions
    def legal_action_mask(self) -> np.ndarray:
        """(B, 98) bool: the actions allowed to the player to move in each game."""
        mask = np.empty((self.n_games, NUM_ACTIONS), dtype=bool)
        L.legal_masks(self.records, mask)
        return mask

    def sample_legal_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game (-1 where the round is over)."""
        out = np.empty(self.n_games, dtype=np.int64)
        L.sample_actions(self.records, rng.random(self.n_games), out)
        return out

    def _raise_illegal(self, g: int, given: np.ndarray) -> None:
        allowed = np.flatnonzero(self.legal_action_mask()[g]).tolist()
        action = int(given[g])
        phase = int(self.phase[g])
        if phase >= ROUND_OVER:
            raise IllegalActionError(
                f"game {g}: its round is over (phase {PHASE_NAMES[phase]}), so no action is "
                f"legal until deal_next deals the next one. No game was changed.")
        raise IllegalActionError(
            f"game {g}: action {action} ({action_name(action)}) is illegal for seat "
            f"{int(self.mover[g])} in phase {PHASE_NAMES[phase]}; legal actions: "
            f"{describe_actions(allowed)}. No game was changed.")

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray | Sequence[int]) -> StepOutcome:
        """Apply one action per game for its player to move; see the module docstring."""
        given = as_given = actions
        if given.__class__ is not np.ndarray or given.dtype != np.int64 \
                or given.shape != (self.n_games,):  # what sample_legal_actions gives passes
            as_given = np.asarray(actions)
            if as_given.shape != (self.n_games,) or as_given.dtype.kind not in "iu":
                raise ValueError(f"actions must be {self.n_games} integers (one per game), "
                                 f"got shape {as_given.shape} dtype {as_given.dtype}")
            given = as_given.astype(np.int64, copy=False)
        k = L.step_games(self.records, given, *self._compiled.ctx, self._rows, self._row_games,
                         self._n_results, _RESULT_SLOTS, self.autoreset, False)
        if k < 0:
            self._raise_illegal(-1 - k, as_given)  # the value as given, not as wrapped
        if not k:
            return StepOutcome(np.zeros((self.n_games, 2), dtype=np.int32),
                               np.zeros(self.n_games, dtype=bool),
                               np.zeros(self.n_games, dtype=bool), *_empty_tables(self.yaku_names))
        round_over = self._n_results > 0
        outcome_rows = self._tables([(self._row_games[:k].copy(), self._rows[:k].copy())])
        # with autoreset a game waits for a deal only once it has used every result slot
        if self.autoreset and (stuck := self._games[self._n_results >= _RESULT_SLOTS]).size:
            more = self._deal(stuck, None)  # a run of hand yaku longer than the slots
            outcome_rows = (RoundResults.concat([outcome_rows[0], more.rounds], self.yaku_names),
                            MatchResults.concat([outcome_rows[1], more.matches]))
        rounds, matches = outcome_rows
        return StepOutcome(self._rewards(rounds), round_over, self._match_over(matches),
                           rounds, matches)

    def advance(self, game: int, action: int) -> bool:
        """One move in one game of the batch, the others untouched (what tree search calls
        per world); whether it ended the round. No result row is kept (as in rollouts); an
        illegal action raises and changes nothing."""
        if game.__class__ is not int or not 0 <= game < self.n_games:
            game = check_index(game, self.n_games)
        action = kernel_action(action)
        c = self._compiled
        ended = L.step_one(self.records, game, action, *c.ctx,
                           self._rows)
        if ended < 0:
            given = np.zeros(self.n_games, dtype=np.int64)
            given[game] = action
            self._raise_illegal(game, given)
        return bool(ended)

    def legal_actions(self, game: int = 0) -> list[int]:
        """The legal actions of one game, ascending."""
        game = check_index(game, self.n_games)
        out = np.empty(98, dtype=np.int64)
        return out[:L.legal_ids(self.records, game, out)].tolist()

    # ----------------------------------------------------------- observations
    @property
    def observation_size(self) -> int:
        return OBS_DIM

    def observe(self, viewers: int | Sequence[int] | np.ndarray | None = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """(B, observation_size) float32: each game seen by ``viewers`` (one seat for all,
        one per game, or None: the player to move); the layout is
        :mod:`~hanafuda_env.koikoi.observation`'s."""
        return encode_observations(self, viewers, out)

    def observe_one(self, game: int, seat: int) -> np.ndarray:
        """(observation_size,) float32: one game seen by one seat (a fresh array)."""
        game = check_index(game, self.n_games)
        seat = check_index(seat, self.num_players, "seat")
        one = SimpleNamespace(records=self.records[game:game + 1], rules=self.rules)
        return encode_observations(one, seat)[0]

    def _tables(self, rows: list[tuple[np.ndarray, np.ndarray]]
                ) -> tuple[RoundResults, MatchResults]:
        """Result rows (game indices, RESULT_DTYPE records) as round and match tables."""
        if not rows:
            return _empty_tables(self.yaku_names)
        games = np.concatenate([g for g, _ in rows]) if len(rows) > 1 else rows[0][0]
        r = np.concatenate([row for _, row in rows]) if len(rows) > 1 else rows[0][1]
        n_names = len(self.yaku_names)
        rounds = RoundResults(
            games, r["round_index"].astype(np.int16), r["dealer"], r["winner"], r["base"],
            r["multiplier"], r["points"], r["reward"], r["koikoi_calls"].astype(np.int32),
            r["reason"], np.ascontiguousarray(r["yaku"][:, :n_names]), r["piles"],
            r["turns"].astype(np.int32), self.yaku_names)
        over = r["match_over"]
        matches = MatchResults(games[over], r["match_winner"][over], r["match_scores"][over],
                               r["match_rounds"][over].astype(np.int32))
        return rounds, matches

    def _rewards(self, rounds: RoundResults) -> np.ndarray:
        reward = np.zeros((self.n_games, 2), dtype=np.int32)
        games = rounds.game
        if len(games) and (games[1:] > games[:-1]).all():  # one row per game, ascending
            reward[games] = rounds.reward
        elif len(games):
            np.add.at(reward, games, rounds.reward)
        return reward

    def _match_over(self, matches: MatchResults) -> np.ndarray:
        over = np.zeros(self.n_games, dtype=bool)
        over[matches.game] = True
        return over

    def rollout(self, policy: str | tuple[str, str] = "random", until: str = "round",
                seed: int = 0, max_decisions: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """Play every game on inside the kernel to the end of its round (``until="round"``)
        or match (``"match"``, dealing the rounds between) with a compiled ``policy``
        ("random", "greedy", "expert": the expert heuristic on the mover's view, or "fast":
        the linear policy fitted to it; or one per seat); returns the zero-sum points each
        seat won
        (B, 2) and the moves played (B,). Games end in phase ROUND_OVER / MATCH_OVER (an
        autoreset core deals on at its next ``deal_next``), or after ``max_decisions``
        moves where given (a truncated rollout: a search evaluates the position reached);
        no result rows are kept, so fork the games to roll out first."""
        names = (policy, policy) if isinstance(policy, str) else tuple(policy)
        if len(names) != 2 or any(name not in B.POLICIES for name in names):
            raise ValueError(f"policy must be one of {', '.join(B.POLICIES)} or a pair of "
                             f"them (one per seat), got {policy!r}")
        if until not in ("round", "match"):
            raise ValueError(f"until must be 'round' or 'match', got {until!r}")
        check_seed_value(seed, "rollout seed")
        if max_decisions is not None and (not is_integer(max_decisions) or max_decisions < 1):
            raise ValueError(f"max_decisions must be None or a positive integer, got "
                             f"{max_decisions!r}")
        rewards = np.zeros((self.n_games, 2), dtype=np.int64)
        decisions = np.zeros(self.n_games, dtype=np.int64)
        c = self._compiled
        expert = E.rollout_arguments(E.expert_rules(self.rules)) if "expert" in names else \
            E.NO_EXPERT
        L.rollout_games(self.records, *c.ctx, B.rollout_policy_data(expert),
                        np.array([B.POLICIES[n] for n in names], dtype=np.int64),
                        np.uint64(seed), until == "match", int(max_decisions or 0), rewards,
                        decisions, self._rows[:1])
        return rewards, decisions

    # ------------------------------------------------------------- branching
    def fork(self, games: int | np.integer | Sequence[int] | np.ndarray, copies: int = 1,
             seed: int | None = None) -> KoiKoiCore:
        """A new batch holding copies of the chosen games (each ``copies`` times, in order).

        Every copy continues exactly like its source; give ``seed`` to draw the future
        rounds' deals anew per copy (the current round's stock is kept). A copy holds the
        real hidden cards: :meth:`resample_hidden` makes it a world one player may believe.
        """
        chosen = np.atleast_1d(np.asarray(games))
        if chosen.dtype.kind not in "iu" or chosen.ndim != 1 or not is_integer(copies) \
                or copies < 1:
            raise ValueError(f"fork needs a game index or a list of them (integers in "
                             f"0..{self.n_games - 1}) and copies >= 1, got games={games!r}, "
                             f"copies={copies!r}")
        if seed is not None:
            check_seed_value(seed, "fork's seed")
        if len(chosen) == 0 or ((chosen < 0) | (chosen >= self.n_games)).any():
            raise ValueError(f"fork needs game indices in 0..{self.n_games - 1}, got {games!r}")
        index = np.repeat(chosen.astype(np.intp), copies)
        clone = KoiKoiCore.wrapping(self.records[index], self.rules, self.autoreset)
        if seed is not None:
            clone.records["seed"] = game_seeds(seed, clone.n_games)
        return clone

    def resample_hidden(self, seat: int | np.ndarray, rng: np.random.Generator,
                        games: Sequence[int] | np.ndarray | None = None) -> None:
        """Shuffle what ``seat`` cannot see — the other hand and the undrawn stock — among
        themselves, keeping their sizes: a world consistent with ``seat``'s information
        (every such world equally likely). ``seat``: one for all games or one per game."""
        seats = check_seats(seat, self.n_games, "seat")
        g = self._chosen(games)
        other = 1 - seats[g].astype(np.intp)
        self.hands[g, other], self.stock[g] = deal_hidden(
            self.hands[g, other], self.stock[g], self.stock_pos[g], rng)

    def shuffle_stock(self, rng: np.random.Generator,
                      games: Sequence[int] | np.ndarray | None = None) -> None:
        """Reshuffle the undrawn stock only (both hands kept): a world where a player knows
        the opponent's hand but not the order of the draws still to come."""
        g = self._chosen(games)
        self.stock[g] = shuffle_undrawn(self.stock[g], self.stock_pos[g], rng)

    def _chosen(self, games: int | Sequence[int] | np.ndarray | None) -> np.ndarray:
        """The distinct games a call touches (all by default)."""
        if games is None:
            return self._games
        given = np.atleast_1d(np.asarray(games))
        chosen = np.unique(given)
        if given.ndim != 1 or (len(given) and given.dtype.kind not in "iu") or (
                len(chosen) and (chosen[0] < 0 or chosen[-1] >= self.n_games)):
            raise IndexError(f"games must be a list of game indices (integers in "
                             f"0..{self.n_games - 1}), got {games!r}")
        return chosen.astype(np.intp)

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of every state field (for saving, hashing and comparing games)."""
        return {name: self.records[name].copy() for name in STATE_FIELDS}

    def load_state_dict(self, state: dict[str, np.ndarray] | np.ndarray) -> None:
        """Restore what :meth:`state_dict` returned (or a ``records`` array) for the same
        number of games, after checking every field (``state.StateError`` names the one that
        no game could hold; nothing changes then)."""
        self.records[:] = check_state(state, self.n_games, self.rules)


@lru_cache(maxsize=64)
def _empty_tables(yaku_names: tuple[str, ...]) -> tuple[RoundResults, MatchResults]:
    """Empty round and match tables (shared: a table without rows cannot change)."""
    return RoundResults.empty(yaku_names), MatchResults.concat([])


def kernel_action(action: Any) -> int:
    """An action id as the kernel takes it (an int64): an integer beyond int64 becomes -1,
    which no rule allows, so it is refused as illegal; a bool, a float or anything else
    that is not an integer is a ValueError."""
    if action.__class__ is not int:
        if not is_integer(action):
            raise ValueError(f"an action must be an integer, got {action!r}")
        action = int(action)
    return action if -2**63 <= action < 2**63 else -1


def action_name(action: int) -> str:
    """A person's name for an action id."""
    if 0 <= action < 48:
        return f"play {C.card_name(action)}"
    if 48 <= action < 96:
        return f"take {C.card_name(action - 48)}"
    return {STOP: "stop", KOIKOI: "koi-koi"}.get(action, f"unknown action {action}")


def describe_actions(actions: Sequence[int]) -> str:
    """Action ids with their names, as every illegal-action error lists the legal ones."""
    return f"{list(actions)} ({', '.join(action_name(a) for a in actions)})"
