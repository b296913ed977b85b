"""HanaawaseCore: B Hana-awase matches of N players on the compiled kernel (RULES.md §3).

The same shape as :class:`~hanafuda_env.koikoi.core.KoiKoiCore`: the state is one structured array
(``records``), ``step`` applies one action per game for its player to move and stops a game
at its round's end (or deals on with ``autoreset``), ``deal_next`` deals finished games,
``fork`` is indexing and ``state_dict``/``load_state_dict`` a checked copy. A finished round
comes back as a result row (:data:`~hanafuda_env.hanaawase.state.HA_RESULT_DTYPE`) and as
rewards: each player's score minus the mean of the round's scores (§3.2 Decision: zero-sum
at every player count).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.common.indices import check_index
from hanafuda_env.common.seeding import check_seed_value, game_seeds, is_integer
from hanafuda_env.hanaawase import kernel as K
from hanafuda_env.hanaawase.observation import encode, observation_size
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.hanaawase.state import (
    HA_RESULT_DTYPE,
    NUM_ACTIONS,
    check_hanaawase_state,
    new_hanaawase_states,
)
from hanafuda_env.koikoi import loops as L
from hanafuda_env.koikoi.core import (
    IllegalActionError,
    action_name,
    describe_actions,
    kernel_action,
    refuse_playing,
)
from hanafuda_env.koikoi.deals import check_orders
from hanafuda_env.koikoi.loops import legal_ids, legal_masks, sample_actions
from hanafuda_env.koikoi.state import MATCH_OVER, PHASE_NAMES, ROUND_OVER, StateError

# step_games' rows per game: the round's own, then the deal of the next (which writes none)
_DEAL_SLOTS = 2

class HanaawaseStep(NamedTuple):
    """What one ``step`` finished. ``rewards`` (B, N): zero-sum round rewards where a round
    ended, else 0; ``rows``: the finished rounds' result rows, ``row_games`` their games."""

    rewards: np.ndarray
    round_over: np.ndarray
    match_over: np.ndarray
    rows: np.ndarray
    row_games: np.ndarray


