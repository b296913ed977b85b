"""The Hana-awase observation of one player, compiled (what that player may see, §3).

Seats appear relative to the viewer: block ``k`` of a per-seat part is the seat ``k`` places
after the viewer in turn order (block 0 is the viewer). Layout for N players, float32:

| part | size | content |
|---|---|---|
| hand | 48 | the viewer's hand |
| field | 48 | cards face up on the field |
| pending | 48 | the played or drawn card waiting for a field choice |
| unseen | 48 | cards the viewer has not seen: the others' hands (less shown chaff), the stock |
| piles | 48·N | each seat's capture pile |
| shown | 48·N | each seat's declared chaff still in its hand (nana-kasu / roku-kasu) |
| card points | N | each seat's card points so far ÷ 100 |
| yaku points | N | each seat's yaku so far (pile yaku and declared hand yaku) ÷ 100 |
| match score | N | each seat's match score ÷ 100 |
| position | N | one-hot: the viewer's place in turn order from the dealer (0: dealer) |
| phase | 3 | one-hot: play, choose for the played card, choose for the drawn card |
| progress | 2 | stock cards left ÷ stock size; rounds finished ÷ rounds of the match |

Nothing the viewer cannot see enters: the others' hands count only as "unseen" (with the
stock), so rearranging them and the stock among themselves leaves the observation unchanged.
"""

from __future__ import annotations

from numba import njit

from hanafuda_env.common.bits import ONE, U64, ZERO, lowest_index
from hanafuda_env.hanaawase.kernel import P_PLAYERS, P_ROUNDS, P_STOCK, card_total
from hanafuda_env.hanaawase.scoring import HAND_YAKU_POINTS, NANA_KASU, ROKU_KASU
from hanafuda_env.hanaawase.state import HAND_YAKU_NANA, HAND_YAKU_ROKU
from hanafuda_env.koikoi.score_lookup import lookup_total
from hanafuda_env.koikoi.state import CHOOSE_DRAWN, CHOOSE_PLAYED, PLAY

HA_OBS_VERSION = 1  # raised whenever the layout below changes (checkpoints record it)
_ALL_CARDS = U64((1 << 48) - 1)
_NANA, _ROKU = HAND_YAKU_POINTS[NANA_KASU], HAND_YAKU_POINTS[ROKU_KASU]


def observation_size(num_players: int) -> int:
    return 4 * 48 + 2 * 48 * num_players + 4 * num_players + 5


@njit(cache=True, inline="always")
def _put(out, at, bits) -> None:
    while bits != ZERO:
        out[at + lowest_index(bits)] = 1.0
        bits &= bits - ONE


@njit(cache=True)
def encode(records, viewers, params, card_points, lookup, out) -> None:
    """Observation rows of game ``g`` seen by seat ``viewers[g]`` into ``out[g]`` (zeroed
    here; ``out`` (B, observation_size(N)) float32). Each pile's yaku total comes from the
    rule set's score ``lookup`` (:mod:`~hanafuda_env.koikoi.score_lookup`)."""
    n = params[P_PLAYERS]
    for g in range(records.shape[0]):
        s = records[g]
        me = viewers[g]
        row = out[g]
        row[:] = 0.0
        seen = s.hands[me] | s.field
        _put(row, 0, s.hands[me])
        _put(row, 48, s.field)
        if s.pending >= 0:
            row[96 + s.pending] = 1.0
            seen |= ONE << U64(s.pending)
        base = 192
        shown_at = base + 48 * n
        numbers = base + 96 * n
        for k in range(n):
            p = (me + k) % n
            pile = s.piles[p]
            shown = s.declared[p] & s.hands[p]
            seen |= pile | shown
            _put(row, base + 48 * k, pile)
            _put(row, shown_at + 48 * k, shown)
            yaku = lookup_total(pile, 0, lookup)
            if s.hand_yaku[p] == HAND_YAKU_NANA:
                yaku += _NANA
            elif s.hand_yaku[p] == HAND_YAKU_ROKU:
                yaku += _ROKU
            row[numbers + k] = card_total(pile, card_points) / 100.0
            row[numbers + n + k] = yaku / 100.0
            row[numbers + 2 * n + k] = s.match_score[p] / 100.0
        _put(row, 144, _ALL_CARDS & ~seen)
        row[numbers + 3 * n + (me - s.dealer) % n] = 1.0
        at = numbers + 4 * n
        if s.phase == PLAY:
            row[at] = 1.0
        elif s.phase == CHOOSE_PLAYED:
            row[at + 1] = 1.0
        elif s.phase == CHOOSE_DRAWN:
            row[at + 2] = 1.0
        row[at + 3] = (params[P_STOCK] - s.stock_pos) / params[P_STOCK]
        row[at + 4] = s.round_index / params[P_ROUNDS]
