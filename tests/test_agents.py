"""Baseline agents: the agent protocol, random, greedy, the card model and the expert heuristic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.bots.base import AgentLike, decode
from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.card_model import ROW_OF_CARD, card_chances, chance_table, month_nibbles
from agents.bots.expert import ExpertAgent, count_tails
from agents.bots.registry import BASELINES
from agents.eval.matches import (
    play_matches,
)
from hanafuda_env import cards as C
from hanafuda_env.core import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    NUM_ACTIONS,
    PLAY,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.observation import BLOCK, OBS_DIM, SCALAR_INDEX, encode_observations
from hanafuda_env.rules import resolve_rules
from hanafuda_env.scoring import batch_scorer, month_counts, round_points, yaku_table

ROOT = Path(__file__).resolve().parents[1]
AGENTS = (RandomAgent, GreedyAgent, ExpertAgent)
SHORT = resolve_rules("nintendo").replace(rounds=3)


def make_obs(hand=(), field=(), own=(), opp=(), pending=-1, phase=PLAY, opp_hand_n=None,
             stock_left=None, own_total=0, opp_total=0, own_called=False, opp_called=False,
             dealer=True, rounds_left=12, rounds=12, score_diff=0.0, unit=1):
    """One observation vector built by hand, with the encoder's layout and scaling."""
    obs = np.zeros((1, OBS_DIM), dtype=np.float32)
    sets = {"hand": C.mask_of(hand), "field": C.mask_of(field), "own_pile": C.mask_of(own),
            "opp_pile": C.mask_of(opp), "pending": C.mask_of([pending] if pending >= 0 else [])}
    seen = 0
    for name, bits in sets.items():
        obs[0, BLOCK[name]] = C.bits_to_bool(np.array([bits], dtype=np.uint64))[0]
        seen |= bits
    unseen = C.ALL_CARDS & ~seen
    obs[0, BLOCK["unseen"]] = C.bits_to_bool(np.array([unseen], dtype=np.uint64))[0]
    obs[0, BLOCK["phase"].start + phase] = 1.0
    opp_hand_n = len(hand) if opp_hand_n is None else opp_hand_n
    if stock_left is None:
        stock_left = min(24, unseen.bit_count() - opp_hand_n)
    scale = 10.0 * unit
    values = {"stock_left": stock_left / 24, "own_hand_size": len(hand) / 8,
              "opp_hand_size": opp_hand_n / 8, "own_called_koikoi": float(own_called),
              "opp_called_koikoi": float(opp_called), "own_yaku_total": own_total / scale,
              "opp_yaku_total": opp_total / scale, "is_dealer": float(dealer),
              "round_progress": (rounds - rounds_left) / rounds,
              "rounds_left": rounds_left / rounds,
              "score_diff": score_diff / scale}
    for name, value in values.items():
        obs[0, SCALAR_INDEX[name]] = value
    return obs


def mask_for(actions) -> np.ndarray:
    mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
    mask[0, list(actions)] = True
    return mask


# ------------------------------------------------------------------ legality
@pytest.mark.parametrize("rules", ["nintendo", "ten-base"])
def test_agents_only_choose_legal_actions_in_every_phase(rules):
    core = KoiKoiCore(64, rules, seed=11)
    agents = [cls(rules, seed=i) for i, cls in enumerate(AGENTS)]
    phases_seen = set()
    for step in range(220):
        obs, mask = encode_observations(core), core.legal_action_mask()
        phases_seen.update(np.unique(core.phase).tolist())
        chosen = []
        for agent in agents:
            actions = agent.act(obs, mask)
            assert actions.shape == (core.n_games,) and actions.dtype == np.int64
            assert mask[np.arange(core.n_games), actions].all(), agent.name
            chosen.append(actions)
        core.step(chosen[step % len(agents)])  # each agent steers the games in turn
    assert phases_seen == {PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE}


