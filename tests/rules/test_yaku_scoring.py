"""Golden tests of yaku scoring against RULES.md §2.3, §2.5, §2.8 and §2.9.

Card ids (RULES.md §1): brights crane 0, curtain 8, moon 28, rain man 40, phoenix 44;
animals 4 12 16 20(butterflies) 24(boar) 29 32(sake cup) 36(deer) 41; red poetry ribbons
1 5 9; blue ribbons 21 33 37; plain ribbons 13 17 25 42; everything else is chaff.
"""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.rules import NINTENDO, TEN_BASE, RuleSet, resolve_rules
from hanafuda_env.koikoi.scoring import (
    YAKU_NAMES,
    batch_scorer,
    hand_yaku_points,
    round_multiplier,
    round_points,
    score_pile,
    score_yaku,
    yaku_table,
    yaku_total,
)

CRANE, CURTAIN, MOON, RAIN, PHOENIX = 0, 8, 28, 40, 44
BUTTERFLIES, BOAR, SAKE, DEER = 20, 24, 32, 36
OTHER_ANIMALS = [4, 12, 16, 29, 41]  # not ino-shika-cho, not the sake cup
AKATAN, AOTAN = [1, 5, 9], [21, 33, 37]
PLAIN_RIBBONS = [13, 17, 25, 42]
CHAFF = [2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31, 34, 35, 38, 39, 43, 45,
         46, 47]  # fmt: skip


def test_card_groups_match_the_rule_book() -> None:
    assert C.ids_of(C.BRIGHTS) == [CRANE, CURTAIN, MOON, RAIN, PHOENIX]
    assert C.ids_of(C.ANIMALS) == sorted([*OTHER_ANIMALS, BUTTERFLIES, BOAR, SAKE, DEER])
    assert C.ids_of(C.RIBBONS) == sorted([*AKATAN, *AOTAN, *PLAIN_RIBBONS])
    assert C.ids_of(C.CHAFF_CARDS) == CHAFF
    assert [c.id for c in C.DECK] == list(range(48))
    assert [c.month for c in C.DECK] == [m for m in range(1, 13) for _ in range(4)]
    assert C.DECK[43].kind == C.CHAFF and C.DECK[32].kind == C.ANIMAL


# ------------------------------------------------------------------ bright yaku
@pytest.mark.parametrize(
    ("pile", "expected"),
    [
        ([CRANE, CURTAIN, MOON, RAIN, PHOENIX], {"goko": 10}),
        ([CRANE, CURTAIN, MOON, PHOENIX], {"shiko": 8}),
        ([CRANE, CURTAIN, MOON, RAIN], {"ame_shiko": 7}),
        ([CURTAIN, MOON, PHOENIX, RAIN], {"ame_shiko": 7}),
        ([CRANE, CURTAIN, MOON], {"sanko": 5}),
        ([CRANE, MOON, PHOENIX], {"sanko": 5}),
        ([CRANE, CURTAIN, RAIN], {}),  # three brights with the rain man: nothing
        ([CRANE, PHOENIX], {}),
    ],
)
def test_bright_yaku_only_the_highest_counts(pile: list[int], expected: dict) -> None:
    assert score_yaku(pile) == expected


# ------------------------------------------------------------- combination yaku
def test_ino_shika_cho_and_one_point_per_further_animal() -> None:
    isc = [BOAR, DEER, BUTTERFLIES]
    assert score_yaku(isc) == {"ino_shika_cho": 5}
    assert score_yaku([BOAR, DEER]) == {}
    assert score_yaku([*isc, 4]) == {"ino_shika_cho": 6}
    assert score_yaku([*isc, 4, 12]) == {"ino_shika_cho": 7}  # 5 animals: no tane
    assert score_yaku([*isc, 4, 12, 16, SAKE]) == {"ino_shika_cho": 9}  # sake cup is an animal


