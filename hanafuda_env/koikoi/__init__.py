"""Koi-Koi: its rules and presets, yaku scoring, deals, the state record, the compiled
kernel and its batch loops, the batched core (``KoiKoiCore``), the one-game engine
(``KoiKoiGame``), observations and game records."""
