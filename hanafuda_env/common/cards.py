"""The 48-card Hanafuda deck as data (RULES.md §1).

Card id = 4 * (month - 1) + slot; slots go from the most to the least valuable card of a
month. A set of cards is a 48-bit integer (bit i = card i), so a batch of sets is a
``uint64`` array and set algebra is a single AND/OR. Yaku are built from the named groups
below; nothing here knows about a particular game's points.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

NUM_CARDS = 48
NUM_MONTHS = 12
ALL_CARDS = (1 << NUM_CARDS) - 1

BRIGHT, ANIMAL, RIBBON, CHAFF = "bright", "animal", "ribbon", "chaff"
KINDS = (BRIGHT, ANIMAL, RIBBON, CHAFF)


@dataclass(frozen=True)
class Card:
    id: int
    month: int  # 1..12
    kind: str
    name: str  # English
    name_ja: str
    tags: tuple[str, ...] = ()

    @property
    def bit(self) -> int:
        return 1 << self.id


MONTHS = (
    ("pine", "松"), ("plum", "梅"), ("cherry", "桜"), ("wisteria", "藤"),
    ("iris", "菖蒲"), ("peony", "牡丹"), ("bush clover", "萩"), ("susuki", "芒"),
    ("chrysanthemum", "菊"), ("maple", "紅葉"), ("willow", "柳"), ("paulownia", "桐"),
)  # fmt: skip

# (kind, English card name, Japanese name, tags) per slot, month by month.
_TABLE: tuple[tuple[tuple[str, str, str, tuple[str, ...]], ...], ...] = (
    ((BRIGHT, "crane", "松に鶴", ("crane",)),
     (RIBBON, "red poetry ribbon", "松に赤短", ("akatan",)),
     (CHAFF, "chaff", "松のカス", ()), (CHAFF, "chaff", "松のカス", ())),
    ((ANIMAL, "bush warbler", "梅に鶯", ("warbler",)),
     (RIBBON, "red poetry ribbon", "梅に赤短", ("akatan",)),
     (CHAFF, "chaff", "梅のカス", ()), (CHAFF, "chaff", "梅のカス", ())),
    ((BRIGHT, "curtain", "桜に幕", ("curtain",)),
     (RIBBON, "red poetry ribbon", "桜に赤短", ("akatan",)),
     (CHAFF, "chaff", "桜のカス", ()), (CHAFF, "chaff", "桜のカス", ())),
    ((ANIMAL, "cuckoo", "藤に不如帰", ()),
     (RIBBON, "plain red ribbon", "藤に短冊", ("kusa",)),
     (CHAFF, "chaff", "藤のカス", ()), (CHAFF, "chaff", "藤のカス", ())),
    ((ANIMAL, "eight-plank bridge", "菖蒲に八橋", ()),
     (RIBBON, "plain red ribbon", "菖蒲に短冊", ("kusa",)),
     (CHAFF, "chaff", "菖蒲のカス", ()), (CHAFF, "chaff", "菖蒲のカス", ())),
    ((ANIMAL, "butterflies", "牡丹に蝶", ("butterflies",)),
     (RIBBON, "blue ribbon", "牡丹に青短", ("aotan",)),
     (CHAFF, "chaff", "牡丹のカス", ()), (CHAFF, "chaff", "牡丹のカス", ())),
    ((ANIMAL, "boar", "萩に猪", ("boar",)),
     (RIBBON, "plain red ribbon", "萩に短冊", ("kusa",)),
     (CHAFF, "chaff", "萩のカス", ()), (CHAFF, "chaff", "萩のカス", ())),
    ((BRIGHT, "moon", "芒に月", ("moon",)),
     (ANIMAL, "geese", "芒に雁", ("geese",)),
     (CHAFF, "chaff", "芒のカス", ()), (CHAFF, "chaff", "芒のカス", ())),
    ((ANIMAL, "sake cup", "菊に盃", ("sake_cup",)),
     (RIBBON, "blue ribbon", "菊に青短", ("aotan",)),
     (CHAFF, "chaff", "菊のカス", ()), (CHAFF, "chaff", "菊のカス", ())),
    ((ANIMAL, "deer", "紅葉に鹿", ("deer",)),
     (RIBBON, "blue ribbon", "紅葉に青短", ("aotan",)),
     (CHAFF, "chaff", "紅葉のカス", ()), (CHAFF, "chaff", "紅葉のカス", ())),
    ((BRIGHT, "rain man", "柳に小野道風", ("rain_man",)),
     (ANIMAL, "swallow", "柳に燕", ()),
     (RIBBON, "plain ribbon", "柳に短冊", ("willow_ribbon",)),
     (CHAFF, "lightning", "柳のカス", ("lightning",))),
    ((BRIGHT, "phoenix", "桐に鳳凰", ("phoenix",)),
     (CHAFF, "chaff", "桐のカス", ()), (CHAFF, "chaff", "桐のカス", ()),
     (CHAFF, "chaff", "桐のカス", ())),
)  # fmt: skip


def _build_deck() -> tuple[Card, ...]:
    deck = []
    for month_index, slots in enumerate(_TABLE):
        flower = MONTHS[month_index][0]
        for slot, (kind, name, name_ja, tags) in enumerate(slots):
            card_id = 4 * month_index + slot
            label = f"{flower} {name}"
            deck.append(Card(card_id, month_index + 1, kind, label, name_ja, tags))
    return tuple(deck)


DECK: tuple[Card, ...] = _build_deck()


def mask_of(card_ids: Iterable[int]) -> int:
    """The 48-bit set holding the given cards."""
    bits = 0
    for card_id in card_ids:
        bits |= 1 << int(card_id)
    return bits


def ids_of(bits: int) -> list[int]:
    """The card ids in a 48-bit set, ascending."""
    bits = int(bits)
    return [i for i in range(NUM_CARDS) if bits >> i & 1]


def month_mask(month: int) -> int:
    """The four cards of a month (1..12)."""
    return 0xF << (4 * (month - 1))


def _tagged(tag: str) -> int:
    return mask_of(c.id for c in DECK if tag in c.tags)


def _of_kind(kind: str) -> int:
    return mask_of(c.id for c in DECK if c.kind == kind)


# Named groups (48-bit masks) that yaku are made of.
BRIGHTS = _of_kind(BRIGHT)
ANIMALS = _of_kind(ANIMAL)
RIBBONS = _of_kind(RIBBON)
CHAFF_CARDS = _of_kind(CHAFF)
CRANE, CURTAIN, MOON, RAIN_MAN, PHOENIX = (
    _tagged(t) for t in ("crane", "curtain", "moon", "rain_man", "phoenix")
)
SAKE_CUP = _tagged("sake_cup")
BOAR, DEER, BUTTERFLIES = _tagged("boar"), _tagged("deer"), _tagged("butterflies")
INO_SHIKA_CHO = BOAR | DEER | BUTTERFLIES
RED_POETRY_RIBBONS = _tagged("akatan")
BLUE_RIBBONS = _tagged("aotan")
POETRY_RIBBONS = RED_POETRY_RIBBONS | BLUE_RIBBONS
KUSA_RIBBONS = _tagged("kusa")
WILLOW_RIBBON = _tagged("willow_ribbon")
BUSH_WARBLER = _tagged("warbler")
GEESE = _tagged("geese")
LIGHTNING = _tagged("lightning")

GROUPS: dict[str, int] = {
    "brights": BRIGHTS,
    "animals": ANIMALS,
    "ribbons": RIBBONS,
    "chaff": CHAFF_CARDS,
    "crane": CRANE,
    "curtain": CURTAIN,
    "moon": MOON,
    "rain_man": RAIN_MAN,
    "phoenix": PHOENIX,
    "sake_cup": SAKE_CUP,
    "ino_shika_cho": INO_SHIKA_CHO,
    "red_poetry_ribbons": RED_POETRY_RIBBONS,
    "blue_ribbons": BLUE_RIBBONS,
    "poetry_ribbons": POETRY_RIBBONS,
    "kusa_ribbons": KUSA_RIBBONS,
    "willow_ribbon": WILLOW_RIBBON,
    "bush_warbler": BUSH_WARBLER,
    "geese": GEESE,
    "lightning": LIGHTNING,
}

# Vector helpers shared by the core, the scorer and the environments.
CARD_BITS = np.array([1 << i for i in range(NUM_CARDS)], dtype=np.uint64)
CARD_MONTH = np.array([c.month for c in DECK], dtype=np.int8)  # 1..12
MONTH_MASK_OF_CARD = np.array([month_mask(c.month) for c in DECK], dtype=np.uint64)

def bits_to_bool(bits: np.ndarray) -> np.ndarray:
    """(…,) uint64 card sets -> (…, 48) bool membership rows."""
    bits = np.ascontiguousarray(bits, dtype="<u8")
    as_bytes = bits.view(np.uint8).reshape(*bits.shape, 8)
    return np.unpackbits(as_bytes, axis=-1, count=NUM_CARDS, bitorder="little").view(bool)


def bool_to_bits(rows: np.ndarray) -> np.ndarray:
    """(…, 48) bool membership rows -> (…,) uint64 card sets."""
    rows = np.asarray(rows, dtype=bool)
    return np.bitwise_or.reduce(np.where(rows, CARD_BITS, np.uint64(0)), axis=-1)


def card_name(card_id: int) -> str:
    return DECK[card_id].name


def describe(bits: int) -> str:
    """Human-readable list of the cards in a set."""
    return ", ".join(card_name(i) for i in ids_of(bits)) or "-"
