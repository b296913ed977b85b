"""A plain, one-game Koi-Koi reference written from RULES.md §2, for differential tests.

Everything here is deliberately slow and obvious: cards are ints, hands/field/piles are sets,
yaku are counted with ``len`` and ``in``. It shares only the card table with the engine, so a
disagreement between this file and ``hanafuda_env.koikoi.core`` points at a bug in one of them.

The one thing copied from the core on purpose is its seeded deal (splitmix64 streams,
argsort of per-card keys, redeal counter), so that both deal the very same cards. The
decisions that RULES.md leaves open follow the core's documented choices (see ``_exhaustion``
and ``hand_yaku``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from hanafuda_env.common.cards import DECK
from hanafuda_env.koikoi.rules import RuleSet

# ----------------------------------------------------------------------------- card groups
BRIGHTS = frozenset(c.id for c in DECK if c.kind == "bright")
ANIMALS = frozenset(c.id for c in DECK if c.kind == "animal")
RIBBONS = frozenset(c.id for c in DECK if c.kind == "ribbon")
CHAFF = frozenset(c.id for c in DECK if c.kind == "chaff")


def _card(tag: str) -> int:
    (card_id,) = [c.id for c in DECK if tag in c.tags]
    return card_id


RAIN_MAN, CURTAIN, MOON, SAKE_CUP = (_card(t) for t in ("rain_man", "curtain", "moon", "sake_cup"))
INO_SHIKA_CHO = frozenset(_card(t) for t in ("boar", "deer", "butterflies"))
RED_POETRY = frozenset(c.id for c in DECK if "akatan" in c.tags)
BLUE_POETRY = frozenset(c.id for c in DECK if "aotan" in c.tags)


def month(card: int) -> int:
    return DECK[card].month


def to_mask(cards) -> int:
    """A set of card ids as the core's 48-bit integer, for comparisons."""
    return sum(1 << c for c in cards)


# ---------------------------------------------------------------------------- the deal RNG
# Replicates KoiKoiCore's seeded deal so both sides see the same cards (not game logic).
_M64 = (1 << 64) - 1
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def splitmix64(x: int) -> int:
    z = (x + _GOLDEN) & _M64
    z = ((z ^ (z >> 30)) * _MIX1) & _M64
    z = ((z ^ (z >> 27)) * _MIX2) & _M64
    return z ^ (z >> 31)


def game_seed(seed: int, game: int) -> int:
    """The seed the core gives game ``game`` of a batch reset with integer ``seed``."""
    return splitmix64(splitmix64(seed & _M64) ^ game)


def _stream_base(seed: int, deal_count: int) -> int:
    return splitmix64(seed ^ splitmix64(deal_count))


def coin(seed: int, deal_count: int) -> int:
    """The core's fair choice of a match's first dealer."""
    word = splitmix64((_stream_base(seed, deal_count) + _GOLDEN * 1000) & _M64)
    return (word >> 40) & 1


def shuffled_deck(seed: int, deal_count: int) -> list[int]:
    base = _stream_base(seed, deal_count)
    keys = [splitmix64((base + j * _GOLDEN) & _M64) for j in range(48)]
    return sorted(range(48), key=keys.__getitem__)


# ----------------------------------------------------------------------------- scoring
def yaku_points(pile: set[int] | frozenset[int], rules: RuleSet, called: bool = False
                ) -> dict[str, int]:
    """Every standing yaku of a capture pile with its points (RULES.md §2.3, §2.8–2.10);
    ``called``: its holder called koi-koi in the round (the raised sake yaku of §2.10)."""
    pts = rules.points
    extra = pts.extra_card
    yaku: dict[str, int] = {}

    brights = len(pile & BRIGHTS)
    rain = RAIN_MAN in pile
    if brights == 5:
        yaku["goko"] = pts.goko
    elif brights == 4:
        yaku["ame_shiko" if rain else "shiko"] = pts.ame_shiko if rain else pts.shiko
    elif brights == 3 and not rain:
        yaku["sanko"] = pts.sanko

    animals = len(pile & ANIMALS)
    both_animal_yaku = rules.tane_with_ino_shika_cho  # §2.10: tane counts the further ones
    if INO_SHIKA_CHO <= pile:
        yaku["ino_shika_cho"] = pts.ino_shika_cho + (0 if both_animal_yaku
                                                      else extra * (animals - 3))
    if animals >= 5 and (both_animal_yaku or not INO_SHIKA_CHO <= pile):
        yaku["tane"] = pts.tane + extra * (animals - 5)

    ribbons = len(pile & RIBBONS)
    red, blue = RED_POETRY <= pile, BLUE_POETRY <= pile
    with_tan = rules.tan_with_poetry_ribbons  # §2.10: tan counts the further ribbons
    further = 0 if with_tan else extra
    if red and blue and rules.akatan_aotan != "separate":
        base = 15 if rules.akatan_aotan == "combined-15" else 10
        # in the rule set's unit: what a further card adds, at least 1 (a table whose further
        # cards add nothing keeps the pair's 10 or 15)
        yaku["akatan_aotan"] = base * max(extra, 1) + further * (ribbons - 6)
    if rules.akatan_aotan in ("separate", "combined-plus-each") or not (red and blue):
        if red:
            yaku["akatan"] = pts.akatan + further * (ribbons - 3)
        if blue:
            yaku["aotan"] = pts.aotan + further * (ribbons - 3)
    if (with_tan or not (red or blue)) and ribbons >= 5:
        yaku["tan"] = pts.tan + extra * (ribbons - 5)

    chaff = len(pile & CHAFF) + (1 if rules.sake_cup_is_chaff and SAKE_CUP in pile else 0)
    if chaff >= 10:
        yaku["kasu"] = pts.kasu + extra * (chaff - 10)

    washed = rules.rain_washes_sake and rain
    raised = called and rules.sake_after_koikoi is not None
    if rules.hanami_tsukimi and not washed and SAKE_CUP in pile:
        if CURTAIN in pile:
            yaku["hanami_zake"] = rules.sake_after_koikoi if raised else pts.hanami_zake
        if MOON in pile:
            yaku["tsukimi_zake"] = rules.sake_after_koikoi if raised else pts.tsukimi_zake
    return {name: p for name, p in yaku.items() if p}


