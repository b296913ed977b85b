"""A plain, independent Hana-awase reference (RULES.md §3), written from the rule book with
Python sets and lists, sharing no code with the engine beyond the card table.

It plays one round from a 48-card order (the engine's layout: the dealer's hand, each next
seat's hand around the table, the field, the stock) and scores it. Differential tests play
the same moves in it and in the compiled kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hanafuda_env.common import cards as C

DEAL = {2: (10, 8), 3: (7, 6), 4: (5, 8), 5: (4, 8), 6: (3, 12), 7: (3, 6)}
PAR_264 = {2: 132, 3: 88, 4: 66, 5: 53, 6: 44, 7: 38}
PAR_240 = {2: 120, 3: 80, 4: 60, 5: 48, 6: 40, 7: 34}


def kind_points(card: int, chaff_zero: bool) -> int:
    kind = C.DECK[card].kind
    if kind == C.BRIGHT:
        return 20
    if kind == C.ANIMAL:
        return 10
    if kind == C.RIBBON:
        return 5
    return 0 if chaff_zero else 1


def named(tag: str) -> int:
    return next(c.id for c in C.DECK if tag in c.tags)


CRANE, CURTAIN, MOON, RAIN, PHOENIX = (named(t) for t in
                                       ("crane", "curtain", "moon", "rain_man", "phoenix"))
SAKE, WARBLER, BOAR, DEER, BUTTERFLIES, GEESE = (named(t) for t in (
    "sake_cup", "warbler", "boar", "deer", "butterflies", "geese"))
RED_POEMS = {1, 5, 9}
BLUE = {21, 33, 37}
KUSA = {13, 17, 25}
WILLOW_RIBBON = 42


def month_cards(month: int) -> set[int]:
    return {4 * (month - 1) + k for k in range(4)}


def pile_yaku(pile: set[int], nagashi_rule: bool) -> dict[str, int]:
    """§3.3 with its Decisions, as plain checks."""
    out: dict[str, int] = {}
    brights = {CRANE, CURTAIN, MOON, RAIN, PHOENIX}
    if brights <= pile:
        out["goko"] = 200
    elif {CRANE, CURTAIN, MOON, PHOENIX} <= pile:
        out["shiko"] = 60
    elif {CRANE, MOON, PHOENIX} <= pile:
        out["sanko"] = 20
    if RED_POEMS <= pile:
        out["akatan"] = 40
    if BLUE <= pile:
        out["aotan"] = 40
    ribbons = {c.id for c in C.DECK if c.kind == C.RIBBON} - {WILLOW_RIBBON}
    held = len(ribbons & pile)
    if held >= 7:
        out["nanatan"] = 40
    elif held >= 6:
        out["rokutan"] = 30
    if {CRANE, WARBLER, CURTAIN} <= pile:
        out["omote_sugawara"] = 30
    if {CURTAIN, MOON, SAKE} <= pile:
        out["nomi"] = 30
    if {BOAR, DEER, BUTTERFLIES} <= pile:
        out["ino_shika_cho"] = 20
    if {CURTAIN, SAKE} <= pile:
        out["hanami"] = 20
    if {MOON, SAKE} <= pile:
        out["tsukimi"] = 20
    if KUSA <= pile:
        out["kusa"] = 20
    if month_cards(4) <= pile:
        out["fuji_shima"] = 20
    if month_cards(12) <= pile:
        out["kiri_shima"] = 20
    if month_cards(11) <= pile and not nagashi_rule:
        out["ame_shima"] = 20
    return out


@dataclass
class RefRound:
    """One round: the seats' hands, the field, the stock, piles, whose turn."""

    n: int
    dealer: int
    options: dict = field(default_factory=dict)
    hands: list[set[int]] = field(default_factory=list)
    dealt: list[set[int]] = field(default_factory=list)
    field_cards: set[int] = field(default_factory=set)
    stock: list[int] = field(default_factory=list)
    piles: list[set[int]] = field(default_factory=list)
    mover: int = 0
    pending: int | None = None
    pending_drawn: bool = False
    turns: int = 0

    @classmethod
    def deal(cls, order: list[int], n: int, dealer: int, **options) -> RefRound:
        hand, field_size = DEAL[n]
        r = cls(n, dealer, options)
        r.hands = [set() for _ in range(n)]
        for k in range(n):
            r.hands[(dealer + k) % n] = set(order[k * hand:(k + 1) * hand])
        r.dealt = [set(h) for h in r.hands]
        r.field_cards = set(order[n * hand:n * hand + field_size])
        r.stock = list(order[n * hand + field_size:])
        r.piles = [set() for _ in range(n)]
        r.mover = dealer
        return r

    @property
    def over(self) -> bool:
        return all(not h for h in self.hands)

    def legal(self) -> list[int]:
        if self.pending is not None:
            month = C.DECK[self.pending].month
            return sorted(48 + c for c in self.field_cards if C.DECK[c].month == month)
        return sorted(self.hands[self.mover])

    def _lay(self, card: int, drawn: bool) -> bool:
        """Lay a card down; True when a choice between two field cards is awaited."""
        same = [c for c in self.field_cards if C.DECK[c].month == C.DECK[card].month]
        if not same:
            self.field_cards.add(card)
        elif len(same) == 2:
            self.pending, self.pending_drawn = card, drawn
            return True
        else:
            self.field_cards -= set(same)
            self.piles[self.mover] |= set(same) | {card}
        return False

    def play(self, action: int) -> None:
        assert action in self.legal(), (action, self.legal())
        if self.pending is not None:
            taken = action - 48
            self.field_cards.remove(taken)
            self.piles[self.mover] |= {taken, self.pending}
            self.pending = None
            if self.pending_drawn:
                self._next()
                return
        else:
            self.hands[self.mover].remove(action)
            if self._lay(action, False):
                return
        card = self.stock.pop(0)
        if self._lay(card, True):
            return
        self._next()

    def _next(self) -> None:
        self.turns += 1
        self.mover = (self.mover + 1) % self.n

    def score(self) -> dict:
        """Card points, yaku and scores by the §3.2 formula and the §3.4 variants."""
        o = self.options
        chaff_zero = o.get("chaff_zero", False)
        par = (PAR_240 if chaff_zero else PAR_264)[self.n]
        cards = [sum(kind_points(c, chaff_zero) for c in pile) for pile in self.piles]
        cancelled = any(
            (o.get("yaku_nagashi") and month_cards(11) <= pile)
            or (o.get("arashi") and {BOAR, GEESE, DEER} <= pile) for pile in self.piles)
        yaku = []
        for seat in range(self.n):
            made = {} if cancelled else pile_yaku(self.piles[seat], o.get("yaku_nagashi", False))
            chaff = sum(C.DECK[c].kind == C.CHAFF for c in self.dealt[seat])
            if not cancelled and o.get("nana_kasu") and chaff == 7:
                made["nana_kasu"] = 30
            elif not cancelled and o.get("roku_kasu") and chaff == 6:
                made["roku_kasu"] = 20
            position = (seat - self.dealer) % self.n
            limit = 10 if position == 2 else 8
            if not cancelled and o.get("hatcho") and len(self.piles[seat]) <= limit:
                made["hatcho"] = 30
            yaku.append(made)
        totals = [sum(m.values()) for m in yaku]
        void = bool(o.get("fuke")) and min(cards) <= 20
        scores = [0] * self.n if void else [
            cards[p] - par + totals[p] * (self.n - 1) - sum(totals[q] for q in range(self.n)
                                                           if q != p)
            for p in range(self.n)]
        best = self.dealer
        for k in range(self.n):
            seat = (self.dealer + k) % self.n
            if scores[seat] > scores[best]:
                best = seat
        return {"cards": cards, "yaku": yaku, "totals": totals, "scores": scores,
                "void": void, "next_dealer": self.dealer if void else best}
