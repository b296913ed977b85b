"""Two-seat GAE (``compute_gae``): each seat's own reward stream, no leak across episodes, the
bootstrap of a running episode, rewards paid before a seat's first decision (also across
rollouts, carried in ``WaitingRewards``), by hand and against one plain per-seat reference
loop, with gamma = lambda = 1 and zero values (where credit shows) and with discounting and
non-zero values (where every factor of the recursion shows)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.train.ppo import WaitingRewards, compute_gae
from tests.helpers.gae import reference_gae


def test_gae_credits_each_seat_its_own_reward() -> None:
    # One game; seats alternate 0,1,0,1; the round ends at step 3 with seat 0 winning 5
    # although seat 1 made the last move.
    seats = np.array([[0], [1], [0], [1]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[3, 0] = [5.0, -5.0]
    dones = np.array([[False], [False], [False], [True]])
    values = np.zeros((4, 1), dtype=np.float32)
    adv, _ = compute_gae(rewards, dones, seats, values, np.zeros((1, 2)), gamma=1.0, lam=1.0)
    assert adv[:, 0].tolist() == [5.0, -5.0, 5.0, -5.0]


def test_gae_does_not_leak_across_episodes_and_bootstraps() -> None:
    seats = np.array([[0], [0], [1], [0]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[1, 0] = [2.0, -2.0]  # episode ends after step 1
    dones = np.array([[False], [True], [False], [False]])
    values = np.array([[1.0], [0.5], [0.0], [0.25]], dtype=np.float32)
    last = np.array([[3.0, 7.0]], dtype=np.float32)
    adv, _ = compute_gae(rewards, dones, seats, values, last, gamma=1.0, lam=1.0)
    # step 3 (seat 0) bootstraps from last[0] = 3: 3 - 0.25
    assert adv[3, 0] == pytest.approx(2.75)
    # step 2 (seat 1) bootstraps from last[1] = 7: 7 - 0
    assert adv[2, 0] == pytest.approx(7.0)
    # step 1 is terminal for seat 0 with reward 2: 2 - 0.5; step 0 chains into it
    assert adv[1, 0] == pytest.approx(1.5)
    assert adv[0, 0] == pytest.approx(2.0 - 1.0)
    # seat 1 never decided in the first episode, so its -2 is credited to nobody later
    assert adv[2, 0] != pytest.approx(7.0 - 2.0)


def test_gae_credits_rewards_paid_before_a_seats_first_decision_to_that_decision() -> None:
    """A match episode ends at step 0; the next match's first round ends at its deal
    (a hand yaku: +6 for seat 0), paid with step 1, seat 0's first move. Seat 1 first
    decides at step 2: its -6 is part of its episode's return."""
    seats = np.array([[1], [0], [1], [0]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[1, 0] = [6.0, -6.0]
    dones = np.array([[True], [False], [False], [False]])
    values = np.zeros((4, 1), dtype=np.float32)
    adv, _ = compute_gae(rewards, dones, seats, values, np.zeros((1, 2)), gamma=1.0, lam=1.0)
    assert adv[:, 0].tolist() == [0.0, 6.0, -6.0, 0.0]


def test_gae_carries_an_early_reward_to_a_first_decision_in_the_next_rollout() -> None:
    """As above, but the rollout ends before seat 1 decides: its -6 waits for the next
    rollout's first decision of seat 1, unless that episode ends before it decides."""
    zeros = np.zeros((1, 2), dtype=np.float32)
    rewards = np.zeros((2, 1, 2), dtype=np.float32)
    rewards[1, 0] = [6.0, -6.0]
    adv, waiting = compute_gae(rewards, np.array([[True], [False]]), np.array([[1], [0]]),
                               np.zeros((2, 1), dtype=np.float32), zeros, 1.0, 1.0,
                               WaitingRewards.fresh(1))
    assert adv[:, 0].tolist() == [0.0, 6.0]
    assert waiting.amount.tolist() == [[0.0, -6.0]] and waiting.undecided.tolist() == [[0, 1]]

    def next_rollout(seats: list[int], dones: list[bool]) -> tuple[list, list]:
        adv, left = compute_gae(np.zeros((len(seats), 1, 2), dtype=np.float32),
                                np.array(dones)[:, None], np.array(seats)[:, None],
                                np.zeros((len(seats), 1), dtype=np.float32), zeros, 1.0, 1.0,
                                waiting)
        return adv[:, 0].tolist(), left.amount.tolist()

    assert next_rollout([0, 1, 0], [False, False, False]) == ([0.0, -6.0, 0.0], [[0.0, 0.0]])
    assert next_rollout([0], [False]) == ([0.0], [[0.0, -6.0]])  # still waiting
    assert next_rollout([0, 1], [True, False]) == ([0.0, 0.0], [[0.0, 0.0]])  # seat 1 had none


def test_gae_credits_a_reward_paid_as_a_rollout_starts_a_new_episode() -> None:
    """A match ends on a rollout's last step; the next match's hand yaku (+5 for seat 1) is
    paid with the next rollout's first step, which seat 0 makes."""
    zeros = np.zeros((1, 2), dtype=np.float32)
    _, waiting = compute_gae(np.zeros((2, 1, 2), dtype=np.float32), np.array([[False], [True]]),
                             np.array([[0], [1]]), np.zeros((2, 1), dtype=np.float32), zeros,
                             1.0, 1.0, WaitingRewards.fresh(1))
    rewards = np.zeros((3, 1, 2), dtype=np.float32)
    rewards[0, 0] = [-5.0, 5.0]
    adv, _ = compute_gae(rewards, np.array([[False], [False], [True]]), np.array([[0], [1], [0]]),
                         np.zeros((3, 1), dtype=np.float32), zeros, 1.0, 1.0, waiting)
    assert adv[:, 0].tolist() == [-5.0, 5.0, 0.0]


def test_gae_split_into_rollouts_matches_the_plain_reference() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        steps, n = int(rng.integers(2, 14)), int(rng.integers(1, 4))
        seats = rng.integers(0, 2, (steps, n))
        dones = rng.random((steps, n)) < 0.25
        rewards = np.where(rng.random((steps, n, 2)) < 0.3,
                           rng.integers(-3, 4, (steps, n, 2)), 0).astype(np.float32)
        cuts = sorted({0, steps, *rng.integers(1, steps, int(rng.integers(0, 3))).tolist()})
        waiting, parts = WaitingRewards.fresh(n), []
        for a, b in zip(cuts, cuts[1:]):
            last = np.zeros((n, 2), dtype=np.float32)  # the true rest of each running episode
            for g in range(n):
                ends = np.flatnonzero(dones[b:, g])
                stop = b + ends[0] + 1 if len(ends) else steps
                last[g] = rewards[b:stop, g].sum(axis=0)
            adv, waiting = compute_gae(rewards[a:b], dones[a:b], seats[a:b],
                                       np.zeros((b - a, n), dtype=np.float32), last, 1.0, 1.0,
                                       waiting)
            parts.append(adv)
        expected = reference_gae(rewards, dones, seats, np.zeros((steps, n)), np.zeros((n, 2)),
                                 1.0, 1.0, credit_from_the_start=True)
        np.testing.assert_allclose(np.concatenate(parts), expected, atol=1e-5)


# ------------------------------------------------------------- with discounting
GAMMA, LAM = 0.9, 0.8


def test_gae_with_discounting_matches_a_per_seat_reference_loop() -> None:
    """gamma and lambda below 1 with non-zero values: every factor of the recursion shows."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        steps, n = int(rng.integers(2, 12)), int(rng.integers(1, 4))
        seats = rng.integers(0, 2, (steps, n))
        dones = rng.random((steps, n)) < 0.2
        rewards = np.where(rng.random((steps, n, 2)) < 0.4,
                           rng.normal(0, 2, (steps, n, 2)), 0).astype(np.float32)
        values = rng.normal(0, 1, (steps, n)).astype(np.float32)
        last = rng.normal(0, 1, (n, 2)).astype(np.float32)
        adv, _ = compute_gae(rewards, dones, seats, values, last, GAMMA, LAM)
        expected = reference_gae(rewards, dones, seats, values, last, GAMMA, LAM)
        np.testing.assert_allclose(adv, expected, rtol=1e-5, atol=1e-5)


def test_gae_of_one_seats_three_decisions_by_hand() -> None:
    """Seat 0 decides at steps 0, 2, 4 (seat 1 in between) and is paid 1 after step 2; the
    rollout ends mid-episode, so step 4 bootstraps from seat 0's last value 2."""
    seats = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2), dtype=np.float32)
    rewards[2, 0] = [1.0, -1.0]
    values = np.array([[0.5], [9.0], [0.25], [9.0], [-1.0]], dtype=np.float32)
    last = np.array([[2.0, 0.0]], dtype=np.float32)
    adv, _ = compute_gae(rewards, np.zeros((5, 1), dtype=bool), seats, values, last, GAMMA, LAM)
    a4 = 0.0 + GAMMA * 2.0 - (-1.0)
    a2 = 1.0 + GAMMA * (-1.0) - 0.25 + GAMMA * LAM * a4
    a0 = 0.0 + GAMMA * 0.25 - 0.5 + GAMMA * LAM * a2
    assert adv[[0, 2, 4], 0] == pytest.approx([a0, a2, a4], rel=1e-6)