def test_agents_follow_the_protocol_and_check_inputs():
    for cls in AGENTS:
        agent = cls()
        assert isinstance(agent, AgentLike) and agent.name in BASELINES
        assert agent.act(np.zeros((0, OBS_DIM), np.float32), np.zeros((0, 98), bool)).shape == (0,)
        with pytest.raises(ValueError, match="obs must have shape"):
            agent.act(np.zeros((2, OBS_DIM - 1), np.float32), np.ones((2, 98), bool))
        with pytest.raises(ValueError, match="allows no action"):
            agent.act(np.zeros((1, OBS_DIM), np.float32), np.zeros((1, 98), bool))


def test_random_agent_is_seeded_and_spreads_over_legal_actions():
    obs = np.repeat(make_obs(hand=(2, 6, 14, 18), field=(0,)), 4000, axis=0)
    mask = np.repeat(mask_for((2, 6, 14, 18)), 4000, axis=0)
    a, b = RandomAgent(seed=3), RandomAgent(seed=3)
    first = a.act(obs, mask)
    assert (first == b.act(obs, mask)).all()
    counts = np.bincount(first, minlength=98)[[2, 6, 14, 18]]
    assert counts.sum() == 4000 and counts.min() > 850  # about 1000 each


def test_decode_reads_back_a_real_observation():
    core = KoiKoiCore(8, "ten-base", seed=5)
    for _ in range(9):
        core.step(core.sample_legal_actions(np.random.default_rng(0)))
    view = decode(encode_observations(core), core.rules)
    mover = core.mover
    assert (view.hand == core.hands[np.arange(8), mover]).all()
    assert (view.own_pile == core.piles[np.arange(8), mover]).all()
    assert (view.own_total == core.yaku_total[np.arange(8), mover]).all()
    assert (view.opp_hand_n == np.bitwise_count(core.hands[np.arange(8), 1 - mover])).all()


# ------------------------------------------------------------------ greedy
def test_greedy_takes_the_most_valuable_capture_in_a_real_game():
    dealer_hand = [2, 6, 14, 18, 22, 26, 30, 46]  # chaff of eight months
    field = [0, 7, 11, 35, 39, 43, 47, 27]  # the crane matches the pine chaff
    other = [1, 4, 8, 12, 16, 20, 24, 28]  # one card of each of eight months: no hand yaku
    stock = [c for c in range(48) if c not in dealer_hand + field + other]
    core = KoiKoiCore(1, "nintendo", seed=0)
    core.reset(seed=0, options={"deck": dealer_hand + other + field + stock, "dealer": 0})
    action = GreedyAgent(seed=0).act(encode_observations(core), core.legal_action_mask())
    assert action[0] == 2  # pine chaff takes the crane (20 + 1), not a chaff pair (2)


def test_greedy_picks_the_better_field_card_and_always_stops():
    obs = make_obs(hand=(2, 3), field=(8, 10, 20), pending=9, phase=CHOOSE_PLAYED)
    assert GreedyAgent().act(obs, mask_for((48 + 8, 48 + 10)))[0] == 48 + 8  # the curtain
    deciding = make_obs(hand=(2,), own=(8, 32), own_total=5, phase=DECIDE)
    assert GreedyAgent().act(deciding, mask_for((STOP, KOIKOI)))[0] == STOP


# ------------------------------------------------------------------ expert
def test_expert_completes_a_yaku_over_a_richer_capture():
    # own pile: curtain; field: sake cup, crane, phoenix. Taking the sake cup makes
    # hanami-zake (5 points); a greedy player takes a bright instead.
    hand, field = (33, 2, 46, 14), (32, 0, 44, 25)
    obs = make_obs(hand=hand, field=field, own=(8, 10), opp=(4, 6))
    legal = mask_for(hand)
    assert ExpertAgent(seed=0).act(obs, legal)[0] == 33
    assert GreedyAgent(seed=0).act(obs, legal)[0] in (2, 46)


