"""One Koi-Koi match in Python values: a one-game view of the compiled kernel.

Code that plays one game at a time (the PettingZoo and Gymnasium envs, game records, a person
at the terminal) wants ints, lists and dict rows rather than batch arrays. :class:`KoiKoiGame`
holds one game's state record and calls the same kernel functions as
:class:`~hanafuda_env.koikoi.core.KoiKoiCore` (no rule of its own), so ``KoiKoiGame`` and
``KoiKoiCore(1)`` are interchangeable move for move. With ``autoreset`` (the default) it deals
the next round as soon as one ends, like an autoreset core; without, a finished round waits
in phase ``ROUND_OVER`` / ``MATCH_OVER`` for :meth:`KoiKoiGame.deal_next`. ``upcoming_decks``
and ``deal_log`` let game records deal and note the recorded orders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.common.results import END_NAMES
from hanafuda_env.common.seeding import check_seed_value, game_seeds
from hanafuda_env.common.worlds import deal_hidden
from hanafuda_env.koikoi import batch as B  # noqa: F401 - registers Koi-Koi in the loops
from hanafuda_env.koikoi import kernel as K
from hanafuda_env.koikoi import loops as L
from hanafuda_env.koikoi.core import IllegalActionError, KoiKoiCore, action_name, describe_actions
from hanafuda_env.koikoi.deals import check_decks, check_option_names, check_seat
from hanafuda_env.koikoi.rules import RuleSet, RuleSpec, resolve_rules
from hanafuda_env.koikoi.state import (
    NUM_ACTIONS,
    PHASE_NAMES,
    RESULT_DTYPE,
    ROUND_OVER,
    STATE_FIELDS,
    StateError,
    check_state,
    new_states,
    with_field,
)

__all__ = ["GameResetOutcome", "GameStepOutcome", "KoiKoiGame", "game_seed_of"]


def game_seed_of(seed: int, index: int = 0) -> int:
    """``seeding.game_seeds(seed, n)[index]``: the seed of game ``index`` of a seeded batch."""
    return int(game_seeds(check_seed_value(seed), index + 1)[index])


@dataclass(slots=True)
class GameStepOutcome:
    """What one step did: like ``StepOutcome`` for one game, as plain Python values."""

    reward: tuple[int, int]  # zero-sum points per seat from rounds finished in this step
    round_over: bool  # the round being played ended
    match_over: bool  # a match ended in this step
    rounds: list[dict]  # rows like RoundResults.records() (game 0), hand-yaku rounds too
    matches: list[dict]  # {"winner", "scores": [a, b], "rounds"}


@dataclass(slots=True)
class GameResetOutcome:
    """What ``reset``'s deal already finished: like ``ResetOutcome`` for one game."""

    reward: tuple[int, int]  # zero-sum points per seat from rounds ended at the deal
    match_over: bool  # a match ended at the deal (a hand yaku in a short match)
    rounds: list[dict]  # as in GameStepOutcome
    matches: list[dict]


_NOTHING = GameStepOutcome((0, 0), False, False, [], [])


def _field(name: str, doc: str) -> property:
    """A state field as a Python value (int or list); assigning checks the state it makes
    as ``load_state_dict`` does (a :class:`StateError`, nothing changed) and writes it.
    It reads the field's column view (``records[name]``), which costs a tenth of indexing
    the record by name: the AEC env reads the mover and phase several times a step."""
    def get(self: KoiKoiGame) -> Any:
        column = self._columns[name]
        return column.item() if column.ndim == 1 else column[0].tolist()

    def put(self: KoiKoiGame, value: Any) -> None:
        given = np.asarray(value)
        self.records[:] = with_field(self.records, name, given[None], self.rules)

    return property(get, put, doc=doc)


