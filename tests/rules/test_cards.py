"""The card table of RULES.md §1 (ids, months, kinds, the named cards) and the card-set
helpers built on it."""

from __future__ import annotations

from hanafuda_env.common import cards as C

KIND_IDS = {
    C.BRIGHT: [0, 8, 28, 40, 44],
    C.ANIMAL: [4, 12, 16, 20, 24, 29, 32, 36, 41],
    C.RIBBON: [1, 5, 9, 13, 17, 21, 25, 33, 37, 42],
}
NAMED = {  # RULES.md §1 notes column
    "CRANE": [0], "CURTAIN": [8], "MOON": [28], "RAIN_MAN": [40], "PHOENIX": [44],
    "SAKE_CUP": [32], "BOAR": [24], "DEER": [36], "BUTTERFLIES": [20],
    "RED_POETRY_RIBBONS": [1, 5, 9], "BLUE_RIBBONS": [21, 33, 37],
    "KUSA_RIBBONS": [13, 17, 25], "WILLOW_RIBBON": [42], "LIGHTNING": [43],
    "BUSH_WARBLER": [4], "GEESE": [29],
}


def test_deck_follows_the_card_table() -> None:
    """§1: id = 4*(month-1)+slot, each card's kind, and the special cards of the notes."""
    for card in C.DECK:
        assert card.month == card.id // 4 + 1
        expected = next((k for k, ids in KIND_IDS.items() if card.id in ids), C.CHAFF)
        assert card.kind == expected, card
    counts = {k: sum(c.kind == k for c in C.DECK) for k in C.KINDS}
    assert counts == {C.BRIGHT: 5, C.ANIMAL: 9, C.RIBBON: 10, C.CHAFF: 24}
    for name, ids in NAMED.items():
        assert C.ids_of(getattr(C, name)) == ids, name
    assert C.INO_SHIKA_CHO == C.mask_of([20, 24, 36])
    # the sake cup is an animal (also chaff for kasu, §2.3); the lightning is chaff
    assert (C.DECK[32].name_ja, C.DECK[32].kind) == ("菊に盃", C.ANIMAL)
    assert (C.DECK[40].name_ja, C.DECK[43].name_ja) == ("柳に小野道風", "柳のカス")
    assert C.DECK[43].kind == C.CHAFF and C.DECK[42].kind == C.RIBBON
    # within a month the slots go from the most to the least valuable card
    value = {C.BRIGHT: 3, C.ANIMAL: 2, C.RIBBON: 1, C.CHAFF: 0}
    for m in range(12):
        kinds = [value[C.DECK[4 * m + s].kind] for s in range(4)]
        assert kinds == sorted(kinds, reverse=True), m + 1


# -------------------------------------------------------------------- card sets
def test_mask_of_is_a_set_union() -> None:
    """mask_of holds each given card once, however often it is named."""
    assert C.mask_of([1, 1, 2]) == 0b110
    assert C.mask_of([0, 0, 0]) == 1
    assert C.mask_of([]) == 0
    assert C.ids_of(C.mask_of([47, 3, 3])) == [3, 47]


def test_describe_names_an_empty_set_with_a_dash() -> None:
    """An empty card set reads as "-" (never an empty string)."""
    assert C.describe(0) == "-"
    assert C.describe(C.mask_of([0, 47])) == "pine crane, paulownia chaff"
