"""Whole Koi-Koi rounds from fixed decks, checked move by move against RULES.md §2.1–2.8.

Every scenario runs in two games at once from the same deck: the dealer is seat 0 in game 0
and seat 1 in game 1, and both games get the same action. Expectations are written for
"dealer" (D) and "other" (N) and checked in each game with the seats mapped, so seat
mix-ups in the vectorized core fail here.

Most scenarios use a *pairs deck*: the field holds two cards of each of four "inert" months
that no turn touches, and every turn plays a card whose month is not on the field and draws
its month mate, capturing both. Each turn's captures are then exactly its pair, so the yaku
a player holds at any time can be read off the pairs below.
"""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env import cards as C
from hanafuda_env.core import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    PLAY,
    STOP,
    IllegalActionError,
    KoiKoiCore,
)
from hanafuda_env.rendering import card_label, render_game
from hanafuda_env.results import (
    END_EXHAUSTION_WIN,
    END_HAND_YAKU,
    END_KOIKOI_WIN,
    END_LAST_CARD,
    END_NO_GAME,
    END_STOP,
    StepOutcome,
)
from hanafuda_env.rules import NINTENDO, TEN_BASE
from hanafuda_env.scoring import hand_yaku_points, month_counts, score_yaku

D, N = "dealer", "other"
TAKE = 48  # action 48 + id takes field card id


# ------------------------------------------------------------------ helpers
def cards(bits) -> set[int]:
    return set(C.ids_of(int(bits)))


def make_deck(dealer_hand, other_hand, field, stock_top=()) -> list[int]:
    """A 48-card order for ``reset``: the given cards in place, the rest of the stock ascending."""
    head = [*dealer_hand, *other_hand, *field, *stock_top]
    assert len(dealer_hand) == len(other_hand) == len(field) == 8
    assert len(set(head)) == len(head)
    return head + [c for c in range(48) if c not in head]


INERT = (2, 4, 5, 7)


def pairs_deck(dealer_pairs, other_pairs, inert=INERT):
    """A pairs deck (see the module docstring); unlisted pairs are dealt out alternately.

    Returns the deck and both players' full (play, draw) lists in turn order.
    """
    dp, op = list(dealer_pairs), list(other_pairs)
    for a, b in dp + op:
        assert C.DECK[a].month == C.DECK[b].month and C.DECK[a].month not in inert
    used = [c for pair in dp + op for c in pair]
    assert len(set(used)) == len(used)
    left = [c for c in range(48) if C.DECK[c].month not in inert and c not in used]
    for i in range(0, len(left), 2):
        assert C.DECK[left[i]].month == C.DECK[left[i + 1]].month
        (dp if len(dp) <= len(op) and len(dp) < 8 or len(op) == 8 else op).append(
            (left[i], left[i + 1]))
    assert len(dp) == len(op) == 8
    field = [4 * (m - 1) + s for m in inert for s in (0, 1)]
    spare = [4 * (m - 1) + s for m in inert for s in (2, 3)]
    stock = [c for i in range(8) for c in (dp[i][1], op[i][1])] + spare
    hands = [p for p, _ in dp], [p for p, _ in op]
    bits = np.array([C.mask_of(h) for h in hands], dtype=np.uint64)
    assert not hand_yaku_points(bits, NINTENDO).any(), "pairs deck deals a hand yaku"
    return make_deck(*hands, field, stock), dp, op


def script(dp, op, turns: int) -> list[tuple[str, int, int]]:
    both = [t for i in range(8) for t in ((D, *dp[i]), (N, *op[i]))]
    return both[:turns]


class Duo:
    """One deck in two games; dealer seat 0 in game 0 and seat 1 in game 1."""

    def __init__(self, deck, rules=None, seed: int = 4):
        self.core = KoiKoiCore(2, rules, seed=seed)
        self.start = self.core.reset(seed=seed, options={"deck": deck, "dealer": [0, 1]})
        self.dealt = self.start.rounds  # rounds that ended at the deal

    @staticmethod
    def seat(who: str, g: int) -> int:
        return g if who == D else 1 - g

    def step(self, action: int) -> StepOutcome:
        return self.core.step(np.array([action, action]))

    def hand(self, who: str, g: int) -> set[int]:
        return cards(self.core.hands[g, self.seat(who, g)])

    def pile(self, who: str, g: int) -> set[int]:
        return cards(self.core.piles[g, self.seat(who, g)])

    def field(self, g: int) -> set[int]:
        return cards(self.core.field[g])

    def legal(self, g: int) -> set[int]:
        return set(np.flatnonzero(self.core.legal_action_mask()[g]).tolist())

    def expect(self, who: str, phase: int, legal=None, pending: int = -1, **sets) -> None:
        """Both games wait for ``who`` in ``phase``; sets: hand_D, hand_N, pile_D, pile_N, field."""
        for g in (0, 1):
            assert self.core.mover[g] == self.seat(who, g)
            assert self.core.phase[g] == phase
            assert self.core.pending[g] == pending
            want = self.hand(who, g) if legal is None else set(legal)
            assert self.legal(g) == want
            for key, value in sets.items():
                got = self.field(g) if key == "field" else getattr(self, key[:-2])(
                    D if key.endswith("D") else N, g)
                assert got == set(value), (key, g)


