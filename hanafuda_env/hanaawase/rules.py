"""Hana-awase (RULES.md §3) rule options as frozen, validated data.

:class:`HanaawaseRules` holds the player count, the match length and every §3.4 variant;
the per-count tables (hand and field sizes, par) follow from it. Unknown options or values
raise :class:`~hanafuda_env.koikoi.rules.RuleError` naming the option and the allowed values, as the
Koi-Koi rule sets do.

Where §3 is silent, the code takes these **Decisions**:

* a match's first dealer is drawn at random (seeded), like Koi-Koi's first dealer;
* a round that fuke voids scores 0 for everyone, counts as one of the match's rounds, and its
  dealer deals again (there is no top scorer);
* a dealt hand of 7 (or 6) chaff is declared at once when its variant is on: the points are
  worth far more than hiding the hand; only cards of the chaff kind count (the sake cup is an
  animal in Hana-awase);
* hatcho, like every yaku, is cancelled by yaku-nagashi and arashi, and paid by the others;
* the match winner is the top match score; a shared top is a shared first place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.rules import RuleError

MIN_PLAYERS, MAX_PLAYERS = 2, 7
MAX_ROUNDS = 100
# §3.1: cards in each hand and on the field, by player count. The stock is the rest, and it
# holds exactly one draw per turn of the round (every hand is played out).
HAND_AND_FIELD = {2: (10, 8), 3: (7, 6), 4: (5, 8), 5: (4, 8), 6: (3, 12), 7: (3, 6)}
MAX_STOCK = 24
# §3.2 card points by kind: bright, animal, ribbon, chaff.
KIND_POINTS = {C.BRIGHT: 20, C.ANIMAL: 10, C.RIBBON: 5, C.CHAFF: 1}
CARD_POINTS = tuple(KIND_POINTS[card.kind] for card in C.DECK)
# Variants that need the 7-card hands (or the three named seats) of three players (§3.4).
THREE_PLAYER_VARIANTS = ("nana_kasu", "roku_kasu", "hatcho")


@dataclass(frozen=True)
class HanaawaseRules:
    """A Hana-awase rule set. Defaults: three players, three rounds, the §3.1 field redeal
    on, every §3.4 variant off."""

    num_players: int = 3
    rounds: int = 3  # rounds of a match (§3.2: agreed beforehand, 3–5 is usual)
    redeal_field_four: bool = True  # §3.1: a field with 4 cards of a month is dealt again
    chaff_zero: bool = False  # §3.2 variant: chaff worth 0 (the deck totals 240)
    nana_kasu: bool = False  # 30: a dealt hand of 7 chaff, declared and shown (3 players)
    roku_kasu: bool = False  # 20: 6 chaff among the 7 dealt, the 6 shown (3 players)
    hatcho: bool = False  # 30: oya-naka-hatcho biki-jitcho, ≤ 8 / ≤ 10 captured (3 players)
    yaku_nagashi: bool = False  # all 4 willow cancel every yaku of the round
    arashi: bool = False  # boar, geese and deer cancel every yaku of the round
    fuke: bool = False  # a player ending with ≤ 20 card points voids the round

    def __post_init__(self) -> None:
        if not _is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise RuleError(f"Hana-awase option 'num_players' must be an integer from "
                            f"{MIN_PLAYERS} to {MAX_PLAYERS}, got {self.num_players!r}")
        if not _is_int(self.rounds) or not 1 <= self.rounds <= MAX_ROUNDS:
            raise RuleError(f"Hana-awase option 'rounds' must be an integer from 1 to "
                            f"{MAX_ROUNDS}, got {self.rounds!r}")
        for item in dataclasses.fields(self):
            if item.type in (bool, "bool") and not isinstance(getattr(self, item.name), bool):
                raise RuleError(f"Hana-awase option {item.name!r} must be true or false, got "
                                f"{getattr(self, item.name)!r}")
        for name in THREE_PLAYER_VARIANTS:
            if getattr(self, name) and self.num_players != 3:
                raise RuleError(f"Hana-awase variant {name!r} is a three-player rule (§3.4); "
                                f"num_players is {self.num_players}")

    @property
    def hand_size(self) -> int:
        return HAND_AND_FIELD[self.num_players][0]

    @property
    def field_size(self) -> int:
        return HAND_AND_FIELD[self.num_players][1]

    @property
    def stock_size(self) -> int:
        return C.NUM_CARDS - self.num_players * self.hand_size - self.field_size

    @property
    def card_points(self) -> tuple[int, ...]:
        """Each card's points (§3.2; chaff 0 with ``chaff_zero``)."""
        if self.chaff_zero:
            return tuple(0 if card.kind == C.CHAFF else p for card, p in zip(C.DECK, CARD_POINTS))
        return CARD_POINTS

    @property
    def par(self) -> int:
        """The deck's points over the players, rounded to the nearest integer (§3.2; the
        4-player Decision: 66, not the source's misprinted 64)."""
        total = sum(self.card_points)
        return (2 * total + self.num_players) // (2 * self.num_players)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> HanaawaseRules:
        if not isinstance(spec, Mapping):
            raise RuleError(f"Hana-awase rules must be a mapping of options, got "
                            f"{type(spec).__name__}")
        allowed = [f.name for f in dataclasses.fields(cls)]
        for key in spec:
            if key not in allowed:
                raise RuleError(f"unknown Hana-awase option {key!r}; allowed options: "
                                + ", ".join(allowed))
        return cls(**dict(spec))


def resolve_hanaawase_rules(spec: HanaawaseRules | Mapping[str, Any] | None = None,
                            **options: Any) -> HanaawaseRules:
    """A rule set from an instance, a mapping of options or None (the defaults), with
    ``options`` (e.g. ``num_players=4``) applied on top."""
    if spec is None:
        base: dict[str, Any] = {}
    elif isinstance(spec, HanaawaseRules):
        base = spec.to_dict()
    elif isinstance(spec, Mapping):
        base = dict(spec)
    else:
        raise RuleError(f"cannot make Hana-awase rules from {type(spec).__name__}; give a "
                        f"mapping of options or a HanaawaseRules")
    return HanaawaseRules.from_dict({**base, **options})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