class HanaawaseCore:
    """B Hana-awase matches of ``num_players`` seats. ``rules``: a
    :class:`~hanafuda_env.hanaawase.rules.HanaawaseRules`, a mapping of its options or None;
    ``options`` (e.g. ``num_players=4``) apply on top."""

    def __init__(self, n_games: int, rules: HanaawaseRules | dict | None = None,
                 seed: int | None = None, *, autoreset: bool = False, **options: Any):
        if not is_integer(n_games) or n_games < 1:
            raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r}")
        self.rules = resolve_hanaawase_rules(rules, **options)
        self.autoreset = autoreset
        self._set_records(new_hanaawase_states(int(n_games)))
        self.reset(seed)

    @classmethod
    def wrapping(cls, records: np.ndarray, rules: HanaawaseRules, autoreset: bool = False
                 ) -> HanaawaseCore:
        """A core over ``records`` as they are (a fork's copy), without dealing."""
        core = object.__new__(cls)
        core.rules, core.autoreset = rules, autoreset
        core._set_records(records)
        return core

    def _set_records(self, records: np.ndarray) -> None:
        self.records = records
        self.n_games = len(records)
        self.num_players = self.rules.num_players
        self._compiled = K.compile_hanaawase(self.rules)
        self.yaku_names = self._compiled.yaku_names
        self._games = np.arange(self.n_games)
        self._rows = np.zeros(self.n_games, dtype=HA_RESULT_DTYPE)
        self._row_games = np.zeros(self.n_games, dtype=np.int64)
        self._n_results = np.zeros(self.n_games, dtype=np.int8)
        self._shuffles = np.full((self.n_games, C.NUM_CARDS), -1, dtype=np.int64)
        self._viewer = np.zeros(1, dtype=np.int64)

    def __getattr__(self, name: str) -> np.ndarray:
        """State fields as views of the batch (``core.hands``, ``core.phase`` …)."""
        records = self.__dict__.get("records")
        if records is not None and name in records.dtype.names:
            return records[name]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    @property
    def round_over(self) -> np.ndarray:
        """(B,) bool: the game's round (or match) is over and waits for its next deal."""
        return self.records["phase"] >= ROUND_OVER

    @property
    def observation_size(self) -> int:
        return observation_size(self.num_players)

    # ------------------------------------------------------------------ deals
    def reset(self, seed: int | Sequence[int] | np.ndarray | None = None) -> None:
        """Start a new match in every game: ``seed`` an int (game i's seed derived from it
        and i), one game seed per game (used as is, like the ``seed`` field a core holds), or
        None (fresh entropy)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        if np.ndim(seed) == 0:
            seeds = game_seeds(check_seed_value(seed), self.n_games)
        else:
            if np.ndim(seed) != 1 or len(seed) != self.n_games:
                raise ValueError(f"seed must be an int or a list of {self.n_games} ints (one "
                                 f"per game), got shape {np.shape(seed)}")
            seeds = np.array([check_seed_value(s, "every seed of the list") for s in seed],
                             dtype=np.uint64)
        self.records["seed"] = seeds
        self.records["deal_count"] = 0
        self.records["phase"] = MATCH_OVER
        self.deal_next()

    def deal_next(self, games: int | Sequence[int] | np.ndarray | None = None,
                  decks: np.ndarray | Sequence[int] | None = None) -> None:
        """Deal the next round of finished games (all of them by default): the match's next
        round, or a new match after its end. ``decks``: 48-card orders (one for all, or one
        per game: the dealer's hand, each next seat's, the field, the stock), else each
        game's next shuffle."""
        g = self._games[self.round_over] if games is None else self._chosen(games)
        refuse_playing(g, self.round_over, self.phase)
        orders = (self._shuffles[:len(g)] if decks is None else
                  check_orders(decks, len(g), "decks").astype(np.int64))
        L.deal_games(self.records, g.astype(np.int64), orders, *self._compiled.ctx, self._rows,
                     self._row_games, self._n_results)  # a Hana-awase deal writes no row

    def _chosen(self, games: Any) -> np.ndarray:
        g = np.atleast_1d(np.asarray(games))
        if g.dtype.kind not in "iu" or g.ndim != 1 or ((g < 0) | (g >= self.n_games)).any():
            raise IndexError(f"games must be game indices (integers in 0..{self.n_games - 1})"
                             f", got {games!r}")
        return g.astype(np.int64)

    # ---------------------------------------------------------- legal actions
    def legal_action_mask(self) -> np.ndarray:
        """(B, 96) bool: the actions allowed to the player to move (none once a round ended)."""
        mask = np.empty((self.n_games, NUM_ACTIONS), dtype=bool)
        legal_masks(self.records, mask)
        return mask

    def legal_actions(self, game: int = 0) -> list[int]:
        """The actions allowed to the player to move in ``game``, ascending."""
        game = check_index(game, self.n_games)
        out = np.empty(C.NUM_CARDS, dtype=np.int64)
        return out[:legal_ids(self.records, game, out)].tolist()

    def sample_legal_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game (-1 where the round is over)."""
        out = np.empty(self.n_games, dtype=np.int64)
        sample_actions(self.records, rng.random(self.n_games), out)
        return out

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray | Sequence[int]) -> HanaawaseStep:
        """One action per game for its player to move (-1 for a game whose round is over:
        it waits for ``deal_next``). An illegal action raises
        :class:`~hanafuda_env.koikoi.core.IllegalActionError` and changes no game."""
        given = np.asarray(actions)
        if given.shape != (self.n_games,) or given.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.n_games} integers (one per game), got "
                             f"shape {given.shape} dtype {given.dtype}")
        c = self._compiled
        k = L.step_games(self.records, given.astype(np.int64, copy=False), *c.ctx, self._rows,
                         self._row_games, self._n_results, _DEAL_SLOTS, self.autoreset, True)
        if k < 0:
            self._raise_illegal(-1 - k, given)
        rows, games = self._rows[:k].copy(), self._row_games[:k].copy()
        rewards = np.zeros((self.n_games, self.num_players), dtype=np.float64)
        rewards[games] = zero_sum(rows["score"][:, :self.num_players])
        round_over = self._n_results > 0
        match_over = np.zeros(self.n_games, dtype=bool)
        match_over[games] = rows["match_over"]
        return HanaawaseStep(rewards, round_over, match_over, rows, games)

    def step_one(self, game: int, action: int) -> np.ndarray | None:
        """One move in one game (what a single-game env calls): the finished round's result
        row (a copy) if the move ended it, else None; an illegal move raises and changes
        nothing. The round's rewards are ``zero_sum(row["score"][:N])``."""
        if game.__class__ is not int or not 0 <= game < self.n_games:
            game = check_index(game, self.n_games)
        action = kernel_action(action)
        c = self._compiled
        ended = L.step_one(self.records, game, action, *c.ctx, self._rows)
        if ended < 0:
            given = np.zeros(self.n_games, dtype=np.int64)
            given[game] = action
            self._raise_illegal(game, given)
        return self._rows[0].copy() if ended else None

    def _raise_illegal(self, g: int, given: np.ndarray) -> None:
        phase = int(self.phase[g])
        if phase >= ROUND_OVER:
            raise IllegalActionError(
                f"game {g}: its round is over (phase {PHASE_NAMES[phase]}): its action must be "
                f"-1 (waiting) until deal_next deals the next round. No game was changed.")
        action = int(given[g])
        name = action_name(action) if 0 <= action < NUM_ACTIONS else "not an action id"
        raise IllegalActionError(
            f"game {g}: action {action} ({name}) is illegal for seat {int(self.mover[g])} in "
            f"phase {PHASE_NAMES[phase]}; legal actions: "
            f"{describe_actions(self.legal_actions(g))}. No game was changed.")

    def advance(self, game: int, action: int) -> bool:
        """One move in one game of the batch, the others untouched (what tree search calls
        per world); whether it ended the round. An illegal action raises and changes nothing."""
        return self.step_one(game, action) is not None

    # ----------------------------------------------------------- observations
    def observe_one(self, game: int, seat: int) -> np.ndarray:
        """(observation_size,) float32: one game seen by one seat (a fresh array)."""
        game = check_index(game, self.n_games)
        seat = check_index(seat, self.num_players, "seat")
        out = np.empty((1, self.observation_size), dtype=np.float32)
        c = self._compiled
        self._viewer[0] = seat
        encode(self.records[game:game + 1], self._viewer, c.params, c.card_points,
               c.score_lookup, out)
        return out[0]

    def observe(self, viewers: int | Sequence[int] | np.ndarray | None = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """(B, observation_size) float32: each game seen by ``viewers`` (one seat for all,
        one per game, or None: the player to move)."""
        seats = self.mover if viewers is None else np.asarray(viewers)
        if seats.dtype.kind not in "iu" or seats.shape not in ((), (self.n_games,)) or (
                (seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"viewers must be a seat 0..{self.num_players - 1} or one per game "
                             f"({self.n_games}), got {viewers!r}")
        seats = np.broadcast_to(seats, (self.n_games,))
        if out is None:
            out = np.empty((self.n_games, self.observation_size), dtype=np.float32)
        c = self._compiled
        encode(self.records, seats.astype(np.int64), c.params, c.card_points, c.score_lookup,
               out)
        return out

    # --------------------------------------------------------------- rollouts
    def rollout(self, policy: str | Sequence[str] = "random", until: str = "round",
                seed: int = 0) -> tuple[np.ndarray, int]:
        """Play every game to the end of its round or match inside the kernel with a compiled
        policy (one name, or one per seat: ``random``, ``greedy``). Returns the (B, N) sum of
        the scores of the rounds played and the number of decisions."""
        names = [policy] * self.num_players if isinstance(policy, str) else list(policy)
        if len(names) != self.num_players or any(p not in K.POLICIES for p in names):
            raise ValueError(f"policy must be one of {', '.join(K.POLICIES)} or a list of "
                             f"{self.num_players} of them (one per seat), got {policy!r}")
        if until not in ("round", "match"):
            raise ValueError(f"until must be 'round' or 'match', got {until!r}")
        c = self._compiled
        scores = np.zeros((self.n_games, self.num_players), dtype=np.int64)
        policies = np.array([K.POLICIES[p] for p in names], dtype=np.int64)
        decisions = np.zeros(self.n_games, dtype=np.int64)
        L.rollout_games(self.records, *c.ctx, c.params, policies, np.uint64(seed),
                        until == "match", 0, scores, decisions,  # no policy_data, no limit
                        self._rows[:1])
        return scores, int(decisions.sum())

    # -------------------------------------------------------------- the state
    def fork(self, games: int | Sequence[int] | np.ndarray, copies: int = 1) -> HanaawaseCore:
        """A new core holding ``copies`` copies of each listed game, in order."""
        g = self._chosen(games)
        if not is_integer(copies) or copies < 1:
            raise ValueError(f"copies must be a positive integer, got {copies!r}")
        return HanaawaseCore.wrapping(self.records[np.repeat(g, int(copies))], self.rules,
                                      self.autoreset)

    def state_dict(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "records": self.records.copy()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Load a saved state after checking it (a :class:`StateError` names the field and
        changes nothing)."""
        if not isinstance(state, dict) or set(state) != {"rules", "records"}:
            raise StateError("a Hana-awase state is a dict with the keys 'records' and 'rules'")
        rules = resolve_hanaawase_rules(state["rules"])
        if rules != self.rules:
            raise StateError(f"the state was saved under other rules ({rules}); this core "
                             f"plays {self.rules}")
        records = check_hanaawase_state(state["records"], self.rules, self.n_games)
        self.records[:] = records


def zero_sum(scores: np.ndarray) -> np.ndarray:
    """Scores (…, N) minus their mean over the players (§3.2 Decision)."""
    scores = np.asarray(scores, dtype=np.float64)
    return scores - scores.mean(axis=-1, keepdims=True)


def describe_round(row: np.ndarray, rules: HanaawaseRules) -> list[dict[str, Any]]:
    """One result row as a dict per seat: card points, yaku (name → points), yaku total,
    score and rank (0: the round's top score, shared on a tie); the same for every display."""
    names = K.compile_hanaawase(rules).yaku_names
    out = []
    for p in range(rules.num_players):
        yaku = {name: int(row["yaku"][p, i]) for i, name in enumerate(names)
                if row["yaku"][p, i]}
        out.append({"card_points": int(row["card_points"][p]), "yaku": yaku,
                    "yaku_total": int(row["yaku_total"][p]), "score": int(row["score"][p]),
                    "rank": int(row["rank"][p])})
    return out