def play_pairs(duo: Duo, turns, decisions=None):
    """Play pair turns, checking each move; ``decisions`` answers the yaku made on a turn.

    Every turn but the last must pass the move on (or ask for the decision given); returns
    the outcome of the last step, unchecked, and the piles the turns built.
    """
    core, decisions = duo.core, decisions or {}
    calls = {D: 0, N: 0}
    piles: dict[str, set[int]] = {D: set(), N: set()}
    for t, (who, play, draw) in enumerate(turns, start=1):
        other = N if who == D else D
        field = [duo.field(g) for g in (0, 1)]
        pos = core.stock_pos.copy()
        out = duo.step(play)
        piles[who] |= {play, draw}
        if t == len(turns) and t not in decisions:
            return out, piles
        assert not out.round_over.any() and not out.reward.any() and len(out.rounds) == 0
        for g in (0, 1):
            assert duo.pile(who, g) == piles[who] and duo.pile(other, g) == piles[other]
            assert play not in duo.hand(who, g)
            assert duo.field(g) == field[g]
        assert (core.stock_pos == pos + 1).all()
        if t in decisions:
            duo.expect(who, DECIDE, {STOP, KOIKOI})
            out = duo.step(decisions[t])
            if decisions[t] == STOP:
                assert t == len(turns)
                return out, piles
            calls[who] += 1
            assert not out.round_over.any()
        for g in (0, 1):
            assert core.koikoi_calls[g, duo.seat(who, g)] == calls[who]
        duo.expect(other, PLAY)
    raise AssertionError("the script has no turns")


def check_round(duo: Duo, out: StepOutcome, *, winner, base, multiplier, reason, turns,
                calls=(0, 0), yaku=None, piles=None) -> None:
    """The round just ended: results per game, rewards, next dealer and the next deal."""
    r, core = out.rounds, duo.core
    assert out.round_over.all()
    assert r.yaku_names == core.yaku_names
    for g in (0, 1):
        k, *dealt = np.flatnonzero(r.game == g).tolist()  # then hand-yaku rounds of new deals
        seat = -1 if winner is None else duo.seat(winner, g)
        points = 0 if winner is None else base * multiplier
        reward = [0, 0]
        if winner is not None:
            reward[seat], reward[1 - seat] = points, -points
        assert (r.dealer[k], r.winner[k], r.round_index[k]) == (g, seat, 0)
        assert (r.base[k], r.multiplier[k], r.points[k]) == (base, multiplier, points)
        assert r.reward[k].tolist() == reward
        assert out.reward[g].tolist() == r.reward[[k, *dealt]].sum(axis=0).tolist()
        assert core.match_score[g].tolist() == out.reward[g].tolist()
        assert all(r.reason[j] == END_HAND_YAKU for j in dealt)
        assert r.reason[k] == reason and r.turns[k] == turns
        assert (r.koikoi_calls[k, g], r.koikoi_calls[k, 1 - g]) == calls
        if yaku is not None:
            got = {n: int(v) for n, v in zip(r.yaku_names, r.yaku[k]) if v}
            assert got == yaku
        if piles is not None:
            assert cards(r.piles[k, g]) == piles[D] and cards(r.piles[k, 1 - g]) == piles[N]
        alternate = core.rules.next_dealer == "alternate"
        next_dealer = r.dealer[dealt[0]] if dealt else core.dealer[g]
        assert next_dealer == (1 - g if winner is None or alternate else seat)
        # the next round is dealt from the seed
        assert core.round_index[g] == 1 + len(dealt)
        assert core.phase[g] == PLAY and core.mover[g] == core.dealer[g]
        assert [len(cards(h)) for h in core.hands[g]] == [8, 8]
        assert len(cards(core.field[g])) == 8 and not core.piles[g].any()
        assert not core.koikoi_calls[g].any() and core.stock_pos[g] == 0


# ----------------------------------------------------------- capture mechanics
def test_two_match_choices_and_captures_by_the_drawn_card() -> None:
    deck = make_deck([2, 10, 4, 12, 16, 20, 36, 44], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [3, 6, 14, 11, 30])
    duo = Duo(deck)
    assert len(duo.dealt) == 0
    duo.expect(D, PLAY, field=[0, 1, 8, 9, 28, 29, 32, 33], pile_D=[], pile_N=[],
               hand_D=[2, 10, 4, 12, 16, 20, 36, 44], hand_N=[5, 13, 17, 21, 24, 37, 40, 45])
    # T1: the played pine chaff matches two pines: the dealer chooses the crane
    out = duo.step(2)
    assert not out.reward.any() and not out.round_over.any()
    duo.expect(D, CHOOSE_PLAYED, {TAKE + 0, TAKE + 1}, pending=2,
               field=[0, 1, 8, 9, 28, 29, 32, 33], pile_D=[], hand_D=[10, 4, 12, 16, 20, 36, 44])
    assert (duo.core.stock_pos == 0).all()
    duo.step(TAKE + 0)
    # ...then the drawn pine chaff (3) captures the other pine (1)
    duo.expect(N, PLAY, field=[8, 9, 28, 29, 32, 33], pile_D=[0, 1, 2, 3], pile_N=[])
    assert (duo.core.stock_pos == 1).all()
    # T2: the plum ribbon matches nothing and stays; the drawn plum chaff captures it
    duo.step(5)
    duo.expect(D, PLAY, field=[8, 9, 28, 29, 32, 33], pile_N=[5, 6],
               hand_N=[13, 17, 21, 24, 37, 40, 45])
    # T3: cherry chaff matches two cherries; the dealer takes the ribbon; the drawn
    # wisteria chaff matches nothing and stays on the field
    duo.step(10)
    duo.expect(D, CHOOSE_PLAYED, {TAKE + 8, TAKE + 9}, pending=10)
    duo.step(TAKE + 9)
    duo.expect(N, PLAY, field=[8, 14, 28, 29, 32, 33], pile_D=[0, 1, 2, 3, 9, 10])
    # T4: wisteria ribbon captures the wisteria chaff; drawn cherry chaff captures the curtain
    duo.step(13)
    duo.expect(D, PLAY, field=[28, 29, 32, 33], pile_N=[5, 6, 8, 11, 13, 14])
    # T5: the warbler stays; the drawn susuki chaff matches two: the dealer chooses the geese
    duo.step(4)
    duo.expect(D, CHOOSE_DRAWN, {TAKE + 28, TAKE + 29}, pending=30, field=[4, 28, 29, 32, 33],
               hand_D=[12, 16, 20, 36, 44])
    out = duo.step(TAKE + 29)
    assert not out.reward.any()
    duo.expect(N, PLAY, field=[4, 28, 32, 33], pile_D=[0, 1, 2, 3, 9, 10, 29, 30])
    assert (duo.core.stock_pos == 5).all() and (duo.core.turn == 5).all()


