"""A plain reference for the trainer's two-seat GAE (``agents.train.ppo.compute_gae``)."""

from __future__ import annotations

import numpy as np


def reference_gae(rewards: np.ndarray, dones: np.ndarray, seats: np.ndarray,
                  values: np.ndarray, last: np.ndarray, gamma: float, lam: float,
                  credit_from_the_start: bool = False) -> np.ndarray:
    """Textbook GAE run separately over each (game, seat, episode) list of decisions.

    ``rewards`` (T, N, 2), ``dones`` (T, N), ``seats`` (T, N): the seat that decided at each
    step; ``values`` (T, N) the value of each decision for its seat; ``last`` (N, 2) each
    seat's value of the state after the last step. A decision's reward is its seat's pay from
    its step up to the seat's next decision (or the episode's end); an episode that ended
    bootstraps 0, the running one ``last``. What a seat was paid in an episode before its first
    decision there is added to that decision's advantage; in the episode running at step 0 only
    with ``credit_from_the_start`` (as a fresh ``WaitingRewards`` does; without ``waiting``
    nothing is known of what came before the rollout)."""
    steps, n = seats.shape
    adv = np.zeros((steps, n))
    for g in range(n):
        ends = np.flatnonzero(dones[:, g]).tolist()
        bounds = [(a, b, True) for a, b in zip([0, *[e + 1 for e in ends]], ends)]
        if not ends or ends[-1] < steps - 1:
            bounds.append((ends[-1] + 1 if ends else 0, steps - 1, False))
        for start, end, ended in bounds:
            for s in (0, 1):
                times = [t for t in range(start, end + 1) if seats[t, g] == s]
                if not times:
                    continue
                next_value = 0.0 if ended else float(last[g, s])
                next_adv = 0.0
                for k in reversed(range(len(times))):
                    t = times[k]
                    stop = times[k + 1] if k + 1 < len(times) else end + 1
                    delta = rewards[t:stop, g, s].sum() + gamma * next_value - values[t, g]
                    adv[t, g] = delta + gamma * lam * next_adv
                    next_value, next_adv = values[t, g], adv[t, g]
                if start > 0 or credit_from_the_start:
                    adv[times[0], g] += rewards[start:times[0], g, s].sum()
    return adv
