"""Vectorized Koi-Koi core: B independent matches stepped at once with NumPy.

Every set of cards is a 48-bit ``uint64`` (see ``cards``). Each game waits at one decision
of the player to move (``mover``):

* ``PLAY``           — play a card from hand (actions 0–47);
* ``CHOOSE_PLAYED``  — the played card matches two field cards: take one (48 + field card);
* ``CHOOSE_DRAWN``   — the same for the card drawn from the stock;
* ``DECIDE``         — the mover made yaku: stop (96) or koi-koi (97).

Dealing, drawing, automatic captures, scoring and the next round's deal happen inside
:meth:`KoiKoiCore.step`, so a batch runs forever. Each finished round yields a row in a
:class:`RoundResults` table (several per game are possible when a dealt hand yaku ends the
next round at once). :meth:`KoiKoiCore.reset` deals too, so it reports the rounds and matches
that ended at its deal the same way (:class:`ResetOutcome`). The result tables live in
:mod:`hanafuda_env.results`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import cards as C
from .deals import (
    DEALER_HAND,
    FIELD_CARDS,
    HAND_SIZE,
    OTHER_HAND,
    STOCK_CARDS,
    STOCK_SIZE,
    check_decks,
    check_option_names,
    check_seats,
    ids_to_bits,
    must_redeal,
)
from .results import (
    END_EXHAUSTION_WIN,
    END_HAND_YAKU,
    END_KOIKOI_WIN,
    END_LAST_CARD,
    END_NO_GAME,
    END_STOP,
    MatchResults,
    ResetOutcome,
    RoundResults,
    StepOutcome,
)
from .rules import QUIET_EXHAUSTION_WINNER, RuleSet, RuleSpec, resolve_rules
from .scoring import PileTotals, hand_yaku, round_multiplier, round_score
from .seeding import (
    GOLDEN,
    check_seed_value,
    game_seeds,
    is_integer,
    splitmix64,
)
from .worlds import deal_hidden, shuffle_undrawn

NUM_ACTIONS = 98
CHOOSE_OFFSET = 48
STOP, KOIKOI = 96, 97

PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE = 0, 1, 2, 3
PHASE_NAMES = ("play", "choose-played", "choose-drawn", "koikoi-or-stop")

_U64 = np.uint64
_ZERO = _U64(0)


class IllegalActionError(ValueError):
    """An action that the game's rules do not allow at its current decision."""