def test_both_choices_in_one_turn() -> None:
    deck = make_deck([2, 4, 12, 16, 20, 36, 44, 41], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [10])
    duo = Duo(deck)
    duo.step(2)
    duo.step(TAKE + 1)
    duo.expect(D, CHOOSE_DRAWN, {TAKE + 8, TAKE + 9}, pending=10,
               field=[0, 8, 9, 28, 29, 32, 33], pile_D=[1, 2])
    assert (duo.core.stock_pos == 1).all() and (duo.core.turn == 0).all()
    duo.step(TAKE + 8)
    duo.expect(N, PLAY, field=[0, 9, 28, 29, 32, 33], pile_D=[1, 2, 8, 10], pile_N=[])
    assert (duo.core.turn == 1).all()


def test_yaku_is_checked_after_the_draw_phase() -> None:
    """The played card completes hanami, but the decision comes only after the drawn card's
    choice, and counts the tsukimi that the draw adds (§2.4)."""
    deck = make_deck([10, 32, 4, 12, 16, 20, 36, 44], [5, 1, 21, 24, 37, 40, 45, 2],
                     [8, 33, 28, 29, 13, 17, 25, 47], [41, 6, 30])
    duo = Duo(deck)
    duo.step(10)  # takes the curtain; the drawn swallow stays
    duo.step(5)  # plum ribbon stays; the drawn plum chaff takes it
    duo.expect(D, PLAY, pile_D=[8, 10], pile_N=[5, 6], field=[13, 17, 25, 28, 29, 33, 41, 47])
    out = duo.step(32)  # sake cup takes the blue ribbon: hanami stands already
    assert not out.round_over.any()
    duo.expect(D, CHOOSE_DRAWN, {TAKE + 28, TAKE + 29}, pending=30, pile_D=[8, 10, 32, 33])
    duo.step(TAKE + 28)
    duo.expect(D, DECIDE, {STOP, KOIKOI}, pile_D=[8, 10, 28, 30, 32, 33])
    out = duo.step(STOP)
    check_round(duo, out, winner=D, base=10, multiplier=2, reason=END_STOP, turns=3,
                yaku={"hanami_zake": 5, "tsukimi_zake": 5})


def test_three_matches_are_all_captured() -> None:
    deck = make_deck([3, 4, 12, 16, 24, 40, 44, 21], [5, 13, 17, 25, 37, 41, 45, 28],
                     [0, 1, 2, 8, 9, 10, 20, 36], [22, 11])
    duo = Duo(deck)
    duo.step(3)  # played card takes all three pines, no choice
    duo.expect(N, PLAY, field=[8, 9, 10, 36], pile_D=[0, 1, 2, 3, 20, 22])
    duo.step(5)  # plum stays; the drawn cherry chaff takes all three cherries
    duo.expect(D, PLAY, field=[5, 36], pile_N=[8, 9, 10, 11])


# ------------------------------------------------------- scripted pair rounds
# (dealer pairs, other pairs) in turn order; pairs_deck deals out the rest.
SANKO_T5 = ([(0, 2), (8, 10), (28, 30)], [(20, 22), (36, 38)])
SANKO_T5_SAKE_T7 = ([(0, 2), (8, 10), (28, 30), (32, 34)], [(20, 22), (36, 38), (21, 23)])
SANKO_T5_AOTAN_T6 = ([(0, 2), (8, 10), (28, 30)], [(21, 23), (33, 35), (37, 39)])
AOTAN_T6_SANKO_T7 = ([(0, 2), (8, 10), (29, 31), (28, 30)], [(21, 23), (33, 35), (37, 39)])
AOTAN_T6_MORE_T8 = ([(0, 2), (8, 10), (29, 31), (40, 41)],
                    [(21, 23), (33, 35), (37, 39), (1, 3)])
SANKO_T5_SAKE_T7_AOTAN_T8 = ([(0, 2), (8, 10), (28, 30), (32, 34)],
                             [(20, 22), (21, 23), (37, 39), (33, 35)])
# the dealer's last pair makes sanko; the other never makes yaku
LAST_SANKO = ([(0, 2), (8, 10), (20, 21), (29, 30), (36, 38), (42, 43), (45, 46), (28, 31)],
              [(1, 3), (9, 11), (22, 23), (32, 34), (33, 35), (37, 39), (40, 41), (44, 47)])
