"""Golden cases from RULES.md §3: the deal table, par, every yaku and replacement, the score
formula at every player count, and each §3.4 variant."""

from __future__ import annotations

import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.hanaawase.scoring import hanaawase_yaku_table, score_round, zero_sum_rewards
from hanafuda_env.koikoi.rules import RuleError
from hanafuda_env.koikoi.scoring import score_pile

CRANE, WARBLER, CURTAIN, MOON, RAIN, PHOENIX = 0, 4, 8, 28, 40, 44
SAKE, BOAR, DEER, BUTTERFLIES, GEESE = 32, 24, 36, 20, 29
RED, BLUE, KUSA = (1, 5, 9), (21, 33, 37), (13, 17, 25)
CHAFF = [c.id for c in C.DECK if c.kind == C.CHAFF]


def yaku(cards, **options) -> dict[str, int]:
    return score_pile(C.mask_of(cards), hanaawase_yaku_table(HanaawaseRules(**options)))


@pytest.mark.parametrize(("n", "hand", "field", "par"), [
    (2, 10, 8, 132), (3, 7, 6, 88), (4, 5, 8, 66), (5, 4, 8, 53), (6, 3, 12, 44), (7, 3, 6, 38)])
def test_deal_sizes_and_par_by_player_count(n, hand, field, par) -> None:
    rules = HanaawaseRules(num_players=n)
    assert (rules.hand_size, rules.field_size, rules.par) == (hand, field, par)
    assert rules.stock_size == n * hand, "one draw per turn: the stock runs out with the hands"
    assert sum(rules.card_points) == 264
    assert sum(HanaawaseRules(num_players=n, chaff_zero=True).card_points) == 240


def test_chaff_worth_zero_lowers_par() -> None:
    assert [HanaawaseRules(num_players=n, chaff_zero=True).par for n in range(2, 8)] == [
        120, 80, 60, 48, 40, 34]


@pytest.mark.parametrize(("options", "message"), [
    ({"num_players": 8}, "from 2 to 7"), ({"num_players": "3"}, "from 2 to 7"),
    ({"rounds": 0}, "rounds"), ({"fuke": 1}, "true or false"),
    ({"nana_kasu": True, "num_players": 4}, "three-player"),
    ({"hatcho": True, "num_players": 2}, "three-player"),
    ({"oya": True}, "unknown Hana-awase option 'oya'; allowed options: num_players")])
def test_bad_options_are_refused_by_name(options, message) -> None:
    with pytest.raises(RuleError, match=message):
        resolve_hanaawase_rules(options)


@pytest.mark.parametrize(("cards", "expected"), [
    ((CRANE, CURTAIN, MOON, RAIN, PHOENIX), {"goko": 200}),
    ((CRANE, CURTAIN, MOON, PHOENIX), {"shiko": 60}),
    ((CRANE, MOON, PHOENIX), {"sanko": 20}),
    ((CRANE, CURTAIN, MOON, RAIN), {}),  # no rain-shiko in Hana-awase
    ((CURTAIN, MOON, RAIN), {}),  # sanko needs crane, moon and phoenix
    (RED, {"akatan": 40}), (BLUE, {"aotan": 40}), (KUSA, {"kusa": 20}),
    (RED + BLUE, {"akatan": 40, "aotan": 40, "rokutan": 30}),
    (RED + BLUE + (13,), {"akatan": 40, "aotan": 40, "nanatan": 40}),
    ((1, 5, 13, 17, 21, 42), {}),  # the willow ribbon does not count for rokutan
    ((CRANE, WARBLER, CURTAIN), {"omote_sugawara": 30}),
    ((CURTAIN, MOON, SAKE), {"nomi": 30, "hanami": 20, "tsukimi": 20}),  # 70 in effect
    ((CURTAIN, SAKE), {"hanami": 20}), ((MOON, SAKE), {"tsukimi": 20}),
    ((BOAR, DEER, BUTTERFLIES), {"ino_shika_cho": 20}),
    ((12, 13, 14, 15), {"fuji_shima": 20}), ((44, 45, 46, 47), {"kiri_shima": 20}),
    ((40, 41, 42, 43), {"ame_shima": 20}),
])
def test_every_yaku_and_its_replacements(cards, expected) -> None:
    assert yaku(cards) == expected


def test_yaku_nagashi_replaces_ame_shima() -> None:
    assert yaku((40, 41, 42, 43), yaku_nagashi=True) == {}


def piles_for(n: int, extra: dict[int, tuple[int, ...]]) -> list[int]:
    """Seat piles: the given cards for some seats, the rest of the deck dealt round-robin."""
    taken = {c for cards in extra.values() for c in cards}
    rest = [c for c in range(48) if c not in taken]
    piles = [C.mask_of(extra.get(p, ())) for p in range(n)]
    for i, card in enumerate(rest):
        piles[i % n] |= 1 << card
    return piles


