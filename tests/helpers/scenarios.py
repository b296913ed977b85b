"""Scenario decks and the two-game driver of the core's round and match tests.

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

from hanafuda_env.common import cards as C
from hanafuda_env.common.results import END_HAND_YAKU, StepOutcome
from hanafuda_env.koikoi.core import DECIDE, KOIKOI, PLAY, STOP, KoiKoiCore
from hanafuda_env.koikoi.rules import NINTENDO
from hanafuda_env.koikoi.scoring import hand_yaku_points

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


# ------------------------------------------------------------ pair decks
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


# ------------------------------------------------------- hand-yaku deals
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


def seeded_decks(game_seeds, deal_count: int = 0) -> np.ndarray:
    """(n, 48) the shuffle number ``deal_count`` of each game seed, computed in NumPy as the
    rules define it (an argsort of splitmix64 keys of the seed, the count and the card):
    an independent check of the kernel's shuffle, and a way to find seeds that deal a case."""
    from hanafuda_env.common.seeding import GOLDEN, splitmix64

    seeds = np.asarray(game_seeds, dtype=np.uint64)
    word = splitmix64(seeds ^ splitmix64(np.full(len(seeds), deal_count, dtype=np.uint64)))
    keys = splitmix64(word[:, None] + np.arange(C.NUM_CARDS, dtype=np.uint64) * GOLDEN)
    return np.argsort(keys, axis=1).astype(np.int8)


def random_play(n: int, steps: int, seed: int, rules=None) -> KoiKoiCore:
    """``n`` games (Nintendo rules unless given) after ``steps`` random legal moves, all
    seeded by ``seed``: positions in the middle of play."""
    core = KoiKoiCore(n, rules, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        core.step(core.sample_legal_actions(rng))
    return core


def last_round_decision(seed: int = 5) -> KoiKoiCore:
    """One game of a one-round match whose player to move has just made yaku and decides
    koi-koi or stop: with the lead a stop wins the match, koi-koi can only lose it."""
    core = KoiKoiCore(400, {"rounds": 1}, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        waiting = np.flatnonzero(core.phase == DECIDE)
        if len(waiting):
            return core.fork(int(waiting[0]))
        core.step(core.sample_legal_actions(rng))
    raise AssertionError(f"no koi-koi decision within 60 moves of seed {seed}")