@pytest.mark.parametrize(("name", "three"), [("akatan", AKATAN), ("aotan", AOTAN)])
def test_akatan_aotan_alone_and_extra_ribbons(name: str, three: list[int]) -> None:
    assert score_yaku(three) == {name: 5}
    assert score_yaku(three[:2]) == {}
    assert score_yaku([*three, 13]) == {name: 6}
    # RULES.md example: akatan plus 2 other ribbons (5 ribbons) = 7; tan is not counted.
    assert score_yaku([*three, 13, 17]) == {name: 7}
    assert score_yaku([*three, *PLAIN_RIBBONS]) == {name: 9}


def test_akatan_aotan_combined_replaces_both() -> None:
    assert score_yaku(AKATAN + AOTAN) == {"akatan_aotan": 10}
    assert score_yaku(AKATAN + AOTAN + [42]) == {"akatan_aotan": 11}
    assert score_yaku(AKATAN + AOTAN + PLAIN_RIBBONS) == {"akatan_aotan": 14}
    assert score_yaku(AKATAN + AOTAN[:2]) == {"akatan": 7}


def test_hanami_and_tsukimi() -> None:
    assert score_yaku([CURTAIN, SAKE]) == {"hanami_zake": 5}
    assert score_yaku([MOON, SAKE]) == {"tsukimi_zake": 5}
    assert score_yaku([CURTAIN, MOON, SAKE]) == {"hanami_zake": 5, "tsukimi_zake": 5}
    assert score_yaku([CURTAIN, MOON]) == {}
    # They add to the bright yaku and the rain man does not wash them by default.
    assert score_yaku([CRANE, CURTAIN, MOON, SAKE, RAIN]) == {
        "ame_shiko": 7, "hanami_zake": 5, "tsukimi_zake": 5}


# ------------------------------------------------------------------ count yaku
def test_tane_counts_from_five_animals() -> None:
    assert score_yaku(OTHER_ANIMALS[:4]) == {}
    assert score_yaku(OTHER_ANIMALS) == {"tane": 1}
    assert score_yaku([*OTHER_ANIMALS, BOAR]) == {"tane": 2}
    assert score_yaku([*OTHER_ANIMALS, BOAR, DEER]) == {"tane": 3}
    # ...until ino-shika-cho stands: then tane is not counted.
    assert score_yaku([*OTHER_ANIMALS, BOAR, DEER, BUTTERFLIES]) == {"ino_shika_cho": 10}


def test_tan_counts_from_five_ribbons() -> None:
    four = [*PLAIN_RIBBONS]
    assert score_yaku(four) == {}
    assert score_yaku([*four, 1]) == {"tan": 1}
    assert score_yaku([*four, 1, 21]) == {"tan": 2}
    assert score_yaku([*four, 1, 5, 21, 33]) == {"tan": 4}


def test_tan_not_counted_while_a_poetry_yaku_stands() -> None:
    assert score_yaku([*PLAIN_RIBBONS, *AKATAN]) == {"akatan": 9}
    assert score_yaku([*PLAIN_RIBBONS, *AOTAN]) == {"aotan": 9}
    assert score_yaku([*PLAIN_RIBBONS, *AKATAN, *AOTAN]) == {"akatan_aotan": 14}


def test_kasu_counts_from_ten_chaff_with_the_sake_cup() -> None:
    assert score_yaku(CHAFF[:9]) == {}
    assert score_yaku(CHAFF[:10]) == {"kasu": 1}
    assert score_yaku(CHAFF[:12]) == {"kasu": 3}
    assert score_yaku(CHAFF) == {"kasu": 15}
    assert score_yaku([SAKE, *CHAFF[:9]]) == {"kasu": 1}
    assert score_yaku([SAKE, *CHAFF]) == {"kasu": 16}


def test_sake_cup_is_animal_and_chaff_at_once() -> None:
    pile = [SAKE, *OTHER_ANIMALS[:4], *CHAFF[:9]]
    assert score_yaku(pile) == {"tane": 1, "kasu": 1}
    pile = [SAKE, MOON, *OTHER_ANIMALS[:4], *CHAFF[:9]]
    assert score_yaku(pile) == {"tsukimi_zake": 5, "tane": 1, "kasu": 1}
    assert yaku_total(pile) == 7