class KoiKoiGame:
    """One Koi-Koi match with the exact rules, decisions and seeded deals of ``KoiKoiCore``.

    State attributes are the core's fields for one game as Python values (``hands`` and
    ``piles`` by seat as 48-bit ints, ``stock`` as 24 card ids, top first; ``seed`` is the game
    seed, like ``core.seeds[g]``). Actions and phases are the core's.
    """

    _STATE = STATE_FIELDS

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, *,
                 game_seed: int | None = None, options: dict | None = None,
                 autoreset: bool = True):
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r}")
        self.autoreset = autoreset
        self.rules: RuleSet = resolve_rules(rules)
        self._compiled = K.compile_rules(self.rules)
        self.yaku_names = self._compiled.yaku_names
        self._buffers(new_states(1))
        # For game records: None, or a list each deal appends (its 48-card order, dealer) to;
        # and orders the next deals take, in turn, before shuffling again (checked by
        # ``check_deck``), so a record's rounds are dealt as recorded.
        self.deal_log: list[tuple[list[int], int]] | None = None
        self.upcoming_decks: list[list[int]] = []
        self.reset(seed=seed, options=options, game_seed=game_seed)

    def _buffers(self, records: np.ndarray) -> None:
        self.records = records
        self._columns = {name: records[name] for name in records.dtype.names}  # views
        self._rows = np.zeros(1, dtype=RESULT_DTYPE)
        self._row_games = np.zeros(1, dtype=np.int64)
        self._n_results = np.zeros(1, dtype=np.int8)
        self._mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
        self._at = np.zeros(1, dtype=np.int64)
        self._ids = np.zeros(NUM_ACTIONS, dtype=np.int64)

    hands = _field("hands", "each seat's hand, a 48-bit card set")
    field = _field("field", "cards face up on the field")
    piles = _field("piles", "each seat's capture pile")
    stock = _field("stock", "the stock's card ids, top first")
    stock_pos = _field("stock_pos", "index of the next card to draw")
    dealer = _field("dealer", "seat that deals this round")
    mover = _field("mover", "seat to move")
    phase = _field("phase", "the decision the game waits at")
    pending = _field("pending", "card waiting for a field choice, -1 if none")
    koikoi_calls = _field("koikoi_calls", "koi-koi calls per seat this round")
    yaku_total = _field("yaku_total", "each seat's yaku total at its last turn's end")
    turn = _field("turn", "turns completed this round")
    round_index = _field("round_index", "rounds of the match finished")
    match_score = _field("match_score", "zero-sum match score")
    points_won = _field("points_won", "points each seat scored this match")
    seed = _field("seed", "the game's seed")
    deal_count = _field("deal_count", "shuffles drawn from the seed so far")

    # -------------------------------------------------------------------------- setup
    def reset(self, seed: int | None = None, options: dict | None = None, *,
              game_seed: int | None = None) -> GameResetOutcome:
        """Start a new match; returns the rounds and matches that ended at the deal.

        ``seed`` s plays what game 0 of ``KoiKoiCore(n, seed=s)`` plays; ``game_seed`` sets
        the game seed itself (a ``core.seeds[g]``). ``options`` as in ``KoiKoiCore.reset``:
        ``dealer`` (0 or 1) and ``deck`` (48 card ids: dealer's hand, other hand, field,
        stock top first).
        """
        deck, dealer = self.check_reset_options(options)
        if game_seed is not None:
            if seed is not None:
                raise ValueError("give seed or game_seed, not both")
            gs = check_seed_value(game_seed, "game_seed")
        else:
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1)[0])
            gs = game_seed_of(seed)
        # Everything is checked: from here on the state changes.
        fresh = new_states(1)
        fresh["seed"] = gs
        if dealer is not None:  # a new match whose first dealer is given, not drawn
            fresh["phase"], fresh["dealer"] = ROUND_OVER, dealer
        self.records[:] = fresh
        rounds: list[dict] = []
        matches: list[dict] = []
        self._deal(rounds, matches, deck)
        return GameResetOutcome(_reward(rounds), bool(matches), rounds, matches)

    def check_reset_options(self, options: dict | None) -> tuple[list[int] | None, int | None]:
        """The checked ``deck`` and ``dealer`` of ``reset``'s options (None where not given):
        envs call this before changing anything, so a rejected reset leaves them as they
        were."""
        options = dict(options or {})
        check_option_names(options)
        deck = None
        if options.get("deck") is not None:
            deck = self.check_deck(options["deck"])
        dealer = options.get("dealer")
        return deck, None if dealer is None else check_seat(dealer, "dealer")

    def check_deck(self, deck) -> list[int]:
        """A 48-card order as ``reset``'s ``deck`` option takes it, refused by name unless
        the rules would play that deal."""
        cards = np.asarray(deck)
        if cards.shape != (C.NUM_CARDS,):  # one game: one order
            raise ValueError(f"deck must have shape (48,), got {cards.shape}")
        return check_decks(cards, 1, self.rules)[0].tolist()

    @property
    def round_over(self) -> bool:
        """The round (or match) is finished and waits for :meth:`deal_next`."""
        return int(self.records["phase"][0]) >= ROUND_OVER

    def deal_next(self, deck: list[int] | None = None) -> GameResetOutcome:
        """Deal the next round of a finished one (a new match after the match's end), from
        ``deck`` (48 card ids) or the next shuffle; reports a round a dealt hand yaku ends
        (with autoreset, the rounds until one is played)."""
        if not self.round_over:
            raise ValueError(f"the game is in phase {PHASE_NAMES[self.phase]}: only a game "
                             f"whose round is over (round-over or match-over) is dealt again")
        order = None if deck is None else self.check_deck(deck)
        rounds: list[dict] = []
        matches: list[dict] = []
        self._deal(rounds, matches, order)
        return GameResetOutcome(_reward(rounds), bool(matches), rounds, matches)

    def deal_on(self, within_match: bool = False) -> GameResetOutcome:
        """Deal while the round is over, until a round waits for a move (dealt hand yaku end
        rounds at once; a match they end is followed by a new one), or, ``within_match``,
        until the match is over. Returns every round and match those deals ended."""
        rounds: list[dict] = []
        matches: list[dict] = []
        while self.round_over and not (within_match and matches):
            dealt = self.deal_next()
            rounds += dealt.rounds
            matches += dealt.matches
        return GameResetOutcome(_reward(rounds), bool(matches), rounds, matches)

    def _deal(self, rounds: list[dict], matches: list[dict], deck: list[int] | None = None
              ) -> None:
        """Deal the next round; a dealt hand yaku ends it at once (and, with autoreset, the
        next is dealt)."""
        c = self._compiled
        while True:
            if deck is None and self.upcoming_decks:
                deck = self.upcoming_decks.pop(0)
            order = np.full((1, C.NUM_CARDS), -1, dtype=np.int64)
            if deck is not None:
                order[0] = deck
            L.deal_games(self.records, self._at, order, *c.ctx, self._rows, self._row_games,
                         self._n_results)
            deck = None
            ended = bool(self._n_results[0])
            if self.deal_log is not None:  # a hand-yaku round has already passed the deal on
                dealer = int(self._rows[0]["dealer"]) if ended else self.dealer
                self.deal_log.append((self.dealt_order(dealer), dealer))
            if not ended:
                return
            self._collect(rounds, matches)
            if not self.autoreset:
                return

    def dealt_order(self, dealer: int) -> list[int]:
        """The round just dealt as a 48-card order (``dealer``'s hand and the other hand
        ascending, then the field ascending, then the stock as dealt)."""
        s = self.records[0]
        hands = s["hands"]
        return (C.ids_of(int(hands[dealer])) + C.ids_of(int(hands[1 - dealer]))
                + C.ids_of(int(s["field"])) + s["stock"].tolist())

    def _collect(self, rounds: list[dict], matches: list[dict]) -> None:
        """The result row the kernel just wrote, as dicts."""
        r = self._rows[0]
        names = self.yaku_names
        yaku = r["yaku"]
        rounds.append({
            "game": 0, "round_index": int(r["round_index"]), "dealer": int(r["dealer"]),
            "winner": int(r["winner"]), "base": int(r["base"]),
            "multiplier": int(r["multiplier"]), "points": int(r["points"]),
            "reward": r["reward"].tolist(), "koikoi_calls": r["koikoi_calls"].tolist(),
            "reason": END_NAMES[r["reason"]], "turns": int(r["turns"]),
            "yaku": {n: int(yaku[i]) for i, n in enumerate(names) if yaku[i]},
        })
        if r["match_over"]:
            matches.append({"winner": int(r["match_winner"]),
                            "scores": r["match_scores"].tolist(),
                            "rounds": int(r["match_rounds"])})

    # -------------------------------------------------------------------- legal actions
    def legal_actions(self) -> list[int]:
        """The actions allowed to the player to move, ascending."""
        return self._ids[:L.legal_ids(self.records, 0, self._ids)].tolist()

    def legal_action_mask(self) -> np.ndarray:
        """(98,) int8: 1 where the action is allowed."""
        L.legal_masks(self.records, self._mask)
        return self._mask[0].astype(np.int8)

    # ---------------------------------------------------------------------------- step
    def step(self, action: int) -> GameStepOutcome:
        """Apply the action of the player to move (see ``KoiKoiCore.step``)."""
        if action.__class__ is not int:
            action = _as_action(action)
        c = self._compiled
        # an id beyond int64 is no action: refused below, named as given
        ended = L.step_one(self.records, 0, action if -2**63 <= action < 2**63 else -1,
                           *c.ctx, self._rows)
        if ended < 0:
            allowed = self.legal_actions()
            raise IllegalActionError(
                f"game 0: action {action} ({action_name(action)}) is illegal for seat "
                f"{self.mover} in phase {PHASE_NAMES[self.phase]}; legal actions: "
                f"{describe_actions(allowed)}. No game was changed.")
        if not ended:
            return _NOTHING
        rounds: list[dict] = []
        matches: list[dict] = []
        self._collect(rounds, matches)
        if self.autoreset:
            self._deal(rounds, matches)
        return GameStepOutcome(_reward(rounds), True, bool(matches), rounds, matches)

    # ------------------------------------------------------------------ copies and export
    def copy(self) -> KoiKoiGame:
        """An independent game in the same state (continues exactly like this one)."""
        clone = object.__new__(KoiKoiGame)
        clone.autoreset = self.autoreset
        clone.rules, clone._compiled, clone.yaku_names = (self.rules, self._compiled,
                                                          self.yaku_names)
        clone.deal_log, clone.upcoming_decks = None, []
        clone._buffers(self.records.copy())
        return clone

    def __getstate__(self) -> dict[str, object]:
        return {"rules": self.rules, "records": self.records, "autoreset": self.autoreset}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.rules = state["rules"]
        self.autoreset = bool(state["autoreset"])
        self._compiled = K.compile_rules(self.rules)
        self.yaku_names = self._compiled.yaku_names
        self.deal_log, self.upcoming_decks = None, []
        self._buffers(check_state(state["records"], 1, self.rules))

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        """Shuffle what ``seat`` cannot see (the other hand, the undrawn stock) among
        themselves, as ``KoiKoiCore.resample_hidden`` does: on a :meth:`copy`, a world that
        ``seat`` may believe (a search must not roll out the real hidden cards)."""
        other = 1 - check_seat(seat, "seat")
        records = self.records
        records["hands"][:, other], records["stock"] = deal_hidden(
            records["hands"][:, other], records["stock"], records["stock_pos"], rng)

    def state_dict(self) -> dict[str, object]:
        """The state as plain values, for comparing and hashing games."""
        row = self.records[0]
        return {name: row[name].tolist() for name in STATE_FIELDS}

    def set_fields(self, **values: Any) -> None:
        """Several state fields at once (values as the attributes take them), checked
        together: a card moved from the field to a pile is two fields, each alone a state
        with a card lost or doubled (refused by the setters; a StateError, nothing changed)."""
        unknown = sorted(set(values) - set(STATE_FIELDS))
        if unknown:
            raise StateError(f"unknown state field(s) {unknown}; the fields: "
                             f"{', '.join(STATE_FIELDS)}")
        state = {name: self.records[name] for name in STATE_FIELDS}
        state.update({name: np.asarray(value)[None] for name, value in values.items()})
        self.records[:] = check_state(state, 1, self.rules)

    @classmethod
    def from_core(cls, core: KoiKoiCore, g: int) -> KoiKoiGame:
        """Game ``g`` of a core batch, in the same state (continues exactly like it)."""
        game = object.__new__(cls)
        game.autoreset = core.autoreset
        game.rules, game._compiled, game.yaku_names = (core.rules, K.compile_rules(core.rules),
                                                       core.yaku_names)
        game.deal_log, game.upcoming_decks = None, []
        game._buffers(core.records[[g]].copy())
        return game

    def to_core(self) -> KoiKoiCore:
        """A ``KoiKoiCore(1)`` in this game's state (continues exactly like it)."""
        return KoiKoiCore.wrapping(self.records.copy(), self.rules, self.autoreset)

    def __repr__(self) -> str:
        return (f"KoiKoiGame(rules={self.rules.name!r}, round={self.round_index}, "
                f"mover={self.mover}, phase={PHASE_NAMES[self.phase]!r}, "
                f"score={self.match_score})")


def _reward(rounds: list[dict]) -> tuple[int, int]:
    """Per-seat sum of the rounds' zero-sum rewards."""
    r0 = r1 = 0
    for row in rounds:
        r0 += row["reward"][0]
        r1 += row["reward"][1]
    return r0, r1


def _as_action(action) -> int:
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action must be an integer, got {action!r}")
    return int(action)
