"""Every rule value is checked where a rule set is made: unknown keys, values and presets are
named with what is allowed, yes/no options take only booleans, and numbers take exactly their
documented range (inclusive at both ends), so a typo in a YAML file fails loudly instead of
changing the game."""

from __future__ import annotations

from typing import Any

import pytest

from hanafuda_env.koikoi.rules import (
    NINTENDO,
    PointTable,
    RuleError,
    RuleSet,
    resolve_rules,
)


# ---------------------------------------------------------------- unknown names
def _message(spec: dict) -> str:
    with pytest.raises(RuleError) as info:
        RuleSet.from_dict(spec)
    return str(info.value)


def test_unknown_option_key_lists_the_options() -> None:
    message = _message({"koikoi_twice": True})
    assert "koikoi_twice" in message
    for option in ("preset", "sake_cup_is_chaff", "on_exhaustion", "multiple_koikoi",
                   "target_score", "points"):
        assert option in message


@pytest.mark.parametrize(
    ("key", "bad", "allowed"),
    [
        ("akatan_aotan", "combined-20", ("combined-10", "combined-15", "separate")),
        ("on_exhaustion", "sudden-death",
         ("no-game", "dealer-wins", "non-dealer-wins", "highest-total")),
        ("hand_yaku", "kuttsuki", ("teshi+kuttsuki", "teshi", "none")),
        ("next_dealer", "loser", ("winner", "alternate")),
    ],
)
def test_unknown_value_lists_the_values(key: str, bad: str, allowed: tuple[str, ...]) -> None:
    message = _message({key: bad})
    assert key in message and bad in message
    for value in allowed:
        assert value in message


def test_unknown_preset_lists_the_presets() -> None:
    message = _message({"preset": "nintendoo"})
    assert "nintendoo" in message and "nintendo," in message and "ten-base" in message
    with pytest.raises(RuleError, match="ten-base"):
        resolve_rules("hana-awase")
    with pytest.raises(RuleError, match="hana-awase"):
        RuleSet.from_dict({}, base="hana-awase")


def test_bad_points_key_lists_the_yaku() -> None:
    message = _message({"points": {"gokou": 12}})
    assert "gokou" in message
    for name in ("goko", "ame_shiko", "ino_shika_cho", "kasu", "extra_card", "teshi"):
        assert name in message


# ----------------------------------------------------------------------- values
@pytest.mark.parametrize(
    "spec",
    [
        {"sake_cup_is_chaff": "yes"},
        {"multiple_koikoi": 1},
        {"rounds": 0},
        {"rounds": "12"},
        {"target_score": -5},
        {"exhaustion_points": -1},
        {"points": {"goko": -1}},
        {"points": {"goko": 1.5}},
        {"points": [1, 2]},
    ],
)
def test_bad_values_raise_rule_error_naming_them(spec: dict) -> None:
    key = next(iter(spec))
    message = _message(spec)
    assert key in message


def test_rule_error_is_a_value_error() -> None:
    assert issubclass(RuleError, ValueError)
    with pytest.raises(RuleError):
        RuleSet.from_dict(["rounds", 3])  # type: ignore[arg-type]


BOOL_OPTIONS = ("sake_cup_is_chaff", "hanami_tsukimi", "rain_washes_sake",
                "seven_point_doubling", "koikoi_doubling", "multiple_koikoi")


@pytest.mark.parametrize("option", BOOL_OPTIONS)
@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_every_yes_no_option_refuses_anything_but_a_boolean(option: str, bad: Any) -> None:
    """A YAML typo ("yes" quoted, 1) must fail loudly rather than switch a rule on."""
    with pytest.raises(RuleError, match=option):
        RuleSet.from_dict({option: bad})
    assert getattr(RuleSet.from_dict({option: True}), option) is True
    assert getattr(RuleSet.from_dict({option: False}), option) is False


def test_target_score_must_be_reachable_by_scoring() -> None:
    """§2.8 target_score: "the first to reach it wins"; 0 would end every match at once."""
    for bad in (0, -1, True, 2.5):
        with pytest.raises(RuleError, match="target_score"):
            NINTENDO.replace(target_score=bad)
    assert NINTENDO.replace(target_score=1).target_score == 1
    assert NINTENDO.replace(target_score=None).target_score is None