class KoiKoiCore:
    """B Koi-Koi matches as arrays. Seats are 0 and 1; who deals changes between rounds."""

    _STATE = ("hands", "field", "piles", "stock", "stock_pos", "dealer", "mover", "phase",
              "pending", "koikoi_calls", "yaku_total", "turn", "round_index", "match_score",
              "points_won", "seeds", "deal_count")

    def __init__(self, n_games: int, rules: RuleSpec = None, seed: int | None = None):
        if not is_integer(n_games) or n_games < 1:
            raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
        self.n_games = int(n_games)
        self.rules: RuleSet = resolve_rules(rules)
        self._scorer = PileTotals(self.rules)
        self.yaku_names = self._scorer.names + ("teshi", "kuttsuki")
        self._games = np.arange(self.n_games)
        b = self.n_games
        self.hands = np.zeros((b, 2), dtype=_U64)  # by seat
        self.field = np.zeros(b, dtype=_U64)
        self.piles = np.zeros((b, 2), dtype=_U64)
        self.stock = np.zeros((b, STOCK_SIZE), dtype=np.int8)  # top first
        self.stock_pos = np.zeros(b, dtype=np.int8)  # next card to draw
        self.dealer = np.zeros(b, dtype=np.int8)
        self.mover = np.zeros(b, dtype=np.int8)
        self.phase = np.zeros(b, dtype=np.int8)
        self.pending = np.full(b, -1, dtype=np.int8)  # card waiting for a field choice
        self.koikoi_calls = np.zeros((b, 2), dtype=np.int16)
        self.yaku_total = np.zeros((b, 2), dtype=np.int32)  # at the end of each seat's last turn
        self.turn = np.zeros(b, dtype=np.int16)  # turns completed this round
        self.round_index = np.zeros(b, dtype=np.int16)
        self.match_score = np.zeros((b, 2), dtype=np.int32)  # zero-sum: sum of round rewards
        self.points_won = np.zeros((b, 2), dtype=np.int32)  # points each seat scored (target)
        self.seeds = np.zeros(b, dtype=_U64)
        self.deal_count = np.zeros(b, dtype=_U64)
        self.reset(seed=seed)

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
        self.seeds[:] = seeds
        self.deal_count[:] = 0
        self.match_score[:] = 0
        self.points_won[:] = 0
        self.round_index[:] = 0
        self.dealer[:] = dealer if dealer is not None else self._coin(self._games)
        parts: list[RoundResults] = []
        match_parts: list[MatchResults] = []
        self._deal(self._games, parts, match_parts, deck=deck)
        reward, rounds, match_over, matches = self._results(parts, match_parts)
        return ResetOutcome(reward, match_over, rounds, matches)

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
            seeds = np.array(per_game, dtype=_U64)
        deck = None
        if options.get("deck") is not None:
            deck = check_decks(options["deck"], self.n_games, self.rules)
        dealer = None
        if options.get("dealer") is not None:
            dealer = check_seats(options["dealer"], self.n_games, "dealer")
        return seeds, deck, dealer

    def _deal_words(self, games: np.ndarray) -> np.ndarray:
        """One random word per game for its next deal: from its seed and deals so far."""
        return splitmix64(self.seeds[games] ^ splitmix64(self.deal_count[games]))

    def _random_words(self, games: np.ndarray, salt: int) -> np.ndarray:
        return splitmix64(self._deal_words(games) + _U64(salt * int(GOLDEN) % (1 << 64)))

    def _coin(self, games: np.ndarray) -> np.ndarray:
        """A fair seat choice per game (the first dealer of a match)."""
        return (self._random_words(games, 1000) >> _U64(40) & _U64(1)).astype(np.int8)

    def _shuffled_decks(self, games: np.ndarray) -> np.ndarray:
        card_salts = np.arange(C.NUM_CARDS, dtype=_U64) * GOLDEN
        keys = splitmix64(self._deal_words(games)[:, None] + card_salts)
        self.deal_count[games] += _U64(1)
        return np.argsort(keys, axis=1).astype(np.int8)

    def _deal(self, games: np.ndarray, parts: list[RoundResults],
              match_parts: list[MatchResults], deck: np.ndarray | None = None) -> None:
        """Deal new rounds; a hand yaku ends its round at once and the next is dealt."""
        while len(games):
            decks = deck if deck is not None else self._shuffled_decks(games)
            deck = None
            redeal = must_redeal(decks, self.rules)  # §2.1, before hand yaku (§2.7)
            while redeal.any():
                decks[redeal] = self._shuffled_decks(games[redeal])
                redeal[redeal] = must_redeal(decks[redeal], self.rules)
            field = ids_to_bits(decks[:, FIELD_CARDS])
            dealer = self.dealer[games]
            first = ids_to_bits(decks[:, DEALER_HAND])
            second = ids_to_bits(decks[:, OTHER_HAND])
            self.hands[games, dealer] = first
            self.hands[games, 1 - dealer] = second
            self.field[games] = field
            self.stock[games] = decks[:, STOCK_CARDS]
            self.stock_pos[games] = 0
            self.piles[games] = 0
            self.mover[games] = dealer
            self.phase[games] = PLAY
            self.pending[games] = -1
            self.koikoi_calls[games] = 0
            self.yaku_total[games] = 0
            self.turn[games] = 0
            hand_points, hand_teshi = hand_yaku(self.hands[games], self.rules)  # (n, 2)
            has = hand_points > 0
            ended = has.any(axis=1)
            if not ended.any():
                return
            done = games[ended]
            d = dealer[ended]
            winner = np.where(has[ended, d], d, 1 - d).astype(np.int8)
            base = hand_points[ended][np.arange(len(done)), winner]
            kind = hand_teshi[ended][np.arange(len(done)), winner]
            yaku = np.zeros((len(done), len(self.yaku_names)), dtype=np.int32)
            yaku[:, -2] = np.where(kind, base, 0)
            yaku[:, -1] = np.where(kind, 0, base)
            # Decision (§2.5 scores every win): a hand yaku worth 7 or more doubles
            multiplier = np.asarray(round_multiplier(base, False, self.rules), dtype=np.int32)
            self._finish_rounds(done, winner, base, multiplier,
                                np.full(len(done), END_HAND_YAKU), yaku, parts, match_parts)
            games = done  # deal those again (a finished match starts anew)

    # ---------------------------------------------------------- legal actions
    def legal_action_mask(self) -> np.ndarray:
        """(B, 98) bool: the actions allowed to the player to move in each game."""
        mask = np.zeros((self.n_games, NUM_ACTIONS), dtype=bool)
        hand_bits, field_bits, deciding = self._legal_bits()
        mask[:, :48] = C.bits_to_bool(hand_bits)
        mask[:, 48:96] = C.bits_to_bool(field_bits)
        mask[:, STOP] = deciding
        mask[:, KOIKOI] = deciding
        return mask

    def _mover_hand(self) -> np.ndarray:
        return np.where(self.mover == 0, self.hands[:, 0], self.hands[:, 1])

    def _legal_bits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        phase = self.phase
        hand_bits = np.where(phase == PLAY, self._mover_hand(), _ZERO)
        choosing = (phase == CHOOSE_PLAYED) | (phase == CHOOSE_DRAWN)
        month = C.MONTH_MASK_OF_CARD[np.maximum(self.pending, 0)]
        field_bits = np.where(choosing, self.field & month, _ZERO)
        return hand_bits, field_bits, phase == DECIDE

    def sample_legal_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game, drawn straight from the bit sets."""
        hand_bits, field_bits, deciding = self._legal_bits()
        bits = hand_bits | field_bits | np.where(deciding, _U64(3), _ZERO)
        offset = np.where(hand_bits != 0, 0, np.where(deciding, STOP, CHOOSE_OFFSET))
        count = np.bitwise_count(bits)
        pick = (rng.random(self.n_games) * count).astype(np.int64)
        for i in range(HAND_SIZE - 1):  # drop the lowest set bit `pick` times
            bits = np.where(pick > i, bits & (bits - _U64(1)), bits)
        lowest = bits & (~bits + _U64(1))
        return np.bitwise_count(lowest - _U64(1)).astype(np.int64) + offset

    def _check_actions(self, actions: np.ndarray, given: np.ndarray) -> None:
        """Raise for the first illegal action, naming it as ``given`` (before the int64
        cast, which turns a huge unsigned value into a negative one)."""
        hand_bits, field_bits, deciding = self._legal_bits()
        in_cards = (actions >= 0) & (actions < 96)
        bit = C.CARD_BITS[np.where(in_cards, actions % 48, 0)]
        legal = np.where(actions < 48, hand_bits & bit, field_bits & bit) != 0
        legal = np.where(in_cards, legal, deciding & ((actions == STOP) | (actions == KOIKOI)))
        if legal.all():
            return
        g = int(np.flatnonzero(~legal)[0])
        allowed = np.flatnonzero(self.legal_action_mask()[g]).tolist()
        raise IllegalActionError(
            f"game {g}: action {int(given[g])} ({action_name(int(given[g]))}) is illegal "
            f"for seat {int(self.mover[g])} in phase {PHASE_NAMES[self.phase[g]]}; legal "
            f"actions: {describe_actions(allowed)}. No game was changed.")

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray | Sequence[int]) -> StepOutcome:
        """Apply one action per game for its player to move; see the module docstring."""
        given = np.asarray(actions)
        if given.shape != (self.n_games,) or not np.issubdtype(given.dtype, np.integer):
            raise ValueError(f"actions must be {self.n_games} integers (one per game), got "
                             f"shape {given.shape} dtype {given.dtype}")
        actions = given.astype(np.int64)
        self._check_actions(actions, given)
        mover0 = self.mover == 0
        hand = self._mover_hand()
        pile = np.where(mover0, self.piles[:, 0], self.piles[:, 1])
        field = self.field
        phase = self.phase

        # play a card from hand
        playing = phase == PLAY
        played = np.where(playing, actions, 0)
        hand = np.where(playing, hand & ~C.CARD_BITS[played], hand)
        field, pile, choose_played = _place(field, pile, played, playing)

        # take the chosen field card together with the pending card
        choosing = (phase == CHOOSE_PLAYED) | (phase == CHOOSE_DRAWN)
        taken = np.where(choosing, C.CARD_BITS[actions % 48] | C.CARD_BITS[self.pending], _ZERO)
        field = field & ~taken
        pile = pile | taken

        # draw from the stock
        drawing = (playing & ~choose_played) | (phase == CHOOSE_PLAYED)
        drawn = self.stock[self._games, np.minimum(self.stock_pos, STOCK_SIZE - 1)]
        self.stock_pos += drawing
        field, pile, choose_drawn = _place(field, pile, drawn, drawing)

        self.phase = np.where(choose_played, CHOOSE_PLAYED,
                              np.where(choose_drawn, CHOOSE_DRAWN, phase)).astype(np.int8)
        self.pending = np.where(choose_played, played,
                                np.where(choose_drawn, drawn, -1)).astype(np.int8)
        self.field = field
        self.hands[:, 0] = np.where(mover0, hand, self.hands[:, 0])
        self.hands[:, 1] = np.where(mover0, self.hands[:, 1], hand)
        self.piles[:, 0] = np.where(mover0, pile, self.piles[:, 0])
        self.piles[:, 1] = np.where(mover0, self.piles[:, 1], pile)

        ending = (drawing & ~choose_drawn) | (phase == CHOOSE_DRAWN)
        deciding = phase == DECIDE
        return self._after_turn(ending, deciding, actions, hand, pile)

    def _after_turn(self, ending: np.ndarray, deciding: np.ndarray, actions: np.ndarray,
                    hand: np.ndarray, pile: np.ndarray) -> StepOutcome:
        """End-of-turn yaku check (§2.4), koi-koi decisions and round ends (§2.6)."""
        mover = self.mover
        previous = np.where(mover == 0, self.yaku_total[:, 0], self.yaku_total[:, 1])
        # the sake yaku a call raises (§2.10): only those rules read the mover's calls here
        own_called = (self.koikoi_calls[self._games, mover] > 0
                      if self._scorer.after_call is not None else False)
        total = np.where(ending, self._scorer.totals(pile, own_called), previous)
        made = ending & (total > previous)
        self.yaku_total[self._games, mover] = total
        self.turn += ending
        has_cards = hand != 0
        called_before = (self.koikoi_calls[:, 0] + self.koikoi_calls[:, 1]) > 0
        may_decide = has_cards if self.rules.multiple_koikoi else has_cards & ~called_before
        to_decide = made & may_decide
        wins = made & ~may_decide
        stops = deciding & (actions == STOP)
        calls = deciding & (actions == KOIKOI)
        self.koikoi_calls[self._games, mover] += calls
        if self.rules.sake_after_koikoi is not None and calls.any():
            # the raised sake yaku count from the call on: the next turn starts from them
            self.yaku_total[self._games, mover] = np.where(
                calls, self._scorer.totals(pile, True), self.yaku_total[self._games, mover])
        passing = (ending & ~made) | calls
        self.phase = np.where(to_decide, DECIDE, np.where(passing, PLAY, self.phase)).astype(
            np.int8)
        self.mover = np.where(passing, 1 - mover, mover).astype(np.int8)
        exhausted = passing & (self.hands[:, 0] == 0) & (self.hands[:, 1] == 0)

        round_over = wins | stops | exhausted
        parts: list[RoundResults] = []
        match_parts: list[MatchResults] = []
        if round_over.any():
            self._end_rounds(wins, stops, exhausted, called_before, parts, match_parts)
        reward, rounds, match_over, matches = self._results(parts, match_parts)
        return StepOutcome(reward, round_over, match_over, rounds, matches)

    def _results(self, parts: list[RoundResults], match_parts: list[MatchResults]
                 ) -> tuple[np.ndarray, RoundResults, np.ndarray, MatchResults]:
        """What a step or reset finished: per-game points and match ends, and the tables."""
        reward = np.zeros((self.n_games, 2), dtype=np.int32)
        rounds = RoundResults.concat(parts, self.yaku_names)
        if len(rounds):
            np.add.at(reward, rounds.game, rounds.reward)
        matches = MatchResults.concat(match_parts)
        match_over = np.zeros(self.n_games, dtype=bool)
        match_over[matches.game] = True
        return reward, rounds, match_over, matches

    # ------------------------------------------------------------ round end
    def _end_rounds(self, wins: np.ndarray, stops: np.ndarray, exhausted: np.ndarray,
                    called_before: np.ndarray, parts: list[RoundResults],
                    match_parts: list[MatchResults]) -> None:
        by_yaku = np.flatnonzero(wins | stops)
        done = []
        if len(by_yaku):
            reason = np.where(stops[by_yaku], END_STOP,
                              np.where(called_before[by_yaku], END_KOIKOI_WIN, END_LAST_CARD))
            winner = self.mover[by_yaku]
            calls = self.koikoi_calls[by_yaku]
            own_calls = calls[np.arange(len(by_yaku)), winner]
            loser_called = calls[np.arange(len(by_yaku)), 1 - winner] > 0
            base, multiplier = round_score(self.yaku_total[by_yaku, winner], loser_called,
                                           self.rules, own_calls)
            yaku = np.zeros((len(by_yaku), len(self.yaku_names)), dtype=np.int32)
            yaku[:, :len(self._scorer.names)] = self._scorer.breakdown(
                self.piles[by_yaku, winner], own_calls > 0)
            self._finish_rounds(by_yaku, winner, base, multiplier, reason, yaku, parts,
                                match_parts)
            done.append(by_yaku)
        ran_out = np.flatnonzero(exhausted)
        if len(ran_out):
            winner, base, multiplier, by_total = self._exhaustion_outcome(ran_out)
            reason = np.where(winner >= 0, END_EXHAUSTION_WIN, END_NO_GAME)
            yaku = np.zeros((len(ran_out), len(self.yaku_names)), dtype=np.int32)
            if by_total.any():  # highest-total wins are scored from the winner's yaku
                scored, seat = ran_out[by_total], winner[by_total]
                yaku[by_total, :len(self._scorer.names)] = self._scorer.breakdown(
                    self.piles[scored, seat], self.koikoi_calls[scored, seat] > 0)
            self._finish_rounds(ran_out, winner, base, multiplier, reason, yaku, parts,
                                match_parts)
            done.append(ran_out)
        self._deal(np.concatenate(done), parts, match_parts)  # finished matches start anew

    def _exhaustion_outcome(self, games: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Winner (-1: no game), base, multiplier and whether the base is a yaku total, when
        both hands ran out (§2.6, §2.8)."""
        rule = self.rules.on_exhaustion
        n = len(games)
        dealer = self.dealer[games]
        called = self.koikoi_calls[games].sum(axis=1) > 0
        made_any = (self.yaku_total[games] > 0).any(axis=1)
        quiet = ~called & ~made_any  # nobody made yaku, nobody called koi-koi
        points = np.full(n, self.rules.exhaustion_points, dtype=np.int32)
        winner = np.full(n, -1, dtype=np.int8)
        base = np.zeros(n, dtype=np.int32)
        offset = QUIET_EXHAUSTION_WINNER[rule]  # 0: the dealer wins, 1: the other
        if rule == "dealer-wins-always":  # §2.10: koi-koi called or not
            quiet = np.ones(n, dtype=bool)
        if offset is not None:
            winner = np.where(quiet, dealer ^ offset, winner)
            base = np.where(quiet, points, base)
        multiplier = np.ones(n, dtype=np.int32)
        by_total = np.zeros(n, dtype=bool)
        if rule == "highest-total":
            by_total = called
            # Decision: the higher total wins and is scored like any win (§2.5 steps).
            totals = self.yaku_total[games]
            top = np.where(totals[:, 0] == totals[:, 1], dealer,
                           np.argmax(totals, axis=1)).astype(np.int8)
            winner = np.where(called, top, winner).astype(np.int8)
            calls = self.koikoi_calls[games]
            loser_called = calls[np.arange(n), 1 - top] > 0
            top_base, top_multiplier = round_score(totals[np.arange(n), top], loser_called,
                                                   self.rules, calls[np.arange(n), top])
            base = np.where(called, top_base, base)
            multiplier = np.where(called, top_multiplier, 1)
        return (winner.astype(np.int8), base.astype(np.int32), multiplier.astype(np.int32),
                by_total)

    def _finish_rounds(self, games: np.ndarray, winner: np.ndarray, base: np.ndarray,
                       multiplier: np.ndarray, reason: np.ndarray, yaku: np.ndarray,
                       parts: list[RoundResults], match_parts: list[MatchResults]
                       ) -> None:
        """Record rounds, move match scores and dealers, close finished matches (their
        next match's first dealer drawn); the caller deals every one of them again."""
        n = len(games)
        points = np.where(winner >= 0, base * multiplier, 0).astype(np.int32)
        reward = np.zeros((n, 2), dtype=np.int32)
        has_winner = winner >= 0
        seat = np.where(has_winner, winner, 0)
        reward[np.arange(n), seat] += points
        reward[np.arange(n), 1 - seat] -= points
        dealer = self.dealer[games].copy()
        parts.append(RoundResults(
            games, self.round_index[games].copy(), dealer, winner.astype(np.int8),
            base.astype(np.int32), multiplier.astype(np.int32), points, reward,
            self.koikoi_calls[games].astype(np.int32), reason.astype(np.int8), yaku,
            self.piles[games].copy(), self.turn[games].astype(np.int32), self.yaku_names))
        self.match_score[games] += reward
        self.points_won[games] += np.maximum(reward, 0)
        if self.rules.next_dealer == "winner":
            self.dealer[games] = np.where(has_winner, winner, 1 - dealer)
        else:
            self.dealer[games] = 1 - dealer
        self.round_index[games] += 1
        over = self.round_index[games] >= self.rules.rounds
        if self.rules.target_score is not None:
            over |= (self.points_won[games] >= self.rules.target_score).any(axis=1)
        if self.rules.starting_points is not None:  # §2.10: out of points
            over |= (self.rules.starting_points + self.match_score[games] <= 0).any(axis=1)
        if over.any():
            ended = games[over]
            scores = self.match_score[ended].copy()
            match_winner = np.where(scores[:, 0] > scores[:, 1], 0,
                                    np.where(scores[:, 1] > scores[:, 0], 1, -1))
            match_parts.append(MatchResults(ended, match_winner.astype(np.int8), scores,
                                            self.round_index[ended].astype(np.int32)))
            self.match_score[ended] = 0
            self.points_won[ended] = 0
            self.round_index[ended] = 0
            self.dealer[ended] = self._coin(ended)

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
            raise ValueError(f"fork needs a game index or a list of them (integers) and copies "
                             f">= 1, got games={games!r}, copies={copies!r}")
        if seed is not None:
            check_seed_value(seed, "fork's seed")
        index = np.repeat(chosen.astype(np.intp), copies)
        if len(index) == 0 or index.min() < 0 or index.max() >= self.n_games:
            raise ValueError(f"fork needs game indices in 0..{self.n_games - 1}, got {games!r}")
        clone = object.__new__(KoiKoiCore)
        clone.n_games = len(index)
        clone.rules, clone._scorer, clone.yaku_names = self.rules, self._scorer, self.yaku_names
        clone._games = np.arange(clone.n_games)
        for name in self._STATE:
            setattr(clone, name, getattr(self, name)[index].copy())
        if seed is not None:
            clone.seeds[:] = game_seeds(seed, clone.n_games)
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

    def _chosen(self, games: Sequence[int] | np.ndarray | None) -> np.ndarray:
        """The distinct games a resampling touches (all by default)."""
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
        """Copies of every state array (for saving, hashing and comparing games)."""
        return {name: getattr(self, name).copy() for name in self._STATE}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`state_dict` returned (same number of games)."""
        missing = [name for name in self._STATE if name not in state]
        if missing:
            raise ValueError(f"core state lacks {missing}")
        values = {}
        for name in self._STATE:
            current = getattr(self, name)
            values[name] = np.array(state[name], dtype=current.dtype)
            if values[name].shape != current.shape:
                raise ValueError(f"core state {name!r} has shape {values[name].shape}, "
                                 f"expected {current.shape}")
        for name, value in values.items():  # all checked: now assign
            setattr(self, name, value)


def _place(field: np.ndarray, pile: np.ndarray, card: np.ndarray, active: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``card`` onto the field where ``active`` (§2.2): place, capture, or ask to choose."""
    matches = field & C.MONTH_MASK_OF_CARD[card]
    count = np.bitwise_count(matches)
    bit = C.CARD_BITS[card]
    capture = active & ((count == 1) | (count == 3))
    place = active & (count == 0)
    field = np.where(place, field | bit, np.where(capture, field & ~matches, field))
    pile = np.where(capture, pile | matches | bit, pile)
    return field, pile, active & (count == 2)


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