def test_everything_adds_up() -> None:
    pile = [CRANE, CURTAIN, MOON, SAKE, BOAR, DEER, BUTTERFLIES, *AKATAN, *CHAFF[:10]]
    assert score_yaku(pile) == {"sanko": 5, "ino_shika_cho": 6, "akatan": 5,
                                "hanami_zake": 5, "tsukimi_zake": 5, "kasu": 2}
    assert yaku_total(pile) == 28


def test_rule_book_example_sanko_and_tan() -> None:
    pile = [CRANE, CURTAIN, MOON, *PLAIN_RIBBONS, 1]
    assert score_yaku(pile) == {"sanko": 5, "tan": 1}
    assert yaku_total(pile) == 6
    assert round_points(6, False, NINTENDO) == 6
    pile.append(21)  # one more ribbon: 7, doubled to 14
    assert yaku_total(pile) == 7
    assert round_points(7, False, NINTENDO) == 14


def test_empty_pile_scores_nothing() -> None:
    assert score_yaku([]) == {}
    assert yaku_total([], TEN_BASE) == 0


# ------------------------------------------------------------------ variants
def test_sake_cup_not_chaff_variant() -> None:
    rules = NINTENDO.replace(sake_cup_is_chaff=False)
    assert score_yaku([SAKE, *CHAFF[:9]], rules) == {}
    assert score_yaku([SAKE, *CHAFF[:10]], rules) == {"kasu": 1}
    assert score_yaku([SAKE, *OTHER_ANIMALS[:4]], rules) == {"tane": 1}  # still an animal


def test_hanami_tsukimi_off_variant() -> None:
    rules = NINTENDO.replace(hanami_tsukimi=False)
    assert score_yaku([CURTAIN, MOON, SAKE], rules) == {}
    assert score_yaku([CRANE, CURTAIN, MOON, SAKE], rules) == {"sanko": 5}


def test_rain_washes_sake_variant() -> None:
    rules = NINTENDO.replace(rain_washes_sake=True)
    assert score_yaku([CURTAIN, MOON, SAKE], rules) == {"hanami_zake": 5, "tsukimi_zake": 5}
    assert score_yaku([CURTAIN, MOON, SAKE, RAIN], rules) == {}
    assert score_yaku([CRANE, CURTAIN, MOON, SAKE, RAIN], rules) == {"ame_shiko": 7}


def test_akatan_aotan_combined_15_variant() -> None:
    rules = NINTENDO.replace(akatan_aotan="combined-15")
    assert score_yaku(AKATAN + AOTAN, rules) == {"akatan_aotan": 15}
    assert score_yaku(AKATAN + AOTAN + [42], rules) == {"akatan_aotan": 16}
    assert score_yaku(AKATAN, rules) == {"akatan": 5}


def test_akatan_aotan_separate_variant() -> None:
    rules = NINTENDO.replace(akatan_aotan="separate")
    assert score_yaku(AKATAN + AOTAN, rules) == {"akatan": 8, "aotan": 8}
    assert score_yaku(AKATAN + AOTAN + [42], rules) == {"akatan": 9, "aotan": 9}
    assert score_yaku(AKATAN + [13, 17], rules) == {"akatan": 7}


# ------------------------------------------------------------- ten-base (§2.9)
@pytest.mark.parametrize(
    ("pile", "expected"),
    [
        ([CRANE, CURTAIN, MOON, RAIN, PHOENIX], {"goko": 240}),
        ([CRANE, CURTAIN, MOON, PHOENIX], {"shiko": 120}),
        ([CRANE, CURTAIN, MOON, RAIN], {"ame_shiko": 80}),
        ([CRANE, CURTAIN, MOON], {"sanko": 60}),
        ([BOAR, DEER, BUTTERFLIES], {"ino_shika_cho": 50}),
        ([BOAR, DEER, BUTTERFLIES, 4, SAKE], {"ino_shika_cho": 70}),
        (AKATAN, {"akatan": 50}),
        (AOTAN, {"aotan": 50}),
        ([*AKATAN, 13], {"akatan": 60}),
        (AKATAN + AOTAN, {"akatan": 80, "aotan": 80}),  # 50+30+50+30 = 160
        (OTHER_ANIMALS, {"tane": 10}),
        ([*OTHER_ANIMALS, SAKE], {"tane": 20}),
        ([*PLAIN_RIBBONS, 1], {"tan": 10}),
        ([*PLAIN_RIBBONS, 1, 21], {"tan": 20}),
        (CHAFF[:10], {"kasu": 10}),
        (CHAFF[:11], {"kasu": 20}),
        ([SAKE, *CHAFF[:9]], {"kasu": 10}),
        ([CURTAIN, MOON, SAKE], {}),  # no hanami/tsukimi
    ],
)
def test_ten_base_point_table(pile: list[int], expected: dict) -> None:
    assert score_yaku(pile, "ten-base") == expected
    assert score_yaku(pile, TEN_BASE) == expected


