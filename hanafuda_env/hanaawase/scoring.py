"""Hana-awase scoring as data (RULES.md §3.2–3.4): the yaku table, the hand and end-of-round
yaku of the variants, and the round score formula.

The yaku table is made of the same :class:`~hanafuda_env.koikoi.scoring.Yaku` records as Koi-Koi's,
so the compiled kernel scores it with the same functions (``kernel.yaku_arrays``,
``kernel.pile_breakdown``, ``score_lookup.lookup_total``). :func:`score_round` is the
plain-Python statement of a round's scoring, which the kernel's result rows match and which
displays use.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.koikoi.scoring import Yaku, score_pile

SHIKO_BRIGHTS = C.CRANE | C.CURTAIN | C.MOON | C.PHOENIX
SANKO_BRIGHTS = C.CRANE | C.MOON | C.PHOENIX
NON_WILLOW_RIBBONS = C.RIBBONS & ~C.WILLOW_RIBBON
WILLOW = C.month_mask(11)
ARASHI = C.BOAR | C.GEESE | C.DEER

# Yaku outside the pile table: declared hand yaku (§3.4) and oya-naka-hatcho biki-jitcho.
NANA_KASU, ROKU_KASU, HATCHO = "nana_kasu", "roku_kasu", "hatcho"
HAND_YAKU_POINTS = {NANA_KASU: 30, ROKU_KASU: 20}
HATCHO_POINTS = 30
HATCHO_LIMITS = (8, 8, 10)  # most captured cards for the dealer, the second and third player
FUKE_LIMIT = 20  # card points at or below which a player voids the round


@lru_cache(maxsize=32)
def hanaawase_yaku_table(rules: HanaawaseRules) -> tuple[Yaku, ...]:
    """The pile yaku of §3.3 (ame-shima left out under yaku-nagashi, which replaces it)."""
    table = [
        Yaku("goko", 200, ((C.BRIGHTS, 5),)),
        Yaku("shiko", 60, ((SHIKO_BRIGHTS, 4),), excluded_by=("goko",)),
        Yaku("akatan", 40, ((C.RED_POETRY_RIBBONS, 3),)),
        Yaku("aotan", 40, ((C.BLUE_RIBBONS, 3),)),
        Yaku("nanatan", 40, ((NON_WILLOW_RIBBONS, 7),)),
        Yaku("rokutan", 30, ((NON_WILLOW_RIBBONS, 6),), excluded_by=("nanatan",)),
        Yaku("omote_sugawara", 30, ((C.CRANE | C.BUSH_WARBLER | C.CURTAIN, 3),)),
        Yaku("nomi", 30, ((C.CURTAIN | C.MOON | C.SAKE_CUP, 3),)),
        Yaku("sanko", 20, ((SANKO_BRIGHTS, 3),), excluded_by=("goko", "shiko")),
        Yaku("ino_shika_cho", 20, ((C.INO_SHIKA_CHO, 3),)),
        Yaku("hanami", 20, ((C.CURTAIN, 1), (C.SAKE_CUP, 1))),
        Yaku("tsukimi", 20, ((C.MOON, 1), (C.SAKE_CUP, 1))),
        Yaku("kusa", 20, ((C.KUSA_RIBBONS, 3),)),
        Yaku("fuji_shima", 20, ((C.month_mask(4), 4),)),
        Yaku("kiri_shima", 20, ((C.month_mask(12), 4),)),
    ]
    if not rules.yaku_nagashi:
        table.append(Yaku("ame_shima", 20, ((WILLOW, 4),)))
    return tuple(table)


def yaku_names(rules: HanaawaseRules) -> tuple[str, ...]:
    """The columns of a round's yaku breakdown: the pile table, then the variants' yaku."""
    return tuple(y.name for y in hanaawase_yaku_table(rules)) + (NANA_KASU, ROKU_KASU, HATCHO)


def hand_yaku(hand: int, rules: HanaawaseRules) -> tuple[str | None, int]:
    """The declared hand yaku of a dealt hand (nana-kasu or roku-kasu, when on) and the chaff
    it shows; (None, 0) if none."""
    chaff = hand & C.CHAFF_CARDS
    count = chaff.bit_count()
    if rules.nana_kasu and count == 7:
        return NANA_KASU, chaff
    if rules.roku_kasu and count == 6:
        return ROKU_KASU, chaff
    return None, 0


def cancels_yaku(pile: int, rules: HanaawaseRules) -> bool:
    """The pile makes yaku-nagashi or arashi, which cancel every yaku of the round."""
    return (rules.yaku_nagashi and pile & WILLOW == WILLOW) or (
        rules.arashi and pile & ARASHI == ARASHI)


def card_points(pile: int, rules: HanaawaseRules) -> int:
    points = rules.card_points
    return sum(points[i] for i in C.ids_of(pile))


@dataclass(frozen=True)
class RoundScore:
    """A scored round: per player (seat order), card points, yaku (name → points), the yaku
    total, and the score; ``void`` (fuke) and ``cancelled`` (yaku-nagashi or arashi)."""

    card_points: tuple[int, ...]
    yaku: tuple[dict[str, int], ...]
    yaku_total: tuple[int, ...]
    score: tuple[int, ...]
    void: bool
    cancelled: bool


def score_round(piles: list[int], dealt_hands: list[int], dealer: int,
                rules: HanaawaseRules) -> RoundScore:
    """Score a finished round from each seat's capture pile and dealt hand (§3.2–3.4):
    ``(cards − par) + own yaku × (players − 1) − others' yaku``, 0 for all if fuke voids it."""
    n = rules.num_players
    table = hanaawase_yaku_table(rules)
    cards = tuple(card_points(pile, rules) for pile in piles)
    cancelled = any(cancels_yaku(pile, rules) for pile in piles)
    yaku: list[dict[str, int]] = []
    for seat, pile in enumerate(piles):
        made = {} if cancelled else score_pile(pile, table)
        name, _ = hand_yaku(dealt_hands[seat], rules)
        if name is not None and not cancelled:
            made[name] = HAND_YAKU_POINTS[name]
        position = (seat - dealer) % n
        if rules.hatcho and not cancelled and pile.bit_count() <= HATCHO_LIMITS[position]:
            made[HATCHO] = HATCHO_POINTS
        yaku.append(made)
    totals = tuple(sum(made.values()) for made in yaku)
    void = rules.fuke and min(cards) <= FUKE_LIMIT
    if void:
        score = (0,) * n
    else:
        score = tuple(cards[p] - rules.par + totals[p] * (n - 1) - (sum(totals) - totals[p])
                      for p in range(n))
    return RoundScore(cards, tuple(yaku), totals, score, void, cancelled)


def zero_sum_rewards(score: tuple[int, ...] | list[int]) -> list[float]:
    """Each score minus the mean of all (§3.2 Decision): zero-sum at every player count."""
    mean = sum(score) / len(score)
    return [s - mean for s in score]