@pytest.mark.parametrize("n", range(2, 8))
def test_the_score_formula_at_every_player_count(n: int) -> None:
    rules = HanaawaseRules(num_players=n)
    piles = piles_for(n, {0: RED, 1: (CURTAIN, SAKE)})
    s = score_round(piles, [0] * n, 0, rules)
    cards = [sum(rules.card_points[c] for c in C.ids_of(pile)) for pile in piles]
    assert list(s.card_points) == cards and sum(cards) == 264
    own = [0] * n
    own[0], own[1] = s.yaku_total[0], s.yaku_total[1]
    assert own[0] >= 40 and own[1] >= 20
    for p in range(n):
        assert s.score[p] == cards[p] - rules.par + own[p] * (n - 1) - (sum(own) - own[p])
    assert sum(s.score) == 264 - n * rules.par  # 0, except −1 for 5 and −2 for 7 players
    assert abs(sum(zero_sum_rewards(s.score))) < 1e-9


def test_three_player_example_matches_the_source_formula() -> None:
    # seat 0: akatan (40) and 5 + 5 + 5 + 1 + 1 card points... computed from the piles
    piles = [C.mask_of((1, 5, 9, 2, 3)), C.mask_of((CURTAIN, SAKE)), 0]
    piles[2] = ((1 << 48) - 1) & ~piles[0] & ~piles[1]
    s = score_round(piles, [0, 0, 0], 0, HanaawaseRules())
    assert s.card_points[:2] == (17, 30)
    assert s.yaku_total[:2] == (40, 20)
    assert s.score[0] == 17 - 88 + 40 * 2 - 20 - s.yaku_total[2]
    assert s.score[1] == 30 - 88 + 20 * 2 - 40 - s.yaku_total[2]


def test_five_and_seven_players_keep_the_source_par_and_zero_sum_rewards() -> None:
    for n, missing in ((5, -1), (7, -2)):
        s = score_round(piles_for(n, {}), [0] * n, 0, HanaawaseRules(num_players=n))
        assert sum(s.score) == missing
        rewards = zero_sum_rewards(s.score)
        assert abs(sum(rewards)) < 1e-9
        assert rewards[0] - rewards[1] == s.score[0] - s.score[1]


def test_declared_hand_yaku_score_as_yaku() -> None:
    rules = HanaawaseRules(nana_kasu=True, roku_kasu=True)
    piles = piles_for(3, {})
    seven, six = C.mask_of(CHAFF[:7]), C.mask_of(CHAFF[:6] + [0])
    assert score_round(piles, [seven, six, 0], 0, rules).yaku[0]["nana_kasu"] == 30
    assert score_round(piles, [seven, six, 0], 0, rules).yaku[1]["roku_kasu"] == 20
    off = score_round(piles, [seven, six, 0], 0, HanaawaseRules())
    assert "nana_kasu" not in off.yaku[0] and "roku_kasu" not in off.yaku[1]


def test_hatcho_counts_captured_cards_by_seat_from_the_dealer() -> None:
    rules = HanaawaseRules(hatcho=True)
    eight, ten = C.mask_of(range(8)), C.mask_of(range(8, 18))
    rest = ((1 << 48) - 1) & ~eight & ~ten
    # dealer 1: seat 1 deals, seat 2 is second, seat 0 third (biki: up to 10)
    s = score_round([ten, rest, eight], [0, 0, 0], 1, rules)
    assert s.yaku[0].get("hatcho") == 30 and s.yaku[2].get("hatcho") == 30
    s = score_round([eight, ten, rest], [0, 0, 0], 0, rules)
    assert s.yaku[0].get("hatcho") == 30 and "hatcho" not in s.yaku[1]


@pytest.mark.parametrize(("option", "cards"), [("yaku_nagashi", (40, 41, 42, 43)),
                                               ("arashi", (BOAR, GEESE, DEER))])
def test_yaku_nagashi_and_arashi_cancel_every_yaku_hand_ones_too(option, cards) -> None:
    rules = HanaawaseRules(**{option: True, "nana_kasu": True})
    piles = piles_for(3, {0: RED, 1: cards})
    s = score_round(piles, [C.mask_of(CHAFF[:7]), 0, 0], 0, rules)
    assert s.cancelled and s.yaku == ({}, {}, {})
    assert list(s.score) == [c - 88 for c in s.card_points]
    assert not score_round(piles, [0, 0, 0], 0, HanaawaseRules()).cancelled


def test_fuke_voids_a_round_with_a_player_at_twenty_card_points_or_less() -> None:
    rules = HanaawaseRules(fuke=True)
    low = C.mask_of(CHAFF[:20])  # 20 card points
    rest = ((1 << 48) - 1) & ~low
    half = C.mask_of(C.ids_of(rest)[:14])
    s = score_round([low, half, rest & ~half], [0, 0, 0], 0, rules)
    assert s.void and s.score == (0, 0, 0)
    more = C.mask_of(CHAFF[:21])
    rest = ((1 << 48) - 1) & ~more
    half = C.mask_of(C.ids_of(rest)[:14])
    assert not score_round([more, half, rest & ~half], [0, 0, 0], 0, rules).void
