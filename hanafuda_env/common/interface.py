"""The interface both games' batched cores share (``KoiKoiCore``, ``HanaawaseCore``), as Pgx
games share theirs: what an env, a trainer or a search needs of a game, whatever the game.

A core holds ``n_games`` games as one array of state records. Actions are card ids (0–47
play a card from hand, 48–95 take a field card when two match; Koi-Koi adds 96 stop and 97
koi-koi). Every method that takes a game or seat index checks it first and raises naming
the allowed range; an illegal action raises and changes no game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class BatchCore(Protocol):
    """A batch of games of one rule set, stepped together."""

    n_games: int
    num_players: int
    records: np.ndarray  # (n_games,) state records: the whole state

    @property
    def round_over(self) -> np.ndarray:
        """(B,) bool: the game's round (or match) is over and waits for its next deal."""

    @property
    def observation_size(self) -> int:
        """Length of one observation vector."""

    def reset(self, seed: Any = None) -> Any:
        """Start every game anew (a new match), reproducibly by ``seed``."""

    def deal_next(self, games: Any = None, decks: Any = None) -> Any:
        """Deal the next round in games whose round is over."""

    def legal_action_mask(self) -> np.ndarray:
        """(B, number of actions) bool: what the player to move may do in each game."""

    def legal_actions(self, game: int = 0) -> list[int]:
        """The legal actions of one game, ascending."""

    def sample_legal_actions(self, rng: np.random.Generator) -> np.ndarray:
        """(B,) a uniformly random legal action per game."""

    def step(self, actions: np.ndarray | Sequence[int]) -> Any:
        """One action per game for its player to move: rewards and what the step finished."""

    def advance(self, game: int, action: int) -> bool:
        """One move in one game, the others untouched; whether it ended the round."""

    def observe(self, viewers: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        """(B, observation_size) float32: each game as ``viewers`` (default the mover) see it."""

    def observe_one(self, game: int, seat: int) -> np.ndarray:
        """(observation_size,) float32: one game seen by one seat."""

    def rollout(self, policy: Any = "random", until: str = "round", seed: int = 0) -> Any:
        """Play every game to its round's (or match's) end inside the kernel."""

    def fork(self, games: Any, copies: int = 1) -> BatchCore:
        """A new core holding copies of the listed games (for rollouts and search)."""

    def state_dict(self) -> dict[str, Any]:
        """The whole state, to save or to restore with :meth:`load_state_dict`."""

    def load_state_dict(self, state: Any) -> None:
        """Restore a saved state; a state no game can reach is refused, nothing changed."""
