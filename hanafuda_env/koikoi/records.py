"""Koi-Koi game records in the JSON format of the KoiKoi-AI program: read, check, replay, write.

One file holds one match::

    {"info": {"player1Name", "player2Name", "player1InitPts", "player2InitPts", "numRound", …},
     "result": {"isOver", "gameWinner" (0 draw, 1, 2), "player1EndPts", "player2EndPts"},
     "record": {"round1": {"basic": {...}, "turn1": {...}, …}, "round2": …}}

A round's ``basic`` holds ``Dealer`` (1 or 2), ``initHand1``, ``initHand2``, ``initBoard``,
``initPile`` (the stock, drawn from its **end**), ``roundWinner`` (1, 2; 0 or null when
nobody won), ``player1RoundPts`` and ``player2RoundPts``. A turn holds ``playerInTurn``,
``discardCard``, ``collectCard`` (what the played card captured, itself included; empty if
nothing), ``drawCard``, ``collectCard2`` (the same for the drawn card) and ``isKoiKoi`` (true:
koi-koi, false: stop, null: no decision). A card is ``[month, index]`` (1–12, 1–4), our id
``4 * (month - 1) + index - 1``. Player 1 is seat 0.

The program plays the ``koikoi-japan`` rules (RULES.md §2.10); a record this project writes
also names its rule set in ``info["ruleSet"]``, which :func:`replay` then follows.
:func:`replay` plays a record in :class:`~hanafuda_env.koikoi.game.KoiKoiGame` and checks every
move, capture, round result and the match result;
:class:`~hanafuda_env.koikoi.recorder.MatchRecorder` writes down any game played through it in
the same format, and its records replay.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hanafuda_env.common import cards as C
from hanafuda_env.common.files import atomic_write_text
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_OFFSET,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    STOP,
)
from hanafuda_env.koikoi.deals import HAND_SIZE, STOCK_SIZE
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.rules import RuleError, RuleSet, RuleSpec, resolve_rules

RECORD_RULES = "koikoi-japan"  # the rules of a record that does not name its own
BASIC_KEYS = ("Dealer", "initHand1", "initHand2", "initBoard", "initPile")
TURN_KEYS = ("playerInTurn", "discardCard", "collectCard", "drawCard", "collectCard2",
             "isKoiKoi")


class RecordError(ValueError):
    """A game record that is malformed or that the rules do not replay; the message names
    the record, the round and turn, and the problem."""


@dataclass
class Turn:
    """One turn as recorded (card ids; seats 0/1)."""

    seat: int
    played: int
    captured: list[int]  # the played card and what it took, or empty
    drawn: int
    captured_drawn: list[int]
    koikoi: bool | None  # True koi-koi, False stop, None no decision


@dataclass
class Round:
    dealer: int
    hands: tuple[list[int], list[int]]  # by seat
    field: list[int]
    stock: list[int]  # top (next drawn) first
    winner: int  # seat, -1 when nobody won (or the round is unfinished)
    points: tuple[int, int] | None  # what each seat's score moved by; None: unfinished
    turns: list[Turn] = field(default_factory=list)

    def deck(self) -> list[int]:
        """The 48-card order ``KoiKoiGame`` deals: dealer's hand, other hand, field, stock."""
        return (self.hands[self.dealer] + self.hands[1 - self.dealer] + self.field
                + self.stock)


@dataclass
class Match:
    names: tuple[str, str]
    start_points: tuple[int, int]
    n_rounds: int
    rounds: list[Round] = field(default_factory=list)
    over: bool = False
    winner: int | None = None  # seat, -1 for a draw, None while not over
    end_points: tuple[int, int] | None = None
    info: dict[str, Any] = field(default_factory=dict)  # further keys, kept as they are
    rules: dict[str, Any] | None = None  # info["ruleSet"], when the record names one