def test_expert_takes_the_card_the_opponent_needs():
    # the opponent holds two red poetry ribbons; the third lies on the field next to a
    # chaff pair worth the same card points to a greedy player
    hand, field = (10, 47, 15, 23), (9, 45, 27, 31)
    obs = make_obs(hand=hand, field=field, own=(4, 6), opp=(1, 5, 2, 7))
    assert ExpertAgent(seed=0).act(obs, mask_for(hand))[0] == 10


def test_expert_stops_when_stopping_wins_the_match():
    # last round, level scores: a 5-point stop wins the match; koi-koi could only lose it
    obs = make_obs(hand=(2, 14, 26), own=(8, 32, 10), opp=(1, 5, 4, 6), field=(9, 30),
                   own_total=5, phase=DECIDE, rounds_left=1)
    assert ExpertAgent().act(obs, mask_for((STOP, KOIKOI)))[0] == STOP


def test_expert_stops_on_a_doubled_score_with_the_opponent_close():
    # first round of 12: 7 points (doubled to 14), few cards left and the opponent one
    # card from akatan with that card on the field
    obs = make_obs(hand=(14, 26), own=(0, 8, 28, 29, 30, 31), opp=(1, 5, 2, 6, 20),
                   field=(9, 38), own_total=7, phase=DECIDE, rounds_left=12)
    assert ExpertAgent().act(obs, mask_for((STOP, KOIKOI)))[0] == STOP


def test_expert_calls_koikoi_when_a_stop_cannot_save_the_match():
    # last round, 20 points behind: stopping for 5 loses the match for sure
    obs = make_obs(hand=(2, 14, 26, 35, 39), own=(8, 32, 10), opp=(4, 6), field=(9, 30, 1),
                   own_total=5, phase=DECIDE, rounds_left=1, score_diff=-20)
    assert ExpertAgent().act(obs, mask_for((STOP, KOIKOI)))[0] == KOIKOI


def test_card_chances_are_probabilities_and_dead_cards_are_nobodys():
    # all of pine except the crane is in piles: the crane (in hand) can never be captured
    hand = np.array([C.mask_of([0, 4, 8])], dtype=np.uint64)
    field = np.array([C.mask_of([5, 9])], dtype=np.uint64)
    seen = C.mask_of([0, 4, 8, 5, 9, 1, 2, 3])
    unseen = np.array([C.ALL_CARDS & ~seen], dtype=np.uint64)
    mine, theirs = card_chances(hand, field, unseen, np.array([3]))
    assert ((mine >= 0) & (theirs >= 0) & (mine + theirs <= 1 + 1e-12)).all()
    assert mine[0, 0] == 0 and theirs[0, 0] == 0
    assert mine[0, 5] > theirs[0, 5]  # a field card my hand can take next turn
    assert (mine[0, [1, 2, 3]] == 0).all()  # cards in piles are left to the caller


# ------------------------------------------------------------------ expert, fast paths
# The expert values every candidate with whole-batch tricks (a chance table, count tails of
# all yaku masks at once). These tests pin them to plain card-by-card references.
def plain_count_distribution(a: np.ndarray) -> np.ndarray:
    """(N, k) independent chances -> (N, k + 1) distribution of how many happen."""
    dist = np.zeros((len(a), a.shape[1] + 1))
    dist[:, 0] = 1.0
    for j in range(a.shape[1]):
        p = a[:, j:j + 1]
        shifted = dist[:, :-1] * p
        dist *= 1.0 - p
        dist[:, 1:] += shifted
    return dist


def random_chances(rng, shape) -> np.ndarray:
    a = rng.random(shape)
    a[rng.random(shape) < 0.2] = 0.0  # dead cards and the other pile
    a[rng.random(shape) < 0.1] = 1.0  # a certain draw
    return a