def test_ten_base_six_poetry_ribbons_give_160() -> None:
    assert yaku_total(AKATAN + AOTAN, TEN_BASE) == 160


# --------------------------------------------------------------- round points
@pytest.mark.parametrize(
    ("base", "loser_called", "rules", "points", "factor"),
    [
        (5, False, NINTENDO, 5, 1),
        (6, False, NINTENDO, 6, 1),
        (5, True, NINTENDO, 10, 2),
        (7, False, NINTENDO, 14, 2),
        (7, True, NINTENDO, 28, 4),
        (12, True, NINTENDO, 48, 4),
        (7, False, NINTENDO.replace(seven_point_doubling=False), 7, 1),
        (7, True, NINTENDO.replace(seven_point_doubling=False), 14, 2),
        (5, True, NINTENDO.replace(koikoi_doubling=False), 5, 1),
        (7, True, NINTENDO.replace(koikoi_doubling=False), 14, 2),
        (9, True, NINTENDO.replace(koikoi_doubling=False, seven_point_doubling=False), 9, 1),
        (60, True, TEN_BASE, 60, 1),
        (240, False, TEN_BASE, 240, 1),
    ],
)
def test_round_points_doubling(base: int, loser_called: bool, rules: RuleSet, points: int,
                               factor: int) -> None:
    assert round_points(base, loser_called, rules) == points
    assert round_multiplier(base, loser_called, rules) == factor
    assert isinstance(round_points(base, loser_called, rules), int)


def test_round_points_on_arrays() -> None:
    base = np.array([5, 5, 7, 7, 1])
    called = np.array([False, True, False, True, True])
    np.testing.assert_array_equal(round_points(base, called, NINTENDO), [5, 10, 14, 28, 2])
    np.testing.assert_array_equal(round_multiplier(base, called, NINTENDO), [1, 2, 2, 4, 2])


# ------------------------------------------------------------------ hand yaku
TESHI = [0, 1, 2, 3, 4, 8, 12, 16]
KUTTSUKI = [0, 1, 4, 5, 8, 9, 12, 13]
BOTH = [0, 1, 2, 3, 4, 5, 8, 9]  # four of a month and two pairs
TWO_FOURS = [0, 1, 2, 3, 4, 5, 6, 7]
NOTHING = [0, 1, 4, 5, 8, 9, 12, 16]  # three pairs and two singles
THREE_OF = [0, 1, 2, 4, 5, 8, 9, 12]


def _hand_points(hands: list[list[int]], rules: RuleSet) -> list[int]:
    bits = np.array([C.mask_of(h) for h in hands], dtype=np.uint64)
    return hand_yaku_points(bits, rules).tolist()


def test_hand_yaku_default() -> None:
    hands = [TESHI, KUTTSUKI, BOTH, TWO_FOURS, NOTHING, THREE_OF]
    assert _hand_points(hands, NINTENDO) == [6, 6, 6, 6, 0, 0]


def test_hand_yaku_teshi_only_and_none() -> None:
    hands = [TESHI, KUTTSUKI, BOTH, NOTHING]
    assert _hand_points(hands, NINTENDO.replace(hand_yaku="teshi")) == [6, 0, 6, 0]
    assert _hand_points(hands, NINTENDO.replace(hand_yaku="none")) == [0, 0, 0, 0]