LAST_SANKO_OTHER = LAST_SANKO[::-1]
# Exhaustion decks (inert months 1, 3, 8, 9). QUIET: nobody ever makes yaku.
EXHAUST = (1, 3, 8, 9)
QUIET = ([(4, 5), (12, 13), (16, 17), (20, 21), (6, 7), (14, 15), (40, 43), (18, 19)],
         [(24, 25), (36, 37), (41, 42), (44, 45), (46, 47), (22, 23), (26, 27), (38, 39)])
# the dealer makes tan (5 ribbons) on turn 13, nothing is made after it
TAN_T13 = ([(4, 5), (12, 13), (16, 17), (20, 21), (6, 7), (14, 15), (42, 43), (18, 19)],
           [(24, 25), (36, 37), (40, 41), (44, 45), (46, 47), (22, 23), (26, 27), (38, 39)])
TAN_T14 = TAN_T13[::-1]  # the same made by the other on turn 14
# the dealer makes tan on turn 13, the other kasu (10 chaff) on turn 14
TAN_T13_KASU_T14 = (
    [(4, 5), (12, 13), (16, 17), (20, 21), (6, 7), (14, 15), (40, 42), (18, 19)],
    [(41, 43), (44, 45), (46, 47), (22, 23), (26, 27), (36, 37), (38, 39), (24, 25)])


def case(name, pairs, turns, decisions, rules=None, inert=INERT, **expect):
    return pytest.param(pairs, turns, decisions, rules, inert, expect, id=name)


def exhaustion(name, pairs, rules, decisions=None, calls=(0, 0), winner=None, base=0,
               multiplier=1):
    reason = END_NO_GAME if winner is None else END_EXHAUSTION_WIN
    return case(name, pairs, 16, decisions or {}, rules, EXHAUST, winner=winner, base=base,
                multiplier=multiplier, reason=reason, calls=calls)


OPEN = "on_exhaustion"
SCRIPTED = [
    case("stop", SANKO_T5, 5, {5: STOP}, winner=D, base=5, multiplier=1, reason=END_STOP,
         yaku={"sanko": 5}),
    case("stop-alternate-dealer", SANKO_T5, 5, {5: STOP}, {"next_dealer": "alternate"},
         winner=D, base=5, multiplier=1, reason=END_STOP),
    # sanko, hanami, tsukimi = 15 ≥ 7 doubles; the loser did not call koi-koi
    case("dealer-koikoi-dealer-wins", SANKO_T5_SAKE_T7, 7, {5: KOIKOI}, winner=D, base=15,
         multiplier=2, reason=END_KOIKOI_WIN, calls=(1, 0),
         yaku={"sanko": 5, "hanami_zake": 5, "tsukimi_zake": 5}),
    case("no-seven-point-doubling", SANKO_T5_SAKE_T7, 7, {5: KOIKOI},
         {"seven_point_doubling": False}, winner=D, base=15, multiplier=1,
         reason=END_KOIKOI_WIN, calls=(1, 0)),
    case("dealer-koikoi-other-wins", SANKO_T5_AOTAN_T6, 6, {5: KOIKOI}, winner=N, base=5,
         multiplier=2, reason=END_KOIKOI_WIN, calls=(1, 0), yaku={"aotan": 5}),
    case("no-koikoi-doubling", SANKO_T5_AOTAN_T6, 6, {5: KOIKOI}, {"koikoi_doubling": False},
         winner=N, base=5, multiplier=1, reason=END_KOIKOI_WIN, calls=(1, 0)),
    case("both-doublings", SANKO_T5_AOTAN_T6, 6, {5: KOIKOI}, {"points": {"aotan": 7}},
         winner=N, base=7, multiplier=4, reason=END_KOIKOI_WIN, calls=(1, 0),
         yaku={"aotan": 7}),
    case("other-koikoi-dealer-wins", AOTAN_T6_SANKO_T7, 7, {6: KOIKOI}, winner=D, base=5,
         multiplier=2, reason=END_KOIKOI_WIN, calls=(0, 1), yaku={"sanko": 5}),
    case("other-koikoi-other-wins", AOTAN_T6_MORE_T8, 8, {6: KOIKOI}, winner=N, base=6,
         multiplier=1, reason=END_KOIKOI_WIN, calls=(0, 1), yaku={"aotan": 6}),
    # sanko → koi-koi; tsukimi → asked again → koi-koi; the other's aotan → stop: x2 once
    case("multiple-koikoi", SANKO_T5_SAKE_T7_AOTAN_T8, 8, {5: KOIKOI, 7: KOIKOI, 8: STOP},
         {"multiple_koikoi": True}, winner=N, base=5, multiplier=2, reason=END_STOP,
         calls=(2, 0), yaku={"aotan": 5}),
    # no koi-koi is offered without a card in hand, even where many calls are allowed
    case("last-card-dealer", LAST_SANKO, 15, {}, winner=D, base=5, multiplier=1,
         reason=END_LAST_CARD, yaku={"sanko": 5}),
    case("last-card-other", LAST_SANKO_OTHER, 16, {}, winner=N, base=5, multiplier=1,
         reason=END_LAST_CARD, yaku={"sanko": 5}),
    case("last-card-ten-base", LAST_SANKO, 15, {}, TEN_BASE, winner=D, base=60, multiplier=1,
         reason=END_LAST_CARD, yaku={"sanko": 60}),
    case("last-card-other-ten-base", LAST_SANKO_OTHER, 16, {}, TEN_BASE, winner=N, base=60,
         multiplier=1, reason=END_LAST_CARD),
    exhaustion("quiet-no-game", QUIET, None),
    exhaustion("quiet-dealer-wins", QUIET, {OPEN: "dealer-wins"}, winner=D, base=6),
    exhaustion("quiet-dealer-wins-4", QUIET, {OPEN: "dealer-wins", "exhaustion_points": 4},
               winner=D, base=4),
    exhaustion("quiet-non-dealer-wins", QUIET, {OPEN: "non-dealer-wins"}, winner=N, base=6),
    exhaustion("quiet-highest-total", QUIET, {OPEN: "highest-total"}, winner=D, base=6),
    exhaustion("quiet-ten-base-oya-ken", QUIET, TEN_BASE, winner=D, base=50),
    # after an unanswered koi-koi the round is a no-game, except under highest-total
    exhaustion("koikoi-no-game", TAN_T13, None, {13: KOIKOI}, (1, 0)),
    exhaustion("koikoi-dealer-wins", TAN_T13, {OPEN: "dealer-wins"}, {13: KOIKOI}, (1, 0)),
    exhaustion("koikoi-non-dealer-wins", TAN_T13, {OPEN: "non-dealer-wins"}, {13: KOIKOI},
               (1, 0)),
    exhaustion("other-koikoi-non-dealer-wins", TAN_T14, {OPEN: "non-dealer-wins"},
               {14: KOIKOI}, (0, 1)),
    exhaustion("koikoi-highest-total", TAN_T13, {OPEN: "highest-total"}, {13: KOIKOI}, (1, 0),
               winner=D, base=1),
    exhaustion("other-koikoi-highest-total", TAN_T14, {OPEN: "highest-total"}, {14: KOIKOI},
               (0, 1), winner=N, base=1),
    # 10 : 10 in ten-base: the tie goes to the dealer
    exhaustion("ten-base-tie", TAN_T13_KASU_T14, TEN_BASE, {13: KOIKOI, 14: KOIKOI}, (1, 1),
               winner=D, base=10),
    # 1 : 1 goes to the dealer, scored with §2.5: the loser called koi-koi, x2
    exhaustion("highest-total-koikoi-doubling", TAN_T13_KASU_T14,
               {OPEN: "highest-total", "multiple_koikoi": True}, {13: KOIKOI, 14: KOIKOI},
               (1, 1), winner=D, base=1, multiplier=2),
    case("kasu-after-dealer-koikoi", TAN_T13_KASU_T14, 14, {13: KOIKOI}, None, EXHAUST,
         winner=N, base=1, multiplier=2, reason=END_KOIKOI_WIN, calls=(1, 0),
         yaku={"kasu": 1}),
]