@pytest.mark.parametrize("k, cap", [(1, 1), (3, 3), (6, 6), (10, 5), (25, 10), (4, 0)])
def test_count_tails_match_a_card_by_card_distribution(k, cap):
    rng = np.random.default_rng(k * 100 + cap)
    a = random_chances(rng, (300, k))
    reference = np.cumsum(plain_count_distribution(a)[:, ::-1], axis=1)[:, ::-1]  # P(>= r)
    tails = count_tails(a.T, cap)  # (cap + 1, N)
    np.testing.assert_allclose(tails.T, reference[:, :cap + 1], rtol=0, atol=1e-12)
    # masks side by side, padded with zero chances, as the expert runs them
    padded = np.zeros((k + 2, 2, 300))
    padded[:k, 0], padded[:k - 1, 1] = a.T, a.T[:-1]
    both = count_tails(padded, cap)
    np.testing.assert_allclose(both[:, 0], tails, rtol=0, atol=1e-12)
    np.testing.assert_allclose(both[:, 1], count_tails(a.T[:-1], cap), rtol=0, atol=1e-12)


def random_places(rng, n: int) -> list[np.ndarray]:
    """Hand, field, unseen, my pile and the opponent's pile of n random card layouts."""
    place = rng.choice(5, size=(n, 48), p=rng.dirichlet(np.ones(5)))
    return [C.bool_to_bits(place == k) for k in range(5)]


def test_chance_table_gives_card_chances_exactly():
    rng = np.random.default_rng(3)
    hand, field, unseen, _, _ = random_places(rng, 2000)
    overlapping = [C.bool_to_bits(rng.random((500, 48)) < 0.3) for _ in range(3)]  # odd obs
    hand, field, unseen = (np.concatenate([a, b]) for a, b in zip((hand, field, unseen),
                                                                   overlapping))
    turns = rng.integers(0, 9, 2500)
    nib = month_nibbles(hand, field, unseen)
    code = (nib[0] | nib[1] << np.uint64(4) | nib[2] << np.uint64(8)).astype(np.intp)
    looked_up = np.take(chance_table(), code + turns * 4096, axis=2).reshape(2, 48, -1)
    mine, theirs = card_chances(hand, field, unseen, turns)
    np.testing.assert_array_equal(looked_up[0][ROW_OF_CARD].T, mine)
    np.testing.assert_array_equal(looked_up[1][ROW_OF_CARD].T, theirs)


def test_expert_acquisition_matches_the_plain_formula():
    rng = np.random.default_rng(4)
    hand, field, unseen, pile, opp_pile = random_places(rng, 500)
    turns, draw_now = rng.integers(0, 9, 500), rng.random(500) < 0.5
    fast = ExpertAgent()._acquisition(hand, field, pile, opp_pile, unseen, turns, draw_now)
    a_me, a_opp = card_chances(hand, field, unseen, turns)
    n_unseen = np.maximum(np.bitwise_count(unseen), 1)[:, None]
    mates = month_counts(unseen)[:, C.CARD_MONTH - 1]
    hit = np.where(C.bits_to_bool(field), draw_now[:, None] * mates / n_unseen, 0.0)
    gone = C.bits_to_bool(pile | opp_pile)
    np.testing.assert_array_equal(fast[48], 0.0)
    np.testing.assert_allclose(fast[ROW_OF_CARD, 0].T, np.where(gone, 0, hit + (1 - hit) * a_me),
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast[ROW_OF_CARD, 1].T, np.where(gone, 0, (1 - hit) * a_opp),
                               rtol=0, atol=1e-15)