def test_hand_yaku_ten_base_teshi_50() -> None:
    assert _hand_points([TESHI, KUTTSUKI, BOTH, NOTHING], TEN_BASE) == [50, 0, 50, 0]


def test_hand_yaku_keeps_batch_shape() -> None:
    bits = np.array([[C.mask_of(TESHI), C.mask_of(NOTHING)]] * 3, dtype=np.uint64)
    points = hand_yaku_points(bits, NINTENDO)
    assert points.shape == (3, 2)
    assert points.tolist() == [[6, 0]] * 3


# ------------------------------------------------- scalar vs batch agreement
AGREEMENT_RULES = [
    NINTENDO,
    TEN_BASE,
    NINTENDO.replace(sake_cup_is_chaff=False, hanami_tsukimi=True, rain_washes_sake=True),
    NINTENDO.replace(hanami_tsukimi=False),
    NINTENDO.replace(akatan_aotan="combined-15"),
    NINTENDO.replace(akatan_aotan="separate"),
    TEN_BASE.replace(akatan_aotan="combined-10", hanami_tsukimi=True),
]


def _random_piles(rng: np.random.Generator, n: int) -> list[list[int]]:
    """Piles of every size, with yaku-rich cards drawn more often so yaku actually appear."""
    weight = np.ones(48)
    weight[[*C.ids_of(C.BRIGHTS), *C.ids_of(C.ANIMALS), *C.ids_of(C.RIBBONS)]] = 3.0
    weight /= weight.sum()
    sizes = rng.integers(0, 49, size=n)
    return [sorted(rng.choice(48, size=int(k), replace=False, p=weight).tolist())
            for k in sizes]


@pytest.mark.parametrize("rules", AGREEMENT_RULES, ids=[f"rules{i}" for i in range(7)])
def test_scalar_and_batch_scorers_agree(rules: RuleSet) -> None:
    rng = np.random.default_rng(12345)
    piles = _random_piles(rng, 2000)
    bits = np.array([C.mask_of(p) for p in piles], dtype=np.uint64)
    scorer = batch_scorer(rules)
    breakdown = scorer.breakdown(bits)
    totals = scorer.totals(bits)
    assert breakdown.shape == (len(piles), len(scorer.names))
    seen: set[str] = set()
    for k, pile in enumerate(piles):
        expected = score_yaku(pile, rules)
        assert set(expected) <= set(scorer.names)
        row = [expected.get(name, 0) for name in scorer.names]
        assert breakdown[k].tolist() == row, (pile, expected)
        assert int(totals[k]) == sum(expected.values())
        seen.update(n for n, v in expected.items() if v)
    assert len(seen) >= 8  # the sample really exercised many yaku


def test_batch_scorer_keeps_leading_shape() -> None:
    bits = np.array([[C.mask_of(AKATAN), C.mask_of([CRANE, CURTAIN, MOON])]] * 2,
                    dtype=np.uint64)
    assert batch_scorer(NINTENDO).totals(bits).tolist() == [[5, 5], [5, 5]]


@pytest.mark.parametrize("rules", [NINTENDO, TEN_BASE, NINTENDO.replace(akatan_aotan="separate"),
                                   NINTENDO.replace(hanami_tsukimi=False)])
def test_every_yaku_table_keeps_the_order_of_yaku_names(rules: RuleSet) -> None:
    """Breakdowns, result tables and logs list yaku in YAKU_NAMES order; a rule set only
    leaves some out (the default keeps them all)."""
    names = [y.name for y in yaku_table(rules)]
    assert names == [n for n in YAKU_NAMES if n in names]
    if rules == NINTENDO:
        assert tuple(names) == YAKU_NAMES


# ------------------------------------------------------------------ point units
NO_EXTRA = NINTENDO.replace(points={"extra_card": 0})


def test_a_table_whose_further_cards_add_nothing_keeps_the_unit_of_one() -> None:
    assert NO_EXTRA.point_unit == 1 and resolve_rules("ten-base").point_unit == 10
    ribbons = C.mask_of([1, 5, 9, 21, 33, 37])  # the three red and the three blue ribbons
    assert score_pile(ribbons, yaku_table(NO_EXTRA))["akatan_aotan"] == 10
