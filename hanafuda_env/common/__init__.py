"""Pieces both games share: the card table, bit tricks on 48-card sets, seeding, atomic
files, result records and hidden-card resampling for search."""
