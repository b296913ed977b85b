"""The games the browser page plays, watches and replays, as JSON-ready views.

A session is one browser tab's game, kept in memory by the server under an id. Its views
hold only what its viewer may see. A person's session sends the bot's hand and the stock as
counts, and never the deal's seed: ``KoiKoiGame(rules, seed)`` rebuilds from it every hidden
card of every round, and the bot's random stream. A watched game of two bots shows both
hands and its seed, a spectator's view: no person plays in it, so nothing is hidden from
anyone, and the seed lets the same match be watched again. A replay shows a finished
record, which is public. Every request is checked before anything changes: a refused one
leaves the game as it was.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from agents.bots.base import AgentLike
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import KOIKOI, STOP, action_name
from hanafuda_env.koikoi.deals import STOCK_SIZE
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import encode_game
from hanafuda_env.koikoi.records import Match, RecordError, record_rules, replay
from hanafuda_env.koikoi.rules import RuleSet
from hanafuda_env.koikoi.scoring import score_pile, yaku_table
from hanafuda_env.koikoi.state import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    DECIDE,
    MATCH_OVER,
    PHASE_NAMES,
    PLAY,
    ROUND_OVER,
)
from hanafuda_env.render.text import card_label, cards_line

PROMPTS = {PLAY: "play", CHOOSE_PLAYED: "choose", CHOOSE_DRAWN: "choose", DECIDE: "decide"}


class RequestError(Exception):
    """A request the server refuses: an HTTP status, a message naming the problem and, in
    ``details``, the values that are allowed."""

    def __init__(self, status: int, message: str, **details: Any):
        super().__init__(message)
        self.status, self.message, self.details = status, message, details

    def body(self) -> dict[str, Any]:
        return {"error": self.message, **self.details}


def board_view(game: KoiKoiGame, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` sees it (None: a spectator, both hands shown)."""
    seats = []
    for seat in (0, 1):
        hand, pile, calls = game.hands[seat], game.piles[seat], game.koikoi_calls[seat]
        yaku = score_pile(pile, yaku_table(game.rules, called=calls > 0))
        seats.append({
            "hand": C.ids_of(hand) if viewer in (None, seat) else None,
            "hand_count": hand.bit_count(),
            "pile": {kind: [c for c in C.ids_of(pile) if C.DECK[c].kind == kind]
                     for kind in C.KINDS},
            "yaku": yaku, "yaku_total": sum(yaku.values()), "koikoi_calls": calls,
        })
    phase = game.phase
    return {
        "seats": seats, "field": C.ids_of(game.field),
        "stock": STOCK_SIZE - game.stock_pos,
        "pending": game.pending if game.pending >= 0 else None,
        "phase": PHASE_NAMES[phase], "mover": game.mover if phase < ROUND_OVER else None,
        "dealer": game.dealer, "round": game.round_index + (phase < ROUND_OVER),
        "rounds": game.rules.rounds, "score": game.match_score,
    }


def round_view(row: dict) -> dict[str, Any]:
    """A finished round's result row, with the names a person reads."""
    return {**row, "yaku": [{"name": n, "points": p} for n, p in row["yaku"].items()],
            "round": row["round_index"] + 1}


def step_text(who: str, action: int, game: KoiKoiGame, seat: int,
              before: tuple[int, int]) -> str:
    """What ``seat``'s move did in the open, from its pile and the stock position
    ``before`` it: the move, the card drawn, the cards taken."""
    pile_before, drawn_from = before
    parts = [f"{who}: {action_name(action)}"]
    drawn = game.stock[drawn_from:game.stock_pos]
    if drawn:
        parts.append(f"drew {card_label(drawn[0])}")
    taken = game.piles[seat] & ~pile_before
    if taken:
        parts.append(f"took {cards_line(taken)}")
    return "; ".join(parts)


@dataclass
class Setup:
    """What a new game is made of, checked by the server."""

    mode: str  # "play" or "watch"
    rules: RuleSet
    seed: int
    agents: dict[int, AgentLike]  # seat -> bot
    names: tuple[str, str]
    human: int | None  # the person's seat; None when two bots play


