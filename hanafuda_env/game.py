"""One Koi-Koi match in plain Python ints: the single-game twin of :class:`KoiKoiCore`.

The vectorized core pays NumPy's per-call overhead on every step, which dominates when a
PettingZoo environment plays a single game. :class:`KoiKoiGame` keeps the same state (cards
as 48-bit Python ints, read with ``int.bit_count``), takes the same decisions and draws the
same deals from the same seeds, so ``KoiKoiGame`` and ``KoiKoiCore(1)`` are interchangeable
move for move; ``tests/test_game.py`` checks that differentially.

Speed comes from tables built once per rule set (:mod:`hanafuda_env.game_scoring`): the
yaku total of a pile is a few dict/list look-ups keyed on the pile's relevant bits instead
of a table walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import cards as C
from .core import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    NUM_ACTIONS,
    PHASE_NAMES,
    PLAY,
    STOP,
    IllegalActionError,
    KoiKoiCore,
    action_name,
    describe_actions,
)
from .deals import (
    DEALER_HAND,
    FIELD_CARDS,
    OTHER_HAND,
    STOCK_CARDS,
    STOCK_SIZE,
    check_decks,
    check_option_names,
    check_seat,
)
from .game_scoring import card_mask, game_tables, hand_points, has_full_month
from .results import (
    END_EXHAUSTION_WIN,
    END_HAND_YAKU,
    END_KOIKOI_WIN,
    END_LAST_CARD,
    END_NAMES,
    END_NO_GAME,
    END_STOP,
)
from .rules import QUIET_EXHAUSTION_WINNER, RuleSet, RuleSpec, resolve_rules
from .scoring import CALL_BONUS_LIMIT, SEVEN_POINTS
from .seeding import check_seed_value

__all__ = ["GameResetOutcome", "GameStepOutcome", "KoiKoiGame", "game_seed_of", "splitmix64_int"]

_M64 = (1 << 64) - 1
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_COIN_SALT = 1000 * _GOLDEN & _M64  # core: _random_words(games, 1000)
_BIT = tuple(1 << i for i in range(C.NUM_CARDS))
_MONTH = tuple(C.month_mask(c.month) for c in C.DECK)
_NO_REWARD = (0, 0)
# splitmix64 of the 48 deck keys (core ``_shuffled_decks``), constants made once
_DECK_KEYS_START = np.arange(1, C.NUM_CARDS + 1, dtype=np.uint64) * np.uint64(_GOLDEN)
_U30, _U27, _U31, _U_MIX1, _U_MIX2 = (np.uint64(v) for v in (30, 27, 31, _MIX1, _MIX2))


def splitmix64_int(x: int) -> int:
    """``seeding.splitmix64`` on one Python int (wrapping uint64 arithmetic)."""
    z = (x + _GOLDEN) & _M64
    z = ((z ^ (z >> 30)) * _MIX1) & _M64
    z = ((z ^ (z >> 27)) * _MIX2) & _M64
    return z ^ (z >> 31)


def game_seed_of(seed: int, index: int = 0) -> int:
    """``seeding.game_seeds(seed, n)[index]``: the seed of game ``index`` of a seeded batch."""
    return splitmix64_int(splitmix64_int(check_seed_value(seed)) ^ index)


# Card ids in each 12-bit chunk value, ids offset by the chunk (legal actions of a hand).
_CHUNK_IDS = tuple(tuple([i + 12 * k for i in range(12) if x >> i & 1] for x in range(4096))
                   for k in range(4))


def _ids(bits: int, offset: int = 0) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1 + offset)
        bits ^= low
    return out


# --------------------------------------------------------------------------------- the game
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


class KoiKoiGame:
    """One Koi-Koi match with the exact rules, decisions and seeded deals of ``KoiKoiCore``.

    State attributes mirror the core's arrays for one game (``hands``/``piles`` by seat as
    48-bit ints, ``stock`` as 24 card ids, top first; ``seed`` is the game seed, like
    ``core.seeds[g]``). Actions and phases are the core's (see ``hanafuda_env.core``).
    """

    _STATE = ("hands", "field", "piles", "stock", "stock_pos", "dealer", "mover", "phase",
              "pending", "koikoi_calls", "yaku_total", "turn", "round_index", "match_score",
              "points_won", "seed", "deal_count")  # as KoiKoiCore._STATE (seed: seeds)
    __slots__ = ("rules", "yaku_names", "_tables", "_total", "deal_log",
                 "upcoming_decks") + _STATE

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, *,
                 game_seed: int | None = None, options: dict | None = None):
        self.rules: RuleSet = resolve_rules(rules)
        self._use_tables()
        self.yaku_names = self._tables.names
        # For game records: None, or a list each deal appends (its 48-card order, dealer) to;
        # and orders the next deals take, in turn, before shuffling again (checked by
        # ``check_deck``), so a record's rounds are dealt as recorded.
        self.deal_log: list[tuple[list[int], int]] | None = None
        self.upcoming_decks: list[list[int]] = []
        self.reset(seed=seed, options=options, game_seed=game_seed)

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
        self.seed = gs
        self.deal_count = 0
        self.match_score = [0, 0]
        self.points_won = [0, 0]
        self.round_index = 0
        self.dealer = dealer if dealer is not None else self._coin()
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
        return check_decks(cards, 1, self.rules)[0].tolist()  # the core's checks, one game

    def _base_word(self) -> int:
        return splitmix64_int(self.seed ^ splitmix64_int(self.deal_count))

    def _coin(self) -> int:
        """The first dealer of a match (core ``_coin``: the deal counter is not advanced)."""
        return splitmix64_int((self._base_word() + _COIN_SALT) & _M64) >> 40 & 1

    def _shuffled_deck(self) -> list[int]:
        """Core ``_shuffled_decks``: argsort of 48 per-card splitmix64 keys.

        The 48 keys are hashed as one small uint64 vector (the arithmetic of
        ``seeding.splitmix64``, in place): NumPy does that about 5x faster than a Python loop.
        The keys are distinct (splitmix64 is a bijection), so the order is unambiguous.
        """
        z = _DECK_KEYS_START + np.uint64(self._base_word())
        self.deal_count += 1
        z ^= z >> _U30
        z *= _U_MIX1
        z ^= z >> _U27
        z *= _U_MIX2
        z ^= z >> _U31
        return z.argsort().tolist()

    def _deal(self, rounds: list[dict], matches: list[dict], deck: list[int] | None = None
              ) -> None:
        """Deal new rounds; a hand yaku ends its round at once and the next is dealt."""
        t = self._tables
        while True:
            if deck is not None:
                order, deck = deck, None
            elif self.upcoming_decks:
                order = self.upcoming_decks.pop(0)
            else:
                order = self._shuffled_deck()
            while self._must_redeal(order):  # §2.1, before hand yaku (§2.7)
                order = self._shuffled_deck()
            field = card_mask(order[FIELD_CARDS])
            dealer = self.dealer
            if self.deal_log is not None:
                self.deal_log.append((list(order), dealer))
            first, second = card_mask(order[DEALER_HAND]), card_mask(order[OTHER_HAND])
            self.hands = [first, second] if dealer == 0 else [second, first]
            self.field = field
            self.stock = order[STOCK_CARDS]
            self.stock_pos = 0
            self.piles = [0, 0]
            self.mover = dealer
            self.phase = PLAY
            self.pending = -1
            self.koikoi_calls = [0, 0]
            self.yaku_total = [0, 0]
            self.turn = 0
            held = (hand_points(self.hands[0], t), hand_points(self.hands[1], t))
            if held[0][0] <= 0 and held[1][0] <= 0:
                return
            winner = dealer if held[dealer][0] > 0 else 1 - dealer
            base, name = held[winner]
            # Decision (core): a hand yaku worth 7 or more doubles like any win (§2.5)
            base, multiplier = self._score(base, False, 0)
            self._finish(winner, base, multiplier, END_HAND_YAKU, {name: base}, rounds,
                         matches)

    def _must_redeal(self, order: list[int]) -> bool:
        """``deals.must_redeal`` for one order: a month complete on the field or, with
        ``redeal_hand_four``, in a hand."""
        if has_full_month(card_mask(order[FIELD_CARDS])):
            return True
        return self.rules.redeal_hand_four and (
            has_full_month(card_mask(order[DEALER_HAND]))
            or has_full_month(card_mask(order[OTHER_HAND])))

    # -------------------------------------------------------------------- legal actions
    def legal_actions(self) -> list[int]:
        """The actions allowed to the player to move, ascending."""
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.mover]
            t0, t1, t2, t3 = _CHUNK_IDS
            return (t0[hand & 0xFFF] + t1[hand >> 12 & 0xFFF] + t2[hand >> 24 & 0xFFF]
                    + t3[hand >> 36])
        if phase == DECIDE:
            return [STOP, KOIKOI]
        return _ids(self.field & _MONTH[self.pending], CHOOSE_OFFSET)

    def legal_action_mask(self) -> np.ndarray:
        """(98,) int8: 1 where the action is allowed."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def _illegal(self, action) -> None:
        allowed = self.legal_actions()
        raise IllegalActionError(
            f"game 0: action {action} ({action_name(action)}) is illegal for seat "
            f"{self.mover} in phase {PHASE_NAMES[self.phase]}; legal actions: "
            f"{describe_actions(allowed)}. No game was changed.")

    # ---------------------------------------------------------------------------- step
    def step(self, action: int) -> GameStepOutcome:
        """Apply the action of the player to move (see ``KoiKoiCore.step``)."""
        if action.__class__ is not int:
            action = _as_action(action)
        phase = self.phase
        mover = self.mover
        if phase == PLAY:
            hand = self.hands[mover]
            if not (0 <= action < 48 and hand >> action & 1):
                self._illegal(action)
            self.hands[mover] = hand ^ _BIT[action]
            if self._place(action, mover, CHOOSE_PLAYED):
                return GameStepOutcome(_NO_REWARD, False, False, [], [])
            return self._draw(mover)
        if phase == DECIDE:
            if action == STOP:
                return self._end_by_yaku(END_STOP)
            if action != KOIKOI:
                self._illegal(action)
            self.koikoi_calls[mover] += 1
            if self.rules.sake_after_koikoi is not None:  # raised sake yaku from now on
                self.yaku_total[mover] = self._tables.called_scorer.total(self.piles[mover])
            return self._pass_turn(mover)
        # choosing the field card for the pending played/drawn card
        pending = self.pending
        field = self.field
        card = action - CHOOSE_OFFSET
        if not (0 <= card < 48 and (field & _MONTH[pending]) >> card & 1):
            self._illegal(action)
        taken = _BIT[card]
        self.field = field ^ taken  # the pending card is not on the field
        self.piles[mover] |= taken | _BIT[pending]
        self.pending = -1
        if phase == CHOOSE_PLAYED:
            return self._draw(mover)
        return self._end_turn(mover)

    def may_end_round(self, action: int) -> bool:
        """Whether ``action`` (legal) may finish the round being played — a stop, the
        mover's last card, or any move once koi-koi was called (``_end_turn`` /
        ``_pass_turn``) — so an env keeps a ``copy()`` of the state before it only then.
        Conservative: True does not mean the round ends."""
        if self.phase == DECIDE:
            return action == STOP
        calls = self.koikoi_calls
        return calls[0] + calls[1] > 0 or self.hands[self.mover].bit_count() <= 1

    def _draw(self, mover: int) -> GameStepOutcome:
        """Turn over the top of the stock and place it like a played card (§2.2)."""
        pos = self.stock_pos
        card = self.stock[pos if pos < STOCK_SIZE else STOCK_SIZE - 1]
        self.stock_pos = pos + 1
        if self._place(card, mover, CHOOSE_DRAWN):
            return GameStepOutcome(_NO_REWARD, False, False, [], [])
        return self._end_turn(mover)

    def _place(self, card: int, mover: int, choose_phase: int) -> bool:
        """Lay a played or drawn card down, capture with it, or (two matches) wait for the
        mover's choice in ``choose_phase``; True when a choice is awaited (§2.2)."""
        bit = _BIT[card]
        field = self.field
        matches = field & _MONTH[card]
        if not matches:
            self.field = field | bit
        elif matches.bit_count() == 2:
            self.phase = choose_phase
            self.pending = card
            return True
        else:
            self.field = field ^ matches
            self.piles[mover] |= matches | bit
        return False

    def _end_turn(self, mover: int) -> GameStepOutcome:
        """End-of-turn yaku check (§2.4): decide, win, or pass the turn."""
        totals = self.yaku_total
        previous = totals[mover]
        total = (self._tables.called_scorer.total if self.koikoi_calls[mover]
                 else self._total)(self.piles[mover])
        totals[mover] = total
        self.turn += 1
        if total > previous:
            calls = self.koikoi_calls
            called_before = calls[0] + calls[1] > 0
            if self.hands[mover] and (self.rules.multiple_koikoi or not called_before):
                self.phase = DECIDE
                return GameStepOutcome(_NO_REWARD, False, False, [], [])
            return self._end_by_yaku(END_KOIKOI_WIN if called_before else END_LAST_CARD)
        return self._pass_turn(mover)

    def _pass_turn(self, mover: int) -> GameStepOutcome:
        self.phase = PLAY
        self.mover = 1 - mover
        hands = self.hands
        if hands[0] or hands[1]:
            return GameStepOutcome(_NO_REWARD, False, False, [], [])
        rounds: list[dict] = []
        matches: list[dict] = []
        winner, base, multiplier, by_total = self._exhaustion_outcome()
        reason = END_EXHAUSTION_WIN if winner >= 0 else END_NO_GAME
        # a highest-total win is scored from the winner's yaku: report them (as the core)
        yaku = self._breakdown(winner) if by_total else {}
        self._finish(winner, base, multiplier, reason, yaku, rounds, matches)
        self._deal(rounds, matches)
        return _outcome(rounds, matches)

    # ------------------------------------------------------------------------ round end
    def _score(self, total: int, loser_called: bool, winner_calls: int) -> tuple[int, int]:
        """``scoring.round_score`` for one win: (base, multiplier)."""
        rules = self.rules
        factor = 2 if total >= SEVEN_POINTS and rules.seven_point_doubling else 1
        if loser_called:
            factor *= rules.koikoi_multiplier
        if rules.own_koikoi_bonus:
            if winner_calls > CALL_BONUS_LIMIT:
                return total, factor * (winner_calls - 2)
            return total + winner_calls, factor
        return total, factor

    def _breakdown(self, seat: int) -> dict[str, int]:
        t = self._tables
        return (t.called_scorer if self.koikoi_calls[seat] else t.scorer).breakdown(
            self.piles[seat])

    def _end_by_yaku(self, reason: int) -> GameStepOutcome:
        winner = self.mover
        calls = self.koikoi_calls
        base, multiplier = self._score(self.yaku_total[winner], calls[1 - winner] > 0,
                                       calls[winner])
        yaku = self._breakdown(winner)
        rounds: list[dict] = []
        matches: list[dict] = []
        self._finish(winner, base, multiplier, reason, yaku, rounds, matches)
        self._deal(rounds, matches)
        return _outcome(rounds, matches)

    def _exhaustion_outcome(self) -> tuple[int, int, int, bool]:
        """Winner (-1: no game), base, multiplier and whether the base is a yaku total, when
        both hands ran out (§2.6, §2.8)."""
        rules = self.rules
        rule = rules.on_exhaustion
        dealer = self.dealer
        called = self.koikoi_calls[0] + self.koikoi_calls[1] > 0
        totals = self.yaku_total
        quiet = rule == "dealer-wins-always" or (not called and totals[0] <= 0
                                                 and totals[1] <= 0)
        winner, base, multiplier = -1, 0, 1
        offset = QUIET_EXHAUSTION_WINNER[rule]  # 0: the dealer wins, 1: the other
        if quiet and offset is not None:
            winner = dealer ^ offset
            base = rules.exhaustion_points
        if rule == "highest-total" and called:
            # Decision (core): the higher total wins and is scored like any win (§2.5 steps).
            top = dealer if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
            calls = self.koikoi_calls
            base, multiplier = self._score(totals[top], calls[1 - top] > 0, calls[top])
            return top, base, multiplier, True
        return winner, base, multiplier, False

    def _finish(self, winner: int, base: int, multiplier: int, reason: int,
                yaku: dict[str, int], rounds: list[dict], matches: list[dict]) -> None:
        """Record a round, move the match score and the dealer, close a finished match."""
        points = base * multiplier if winner >= 0 else 0
        seat = winner if winner >= 0 else 0
        reward = [0, 0]
        reward[seat] += points
        reward[1 - seat] -= points
        dealer = self.dealer
        rounds.append({
            "game": 0, "round_index": self.round_index, "dealer": dealer, "winner": winner,
            "base": base, "multiplier": multiplier, "points": points, "reward": reward,
            "koikoi_calls": list(self.koikoi_calls), "reason": END_NAMES[reason],
            "turns": self.turn, "yaku": yaku,
        })
        score, won = self.match_score, self.points_won
        score[0] += reward[0]
        score[1] += reward[1]
        if winner >= 0:
            won[winner] += points
        if self.rules.next_dealer == "winner" and winner >= 0:
            self.dealer = winner
        else:
            self.dealer = 1 - dealer
        self.round_index += 1
        target, stake = self.rules.target_score, self.rules.starting_points
        if self.round_index >= self.rules.rounds or (
                target is not None and (won[0] >= target or won[1] >= target)) or (
                stake is not None and (stake + score[0] <= 0 or stake + score[1] <= 0)):
            match_winner = 0 if score[0] > score[1] else (1 if score[1] > score[0] else -1)
            matches.append({"winner": match_winner, "scores": list(score),
                            "rounds": self.round_index})
            self.match_score = [0, 0]
            self.points_won = [0, 0]
            self.round_index = 0
            self.dealer = self._coin()

    def _use_tables(self) -> None:
        """The look-up tables of ``self.rules`` (shared by every game with those rules)."""
        self._tables = game_tables(self.rules)
        self._total = self._tables.scorer.total

    # ------------------------------------------------------------------ copies and export
    def __getstate__(self) -> dict[str, object]:
        """Pickled without the scoring tables (closures): they are rebuilt from the rules."""
        return {name: getattr(self, name) for name in ("rules", "yaku_names", *self._STATE)}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.deal_log, self.upcoming_decks = None, []
        self._use_tables()

    def copy(self) -> KoiKoiGame:
        """An independent game in the same state (continues exactly like this one)."""
        clone = object.__new__(KoiKoiGame)
        clone.rules, clone.yaku_names, clone._tables, clone._total = (
            self.rules, self.yaku_names, self._tables, self._total)
        clone.deal_log, clone.upcoming_decks = None, []
        clone.hands, clone.piles, clone.stock = self.hands[:], self.piles[:], self.stock[:]
        clone.koikoi_calls, clone.yaku_total = self.koikoi_calls[:], self.yaku_total[:]
        clone.match_score, clone.points_won = self.match_score[:], self.points_won[:]
        clone.field, clone.stock_pos, clone.dealer, clone.mover = (
            self.field, self.stock_pos, self.dealer, self.mover)
        clone.phase, clone.pending, clone.turn, clone.round_index = (
            self.phase, self.pending, self.turn, self.round_index)
        clone.seed, clone.deal_count = self.seed, self.deal_count
        return clone

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        """Shuffle what ``seat`` cannot see (the other hand, the undrawn stock) among
        themselves, as ``KoiKoiCore.resample_hidden`` does: on a :meth:`copy`, a world that
        ``seat`` may believe (a search must not roll out the real hidden cards)."""
        check_seat(seat, "seat")
        other, pos = 1 - seat, self.stock_pos
        order = rng.permutation(C.ids_of(self.hands[other]) + self.stock[pos:]).tolist()
        n_hand = self.hands[other].bit_count()
        self.hands[other] = C.mask_of(order[:n_hand])
        self.stock[pos:] = order[n_hand:]

    def state_dict(self) -> dict[str, object]:
        """The state as plain values (lists copied), for comparing and hashing games."""
        state = {name: getattr(self, name) for name in self._STATE}
        return {k: v[:] if v.__class__ is list else v for k, v in state.items()}

    @classmethod
    def from_core(cls, core: KoiKoiCore, g: int) -> KoiKoiGame:
        """Game ``g`` of a core batch, in the same state (continues exactly like it)."""
        game = object.__new__(cls)
        game.rules = core.rules
        game.deal_log, game.upcoming_decks = None, []
        game._use_tables()
        game.yaku_names = tuple(core.yaku_names)
        for name in cls._STATE:  # numpy scalars and rows -> Python ints and lists
            setattr(game, name, getattr(core, "seeds" if name == "seed" else name)[g].tolist())
        return game

    def to_core(self) -> KoiKoiCore:
        """A ``KoiKoiCore(1)`` in this game's state (continues exactly like it)."""
        core = _core_template(self.rules).fork(0)  # a fresh copy, without dealing anew
        for name in self._STATE:
            target = "seeds" if name == "seed" else name
            getattr(core, target)[0] = getattr(self, name)
        return core

    def __repr__(self) -> str:
        return (f"KoiKoiGame(rules={self.rules.name!r}, round={self.round_index}, "
                f"mover={self.mover}, phase={PHASE_NAMES[self.phase]!r}, "
                f"score={self.match_score})")


@lru_cache(maxsize=16)
def _core_template(rules: RuleSet) -> KoiKoiCore:
    """A one-game core per rule set; ``to_core`` forks it (never steps it)."""
    return KoiKoiCore(1, rules=rules, seed=0)


def _reward(rounds: list[dict]) -> tuple[int, int]:
    """Per-seat sum of the rounds' zero-sum rewards."""
    r0 = r1 = 0
    for row in rounds:
        r0 += row["reward"][0]
        r1 += row["reward"][1]
    return r0, r1


def _outcome(rounds: list[dict], matches: list[dict]) -> GameStepOutcome:
    """The outcome of a step that ended the round being played."""
    return GameStepOutcome(_reward(rounds), True, bool(matches), rounds, matches)


def _as_action(action) -> int:
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action must be an integer, got {action!r}")
    return int(action)
