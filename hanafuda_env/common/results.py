"""What the vectorized core reports: one row per finished round or match, as columns.

Kept apart from :mod:`hanafuda_env.koikoi.core` so that readers of results (the envs, rewards,
evaluation) depend on the tables, not on the engine that fills them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

# How a round ended (RoundResults.reason).
END_STOP, END_KOIKOI_WIN, END_LAST_CARD, END_HAND_YAKU, END_NO_GAME, END_EXHAUSTION_WIN = range(6)
END_NAMES = ("stop", "yaku-after-koikoi", "yaku-on-last-card", "hand-yaku", "no-game",
             "exhaustion-win")


@dataclass
class RoundResults:
    """One row per finished round (columnar). ``yaku`` has a column per ``yaku_names``."""

    game: np.ndarray  # (K,) game index in the batch
    round_index: np.ndarray  # (K,) 0-based round of the match
    dealer: np.ndarray  # (K,) seat
    winner: np.ndarray  # (K,) seat, -1 when nobody won
    base: np.ndarray  # (K,) yaku total (or exhaustion points) before multipliers
    multiplier: np.ndarray  # (K,) 1, 2 or 4 (§2.5)
    points: np.ndarray  # (K,) what the winner scores
    reward: np.ndarray  # (K, 2) zero-sum points per seat
    koikoi_calls: np.ndarray  # (K, 2) koi-koi calls per seat
    reason: np.ndarray  # (K,) END_* code
    yaku: np.ndarray  # (K, n_yaku) the winner's yaku points (hand yaku included)
    piles: np.ndarray  # (K, 2) uint64 final capture piles
    turns: np.ndarray  # (K,) turns played
    yaku_names: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.game)

    def records(self) -> list[dict]:
        """The rows as plain dicts, for people and JSON."""
        rows = []
        for k in range(len(self)):
            rows.append({
                "game": int(self.game[k]), "round_index": int(self.round_index[k]),
                "dealer": int(self.dealer[k]), "winner": int(self.winner[k]),
                "base": int(self.base[k]), "multiplier": int(self.multiplier[k]),
                "points": int(self.points[k]), "reward": self.reward[k].tolist(),
                "koikoi_calls": self.koikoi_calls[k].tolist(),
                "reason": END_NAMES[self.reason[k]], "turns": int(self.turns[k]),
                "yaku": {n: int(p) for n, p in zip(self.yaku_names, self.yaku[k]) if p},
            })
        return rows

    @staticmethod
    def empty(yaku_names: tuple[str, ...]) -> RoundResults:
        """A table with no rows (a step that finished no round)."""
        i = np.zeros(0, dtype=np.int32)
        pair = np.zeros((0, 2), dtype=np.int32)
        return RoundResults(i, i, i, i, i, i, i, pair, pair, i,
                            np.zeros((0, len(yaku_names)), dtype=np.int32),
                            np.zeros((0, 2), dtype=np.uint64), i, yaku_names)

    @staticmethod
    def concat(parts: list[RoundResults], yaku_names: tuple[str, ...]) -> RoundResults:
        if not parts:
            return RoundResults.empty(yaku_names)
        if len(parts) == 1:
            return parts[0]
        arrays = {f.name: np.concatenate([getattr(p, f.name) for p in parts])
                  for f in fields(RoundResults) if f.name != "yaku_names"}
        return RoundResults(**arrays, yaku_names=yaku_names)


@dataclass
class MatchResults:
    """One row per finished match: ``winner`` is -1 for a draw."""

    game: np.ndarray
    winner: np.ndarray
    scores: np.ndarray  # (M, 2)
    rounds: np.ndarray

    @staticmethod
    def concat(parts: list[MatchResults]) -> MatchResults:
        if not parts:
            i = np.zeros(0, dtype=np.int32)
            return MatchResults(i, i, np.zeros((0, 2), dtype=np.int32), i)
        return MatchResults(*(np.concatenate([getattr(p, f.name) for p in parts])
                              for f in fields(MatchResults)))


@dataclass
class StepOutcome:
    """What ``KoiKoiCore.step`` did to every game of the batch."""

    reward: np.ndarray  # (B, 2) zero-sum points per seat from rounds finished in this step
    round_over: np.ndarray  # (B,) the round that was being played ended
    match_over: np.ndarray  # (B,) a match ended in this step
    rounds: RoundResults  # every round finished in this step (hand-yaku rounds included)
    matches: MatchResults


@dataclass
class ResetOutcome:
    """What ``reset``'s deal already finished, fields as in ``StepOutcome``: a dealt hand yaku
    ends its round at once, which can end a one-round or target-score match before any move."""

    reward: np.ndarray  # (B, 2) zero-sum points per seat from rounds ended at the deal
    match_over: np.ndarray  # (B,) a match ended at the deal
    rounds: RoundResults
    matches: MatchResults
