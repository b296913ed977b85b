"""Rule sets for Koi-Koi (RULES.md §2.8–2.10) as frozen, validated data.

A :class:`RuleSet` holds every option and the point table. Build one from a preset name
(``"nintendo"`` — the default —, ``"ten-base"`` or ``"koikoi-japan"``), a dict, or a YAML
file with
:func:`resolve_rules`. Unknown keys or values raise :class:`RuleError`, naming the culprit
and listing what is allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class RuleError(ValueError):
    """A rule set option, value or preset name is not known."""


@dataclass(frozen=True)
class PointTable:
    """Yaku and hand-yaku points. ``extra_card`` is what each further card adds (上乗せ)."""

    goko: int = 10
    shiko: int = 8
    ame_shiko: int = 7
    sanko: int = 5
    ino_shika_cho: int = 5
    akatan: int = 5
    aotan: int = 5
    hanami_zake: int = 5
    tsukimi_zake: int = 5
    tane: int = 1
    tan: int = 1
    kasu: int = 1
    extra_card: int = 1
    teshi: int = 6
    kuttsuki: int = 6

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if not _is_int(value) or not 0 <= value <= MAX_POINTS:
                raise RuleError(f"points for {item.name!r} must be an integer from 0 to "
                                f"{MAX_POINTS}, got {value!r}")


# Allowed values for the options that take one of a few names.
CHOICES: dict[str, tuple[Any, ...]] = {
    "akatan_aotan": ("combined-10", "combined-15", "combined-plus-each", "separate"),
    "on_exhaustion": ("no-game", "dealer-wins", "non-dealer-wins", "highest-total",
                      "dealer-wins-always"),
    "hand_yaku": ("teshi+kuttsuki", "teshi", "none"),
    "next_dealer": ("winner", "alternate"),
}
# §2.6, §2.8 on_exhaustion: who wins a round whose hands ran out while nobody made yaku or
# called koi-koi — the dealer (0) or the other (1), None for a no-game. ("highest-total"
# also scores a round with a koi-koi by the higher yaku total; "dealer-wins-always" gives
# the dealer every such round, koi-koi or not, §2.10.)
QUIET_EXHAUSTION_WINNER: dict[str, int | None] = {
    "no-game": None, "dealer-wins": 0, "non-dealer-wins": 1, "highest-total": 0,
    "dealer-wins-always": 0,
}
BOOLEAN_OPTIONS = ("sake_cup_is_chaff", "hanami_tsukimi", "rain_washes_sake",
                   "tane_with_ino_shika_cho", "tan_with_poetry_ribbons", "seven_point_doubling",
                   "koikoi_doubling", "multiple_koikoi", "own_koikoi_bonus", "redeal_hand_four")
# Upper bounds that keep the engines' fixed-width state exact: round indices are int16, yaku
# counts times points int16, scores int32 (1000 rounds of the largest round stay < 2**31).
MAX_ROUNDS = 1000
MAX_POINTS = 1000  # any one point value (a yaku, a further card, a hand yaku, exhaustion)
MAX_TARGET_SCORE = 1_000_000


@dataclass(frozen=True)
class RuleSet:
    """Every Koi-Koi rule option. Defaults are the Nintendo rules of RULES.md §2.1–2.7."""

    name: str = "nintendo"
    sake_cup_is_chaff: bool = True
    hanami_tsukimi: bool = True
    rain_washes_sake: bool = False
    # Akatan and aotan together: combined-10/-15 replace both; combined-plus-each scores
    # akatan-aotan (10) besides akatan and aotan (§2.10); separate scores each alone (§2.9).
    akatan_aotan: str = "combined-10"
    # Count yaku beside the yaku that hold their cards (§2.10): tane beside ino-shika-cho,
    # tan beside akatan, aotan and akatan-aotan. Their further cards then count in tane or
    # tan alone, so ino-shika-cho and the ribbon yaku score their base points.
    tane_with_ino_shika_cho: bool = False
    tan_with_poetry_ribbons: bool = False
    # Points of hanami-zake and of tsukimi-zake each once their holder has called koi-koi in
    # the round (§2.10: 3); null: the point table's value throughout.
    sake_after_koikoi: int | None = None
    seven_point_doubling: bool = True
    koikoi_doubling: bool = True
    multiple_koikoi: bool = False
    # The winner's own koi-koi calls c raise its score (§2.10): c <= 3 adds c points, c >= 4
    # multiplies the yaku total by c - 2.
    own_koikoi_bonus: bool = False
    on_exhaustion: str = "no-game"
    exhaustion_points: int = 6
    hand_yaku: str = "teshi+kuttsuki"
    redeal_hand_four: bool = False  # a hand dealt all four cards of a month is dealt again
    next_dealer: str = "winner"
    rounds: int = 12
    # Decision (§2.8 "rounds, or target_score"): reaching target_score ends the match early,
    # rounds stays its cap (observations and match-win rewards count rounds left).
    target_score: int | None = None  # a player whose points scored reach it wins the match
    # Each player starts the match with this many points (§2.10: 30); a round's score moves
    # from loser to winner and the match ends once a player has 0 points or fewer.
    starting_points: int | None = None
    points: PointTable = field(default_factory=PointTable)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise RuleError(f"rule 'name' must be a non-empty string, got {self.name!r}")
        for key, allowed in CHOICES.items():
            value = getattr(self, key)
            if value not in allowed:
                raise RuleError(
                    f"rule {key!r} cannot be {value!r}; allowed values: "
                    + ", ".join(repr(a) for a in allowed)
                )
        for key in BOOLEAN_OPTIONS:
            if not isinstance(getattr(self, key), bool):
                raise RuleError(f"rule {key!r} must be true or false, got {getattr(self, key)!r}")
        if not _is_int(self.rounds) or not 1 <= self.rounds <= MAX_ROUNDS:
            raise RuleError(f"rule 'rounds' must be an integer from 1 to {MAX_ROUNDS} "
                            f"(3, 6, 12 …), got {self.rounds!r}")
        if not _is_int(self.exhaustion_points) or not 0 <= self.exhaustion_points <= MAX_POINTS:
            raise RuleError(f"rule 'exhaustion_points' must be an integer from 0 to "
                            f"{MAX_POINTS}, got {self.exhaustion_points!r}")
        for key, low, high in (("target_score", 1, MAX_TARGET_SCORE),
                               ("sake_after_koikoi", 0, MAX_POINTS),
                               ("starting_points", 1, MAX_TARGET_SCORE)):
            value = getattr(self, key)
            if value is not None and (not _is_int(value) or not low <= value <= high):
                raise RuleError(f"rule {key!r} must be an integer from {low} to {high} or "
                                f"null, got {value!r}")

    @property
    def koikoi_multiplier(self) -> int:
        return 2 if self.koikoi_doubling else 1

    @property
    def point_unit(self) -> int:
        """The rule set's unit of points: what one further card adds (1 for Nintendo, 10 for
        ten-base), at least 1, so a table whose further cards add nothing keeps its scale."""
        return max(self.points.extra_card, 1)

    @property
    def combined_ribbon_points(self) -> int:
        """Base points of akatan-aotan together: 10 or 15 of the rule set's unit."""
        return {"combined-10": 10, "combined-15": 15, "combined-plus-each": 10}.get(
            self.akatan_aotan, 0) * self.point_unit

    def differences(self, other: RuleSet) -> list[str]:
        """The options (name aside) in which ``other`` plays differently from this."""
        mine, theirs = self.to_dict(), other.to_dict()
        return [key for key, value in mine.items() if key != "name" and theirs[key] != value]

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some options changed, validated like :meth:`from_dict`."""
        return RuleSet.from_dict(changes, base=self)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], base: RuleSet | str | None = None) -> RuleSet:
        """Options from a mapping; ``preset`` (or ``base``) names the starting rule set."""
        if not isinstance(spec, Mapping):
            raise RuleError(f"a rule set must be a mapping of options, got {type(spec).__name__}")
        spec = dict(spec)
        preset = spec.pop("preset", None)
        start = preset_rules(preset) if preset is not None else (
            preset_rules(base) if isinstance(base, str) else (base or RuleSet())
        )
        allowed = [f.name for f in dataclasses.fields(cls)]
        changes: dict[str, Any] = {}
        for key, value in spec.items():
            if key not in allowed:
                raise RuleError(f"unknown rule option {key!r}; allowed options: "
                                + ", ".join(["preset", *allowed]))
            changes[key] = value
        if "points" in changes:
            changes["points"] = _points_from(changes["points"], start.points)
        rules = dataclasses.replace(start, **changes)
        if "name" not in changes and rules != start:  # printed and saved: never a preset's
            rules = dataclasses.replace(rules, name=f"{start.name}+custom")
        return rules

    @classmethod
    def from_yaml(cls, path: str | Path) -> RuleSet:
        try:
            with open(path, encoding="utf-8") as handle:
                spec = yaml.safe_load(handle)
            spec = {} if spec is None else spec  # an empty file: the defaults
        except yaml.YAMLError as error:
            raise RuleError(f"{path} is not valid YAML: {_one_line(error)}") from None
        except UnicodeDecodeError:
            raise RuleError(f"rule file {str(path)!r} is not UTF-8 text") from None
        except OSError as error:
            raise RuleError(f"rule file {str(path)!r} cannot be read: "
                            f"{error.strerror or error}; rule presets: "
                            f"{', '.join(PRESETS)}") from None
        try:
            return cls.from_dict(spec)
        except RuleError as error:
            raise RuleError(f"{path}: {error}") from None


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _points_from(spec: Any, start: PointTable) -> PointTable:
    if isinstance(spec, PointTable):
        return spec
    if not isinstance(spec, Mapping):
        raise RuleError(f"rule 'points' must be a mapping of yaku name to points, got {spec!r}")
    allowed = [f.name for f in dataclasses.fields(PointTable)]
    for key in spec:
        if key not in allowed:
            raise RuleError(f"unknown yaku in 'points': {key!r}; allowed: " + ", ".join(allowed))
    return dataclasses.replace(start, **spec)  # PointTable checks the values


NINTENDO = RuleSet()
TEN_BASE = RuleSet(
    name="ten-base",
    hanami_tsukimi=False,
    akatan_aotan="separate",
    seven_point_doubling=False,
    koikoi_doubling=False,
    multiple_koikoi=True,
    on_exhaustion="highest-total",
    exhaustion_points=50,
    hand_yaku="teshi",
    points=PointTable(
        goko=240, shiko=120, ame_shiko=80, sanko=60, ino_shika_cho=50, akatan=50, aotan=50,
        hanami_zake=0, tsukimi_zake=0, tane=10, tan=10, kasu=10, extra_card=10, teshi=50,
        kuttsuki=0,
    ),
)
KOIKOI_JAPAN = RuleSet(
    name="koikoi-japan",
    akatan_aotan="combined-plus-each",
    tane_with_ino_shika_cho=True,
    tan_with_poetry_ribbons=True,
    sake_after_koikoi=3,
    seven_point_doubling=False,
    koikoi_doubling=False,
    multiple_koikoi=True,
    own_koikoi_bonus=True,
    on_exhaustion="dealer-wins-always",
    exhaustion_points=1,
    hand_yaku="none",
    redeal_hand_four=True,
    rounds=8,
    starting_points=30,
    points=PointTable(hanami_zake=1, tsukimi_zake=1),
)
PRESETS: dict[str, RuleSet] = {"nintendo": NINTENDO, "ten-base": TEN_BASE,
                               "koikoi-japan": KOIKOI_JAPAN}

RuleSpec = RuleSet | str | Path | Mapping[str, Any] | None


def preset_rules(name: str) -> RuleSet:
    if not isinstance(name, str) or name not in PRESETS:
        raise RuleError(f"unknown rule preset {name!r}; allowed presets: {', '.join(PRESETS)}, "
                        "or a rule file ending in .yaml or .yml")
    return PRESETS[name]


def resolve_rules(spec: RuleSpec = None) -> RuleSet:
    """A RuleSet from a RuleSet, preset name, YAML path or mapping (None: the default)."""
    if spec is None:
        return NINTENDO
    if isinstance(spec, RuleSet):
        return spec
    if isinstance(spec, Mapping):
        return RuleSet.from_dict(spec)
    if isinstance(spec, Path) or (isinstance(spec, str) and spec.endswith((".yaml", ".yml"))):
        return RuleSet.from_yaml(spec)
    if isinstance(spec, str):
        return preset_rules(spec)
    raise RuleError(f"cannot make a rule set from {type(spec).__name__}; give a preset name "
                    f"({', '.join(PRESETS)}), a mapping of options or a YAML path")