# ------------------------------------------------------------------------------ reading
def read_record(path: str | Path) -> Match:
    """A match from a record file, checked for shape (not yet replayed)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise RecordError(f"{path}: cannot be read: {error}") from None
    except ValueError as error:  # malformed JSON, or an integer of more digits than Python reads
        raise RecordError(f"{path}: not JSON: {error}") from None
    except RecursionError:
        raise RecordError(f"{path}: not a record: its JSON is nested too deeply to read"
                          ) from None
    return match_from_json(data, str(path))


def match_from_json(data: Any, source: str = "record") -> Match:
    """A :class:`Match` from a record's parsed JSON; ``source`` names it in errors."""
    where = _Where(source)
    info = _mapping(data, "info", where)
    result = _mapping(data, "result", where)
    record = _mapping(data, "record", where)
    names = (str(_key(info, "player1Name", where)), str(_key(info, "player2Name", where)))
    start = (_integer(info, "player1InitPts", where), _integer(info, "player2InitPts", where))
    n_rounds = _integer(info, "numRound", where)
    rules = info.get("ruleSet")
    if rules is not None and not isinstance(rules, dict):
        raise RecordError(f"{where}: info 'ruleSet' must be a mapping of rule options")
    match = Match(names, start, n_rounds, info={k: v for k, v in info.items() if k not in (
        "player1Name", "player2Name", "player1InitPts", "player2InitPts", "numRound",
        "ruleSet")}, rules=rules)
    match.over = bool(_key(result, "isOver", where))
    if match.over:
        winner = _key(result, "gameWinner", where)
        if winner not in (0, 1, 2):
            raise RecordError(f"{where}: result 'gameWinner' must be 0 (draw), 1 or 2, got "
                              f"{winner!r}")
        match.winner = winner - 1 if winner else -1
        match.end_points = (_integer(result, "player1EndPts", where),
                            _integer(result, "player2EndPts", where))
    k = 1
    while f"round{k}" in record:
        match.rounds.append(_round(record[f"round{k}"], where.at(round=k)))
        k += 1
    extra = sorted(set(record) - {f"round{i}" for i in range(1, k)})
    if extra:
        raise RecordError(f"{where}: record keys must be round1, round2, … in order; "
                          f"unexpected {', '.join(extra)}")
    return match


def _round(data: Any, where: _Where) -> Round:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a round must be a mapping")
    basic = _mapping(data, "basic", where)
    for key in BASIC_KEYS:
        _key(basic, key, where)
    dealer = basic["Dealer"]
    if dealer not in (1, 2):
        raise RecordError(f"{where}: 'Dealer' must be 1 or 2, got {dealer!r}")
    hands = (_cards(basic["initHand1"], "initHand1", where, HAND_SIZE),
             _cards(basic["initHand2"], "initHand2", where, HAND_SIZE))
    board = _cards(basic["initBoard"], "initBoard", where, HAND_SIZE)
    pile = _cards(basic["initPile"], "initPile", where, STOCK_SIZE)
    dealt = hands[0] + hands[1] + board + pile
    if len(set(dealt)) != C.NUM_CARDS:
        twice = sorted({c for c in dealt if dealt.count(c) > 1})
        raise RecordError(f"{where}: the deal holds {', '.join(map(C.card_name, twice))} "
                          "more than once")
    winner = basic.get("roundWinner")
    if winner not in (None, 0, 1, 2):
        raise RecordError(f"{where}: 'roundWinner' must be 1, 2, 0 or null, got {winner!r}")
    if winner is None and basic.get("player1RoundPts") is None \
            and basic.get("player2RoundPts") is None:
        points = None  # a round the record stops in (an unfinished match)
    else:
        points = (_integer(basic, "player1RoundPts", where),
                  _integer(basic, "player2RoundPts", where))
    game_round = Round(dealer - 1, hands, board, pile[::-1], (winner or 0) - 1, points)
    t = 1
    while f"turn{t}" in data:
        game_round.turns.append(_turn(data[f"turn{t}"], where.at(turn=t)))
        t += 1
    return game_round


