"""Search labels: the expert's moves improved where a search is sure, for many decisions at once.

A clone can at best equal its teacher; to learn past the expert a network needs targets
better than the expert's moves. :func:`search_labels` judges every legal move of a batch of
decisions by :class:`~agents.bots.search.SearchAgent` (each move played in ``worlds``
worlds consistent with the observation and rolled out to the round's end inside the
kernel; one compiled rollout per candidate index for the whole batch, not one game at a
time). The label is the search's best move where its paired advantage over the expert's
move exceeds ``confidence`` standard errors, else the expert's own tie set: the search
corrects the expert only where the rollouts are sure, as the search bot plays. With an
``evaluator`` (a value network checkpoint) the rollouts stop after ``depth`` moves and the
network values the position reached, as the ``netsearch`` bot does: the labels of a second
round of the loop come from the search the first round's network made stronger.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.bots.search import SearchAgent
from hanafuda_env.koikoi.rules import RuleSet


def search_labels(data: dict[str, np.ndarray], rules: RuleSet, worlds: int = 64,
                  rollout: str = "fast", confidence: float = 1.0, seed: int = 0,
                  batch: int = 1024, progress: Any = None, evaluator: str | None = None,
                  depth: int | None = None) -> dict[str, np.ndarray]:
    """Labels for the decisions of ``data`` (rows as
    :func:`~agents.train.imitation.collect_expert_decisions` gives them): ``targets``
    (N, 98) bools, the moves to learn (a single move where the search
    overrode the expert, the expert's tie set elsewhere, the forced move where there is no
    choice); ``values`` (N, 98) the search's mean match-win value of each legal move (NaN
    where it did not search: forced or illegal); ``overridden`` (N,) where the search's move
    replaced the expert's."""
    n = len(data["action"])
    targets = data["ties"].copy()
    values = np.full(data["mask"].shape, np.nan)
    overridden = np.zeros(n, dtype=bool)
    choice = np.flatnonzero(data["mask"].sum(1) > 1)
    search = SearchAgent(rules, seed=seed, worlds=worlds, rollout=rollout, confidence=None,
                         evaluator=evaluator, depth=depth)
    for start in range(0, len(choice), batch):
        rows = choice[start:start + batch]
        search.act(data["obs"][rows], data["mask"][rows])
        report = search.last_search
        assert report is not None
        for row, actions, mean, paired in zip(rows, report.actions, report.values,
                                              report.paired_errors, strict=True):
            values[row, actions] = mean
            best = int(np.argmax(mean))
            own = int(np.flatnonzero(actions == data["action"][row])[0])
            gain = mean[best] - mean[own]
            if gain > confidence * paired[own] and not data["ties"][row, actions[best]]:
                targets[row] = False
                targets[row, actions[best]] = True
                overridden[row] = True
        if progress is not None:
            progress(len(rows))
    return {"targets": targets, "values": values, "overridden": overridden}
