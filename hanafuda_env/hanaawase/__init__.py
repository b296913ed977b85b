"""Hana-awase (2–7 players): its rules, scoring, state, compiled kernel, observation and
batched core (``HanaawaseCore``). It reuses Koi-Koi's turn mechanics and batch loops."""