def test_exhaustion_points_may_be_zero_but_not_negative() -> None:
    """The set value of 親権/つかず (§2.8) is a non-negative number of points: 0 is a rule
    set (a dealer's win worth nothing), -1 is not."""
    rules = NINTENDO.replace(on_exhaustion="dealer-wins", exhaustion_points=0)
    assert rules.exhaustion_points == 0
    for bad in (-1, 1.5, "6"):
        with pytest.raises(RuleError, match="exhaustion_points"):
            NINTENDO.replace(exhaustion_points=bad)


def test_point_values_must_not_be_bools() -> None:
    with pytest.raises(RuleError, match=r"points for 'kasu' must be an integer"):
        PointTable(kasu=True)
    with pytest.raises(RuleError, match=r"points for 'tan' must be an integer"):
        resolve_rules({"points": {"tan": False}})


# ----------------------------------------------------------------------- bounds
@pytest.mark.parametrize(("spec", "message"), [
    ({"rounds": 40000}, r"rule 'rounds' must be an integer from 1 to 1000 \(3, 6, 12 …\), "
                        r"got 40000"),
    ({"rounds": 10**20}, r"rule 'rounds' must be an integer from 1 to 1000"),
    ({"points": {"kasu": 40000}}, r"points for 'kasu' must be an integer from 0 to 1000, "
                                  r"got 40000"),
    ({"exhaustion_points": 3_000_000_000}, r"'exhaustion_points' must be an integer from 0 to "
                                           r"1000"),
    ({"target_score": 10**9}, r"'target_score' must be an integer from 1 to 1000000 or null"),
    ({"preset": ["a"]}, r"unknown rule preset \['a'\]; allowed presets: nintendo, ten-base"),
    ({"name": [1, 2]}, r"rule 'name' must be a non-empty string, got \[1, 2\]"),
    ({"name": ""}, r"rule 'name' must be a non-empty string, got ''"),
])
def test_values_the_engines_cannot_hold_are_refused_by_name(spec: dict, message: str) -> None:
    """Past these bounds the core's int16/int32 state would overflow (and credit the wrong
    seat); an unhashable name or preset failed deep inside with a TypeError."""
    with pytest.raises(RuleError, match=message):
        resolve_rules(spec)


def test_rule_bounds_are_inclusive_exactly_at_the_documented_limits() -> None:
    assert RuleSet(rounds=1000).rounds == 1000
    assert PointTable(kasu=1000).kasu == 1000
    assert RuleSet(exhaustion_points=1000).exhaustion_points == 1000
    assert RuleSet(target_score=1).target_score == 1
    assert RuleSet(target_score=1_000_000).target_score == 1_000_000
    for make in (lambda: RuleSet(rounds=1001), lambda: PointTable(kasu=1001),
                 lambda: RuleSet(exhaustion_points=1001), lambda: RuleSet(target_score=0),
                 lambda: RuleSet(target_score=1_000_001)):
        with pytest.raises(RuleError):
            make()


def test_a_point_table_given_whole_is_bounded_too() -> None:
    """``RuleSet(points=PointTable(...))`` and ``replace`` skip the mapping's checks: the
    table checks itself."""
    from hanafuda_env.koikoi.rules import PointTable

    with pytest.raises(RuleError, match=r"points for 'extra_card' must be an integer from 0 "
                                        r"to 1000, got 5000"):
        RuleSet(points=PointTable(extra_card=5000))
    with pytest.raises(RuleError, match=r"points for 'tan' must be an integer"):
        resolve_rules(None).replace(points=PointTable(tan=-1))


@pytest.mark.parametrize("text", ["false\n", "0\n", "[]\n", "- rounds: 3\n"])
def test_a_rule_file_that_is_not_a_mapping_is_refused(tmp_path, text: str) -> None:
    """Only an empty file means the defaults; ``false`` or a list is a mistake."""
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    with pytest.raises(RuleError, match=r"rules\.yaml: a rule set must be a mapping of options"):
        resolve_rules(str(path))
    path.write_text("")
    assert resolve_rules(str(path)) == resolve_rules(None)