def _turn(data: Any, where: _Where) -> Turn:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a turn must be a mapping")
    for key in TURN_KEYS:
        _key(data, key, where)
    if data["playerInTurn"] not in (1, 2):
        raise RecordError(f"{where}: 'playerInTurn' must be 1 or 2, got "
                          f"{data['playerInTurn']!r}")
    if data["isKoiKoi"] not in (True, False, None):
        raise RecordError(f"{where}: 'isKoiKoi' must be true, false or null, got "
                          f"{data['isKoiKoi']!r}")
    return Turn(data["playerInTurn"] - 1, _card(data["discardCard"], "discardCard", where),
                _cards(data["collectCard"], "collectCard", where),
                _card(data["drawCard"], "drawCard", where),
                _cards(data["collectCard2"], "collectCard2", where), data["isKoiKoi"])


@dataclass(frozen=True)
class _Where:
    """Where in a record a problem is: the file, and the round and turn when known."""

    source: str
    round: int | None = None
    turn: int | None = None

    def at(self, **place: int) -> _Where:
        return _Where(**{"source": self.source, "round": self.round, "turn": self.turn,
                         **place})

    def __str__(self) -> str:
        parts = [self.source]
        parts += [f"round {self.round}"] if self.round is not None else []
        parts += [f"turn {self.turn}"] if self.turn is not None else []
        return ", ".join(parts)


def _key(data: dict, key: str, where: _Where) -> Any:
    if key not in data:
        raise RecordError(f"{where}: missing key {key!r}")
    return data[key]


def _mapping(data: Any, key: str, where: _Where) -> dict:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record must be a JSON object with info, result and "
                          "record")
    value = _key(data, key, where)
    if not isinstance(value, dict):
        raise RecordError(f"{where}: {key!r} must be a mapping")
    return value


def _integer(data: dict, key: str, where: _Where) -> int:
    value = _key(data, key, where)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"{where}: {key!r} must be an integer, got {value!r}")
    return value


def _card(value: Any, key: str, where: _Where) -> int:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or not 1 <= value[0] <= 12 or not 1 <= value[1] <= 4):
        raise RecordError(f"{where}: {key!r} holds {value!r}, which is no card: a card is "
                          "[month 1-12, index 1-4]")
    return 4 * (value[0] - 1) + value[1] - 1


def _cards(value: Any, key: str, where: _Where, size: int | None = None) -> list[int]:
    if not isinstance(value, list):
        raise RecordError(f"{where}: {key!r} must be a list of cards, got {value!r}")
    cards = [_card(v, key, where) for v in value]
    if size is not None and len(cards) != size:
        raise RecordError(f"{where}: {key!r} must hold {size} cards, got {len(cards)}")
    return cards