def plain_events(rules, pile, a, total, loser_called):
    """The yaku events of each pile, one yaku and one condition at a time: chance of
    improving, expected score if so, expected gain (a: (N, 48) chances, 1 in the pile)."""
    table, breakdown = yaku_table(rules), batch_scorer(rules).breakdown(pile)
    names = [y.name for y in table]
    probs, gains = [], []

    def tail(mask: int, need) -> np.ndarray:
        dist = plain_count_distribution(a[:, C.ids_of(mask)])
        tails = np.cumsum(dist[:, ::-1], axis=1)[:, ::-1]
        return tails[np.arange(len(pile)), np.minimum(need, dist.shape[1] - 1)] * (
            need < dist.shape[1])

    for i, y in enumerate(table):
        prob, met = np.ones(len(pile)), np.ones(len(pile), bool)
        for mask, need in y.conditions:
            met &= np.bitwise_count(pile & np.uint64(mask)) >= need
            prob = prob * tail(mask, np.full(len(pile), need))
        ok = (pile & np.uint64(y.forbidden)) == 0
        blocked = np.zeros(len(pile), bool)
        for e in y.excluded_by:
            if e in names:
                blocked |= breakdown[:, names.index(e)] > 0
        replaced = sum(breakdown[:, j] for j, z in enumerate(table) if y.name in z.excluded_by)
        probs.append(np.where(met & ok | blocked, 0.0, prob * ok))
        gains.append(np.maximum(y.points - replaced + np.zeros(len(pile)), y.extra_points or 1))
        if y.extra_points:
            held = np.bitwise_count(pile & np.uint64(y.extra_mask)).astype(np.intp)
            probs.append(np.where(breakdown[:, i] > 0, tail(y.extra_mask, held + 1), 0.0))
            gains.append(np.full(len(pile), y.extra_points))
    probs, gains = np.clip(np.stack(probs, axis=1), 0, 1), np.stack(gains, axis=1)
    score = round_points(total[:, None] + gains.astype(np.int64), loser_called[:, None], rules)
    q = 1.0 - np.prod(1.0 - probs, axis=1)
    win = (probs * score).sum(axis=1) / np.maximum(probs.sum(axis=1), 1e-12)
    return q, win, (probs * gains).sum(axis=1), probs, score


@pytest.mark.parametrize("rules", ["nintendo", "ten-base",
                                   {"rain_washes_sake": True, "sake_cup_is_chaff": False,
                                    "akatan_aotan": "combined-15"}])
def test_expert_events_match_a_plain_yaku_loop(rules):
    rules = resolve_rules(rules)
    rng = np.random.default_rng(5)
    n = 400
    # piles from sparse to rich, so yaku stand, grow, block and replace one another
    pile = C.bool_to_bits(rng.random((n, 48)) < rng.uniform(0.05, 0.7, (n, 1)))
    in_pile = C.bits_to_bool(pile)
    a = np.where(in_pile, 0.0, random_chances(rng, (n, 48)))
    chances = np.zeros((49, n))
    chances[ROW_OF_CARD] = a.T
    total = batch_scorer(rules).totals(pile).astype(np.int64)
    loser_called = rng.random(n) < 0.3
    fast = ExpertAgent(rules)._events(pile, chances, total, loser_called,
                                      batch_scorer(rules).breakdown(pile))
    plain = plain_events(rules, pile, np.where(in_pile, 1.0, a), total, loser_called)
    for got, want in zip(fast[:3], plain[:3]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast[3].T, plain[3], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(fast[4].T, plain[4])
    assert 0 < plain[0].mean() < 1 and (plain[3] > 0).mean() > 0.1  # not a vacuous check


@pytest.mark.parametrize("rules", ["nintendo", "ten-base"])
def test_expert_beats_random_and_greedy(rules):
    rules = resolve_rules(rules).replace(rounds=3)
    expert = ExpertAgent(rules, seed=1)
    vs_random = play_matches(expert, RandomAgent(rules, seed=2), 200, rules, seed=3)
    vs_greedy = play_matches(expert, GreedyAgent(rules, seed=2), 400, rules, seed=4)
    assert vs_random["score_rate"]["low"] > 0.75, vs_random["score_rate"]
    assert vs_greedy["score_rate"]["low"] > 0.55, vs_greedy["score_rate"]
    assert vs_greedy["points_per_round"]["low"] > 0