@pytest.mark.parametrize(("pairs", "turns", "decisions", "rules", "inert", "expect"),
                         SCRIPTED)
def test_scripted_round(pairs, turns, decisions, rules, inert, expect) -> None:
    deck, dp, op = pairs_deck(*pairs, inert=inert)
    duo = Duo(deck, rules)
    out, piles = play_pairs(duo, script(dp, op, turns), decisions)
    check_round(duo, out, turns=turns, piles=piles, **expect)


def test_scenario_decks_score_as_designed() -> None:
    """The exhaustion decks' final piles, so the scripted cases above rest on known yaku."""
    finals = {}
    for name, pairs in (("quiet", QUIET), ("tan", TAN_T13), ("both", TAN_T13_KASU_T14)):
        _, dp, op = pairs_deck(*pairs, inert=EXHAUST)
        finals[name] = [{c for pair in side for c in pair} for side in (dp, op)]
    for rules in (NINTENDO, TEN_BASE):
        assert [score_yaku(p, rules) for p in finals["quiet"]] == [{}, {}]
    assert [score_yaku(p) for p in finals["tan"]] == [{"tan": 1}, {}]
    assert [score_yaku(p, TEN_BASE) for p in finals["both"]] == [{"tan": 10}, {"kasu": 10}]


def test_highest_total_win_reports_the_winners_yaku() -> None:
    """RoundResults.yaku holds "the winner's yaku points": a highest-total win has yaku."""
    deck, dp, op = pairs_deck(*TAN_T13, inert=EXHAUST)
    duo = Duo(deck, {OPEN: "highest-total"})
    out, _ = play_pairs(duo, script(dp, op, 16), {13: KOIKOI})
    check_round(duo, out, winner=D, base=1, multiplier=1, reason=END_EXHAUSTION_WIN, turns=16,
                calls=(1, 0), yaku={"tan": 1})


# ------------------------------------------------------------------ hand yaku
PLAIN_FIELD = [21, 25, 29, 33, 36, 40, 44, 45]
HAND_CASES = {
    # name: (dealer hand, other hand, field, winner, yaku column)
    "dealer-teshi": ([0, 1, 2, 3, 4, 8, 12, 16], [5, 9, 13, 17, 20, 24, 28, 32], PLAIN_FIELD,
                     D, "teshi"),
    "other-kuttsuki": ([0, 4, 8, 12, 16, 20, 24, 28], [5, 6, 9, 10, 13, 14, 17, 18],
                       [1, 21, 25, 29, 32, 36, 40, 44], N, "kuttsuki"),
    "both-dealer-first": ([4, 5, 8, 9, 12, 13, 16, 17], [0, 1, 2, 3, 20, 24, 28, 32],
                          PLAIN_FIELD, D, "kuttsuki"),
    "teshi-and-kuttsuki-once": ([0, 1, 2, 3, 4, 5, 8, 9], [6, 10, 13, 17, 20, 24, 28, 32],
                                PLAIN_FIELD, D, "teshi"),
}


