"""The names a person reads for the yaku ids of the scoring tables (RULES.md §2.3, §3.3).

The scorers key yaku by identifiers (``ino_shika_cho``); the web page and the terminal show
these names instead (``Ino-Shika-Chō``), romanised with the long vowels marked.
"""

from __future__ import annotations

YAKU_DISPLAY: dict[str, str] = {
    # Koi-Koi (hanafuda_env.koikoi.scoring, and the hand yaku of the kernel)
    "goko": "Gokō", "shiko": "Shikō", "ame_shiko": "Ame-Shikō", "sanko": "Sankō",
    "ino_shika_cho": "Ino-Shika-Chō", "akatan_aotan": "Akatan-Aotan", "akatan": "Akatan",
    "aotan": "Aotan", "hanami_zake": "Hanami-zake", "tsukimi_zake": "Tsukimi-zake",
    "tane": "Tane", "tan": "Tan", "kasu": "Kasu", "teshi": "Teshi", "kuttsuki": "Kuttsuki",
    # Hana-awase (hanafuda_env.hanaawase.scoring)
    "nanatan": "Nanatan", "rokutan": "Rokutan", "omote_sugawara": "Omote-Sugawara",
    "nomi": "Nomi", "hanami": "Hanami", "tsukimi": "Tsukimi", "kusa": "Kusa",
    "fuji_shima": "Fuji-shima", "kiri_shima": "Kiri-shima", "ame_shima": "Ame-shima",
    "nana_kasu": "Nana-kasu", "roku_kasu": "Roku-kasu", "hatcho": "Hatchō",
}  # fmt: skip


def yaku_display(name: str) -> str:
    """The display name of yaku id ``name``; an id without one reads as itself, capitalised
    with hyphens (a yaku added to a table still shows)."""
    return YAKU_DISPLAY.get(name) or name.replace("_", "-").capitalize()
