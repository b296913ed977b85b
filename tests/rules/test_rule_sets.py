"""Rule sets (RULES.md §2.1–2.9): presets, defaults, and building them from data, YAML
files and names."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hanafuda_env.koikoi.rules import (
    NINTENDO,
    PRESETS,
    TEN_BASE,
    PointTable,
    RuleError,
    RuleSet,
    resolve_rules,
)


def test_presets_are_named_and_default_is_nintendo() -> None:
    assert set(PRESETS) == {"nintendo", "ten-base", "koikoi-japan"}
    assert PRESETS["nintendo"] is NINTENDO and PRESETS["ten-base"] is TEN_BASE
    assert RuleSet() == NINTENDO
    assert NINTENDO.name == "nintendo" and TEN_BASE.name == "ten-base"


def test_defaults_follow_rules_2_1_to_2_7() -> None:
    r = NINTENDO
    assert r.sake_cup_is_chaff is True
    assert r.hanami_tsukimi is True
    assert r.rain_washes_sake is False
    assert r.akatan_aotan == "combined-10"
    assert r.combined_ribbon_points == 10
    assert r.seven_point_doubling is True
    assert r.koikoi_doubling is True and r.koikoi_multiplier == 2
    assert r.multiple_koikoi is False
    assert r.on_exhaustion == "no-game"
    assert r.exhaustion_points == 6
    assert r.hand_yaku == "teshi+kuttsuki"
    assert r.next_dealer == "winner"
    assert r.rounds == 12
    assert r.target_score is None
    assert r.points == PointTable(
        goko=10, shiko=8, ame_shiko=7, sanko=5, ino_shika_cho=5, akatan=5, aotan=5,
        hanami_zake=5, tsukimi_zake=5, tane=1, tan=1, kasu=1, extra_card=1, teshi=6,
        kuttsuki=6)


def test_ten_base_preset_follows_2_9() -> None:
    r = TEN_BASE
    p = r.points
    assert (p.goko, p.shiko, p.ame_shiko, p.sanko) == (240, 120, 80, 60)
    assert (p.ino_shika_cho, p.akatan, p.aotan) == (50, 50, 50)
    assert (p.tane, p.tan, p.kasu, p.extra_card) == (10, 10, 10, 10)
    assert p.teshi == 50
    assert r.hanami_tsukimi is False
    assert r.sake_cup_is_chaff is True
    assert r.akatan_aotan == "separate"
    assert r.seven_point_doubling is False and r.koikoi_doubling is False
    assert r.koikoi_multiplier == 1
    assert r.multiple_koikoi is True
    assert r.on_exhaustion == "highest-total" and r.exhaustion_points == 50
    assert r.hand_yaku == "teshi"


def test_combined_15_scales_with_the_card_unit() -> None:
    assert NINTENDO.replace(akatan_aotan="combined-15").combined_ribbon_points == 15
    assert TEN_BASE.replace(akatan_aotan="combined-15").combined_ribbon_points == 150


def test_rule_sets_are_frozen_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        NINTENDO.rounds = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        NINTENDO.points.goko = 1  # type: ignore[misc]
    assert hash(NINTENDO.replace(rounds=3)) == hash(NINTENDO.replace(rounds=3))


# --------------------------------------------------------------------- building
def test_from_dict_changes_only_what_it_names() -> None:
    r = RuleSet.from_dict({"rain_washes_sake": True, "rounds": 6})
    assert r.rain_washes_sake is True and r.rounds == 6
    assert r.name == "nintendo+custom"
    assert dataclasses.replace(r, rain_washes_sake=False, rounds=12,
                               name="nintendo") == NINTENDO
    assert RuleSet.from_dict({}) == NINTENDO


def test_from_dict_with_preset_and_base() -> None:
    r = RuleSet.from_dict({"preset": "ten-base", "rounds": 3})
    assert r.rounds == 3 and r.points == TEN_BASE.points and r.on_exhaustion == "highest-total"
    r = RuleSet.from_dict({"target_score": 100}, base="ten-base")
    assert r.target_score == 100 and r.points.goko == 240
    r = RuleSet.from_dict({"rounds": 3}, base=TEN_BASE)
    assert r.points == TEN_BASE.points and r.rounds == 3


def test_from_dict_partial_points_keep_the_rest() -> None:
    r = RuleSet.from_dict({"points": {"goko": 15, "teshi": 4}})
    assert r.points.goko == 15 and r.points.teshi == 4
    assert dataclasses.replace(r.points, goko=10, teshi=6) == NINTENDO.points
    r = RuleSet.from_dict({"preset": "ten-base", "points": {"kasu": 20}})
    assert r.points.kasu == 20 and r.points.goko == 240


def test_replace_validates_and_leaves_the_original() -> None:
    r = NINTENDO.replace(on_exhaustion="dealer-wins", exhaustion_points=4)
    assert r.on_exhaustion == "dealer-wins" and r.exhaustion_points == 4
    assert NINTENDO.on_exhaustion == "no-game"
    with pytest.raises(RuleError):
        NINTENDO.replace(on_exhaustion="everybody-wins")


def test_to_dict_round_trips() -> None:
    for rules in (NINTENDO, TEN_BASE, NINTENDO.replace(target_score=30, next_dealer="alternate")):
        assert RuleSet.from_dict(rules.to_dict()) == rules


def test_from_yaml(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(
        "preset: ten-base\n"
        "rounds: 6\n"
        "target_score: null\n"
        "hanami_tsukimi: true\n"
        "points:\n"
        "  hanami_zake: 30\n",
        encoding="utf-8",
    )
    r = RuleSet.from_yaml(path)
    assert r.rounds == 6 and r.hanami_tsukimi is True and r.points.hanami_zake == 30
    assert r.points.goko == 240
    empty = tmp_path / "empty.yml"
    empty.write_text("", encoding="utf-8")
    assert RuleSet.from_yaml(empty) == NINTENDO


def test_from_yaml_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("akatan_aotan: combined-20\n", encoding="utf-8")
    with pytest.raises(RuleError) as info:
        RuleSet.from_yaml(path)
    message = str(info.value)
    assert "bad.yaml" in message and "combined-20" in message and "combined-15" in message


# ---------------------------------------------------------------- resolve_rules
def test_resolve_rules_each_input_type(tmp_path: Path) -> None:
    assert resolve_rules() is NINTENDO
    assert resolve_rules(None) is NINTENDO
    custom = NINTENDO.replace(rounds=3)
    assert resolve_rules(custom) is custom
    assert resolve_rules("nintendo") is NINTENDO
    assert resolve_rules("ten-base") is TEN_BASE
    assert resolve_rules({"rounds": 3}) == custom.replace(name="nintendo+custom")
    assert resolve_rules({"preset": "ten-base"}) == TEN_BASE
    # a preset with changes is not the preset: its name says so (evaluate.py prints it)
    assert resolve_rules({"preset": "ten-base", "rounds": 3}).name == "ten-base+custom"
    assert resolve_rules({"preset": "ten-base", "rounds": TEN_BASE.rounds}) == TEN_BASE
    assert resolve_rules({"rounds": 3, "name": "short"}).name == "short"
    path = tmp_path / "r.yaml"
    path.write_text("rounds: 3\nnext_dealer: alternate\n", encoding="utf-8")
    for spec in (path, str(path)):
        r = resolve_rules(spec)
        assert r.rounds == 3 and r.next_dealer == "alternate"
    yml = tmp_path / "r.yml"
    yml.write_text("preset: ten-base\n", encoding="utf-8")
    assert resolve_rules(str(yml)) == TEN_BASE


def test_resolve_rules_rejects_other_types() -> None:
    with pytest.raises(RuleError) as info:
        resolve_rules(12)  # type: ignore[arg-type]
    assert "nintendo" in str(info.value) and "ten-base" in str(info.value)