def yaku_total(pile: set[int], rules: RuleSet, called: bool = False) -> int:
    return sum(yaku_points(pile, rules, called).values())


def hand_yaku(hand: set[int], rules: RuleSet) -> tuple[str, int] | None:
    """The dealt hand's yaku (§2.3), or None. Teshi and kuttsuki at once score once, as the
    one worth more (teshi on a tie)."""
    if rules.hand_yaku == "none":
        return None
    counts = Counter(month(c) for c in hand)
    held = []
    if 4 in counts.values():
        held.append((rules.points.teshi, 0, "teshi"))
    if rules.hand_yaku == "teshi+kuttsuki" and all(n % 2 == 0 for n in counts.values()):
        held.append((rules.points.kuttsuki, -1, "kuttsuki"))
    if not held or max(held)[0] <= 0:
        return None
    points, _, name = max(held)
    return name, points


# ----------------------------------------------------------------------------- the game
PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE = 0, 1, 2, 3
STOP, KOIKOI = 96, 97


@dataclass
class StepResult:
    reward: list[int]
    rounds: list[dict] = field(default_factory=list)
    matches: list[dict] = field(default_factory=list)


class ReferenceGame:
    """An endless series of Koi-Koi matches for one seat pair, stepped one action at a time.

    ``seed`` is this game's own 64-bit seed (see :func:`game_seed`); ``dealer`` and ``deck``
    mirror the core's reset options. Rounds that end right at a deal (hand yaku) are kept in
    ``initial_rounds``, the matches they end in ``initial_matches``. ``coverage`` counts rule
    paths taken, so tests can check that random play reached them.
    """

    def __init__(self, rules: RuleSet, seed: int, dealer: int | None = None,
                 deck: list[int] | None = None):
        self.rules = rules
        self.seed = seed
        self.deal_count = 0
        self.coverage: Counter[str] = Counter()
        self.scores = [0, 0]  # net: the sum of round rewards
        self.won = [0, 0]  # points each player scored: what a target score counts
        self.round_index = 0
        self.dealer = coin(seed, self.deal_count) if dealer is None else int(dealer)
        self._out = StepResult([0, 0])
        self._deal(list(deck) if deck is not None else None)
        self.initial_rounds = self._out.rounds
        self.initial_matches = self._out.matches

    # --------------------------------------------------------------- dealing
    def _next_deck(self) -> list[int]:
        deck = shuffled_deck(self.seed, self.deal_count)
        self.deal_count += 1
        return deck

    def _deal(self, deck: list[int] | None = None) -> None:
        """Deal a round; a dealt hand yaku ends it at once and the next one is dealt."""
        while True:
            if deck is None:
                deck = self._next_deck()
            while self._four_of_a_month(deck[16:24]) or self.rules.redeal_hand_four and (
                    self._four_of_a_month(deck[0:8]) or self._four_of_a_month(deck[8:16])):
                self.coverage["redeal"] += 1
                deck = self._next_deck()
            other = 1 - self.dealer
            self.hands = [set(), set()]
            self.hands[self.dealer] = set(deck[0:8])
            self.hands[other] = set(deck[8:16])
            self.field = set(deck[16:24])
            self.stock = list(deck[24:48])
            self.stock_pos = 0
            self.piles: list[set[int]] = [set(), set()]
            self.mover = self.dealer
            self.phase = PLAY
            self.pending = -1
            self.calls = [0, 0]
            self.last_total = [0, 0]
            self.turn = 0
            deck = None
            held = [hand_yaku(self.hands[s], self.rules) for s in (0, 1)]
            if held[0] is None and held[1] is None:
                return
            winner = self.dealer if held[self.dealer] is not None else other
            if held[0] is not None and held[1] is not None:
                self.coverage["hand_yaku_both"] += 1
            name, points = held[winner]
            self.coverage[f"hand_{name}"] += 1
            self._finish(winner, points, self._multiplier(points, False), "hand-yaku",
                         {name: points})

    @staticmethod
    def _four_of_a_month(cards: list[int]) -> bool:
        return 4 in Counter(month(c) for c in cards).values()

    # --------------------------------------------------------------- actions
    def legal_actions(self) -> list[int]:
        if self.phase == PLAY:
            return sorted(self.hands[self.mover])
        if self.phase == DECIDE:
            return [STOP, KOIKOI]
        return sorted(48 + c for c in self.field if month(c) == month(self.pending))

    def step(self, action: int) -> StepResult:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}; legal: {self.legal_actions()}")
        self._out = StepResult([0, 0])
        me = self.mover
        if self.phase == PLAY:
            self.hands[me].remove(action)
            if self._lay(action):
                self.phase, self.pending = CHOOSE_PLAYED, action
            else:
                self._draw()
        elif self.phase == CHOOSE_PLAYED:
            self._take(action - 48)
            self._draw()
        elif self.phase == CHOOSE_DRAWN:
            self._take(action - 48)
            self._end_turn()
        elif action == STOP:
            self.coverage["stop"] += 1
            self._win(me, "stop")
        else:
            self.calls[me] += 1
            self.coverage["koikoi_call"] += 1
            if self.calls[0] + self.calls[1] > 1:
                self.coverage["koikoi_call_again"] += 1
            # §2.10: the next turn's "made yaku" starts from the raised sake yaku
            self.last_total[me] = yaku_total(self.piles[me], self.rules, True)
            self._pass_turn()
        return self._out

    def _lay(self, card: int) -> bool:
        """Put a card to the field (§2.2). True when the player must choose a field card."""
        same = [c for c in self.field if month(c) == month(card)]
        if len(same) == 2:
            self.coverage["choose"] += 1
            return True
        if not same:
            self.field.add(card)
        else:  # one match, or three: the card takes them all
            if len(same) == 3:
                self.coverage["capture_three"] += 1
            self.field -= set(same)
            self.piles[self.mover] |= {card, *same}
        return False

    def _take(self, field_card: int) -> None:
        self.field.remove(field_card)
        self.piles[self.mover] |= {field_card, self.pending}
        self.pending = -1

    def _draw(self) -> None:
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        if self._lay(card):
            self.phase, self.pending = CHOOSE_DRAWN, card
        else:
            self.pending = -1
            self._end_turn()

    def _end_turn(self) -> None:
        """§2.4: did the mover's yaku total go up since the end of their previous turn?"""
        me = self.mover
        self.turn += 1
        self._note_pile(self.piles[me])
        total = yaku_total(self.piles[me], self.rules, self.calls[me] > 0)
        made = total > self.last_total[me]
        if total < self.last_total[me]:
            self.coverage["total_went_down"] += 1
        self.last_total[me] = total
        if not made:
            self._pass_turn()
            return
        anyone_called = self.calls[0] + self.calls[1] > 0
        may_call = bool(self.hands[me]) and (self.rules.multiple_koikoi or not anyone_called)
        if may_call:
            self.phase = DECIDE
        elif anyone_called:
            self.coverage["win_after_koikoi"] += 1
            self._win(me, "yaku-after-koikoi")
        else:
            self.coverage["win_on_last_card"] += 1
            self._win(me, "yaku-on-last-card")

    def _note_pile(self, pile: set[int]) -> None:
        """Coverage of piles where a variant option changes the score."""
        if RED_POETRY <= pile and BLUE_POETRY <= pile:
            self.coverage["pile:all_poetry_ribbons"] += 1
        if SAKE_CUP in pile and RAIN_MAN in pile and (CURTAIN in pile or MOON in pile):
            self.coverage["pile:rain_and_sake"] += 1
        if SAKE_CUP in pile and len(pile & CHAFF) >= 9:
            self.coverage["pile:sake_cup_decides_kasu"] += 1
        if len(pile & BRIGHTS) >= 4:
            self.coverage["pile:four_brights"] += 1

    def _pass_turn(self) -> None:
        self.mover = 1 - self.mover
        self.phase = PLAY
        if not self.hands[0] and not self.hands[1]:
            self._exhaustion()

    # ------------------------------------------------------------- round end
    def _win(self, seat: int, reason: str) -> None:
        yaku = yaku_points(self.piles[seat], self.rules, self.calls[seat] > 0)
        base = sum(yaku.values())
        multiplier = self._multiplier(base, self.calls[1 - seat] > 0)
        base, multiplier = self._own_calls(base, multiplier, self.calls[seat])
        self._finish(seat, base, multiplier, reason, yaku)

    def _own_calls(self, base: int, multiplier: int, calls: int) -> tuple[int, int]:
        """§2.10: the winner's own c calls add c points up to three, from four on they
        multiply the total by c - 2."""
        if not self.rules.own_koikoi_bonus or calls == 0:
            return base, multiplier
        self.coverage["own_call_bonus" if calls <= 3 else "own_call_multiplier"] += 1
        if calls <= 3:
            return base + calls, multiplier
        return base, multiplier * (calls - 2)

    def _multiplier(self, base: int, loser_called: bool) -> int:
        """§2.5 steps 2 and 3; many koi-koi calls by the loser still double only once."""
        multiplier = 1
        if self.rules.seven_point_doubling and base >= 7:
            self.coverage["seven_point_doubling"] += 1
            multiplier *= 2
        if self.rules.koikoi_doubling and loser_called:
            self.coverage["koikoi_doubling"] += 1
            multiplier *= 2
        return multiplier

    def _exhaustion(self) -> None:
        """Both hands are empty and nobody won (§2.6, §2.8, §2.9)."""
        rule = self.rules.on_exhaustion
        called = self.calls[0] + self.calls[1] > 0
        if called:
            self.coverage["exhausted_after_koikoi"] += 1
        quiet = not called and self.last_total == [0, 0]
        winner, base, multiplier = -1, 0, 1
        if rule == "dealer-wins-always":  # §2.10: whatever was called
            winner, base = self.dealer, self.rules.exhaustion_points
        elif quiet and rule in ("dealer-wins", "highest-total"):
            winner, base = self.dealer, self.rules.exhaustion_points
        elif quiet and rule == "non-dealer-wins":
            winner, base = 1 - self.dealer, self.rules.exhaustion_points
        elif called and rule == "highest-total":
            # Decision (core): the higher total wins with §2.5 scoring; a tie goes to the dealer.
            totals = self.last_total
            winner = self.dealer if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
            base = totals[winner]
            multiplier = self._multiplier(base, self.calls[1 - winner] > 0)
            base, multiplier = self._own_calls(base, multiplier, self.calls[winner])
            self.coverage["highest_total_win"] += 1
        reason = "no-game" if winner < 0 else "exhaustion-win"
        self.coverage[reason] += 1
        scored_by_yaku = called and rule == "highest-total"
        yaku = (yaku_points(self.piles[winner], self.rules, self.calls[winner] > 0)
                if scored_by_yaku else {})
        self._finish(winner, base, multiplier, reason, yaku)

    def _finish(self, winner: int, base: int, multiplier: int, reason: str,
                yaku: dict[str, int]) -> None:
        """Record a round, move the dealer and the match on, and deal the next round."""
        points = base * multiplier if winner >= 0 else 0
        reward = [0, 0]
        if winner >= 0:
            reward[winner], reward[1 - winner] = points, -points
        self._out.rounds.append({
            "round_index": self.round_index, "dealer": self.dealer, "winner": winner,
            "base": base,
            "multiplier": multiplier, "points": points, "reward": reward,
            "koikoi_calls": list(self.calls), "reason": reason, "turns": self.turn,
            "yaku": dict(yaku), "piles": (to_mask(self.piles[0]), to_mask(self.piles[1])),
        })
        self.coverage[f"reason:{reason}"] += 1
        self.coverage.update(f"yaku:{name}" for name in yaku)
        for seat in (0, 1):
            self._out.reward[seat] += reward[seat]
            self.scores[seat] += reward[seat]
        if winner >= 0:
            self.won[winner] += points
        if self.rules.next_dealer == "winner" and winner >= 0:
            self.dealer = winner
        else:
            self.dealer = 1 - self.dealer
        self.round_index += 1
        target = self.rules.target_score
        reached = target is not None and max(self.won) >= target
        if reached:
            self.coverage["target_reached"] += 1
        stake = self.rules.starting_points
        if stake is not None and min(self.scores) + stake <= 0:  # §2.10: out of points
            self.coverage["stake_lost"] += 1
            reached = True
        if self.round_index >= self.rules.rounds or reached:
            a, b = self.scores
            self._out.matches.append({"winner": 0 if a > b else (1 if b > a else -1),
                                      "scores": [a, b], "rounds": self.round_index})
            self.coverage["match_draw" if a == b else "match_won"] += 1
            self.scores = [0, 0]
            self.won = [0, 0]
            self.round_index = 0
            self.dealer = coin(self.seed, self.deal_count)
        if reason != "hand-yaku":
            self._deal()