@pytest.mark.parametrize("case", list(HAND_CASES))
def test_hand_yaku_ends_the_round_at_the_deal(case: str) -> None:
    dealer_hand, other_hand, field, winner, column = HAND_CASES[case]
    duo = Duo(make_deck(dealer_hand, other_hand, field), seed=11)
    r, core = duo.dealt, duo.core
    assert sorted(r.game.tolist()) == [0, 1]
    for g in (0, 1):
        k = int(np.flatnonzero(r.game == g)[0])
        seat = duo.seat(winner, g)
        assert (r.winner[k], r.base[k], r.points[k], r.reason[k]) == (seat, 6, 6, END_HAND_YAKU)
        assert r.reward[k, seat] == 6 and r.reward[k, 1 - seat] == -6 and r.turns[k] == 0
        assert {n: int(v) for n, v in zip(r.yaku_names, r.yaku[k]) if v} == {column: 6}
        # the next round is dealt from the seed, with the winner dealing
        assert core.round_index[g] == 1 and core.dealer[g] == seat
        assert core.match_score[g, seat] == 6 and core.phase[g] == PLAY
        assert core.mover[g] == seat and not core.piles[g].any()


def test_ten_base_teshi_scores_50_and_kuttsuki_nothing() -> None:
    dealer_hand, other_hand, field, _, _ = HAND_CASES["dealer-teshi"]
    duo = Duo(make_deck(dealer_hand, other_hand, field), TEN_BASE)
    assert duo.dealt.points.tolist() == [50, 50]
    dealer_hand, other_hand, field, _, _ = HAND_CASES["other-kuttsuki"]
    duo = Duo(make_deck(dealer_hand, other_hand, field), TEN_BASE)
    assert len(duo.dealt) == 0 and (duo.core.round_index == 0).all()


@pytest.mark.parametrize(("option", "case", "ends"), [
    ("none", "dealer-teshi", False), ("none", "other-kuttsuki", False),
    ("teshi", "other-kuttsuki", False), ("teshi", "dealer-teshi", True)])
def test_hand_yaku_options(option: str, case: str, ends: bool) -> None:
    dealer_hand, other_hand, field, _, _ = HAND_CASES[case]
    duo = Duo(make_deck(dealer_hand, other_hand, field), {"hand_yaku": option})
    assert len(duo.dealt) == (2 if ends else 0)
    if not ends:
        duo.expect(D, PLAY, hand_D=dealer_hand, hand_N=other_hand, field=field)
        assert (duo.core.round_index == 0).all()


@pytest.mark.parametrize("case", ["dealer-teshi", "other-kuttsuki"])
def test_one_round_match_that_ends_at_the_deal_is_reported(case: str) -> None:
    """reset reports the match a dealt hand yaku ends, as step would, and a new one starts."""
    dealer_hand, other_hand, field, winner, _ = HAND_CASES[case]
    duo = Duo(make_deck(dealer_hand, other_hand, field), {"rounds": 1})
    start, core = duo.start, duo.core
    assert len(start.rounds) == 2  # the new matches' deals hold no hand yaku
    assert start.match_over.tolist() == [True, True]
    m = start.matches
    assert m.game.tolist() == [0, 1] and m.rounds.tolist() == [1, 1]
    for g in (0, 1):
        seat = duo.seat(winner, g)
        assert m.winner[g] == seat
        assert m.scores[g].tolist() == start.reward[g].tolist() == duo.dealt.reward[g].tolist()
        assert m.scores[g, seat] == 6 and m.scores[g, 1 - seat] == -6
    assert (core.round_index == 0).all() and (core.match_score == 0).all()
    assert (core.points_won == 0).all() and (core.phase == PLAY).all()


def test_target_score_at_the_deal_counts_points_scored(monkeypatch) -> None:
    """Three hand yaku in a row: the dealer 6, the other 6, the dealer 6 again. The dealer has
    scored 12 = the target (though the net score is only 6), so reset ends the match."""
    teshi = make_deck(*HAND_CASES["dealer-teshi"][:3])
    other = np.array(make_deck(*HAND_CASES["other-kuttsuki"][:3]), np.int8)
    plain = np.array(make_deck([0, 4, 8, 12, 16, 20, 24, 37], [5, 9, 13, 17, 28, 32, 38, 41],
                               PLAIN_FIELD), np.int8)
    decks = [other, other]  # the winner deals: then the first player, then the other one

    def shuffled(games: np.ndarray) -> np.ndarray:
        return np.array([decks.pop(0) if decks else plain] * len(games))

    core = KoiKoiCore(2, {"target_score": 12}, seed=0)
    monkeypatch.setattr(core, "_shuffled_decks", shuffled)
    start = core.reset(seed=0, options={"deck": teshi, "dealer": [0, 1]})
    r, m = start.rounds, start.matches
    for g in (0, 1):
        rows = np.flatnonzero(r.game == g)
        assert r.reason[rows].tolist() == [END_HAND_YAKU] * 3
        assert r.winner[rows].tolist() == [g, 1 - g, g]  # game g: seat g dealt first
    assert start.match_over.tolist() == [True, True] and m.game.tolist() == [0, 1]
    assert m.winner.tolist() == [0, 1] and m.rounds.tolist() == [3, 3]
    assert m.scores.tolist() == [[6, -6], [-6, 6]]
    assert (core.round_index == 0).all() and (core.points_won == 0).all()


