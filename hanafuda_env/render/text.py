"""Text rendering of one game of a :class:`~hanafuda_env.koikoi.core.KoiKoiCore` for people."""

from __future__ import annotations

from hanafuda_env.common import cards as C
from hanafuda_env.common.indices import check_index, check_optional_seat
from hanafuda_env.koikoi.core import MATCH_OVER, PHASE_NAMES, ROUND_OVER, STOCK_SIZE, KoiKoiCore
from hanafuda_env.koikoi.scoring import score_pile, yaku_table

_KIND_MARK = {C.BRIGHT: "★", C.ANIMAL: "◆", C.RIBBON: "▬", C.CHAFF: "·"}


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``1 card``, ``2 cards``: a count with its noun in the right number ("1 cards" reads
    like a bug)."""
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def card_label(card_id: int) -> str:
    card = C.DECK[card_id]
    return f"{_KIND_MARK[card.kind]}{card.name}"


def cards_line(bits: int) -> str:
    return ", ".join(card_label(i) for i in C.ids_of(bits)) or "-"


def render_game(core: KoiKoiCore, game: int = 0, viewer: int | None = None) -> str:
    """A multi-line picture of one game. With ``viewer`` set, the other hand is hidden."""
    game = check_index(game, core.n_games)
    viewer = check_optional_seat(viewer, 2)
    table = yaku_table(core.rules)
    dealer, mover = int(core.dealer[game]), int(core.mover[game])
    phase = int(core.phase[game])
    played = int(core.round_index[game])  # rounds finished
    when = (f"round {played + 1}/{core.rules.rounds}" if phase < ROUND_OVER else
            f"round {played}/{core.rules.rounds} over" if phase == ROUND_OVER else
            f"match over after {counted(played, 'round')}")
    lines = [
        f"{when}  "
        f"score {int(core.match_score[game, 0])} : {int(core.match_score[game, 1])}  "
        f"{'next dealer' if phase >= ROUND_OVER else 'dealer'}: player_{dealer}  "
        f"stock: {counted(STOCK_SIZE - int(core.stock_pos[game]), 'card')}",
    ]
    for seat in (0, 1):
        hand = int(core.hands[game, seat])
        shown = (cards_line(hand) if viewer in (None, seat)
                 else counted(hand.bit_count(), "hidden card"))
        pile = int(core.piles[game, seat])
        yaku = score_pile(pile, table)
        yaku_text = ", ".join(f"{n} {p}" for n, p in yaku.items()) or "none"
        calls = int(core.koikoi_calls[game, seat])
        marker = " (to move)" if seat == mover and phase < ROUND_OVER else ""
        lines += [
            f"player_{seat}{marker}{' koi-koi x' + str(calls) if calls else ''}",
            f"  hand:  {shown}",
            f"  pile:  {cards_line(pile)}",
            f"  yaku:  {yaku_text} (total {sum(yaku.values())})",
        ]
    lines.append(f"field: {cards_line(int(core.field[game]))}")
    pending = int(core.pending[game])
    waiting = f", card waiting: {card_label(pending)}" if pending >= 0 else ""
    if phase == MATCH_OVER:
        lines.append("decision: none, the match is over")
    elif phase == ROUND_OVER:
        lines.append("decision: none, the round is over (the next one is still to be dealt)")
    else:
        lines.append(f"decision: {PHASE_NAMES[phase]} by player_{mover}{waiting}")
    return "\n".join(lines)
