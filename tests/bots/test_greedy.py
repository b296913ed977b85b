"""The greedy baseline, where a documented rule alone decides the move: captures are valued by
card points (bright 20, animal 10, ribbon 5, chaff 1; RULES.md §3.2), with nothing to capture
it lays down its least valuable card, each candidate move captures what §2.2 says, it always
stops, and its seed breaks ties."""

from __future__ import annotations

import numpy as np

from agents.bots.base import decode
from agents.bots.baselines import GreedyAgent, card_outcomes, card_points
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import (
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.koikoi.observation import encode_observations
from tests.helpers.agents import actions_of
from tests.helpers.observations import make_obs, mask_for
from tests.helpers.scenarios import make_deck


def dealt(hand: list[int], other: list[int], field: list[int]) -> KoiKoiCore:
    """One game at the dealer's (seat 0) first move; neither hand holds a hand yaku."""
    core = KoiKoiCore(1, "nintendo", seed=0)
    start = core.reset(seed=0, options={"deck": make_deck(hand, other, field), "dealer": 0})
    assert len(start.rounds) == 0 and core.mover[0] == 0
    return core


def greedy_moves(core: KoiKoiCore, seeds: int = 6) -> set[int]:
    """The greedy agent's first moves over several seeds (ties break at random)."""
    obs, mask = encode_observations(core), core.legal_action_mask()
    return {int(GreedyAgent(seed=s).act(obs, mask)[0]) for s in range(seeds)}


def test_card_points_are_the_hana_awase_values() -> None:
    """Bright 20, animal 10, ribbon 5, chaff 1 (RULES.md §3.2); the deck totals 264."""
    ids = {"bright": 0, "animal": 4, "ribbon": 9, "chaff": 10}
    bits = np.array([C.mask_of([c]) for c in ids.values()], dtype=np.uint64)
    assert card_points(bits).tolist() == [20.0, 10.0, 5.0, 1.0]
    assert card_points(np.uint64(C.ALL_CARDS)) == 264.0


def test_greedy_takes_the_most_valuable_capture_in_a_real_game():
    dealer_hand = [2, 6, 14, 18, 22, 26, 30, 46]  # chaff of eight months
    field = [0, 7, 11, 35, 39, 43, 47, 27]  # the crane matches the pine chaff
    other = [1, 4, 8, 12, 16, 20, 24, 28]  # one card of each of eight months: no hand yaku
    stock = [c for c in range(48) if c not in dealer_hand + field + other]
    core = KoiKoiCore(1, "nintendo", seed=0)
    core.reset(seed=0, options={"deck": dealer_hand + other + field + stock, "dealer": 0})
    action = GreedyAgent(seed=0).act(encode_observations(core), core.legal_action_mask())
    assert action[0] == 2  # pine chaff takes the crane (20 + 1), not a chaff pair (2)


def test_greedy_takes_a_ribbon_over_a_chaff_pair() -> None:
    """The cherry chaff takes the cherry ribbon (5 + 1 = 6), worth more than the bush clover
    chaff taking a chaff (1 + 1 = 2); no other hand card matches the field."""
    hand = [10, 26, 0, 4, 12, 16, 20, 46]
    field = [9, 27, 29, 31, 33, 35, 37, 41]
    other = [1, 5, 13, 17, 21, 25, 28, 32]
    core = dealt(hand, other, field)
    assert greedy_moves(core) == {10}


def test_greedy_without_a_capture_lays_down_its_least_valuable_card() -> None:
    """No hand card's month is on the field: the agent parts with its one chaff card (1
    point), keeping the brights, animals and ribbons."""
    hand = [0, 1, 4, 8, 9, 12, 16, 19]  # months 1-5: two brights, three animals, two ribbons
    field = [20, 21, 24, 28, 32, 36, 40, 44]  # months 6-12
    other = [2, 3, 5, 6, 7, 10, 11, 13]
    core = dealt(hand, other, field)
    mask = core.legal_action_mask()[0]
    assert np.flatnonzero(mask).tolist() == hand  # only plays, none of them a capture
    assert greedy_moves(core) == {19}


def test_card_outcomes_capture_as_rule_2_2_says() -> None:
    """What each candidate move would capture, lay down and take from the field (§2.2): no
    match lays the card down; one match takes it; two give one outcome per field card (the
    choice comes next); three take all four; a take after a two-match play captures the
    chosen card with the waiting one."""
    hand = [10, 26, 30, 46, 0, 4, 12, 16]
    field = [8, 9, 24, 25, 27, 29, 36, 41]  # cherry: 2, bush clover: 3, susuki: 1
    other = [1, 5, 13, 17, 20, 32, 37, 42]
    core = dealt(hand, other, field)

    def outcomes(actions: list[int]) -> list[tuple[int, list[int], list[int], list[int]]]:
        view = decode(encode_observations(core), core.rules)
        out = card_outcomes(view, np.zeros(len(actions), dtype=np.int64),
                            np.array(actions, dtype=np.int64))
        return sorted((int(a), C.ids_of(int(c)), C.ids_of(int(p)), C.ids_of(int(t)))
                      for a, c, p, t in zip(out.action, out.captured, out.placed, out.taken))

    assert outcomes([10, 26, 30, 46]) == [
        (10, [8, 10], [], [8]), (10, [9, 10], [], [9]),
        (26, [24, 25, 26, 27], [], [24, 25, 27]),
        (30, [29, 30], [], [29]),
        (46, [], [46], []),
    ]
    core.step(np.array([10]))  # two cherries on the field: the choice waits
    assert core.phase[0] == CHOOSE_PLAYED and core.pending[0] == 10
    assert outcomes([48 + 8, 48 + 9]) == [(56, [8, 10], [], [8]), (57, [9, 10], [], [9])]


def test_greedy_picks_the_better_field_card_and_always_stops():
    obs = make_obs(hand=(2, 3), field=(8, 10, 20), pending=9, phase=CHOOSE_PLAYED)
    assert GreedyAgent().act(obs, mask_for((48 + 8, 48 + 10)))[0] == 48 + 8  # the curtain
    deciding = make_obs(hand=(2,), own=(8, 32), own_total=5, phase=DECIDE)
    assert GreedyAgent().act(deciding, mask_for((STOP, KOIKOI)))[0] == STOP


def test_greedy_agents_break_ties_by_their_seed() -> None:
    """Two greedy agents with different seeds do not mirror each other; one seed repeats."""
    a = actions_of(GreedyAgent(seed=0), 256)
    np.testing.assert_array_equal(a, actions_of(GreedyAgent(seed=0), 256))
    assert not np.array_equal(a, actions_of(GreedyAgent(seed=1), 256))