class GameSession:
    """A match of a person against a bot, or of two bots watched: a ``KoiKoiGame`` without
    autoreset, so each finished round waits, its result shown, until the page asks for the
    next (:meth:`next_round`). Bots move as soon as it is their turn; each of their moves
    (and the person's) is an event with the board after it, for the page to show in turn."""

    def __init__(self, setup: Setup):
        self.setup = setup
        self.lock = threading.Lock()  # held by the request at work on the game
        self.game = KoiKoiGame(setup.rules, seed=setup.seed, autoreset=False)
        self.rounds: list[dict] = []  # this match's finished rounds
        self.match: dict | None = None
        self.events: list[dict] = []
        dealt = self.game.reset(seed=setup.seed)  # the same deal, with what it finished
        self._dealt((dealt.rounds, dealt.matches))

    @property
    def viewer(self) -> int | None:
        return self.setup.human

    def _event(self, text: str, seat: int | None = None, action: int | None = None) -> None:
        self.events.append({"text": text, "seat": seat, "action": action,
                            "board": board_view(self.game, self.viewer)})

    def _dealt(self, ended: tuple[list[dict], list[dict]]) -> None:
        game, rounds = self.game, ended[0]
        number = rounds[0]["round_index"] + 1 if rounds else game.round_index + 1
        dealer = rounds[0]["dealer"] if rounds else game.dealer
        self._event(f"round {number} dealt (dealer: {self.setup.names[dealer]})")
        self._finished(*ended)
        self._run_bots()

    def _finished(self, rounds: list[dict], matches: list[dict]) -> None:
        for row in rounds:
            self.rounds.append(round_view(row))
            self._event(f"round {row['round_index'] + 1} over ({row['reason']})")
        if matches:
            self.match = matches[0]

    def _step(self, action: int) -> None:
        game = self.game
        seat = game.mover
        before = (game.piles[seat], game.stock_pos)
        outcome = game.step(action)
        self._event(step_text(self.setup.names[seat], action, game, seat, before), seat, action)
        self._finished(outcome.rounds, outcome.matches)

    def _run_bots(self) -> None:
        game = self.game
        while game.phase < ROUND_OVER and game.mover != self.setup.human:
            seat = game.mover
            obs = encode_game(game, seat)[None]
            mask = game.legal_action_mask().astype(bool)[None]
            self._step(int(self.setup.agents[seat].act(obs, mask)[0]))

    # ------------------------------------------------------------------ requests
    def legal(self) -> list[dict]:
        """The person's legal moves now (none while a bot moves or a round is over)."""
        game = self.game
        if game.phase >= ROUND_OVER or game.mover != self.setup.human:
            return []
        return [{"action": a, "name": action_name(a)} for a in game.legal_actions()]

    def move(self, action: Any) -> None:
        """The person's move, then the bot's moves up to the person's next decision."""
        game = self.game
        if self.setup.human is None:
            raise RequestError(409, "two bots play this game: it takes no moves")
        if game.phase >= ROUND_OVER:
            raise RequestError(409, f"the round is over ({PHASE_NAMES[game.phase]}): ask for "
                               "the next round (or a new game after the match)",
                               legal_actions=[])
        legal = self.legal()
        ids = [m["action"] for m in legal]
        if isinstance(action, bool) or not isinstance(action, int) or action not in ids:
            raise RequestError(422, f"action {action!r} is not a legal move now; legal "
                               f"actions: {ids}", legal_actions=legal)
        self.events = []
        self._step(action)
        self._run_bots()

    def next_round(self) -> None:
        """Deal the next round of a finished one, then let the bots move."""
        game = self.game
        if game.phase == MATCH_OVER:
            raise RequestError(409, "the match is over: start a new game")
        if game.phase != ROUND_OVER:
            raise RequestError(409, f"the round is still in play ({PHASE_NAMES[game.phase]}):"
                               " finish it first", legal_actions=self.legal())
        self.events = []
        dealt = game.deal_next()
        self._dealt((dealt.rounds, dealt.matches))

    def state(self) -> dict[str, Any]:
        """What the page gets: the seed only when two bots play (see the module's text)."""
        game = self.game
        prompt = None
        if game.phase < ROUND_OVER and game.mover == self.setup.human:
            prompt = PROMPTS[game.phase]
        state = {
            "kind": self.setup.mode, "names": list(self.setup.names), "human": self.viewer,
            "rules": self.setup.rules.name,
            "board": board_view(game, self.viewer), "legal": self.legal(), "prompt": prompt,
            "rounds": self.rounds, "match": self.match, "events": self.events,
            "decision_ids": {"stop": STOP, "koikoi": KOIKOI},
        }
        if self.setup.human is None:
            state["seed"] = self.setup.seed
        return state


class ReplaySession:
    """A game record replayed move by move: every position is kept (a spectator's board,
    the move that led there, a finished round's result) for the page to step through."""

    def __init__(self, match: Match, rules: RuleSet | None, source: str):
        self.lock = threading.Lock()  # held by the request reading the replay
        self.names = tuple(match.names)
        self.match = match
        self.frames: list[dict] = []
        try:
            self.rules = record_rules(match, rules)
        except RecordError as error:
            raise RequestError(422, str(error)) from None
        try:
            replay(match, rules, source=source, step=self._step)
        except RecordError as error:
            raise RequestError(422, f"the record does not replay: {error}") from None

    def _frame(self, game: KoiKoiGame, text: str, result: dict | None = None) -> None:
        self.frames.append({"text": text, "board": board_view(game, None), "result": result})

    def _step(self, game: KoiKoiGame, action: int) -> Any:
        """One recorded move (``replay`` checks it): the board after it, a round's end
        shown before the next deal."""
        if not self.frames:
            for k, game_round in enumerate(self.match.rounds[:game.round_index], start=1):
                winner = self.names[game_round.winner] if game_round.winner >= 0 else "nobody"
                self._frame(game, f"round {k} ended at the deal: {winner} won "
                                  f"{max(game_round.points or (0, 0))}")
            self._frame(game, f"round {game.round_index + 1} dealt "
                              f"(dealer: {self.names[game.dealer]})")
        seat = game.mover
        before = (game.piles[seat], game.stock_pos)
        game.autoreset = False  # each round's end stays on the table for its frame
        try:
            outcome = game.step(action)
        finally:
            game.autoreset = True
        self._frame(game, step_text(self.names[seat], action, game, seat, before))
        for row in outcome.rounds:
            self._frame(game, f"round {row['round_index'] + 1} over ({row['reason']})",
                        round_view(row))
        if outcome.round_over and not outcome.match_over:
            dealt = game.deal_on(within_match=True)  # as autoreset deals, within the match
            outcome.rounds += dealt.rounds
            outcome.matches += dealt.matches
            outcome.match_over |= dealt.match_over
            for row in dealt.rounds:
                self._frame(game, f"round {row['round_index'] + 1} ended at the deal "
                                  f"({row['reason']})", round_view(row))
            if not game.round_over:
                self._frame(game, f"round {game.round_index + 1} dealt "
                                  f"(dealer: {self.names[game.dealer]})")
        return outcome

    def state(self) -> dict[str, Any]:
        return {"kind": "replay", "names": list(self.names), "human": None,
                "rules": self.rules.name, "frames": self.frames}