# ------------------------------------------------------------------ dealing
def test_random_deals_never_show_four_of_a_month() -> None:
    core = KoiKoiCore(4000, {"hand_yaku": "none"}, seed=2024)
    assert (month_counts(core.field).max(axis=1) < 4).all()
    everything = core.hands[:, 0] | core.hands[:, 1] | core.field
    for seat in (0, 1):
        assert (np.bitwise_count(core.hands[:, seat]) == 8).all()
    assert (np.bitwise_count(everything) == 24).all()
    for g in range(0, 4000, 397):  # hands, field and stock hold the deck once
        assert sorted(C.ids_of(int(everything[g])) + core.stock[g].tolist()) == list(range(48))
    redealt = core.deal_count > 1
    assert redealt.sum() >= 3  # p ≈ 0.4 % per deal: some deals were really thrown back
    # the first dealer is a fair coin, and the dealer moves first
    assert 0.45 < core.dealer.mean() < 0.55
    assert (core.mover == core.dealer).all() and (core.phase == PLAY).all()


def test_redeal_comes_before_the_hand_yaku_check(monkeypatch) -> None:
    """First shuffle: four pines on the field and a teshi in hand; it must be dealt again."""
    core = KoiKoiCore(1, seed=1)
    bad = make_deck([4, 5, 6, 7, 8, 12, 16, 20], [9, 13, 17, 21, 24, 28, 32, 36],
                    [0, 1, 2, 3, 40, 41, 44, 45])
    good = make_deck([0, 4, 8, 12, 16, 20, 24, 37], [5, 9, 13, 17, 28, 32, 38, 41], PLAIN_FIELD)
    decks = [bad, good]
    monkeypatch.setattr(core, "_shuffled_decks",
                        lambda games: np.array([decks.pop(0)], dtype=np.int8))
    dealt = core.reset(seed=1, options={"dealer": 0})
    assert len(dealt.rounds) == 0 and not dealt.match_over.any() and not decks
    assert cards(core.hands[0, 0]) == set(good[:8]) and cards(core.field[0]) == set(PLAIN_FIELD)


def test_round_end_then_hand_yaku_deal_in_one_step(monkeypatch) -> None:
    """A round ends, the next deal holds a teshi: both rounds come back from one step."""
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    teshi = make_deck(*HAND_CASES["dealer-teshi"][:3])
    plain = make_deck([0, 4, 8, 12, 16, 20, 24, 37], [5, 9, 13, 17, 28, 32, 38, 41], PLAIN_FIELD)
    decks = [teshi, plain]

    def shuffled(games: np.ndarray) -> np.ndarray:
        return np.array([decks.pop(0) if len(decks) > 1 else decks[0]] * len(games), np.int8)

    monkeypatch.setattr(duo.core, "_shuffled_decks", shuffled)
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    r = out.rounds
    for g in (0, 1):
        rows = np.flatnonzero(r.game == g)
        assert r.reason[rows].tolist() == [END_STOP, END_HAND_YAKU]
        assert r.round_index[rows].tolist() == [0, 1]
        assert r.points[rows].tolist() == [5, 6]
        assert r.winner[rows].tolist() == [g, g]  # the dealer won and dealt the teshi to itself
        assert out.reward[g, g] == 11 and out.reward[g, 1 - g] == -11
    assert duo.core.round_index.tolist() == [2, 2]
    assert cards(duo.core.field[0]) == set(PLAIN_FIELD)


def test_given_deck_is_checked() -> None:
    core = KoiKoiCore(1, seed=0)
    four = make_deck([4, 5, 6, 7, 8, 12, 16, 20], [9, 13, 17, 21, 24, 28, 32, 36],
                     [0, 1, 2, 3, 40, 41, 44, 45])
    with pytest.raises(ValueError, match="four"):
        core.reset(seed=0, options={"deck": four})
    with pytest.raises(ValueError):
        core.reset(seed=0, options={"deck": [0] * 48})
    with pytest.raises(ValueError):
        core.reset(seed=0, options={"deck": list(range(47))})


# ------------------------------------------------------------------ matches
def test_match_ends_after_three_rounds() -> None:
    """Random legal play: rounds are numbered 0, 1, 2 and every third one closes the match."""
    n = 16
    core = KoiKoiCore(n, {"rounds": 3}, seed=5)
    rng = np.random.default_rng(5)
    index = np.zeros(n, dtype=int)
    score = np.zeros((n, 2), dtype=int)
    matches = np.zeros(n, dtype=int)
    rounds, out = core.reset(seed=5).rounds, None
    for _step in range(1000):
        finished: dict[int, list[list[int]]] = {}
        for k in range(len(rounds)):
            g = int(rounds.game[k])
            assert rounds.round_index[k] == index[g] and rounds.reward[k].sum() == 0
            score[g] += rounds.reward[k]
            index[g] += 1
            if index[g] == 3:
                finished.setdefault(g, []).append(score[g].tolist())
                index[g], score[g] = 0, 0
        if out is not None:
            assert out.match_over.tolist() == [g in finished for g in range(n)]
            for m in range(len(out.matches.game)):
                g = int(out.matches.game[m])
                s = finished[g].pop(0)
                assert out.matches.scores[m].tolist() == s and out.matches.rounds[m] == 3
                assert out.matches.winner[m] == (0 if s[0] > s[1] else 1 if s[1] > s[0] else -1)
                matches[g] += 1
            assert not any(finished.values())
        assert (core.round_index == index).all() and (core.match_score == score).all()
        if (matches > 0).all():
            return
        mask = core.legal_action_mask()
        out = core.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        rounds = out.rounds
    raise AssertionError("matches did not finish")