# ------------------------------------------------------------------------------ writing
def card_json(card: int) -> list[int]:
    return [card // 4 + 1, card % 4 + 1]


def match_to_json(match: Match) -> dict[str, Any]:
    """The record format of a :class:`Match` (:func:`match_from_json` reads it back)."""
    info = {"player1Name": match.names[0], "player2Name": match.names[1],
            "player1InitPts": match.start_points[0], "player2InitPts": match.start_points[1],
            "numRound": match.n_rounds, **match.info}
    if match.rules is not None:
        info["ruleSet"] = match.rules
    result: dict[str, Any] = {"isOver": match.over, "gameWinner": None,
                              "player1EndPts": None, "player2EndPts": None}
    if match.over and match.end_points is not None:
        result["gameWinner"] = 0 if match.winner in (None, -1) else match.winner + 1
        result["player1EndPts"], result["player2EndPts"] = match.end_points
    rounds = {}
    for k, game_round in enumerate(match.rounds, start=1):
        data: dict[str, Any] = {"basic": {
            "Dealer": game_round.dealer + 1,
            "initHand1": [card_json(c) for c in game_round.hands[0]],
            "initHand2": [card_json(c) for c in game_round.hands[1]],
            "initBoard": [card_json(c) for c in game_round.field],
            "initPile": [card_json(c) for c in game_round.stock[::-1]],
            "roundWinner": (None if game_round.points is None else
                            game_round.winner + 1 if game_round.winner >= 0 else 0),
            "player1RoundPts": None if game_round.points is None else game_round.points[0],
            "player2RoundPts": None if game_round.points is None else game_round.points[1]}}
        for t, turn in enumerate(game_round.turns, start=1):
            data[f"turn{t}"] = {
                "playerInTurn": turn.seat + 1, "discardCard": card_json(turn.played),
                "collectCard": [card_json(c) for c in turn.captured],
                "drawCard": card_json(turn.drawn),
                "collectCard2": [card_json(c) for c in turn.captured_drawn],
                "isKoiKoi": turn.koikoi}
        rounds[f"round{k}"] = data
    return {"info": info, "result": result, "record": rounds}


def write_record(path: str | Path, match: Match) -> None:
    """Write a match as a record file, atomically."""
    atomic_write_text(path, json.dumps(match_to_json(match), ensure_ascii=False) + "\n")


# ------------------------------------------------------------------------------ replaying
@dataclass
class ReplaySummary:
    """What a replay went through: rounds, turns and decisions, and the match result."""

    source: str
    rounds: int = 0
    turns: int = 0
    koikoi_calls: int = 0
    scores: tuple[int, int] = (0, 0)  # points won minus lost, by seat


def record_rules(match: Match, rules: RuleSpec = None) -> RuleSet:
    """The rules a record is replayed by: ``rules`` if given, else the record's own
    ``ruleSet``, else ``koikoi-japan``."""
    if rules is not None:
        return resolve_rules(rules)
    if match.rules is not None:
        try:
            return RuleSet.from_dict(match.rules)
        except RuleError as error:
            raise RecordError(f"the record's ruleSet: {error}") from None
    return resolve_rules(RECORD_RULES)


def replay(match: Match, rules: RuleSpec = None, source: str = "record",
           step: Callable[[KoiKoiGame, int], Any] | None = None) -> ReplaySummary:
    """Play a record in the engine and check it move by move: every card played must be in
    hand, every capture and draw as recorded, a koi-koi decision exactly where the rules offer
    one, each round's winner and points and the match's result as recorded. The first
    disagreement raises :class:`RecordError` naming ``source``, the round, the turn and what
    differs. ``step(game, action)``, when given, makes each move instead of ``game.step``
    and returns its outcome: a caller sees every decision of the record (to learn from it,
    say) with the game as the mover saw it."""
    where = _Where(source)
    try:
        rule_set = record_rules(match, rules)
    except RecordError as error:
        raise RecordError(f"{where}: {error}") from None
    step = step or KoiKoiGame.step
    if rule_set.rounds != match.n_rounds:
        try:
            rule_set = rule_set.replace(rounds=match.n_rounds)
        except RuleError as error:
            raise RecordError(f"{where}: info 'numRound' is {match.n_rounds}: {error}") from None
    stake = rule_set.starting_points
    if stake is not None and match.start_points != (stake, stake):
        raise RecordError(f"{where}: the players start with {match.start_points} points; the "
                          f"rules ({rule_set.name}) give each {stake}")
    if not match.rounds:
        raise RecordError(f"{where}: the record holds no round")
    game = KoiKoiGame(rule_set, seed=0)
    decks = []
    for k, game_round in enumerate(match.rounds, start=1):
        try:
            decks.append(game.check_deck(game_round.deck()))
        except ValueError as error:
            raise RecordError(f"{where.at(round=k)}: {error}") from None
    game.upcoming_decks = decks[1:]  # every later round is dealt as recorded
    dealt = game.reset(options={"deck": decks[0], "dealer": match.rounds[0].dealer})
    rows, ended = list(dealt.rounds), dealt.match_over  # finished, not yet checked
    summary = ReplaySummary(source)
    for k, game_round in enumerate(match.rounds, start=1):
        here = where.at(round=k)
        if ended and not rows:
            raise RecordError(f"{here}: the match was already over after round {k - 1}")
        dealer = rows[0]["dealer"] if rows else game.dealer
        if game_round.dealer != dealer:
            raise RecordError(f"{here}: player {game_round.dealer + 1} deals, but the rules "
                              f"give the deal to player {dealer + 1}")
        for t, turn in enumerate(game_round.turns, start=1):
            if rows:
                raise RecordError(f"{where.at(round=k, turn=t)}: the round was already over")
            turn_rows, turn_ended = _replay_turn(game, turn, where.at(round=k, turn=t), step)
            rows += turn_rows
            ended |= turn_ended
            summary.turns += 1
            summary.koikoi_calls += turn.koikoi is True
        if game_round.points is None:  # the record stops in this round
            if rows or k != len(match.rounds) or match.over:
                raise RecordError(f"{here}: the round has no result, so it must be the last "
                                  "of an unfinished match and still in play")
            break
        if not rows:
            raise RecordError(f"{here}: the round is not over after its "
                              f"{len(game_round.turns)} recorded turns")
        row = rows.pop(0)
        _check_round(row, game_round, here)
        summary.rounds += 1
        summary.scores = (summary.scores[0] + row["reward"][0],
                          summary.scores[1] + row["reward"][1])
    _check_match(match, summary, ended, where)
    return summary


def _replay_turn(game: KoiKoiGame, turn: Turn, where: _Where,
                 step: Callable[[KoiKoiGame, int], Any]) -> tuple[list[dict], bool]:
    """Play one recorded turn with ``step``; the rounds it finished and whether a match
    ended."""
    seat = turn.seat
    if game.mover != seat:
        raise RecordError(f"{where}: player {seat + 1} moves, but it is player "
                          f"{game.mover + 1}'s turn")
    if not game.hands[seat] >> turn.played & 1:
        raise RecordError(f"{where}: player {seat + 1} plays {C.card_name(turn.played)}, "
                          f"which is not in their hand ({C.describe(game.hands[seat])})")
    next_card = game.stock[game.stock_pos]
    if next_card != turn.drawn:
        raise RecordError(f"{where}: the draw is recorded as {C.card_name(turn.drawn)}, but "
                          f"the stock gives {C.card_name(next_card)}")
    field_bits = game.field
    played = _capture(field_bits, turn.played, turn.captured, "collectCard", where)
    drawn = _capture(placed(field_bits, turn.played, played), turn.drawn,
                     turn.captured_drawn, "collectCard2", where)
    steps = [step(game, turn.played)]
    if game.phase == CHOOSE_PLAYED:
        steps.append(step(game, CHOOSE_OFFSET + _other(played, turn.played)))
    if game.phase == CHOOSE_DRAWN:
        steps.append(step(game, CHOOSE_OFFSET + _other(drawn, turn.drawn)))
    if game.phase == DECIDE and not steps[-1].round_over:
        if turn.koikoi is None:
            raise RecordError(f"{where}: player {seat + 1} made yaku and must choose koi-koi "
                              "or stop, but the record has no decision")
        steps.append(step(game, KOIKOI if turn.koikoi else STOP))
    elif turn.koikoi is True:
        raise RecordError(f"{where}: the record calls koi-koi where the rules offer no "
                          "decision")
    elif turn.koikoi is False and not won_without_decision(steps[-1], seat):
        raise RecordError(f"{where}: the record stops where the rules offer no decision")
    rows = [row for outcome in steps for row in outcome.rounds]
    return rows, any(outcome.match_over for outcome in steps)


def capture(field_bits: int, card: int, chosen: int | None = None) -> list[int]:
    """What ``card`` takes from this field by §2.2, sorted, the card itself included:
    nothing when no card of its month lies there, the one or three that do, or — meeting
    two — the ``chosen`` one (just the card itself while no choice is given)."""
    matches = month_mates(field_bits, card)
    if len(matches) == 2:
        matches = [] if chosen is None else [chosen]
        return sorted([card, *matches])
    return sorted([card, *matches]) if matches else []


def month_mates(field_bits: int, card: int) -> list[int]:
    """The field cards of ``card``'s month."""
    return C.ids_of(field_bits & C.month_mask(C.DECK[card].month))


def placed(field_bits: int, card: int, captured: list[int]) -> int:
    """The field after ``card`` is played or drawn with these captures (§2.2)."""
    return field_bits & ~C.mask_of(captured) if captured else field_bits | 1 << card


def won_without_decision(outcome: Any, seat: int) -> bool:
    """The step ended the round with ``seat`` winning by yaku, no decision offered (its
    last card, or yaku after a koi-koi where only one call is allowed): a record writes
    that as a stop."""
    return bool(outcome.round_over and outcome.rounds and outcome.rounds[0]["winner"] == seat
                and outcome.rounds[0]["reason"] in ("yaku-on-last-card", "yaku-after-koikoi"))


def _capture(field_bits: int, card: int, recorded: list[int], key: str,
             where: _Where) -> list[int]:
    """:func:`capture` with the record's choice where ``card`` meets two cards; refused
    unless it is the record's."""
    matches = month_mates(field_bits, card)
    if len(matches) == 2:
        chosen = [c for c in recorded if c in matches]
        if len(chosen) != 1:
            raise RecordError(f"{where}: {C.card_name(card)} meets {_names(matches)}, so "
                              f"{key!r} must hold it and one of them; the record says "
                              f"{_names(recorded)}")
    expected = capture(field_bits, card, chosen[0] if len(matches) == 2 else None)
    if sorted(recorded) != expected:
        raise RecordError(f"{where}: {C.card_name(card)} captures {_names(expected)} on "
                          f"this field; {key!r} says {_names(recorded)}")
    return expected


def _other(captured: list[int], card: int) -> int:
    return next(c for c in captured if c != card)


def _names(cards: list[int]) -> str:
    return "[" + ", ".join(C.card_name(c) for c in sorted(cards)) + "]" if cards else "nothing"


def _check_round(row: dict, game_round: Round, where: _Where) -> None:
    winner = row["winner"]
    # The dealer's point for cards running out (§2.10) may be written with roundWinner 0.
    named = game_round.winner if not (game_round.winner < 0
                                      and row["reason"] == "exhaustion-win") else winner
    if winner != named or tuple(row["reward"]) != game_round.points:
        said = (f"player {game_round.winner + 1} wins" if game_round.winner >= 0
                else "nobody wins")
        found = f"player {winner + 1} wins" if winner >= 0 else "nobody wins"
        raise RecordError(f"{where}: the record says {said} with points "
                          f"{list(game_round.points)}; the rules give: {found} with "
                          f"{list(row['reward'])} ({row['reason']}, yaku {row['yaku']})")


def _check_match(match: Match, summary: ReplaySummary, ended: bool, where: _Where) -> None:
    if match.over != ended:
        state = "over" if ended else "not over"
        raise RecordError(f"{where}: after {summary.rounds} rounds the match is {state}; the "
                          f"record says isOver={match.over}")
    if match.over and match.end_points is not None:
        end = (match.start_points[0] + summary.scores[0],
               match.start_points[1] + summary.scores[1])
        if end != match.end_points:
            raise RecordError(f"{where}: the players end with {list(end)} points; the record "
                              f"says {list(match.end_points)}")
        winner = 0 if end[0] > end[1] else (1 if end[1] > end[0] else -1)
        if winner != match.winner:
            raise RecordError(f"{where}: the record's gameWinner does not follow from the "
                              f"points {list(end)}")


def record_files(folder: str | Path) -> Iterator[Path]:
    """The ``*.json`` files of a folder, in a natural order (2.json before 10.json)."""
    def key(path: Path) -> tuple:
        stem = path.stem
        return (0, int(stem), "") if stem.isdigit() else (1, 0, stem)
    yield from sorted(Path(folder).glob("*.json"), key=key)
