"""The game engines: the batched core and the plain game, deals, rounds, matches, worlds,
results, invariants, determinism and the differential test against tests/reference.py."""