def test_drawn_match_with_equal_totals() -> None:
    deck, dp, op = pairs_deck(*QUIET, inert=EXHAUST)
    duo = Duo(deck, {"rounds": 1})
    out, _ = play_pairs(duo, script(dp, op, 16))
    assert out.match_over.all()
    assert out.matches.winner.tolist() == [-1, -1]
    assert out.matches.scores.tolist() == [[0, 0], [0, 0]]
    assert out.matches.rounds.tolist() == [1, 1]
    assert (duo.core.round_index == 0).all()


@pytest.mark.parametrize(("target", "over"), [(5, True), (6, False)])
def test_target_score_ends_the_match(target: int, over: bool) -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck, {"target_score": target})
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert out.match_over.tolist() == [over, over]
    if over:
        assert out.matches.game.tolist() == [0, 1]
        assert out.matches.winner.tolist() == [0, 1]  # the dealer's seat
        assert out.matches.scores.tolist() == [[5, -5], [-5, 5]]
        assert out.matches.rounds.tolist() == [1, 1]
        assert (duo.core.match_score == 0).all() and (duo.core.round_index == 0).all()
    else:
        assert (duo.core.round_index == 1).all()


def test_target_score_counts_points_scored_not_the_net_score() -> None:
    """RULES §2.8: the first to *reach* the target wins; earlier losses do not count against."""
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck, {"target_score": 8})
    # Earlier rounds: the dealer scored 3, the other player 6 (net: dealer -3).
    duo.core.points_won[:] = [[3, 6], [6, 3]]
    duo.core.match_score[:] = [[-3, 3], [3, -3]]
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert out.match_over.tolist() == [True, True]  # dealer: 3 + 5 = 8 points scored
    assert out.matches.winner.tolist() == [0, 1]
    assert out.matches.scores.tolist() == [[2, -2], [-2, 2]]  # reported as net totals
    assert (duo.core.points_won == 0).all()


# ------------------------------------------------------------------ illegal actions
def test_illegal_action_changes_no_game() -> None:
    deck = make_deck([2, 10, 4, 12, 16, 20, 36, 44], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [3, 6, 14, 11, 30])
    quiet = make_deck(deck[:8], deck[8:16], deck[16:24], [14, 15])
    core = KoiKoiCore(3, seed=9)
    core.reset(seed=9, options={"deck": np.array([deck, deck, quiet]), "dealer": [0, 1, 0]})
    # games 0 and 1 now choose between the two pines; in game 2 the other player is to play
    core.step(np.array([2, 2, 4]))
    assert core.phase.tolist() == [CHOOSE_PLAYED, CHOOSE_PLAYED, PLAY]
    before = core.state_dict()
    cases = [([48, 50, 5], "game 1", "action 50", "[48, 49]"),  # card 2 is not on the field
             ([48, 49, 96], "game 2", "action 96", "[5, 13,"),  # stop outside a decision
             ([98, 48, 5], "game 0", "action 98", "[48, 49]"),
             ([-1, 48, 5], "game 0", "action -1", "[48, 49]"),
             ([48, 48, 4], "game 2", "action 4", "[5, 13,")]  # the other player's card
    for actions, *parts in cases:
        with pytest.raises(IllegalActionError) as info:
            core.step(np.array(actions))
        for part in parts:
            assert part in str(info.value)
        after = core.state_dict()
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value, err_msg=name)
    with pytest.raises(ValueError):
        core.step(np.array([48.0, 48.0, 5.0]))
    with pytest.raises(ValueError):
        core.step(np.array([48, 48]))
    core.step(np.array([48, 49, 5]))  # the legal move still works afterwards
    assert core.phase.tolist() == [PLAY, PLAY, PLAY]


# ------------------------------------------------------------------ rendering
def test_render_game_shows_the_table() -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    play_pairs(duo, script(dp, op, 6), {5: KOIKOI})
    core = duo.core
    text = render_game(core, 0)
    assert "sanko 5" in text and "total 5" in text and "koi-koi" in text
    for card in cards(core.field[0]) | cards(core.piles[0, 0]) | cards(core.piles[0, 1]):
        assert card_label(card) in text
    for card in cards(core.hands[0, 0]) | cards(core.hands[0, 1]):
        assert card_label(card) in text
    for viewer in (0, 1):
        hidden = 1 - viewer
        lines = render_game(core, 0, viewer=viewer).splitlines()
        start = lines.index(next(x for x in lines if x.startswith(f"player_{hidden}")))
        assert lines[start + 1].strip() == "hand:  5 hidden cards"
        shown = lines[lines.index(next(x for x in lines if x.startswith(f"player_{viewer}")))
                      + 1]
        for card in cards(core.hands[0, viewer]):
            assert card_label(card) in shown


def test_render_shows_the_match_score() -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert "score 5 : -5" in render_game(duo.core, 0)
    assert "score -5 : 5" in render_game(duo.core, 1, viewer=0)
    assert "round 2/12" in render_game(duo.core, 1)
