"""Writing down games as they are played, in the game-record format of
:mod:`hanafuda_env.koikoi.records` (so that :func:`~hanafuda_env.koikoi.records.replay` plays
them back)."""

from __future__ import annotations

from typing import Any

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    PLAY,
)
from hanafuda_env.koikoi.deals import HAND_SIZE, STOCK_SIZE
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.records import Match, Round, Turn, capture, placed, won_without_decision


class MatchRecorder:
    """Writes down the matches of a :class:`KoiKoiGame` as they are played.

    Start with :meth:`reset` (``game.reset``'s arguments; or reset the game yourself and
    hand its outcome to :meth:`started`), then play every move through :meth:`step` (it
    steps the game). Each finished match is appended to ``matches``; the one in play is
    ``current``. Records name the rule set (``info["ruleSet"]``), so :func:`replay` plays
    them by the same rules. A game of a ``KoiKoiCore`` batch is followed by a game reset
    with its game seed (``core.seeds[g]``) and first dealer, stepped with the same actions.
    """

    def __init__(self, game: KoiKoiGame, names: tuple[str, str] = ("player1", "player2")):
        self.game = game
        self.names = names
        self.matches: list[Match] = []
        self.current: Match | None = None
        self._turn: Turn | None = None
        self._written = True  # whether the turn in play is in its round yet
        self._field_mid = 0  # the field between the turn's play and its draw
        game.deal_log = []

    def reset(self, **reset_args: Any) -> Any:
        """``game.reset(**reset_args)``, and a new match begun; returns the reset's outcome."""
        outcome = self.game.reset(**reset_args)
        self.started(outcome)
        return outcome

    def all_matches(self) -> list[Match]:
        """The finished matches, then the one in play if it has begun."""
        current = [self.current] if self.current is not None and self.current.rounds else []
        return self.matches + current

    def started(self, outcome: Any) -> None:
        """After ``game.reset``: begin a match with its deal (and what the deal finished)."""
        if not self.game.deal_log:
            raise ValueError("the game was reset before its recorder was made: make the "
                             "MatchRecorder first, then reset (MatchRecorder.reset does both)")
        self._new_match()
        self._take_deals(outcome.rounds, outcome.matches)

    def step(self, action: int) -> Any:
        """``game.step(action)``, written down; returns the game's outcome. A turn is added
        to its round once all its cards are placed (its field choices made)."""
        game = self.game
        phase, field_bits = game.phase, game.field
        if phase == PLAY and 0 <= action < C.NUM_CARDS:
            next_card = game.stock[min(game.stock_pos, STOCK_SIZE - 1)]
            self._turn = Turn(game.mover, action, capture(field_bits, action), next_card, [],
                              None)
            self._written = False
        outcome = game.step(action)  # an illegal action raises here, nothing written
        turn = self._turn
        if phase == PLAY:
            self._field_mid = placed(field_bits, action, turn.captured)
        elif phase == CHOOSE_PLAYED:
            turn.captured = capture(field_bits, turn.played, action - CHOOSE_OFFSET)
            self._field_mid = placed(field_bits, turn.played, turn.captured)
        elif phase == CHOOSE_DRAWN:
            turn.captured_drawn = capture(self._field_mid, turn.drawn, action - CHOOSE_OFFSET)
        elif phase == DECIDE:
            turn.koikoi = action == KOIKOI
        if phase in (PLAY, CHOOSE_PLAYED) and game.phase != CHOOSE_PLAYED:  # drawn this step
            turn.captured_drawn = capture(self._field_mid, turn.drawn)
        if not self._written and game.phase not in (CHOOSE_PLAYED, CHOOSE_DRAWN):
            self.current.rounds[-1].turns.append(turn)
            self._written = True
        if outcome.round_over:
            if phase != DECIDE and won_without_decision(outcome, turn.seat):
                turn.koikoi = False  # a win without a decision is written as a stop
            self._take_deals(outcome.rounds, outcome.matches)
        return outcome

    def _new_match(self) -> None:
        rules = self.game.rules
        stake = rules.starting_points or 0
        self.current = Match(self.names, (stake, stake), rules.rounds, rules=rules.to_dict())

    def _take_deals(self, rows: list[dict], matches: list[dict]) -> None:
        """Finish the rounds that ``rows`` ended and open those dealt since; ``matches`` (the
        engine's, in order) close the matches, each after its number of rounds."""
        finished, ended = list(rows), list(matches)
        log = self.game.deal_log
        opened = [self._round_of(order, dealer) for order, dealer in log]
        log.clear()
        match = self.current
        if match.rounds and match.rounds[-1].points is None and finished:
            self._finish(match.rounds[-1], finished.pop(0), ended)
        for game_round in opened:  # rows beyond the first end rounds just dealt (hand yaku)
            if self.current.over:
                self.matches.append(self.current)
                self._new_match()
            self.current.rounds.append(game_round)
            if finished:
                self._finish(game_round, finished.pop(0), ended)

    def _finish(self, game_round: Round, row: dict, ended: list[dict]) -> None:
        game_round.winner = row["winner"]
        game_round.points = (row["reward"][0], row["reward"][1])
        match = self.current
        if ended and len(match.rounds) == ended[0]["rounds"]:
            result = ended.pop(0)
            match.over, match.winner = True, result["winner"]
            start = match.start_points
            match.end_points = (start[0] + result["scores"][0], start[1] + result["scores"][1])

    @staticmethod
    def _round_of(order: list[int], dealer: int) -> Round:
        own, other = order[:HAND_SIZE], order[HAND_SIZE:2 * HAND_SIZE]
        hands = (own, other) if dealer == 0 else (other, own)
        return Round(dealer, (list(hands[0]), list(hands[1])),
                     list(order[2 * HAND_SIZE:3 * HAND_SIZE]), list(order[3 * HAND_SIZE:]),
                     -1, None)
