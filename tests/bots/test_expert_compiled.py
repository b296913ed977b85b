"""The compiled expert decides as the NumPy expert does (tie breaks included), from an
observation and from the game record it encodes, and its rollout policy reads only what the
mover may see."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.base import decode
from agents.bots.expert import ExpertAgent, ExpertParams
from agents.bots.registry import make_agent
from hanafuda_env.common.seeding import splitmix64
from hanafuda_env.koikoi import loops as L
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.expert import kernel as K
from hanafuda_env.koikoi.observation import encode_observations
from hanafuda_env.koikoi.state import CHOOSE_DRAWN, CHOOSE_PLAYED, DECIDE, PLAY, ROUND_OVER
from tests.helpers.expert_reference import NumpyExpert

RULES = ["nintendo", "ten-base", "koikoi-japan"]


def positions(rules, n_games: int = 384, steps: int = 48, seed: int = 0):
    """(core records, obs, mask) batches from play that mixes random, greedy and expert
    moves, every few steps: every phase, early and late in rounds, koi-koi calls made."""
    core = KoiKoiCore(n_games, rules, seed=seed)
    rng = np.random.default_rng(seed)
    greedy, expert = make_agent("greedy", rules, seed=seed), ExpertAgent(rules, seed=seed)
    batches = []
    for step in range(steps):
        obs, mask = encode_observations(core), core.legal_action_mask()
        if step % 4 == 3:
            batches.append((core.records.copy(), obs, mask))
        pick = rng.random(n_games)
        core.step(np.where(pick < 0.4, core.sample_legal_actions(rng),
                           np.where(pick < 0.7, greedy.act(obs, mask), expert.act(obs, mask))))
    return batches


@pytest.fixture(scope="module", params=RULES)
def played(request):
    return request.param, positions(request.param)


def test_the_compiled_expert_decides_as_the_numpy_expert(played) -> None:
    rules, batches = played
    params = ExpertParams(potential=0.3, round_sigma=5.0, koikoi_margin=0.01)
    for p in (None, params):
        compiled, numpy = ExpertAgent(rules, seed=7, params=p), NumpyExpert(rules, seed=7,
                                                                            params=p)
        phases = []
        for _, obs, mask in batches:
            assert np.array_equal(compiled.act(obs, mask), numpy.act(obs, mask))
            phases.append(decode(obs, compiled.rules).phase)
        # the same tie-break numbers were drawn: the generators are still in step
        assert compiled.rng.random() == numpy.rng.random()
    phases = np.concatenate(phases)
    for phase in (PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE):
        assert (phases == phase).sum() >= 20, phase


def test_ties_are_broken_by_the_agents_numbers() -> None:
    # two seeds disagree somewhere (tied card actions), yet each matches the reference
    _, obs, mask = positions("nintendo", n_games=256, steps=8)[-1]
    first, second = ExpertAgent(seed=1).act(obs, mask), ExpertAgent(seed=2).act(obs, mask)
    assert (first != second).any()
    assert np.array_equal(first, NumpyExpert(seed=1).act(obs, mask))
    assert mask[np.arange(len(obs)), second].all()


def test_small_batches_and_odd_masks_decide_as_the_numpy_expert() -> None:
    _, obs, mask = positions("nintendo", n_games=64, steps=12)[-1]
    compiled, numpy = ExpertAgent(seed=3), NumpyExpert(seed=3)
    for g in range(0, 64, 7):  # one row at a time
        assert compiled.act(obs[g:g + 1], mask[g:g + 1]) == numpy.act(obs[g:g + 1],
                                                                      mask[g:g + 1])
    lone = np.zeros_like(mask)
    lone[:, 96] = np.arange(64) % 2 == 0  # only stop, or only koi-koi
    lone[:, 97] = ~lone[:, 96]
    assert np.array_equal(compiled.act(obs, lone), np.where(lone[:, 96], 96, 97))


def expert_arrays(rules):
    expert = K.expert_rules(ExpertAgent(rules).rules)
    return expert, (K.weights_of(), *expert.arrays, K.new_scratch(expert))


def record_views(core, expert):
    n = core.n_games
    vu, vi = np.empty((n, K.N_VU), np.uint64), np.empty((n, K.N_VI), np.int64)
    K.views_from_records(core.records, expert.score_unit, expert.rounds, vu, vi)
    return vu, vi


@pytest.mark.parametrize("rules", RULES)
def test_a_records_view_is_its_observations_and_gets_the_same_choice(rules) -> None:
    for records, obs, mask in positions(rules, n_games=192, steps=40, seed=5)[::2]:
        core = KoiKoiCore.wrapping(records, ExpertAgent(rules).rules, autoreset=False)
        expert, arrays = expert_arrays(rules)
        vu, vi = record_views(core, expert)
        ou, oi = np.empty_like(vu), np.empty_like(vi)
        K.views_from_observations(obs, expert.score_unit, expert.rounds, ou, oi)
        assert np.array_equal(vu, ou) and np.array_equal(vi, oi)
        view = decode(obs, core.rules)  # the agents' decoder reads the same
        assert np.array_equal(vu[:, K.VU_UNSEEN], view.unseen)
        assert np.array_equal(vi[:, K.VI_SCORE_DIFF], view.score_diff)
        assert np.array_equal(vi[:, K.VI_OWN_TOTAL], view.own_total)
        starts = np.empty((core.n_games, 2), np.int64)
        rng = np.random.default_rng(11)
        noise = rng.random(K.count_outcomes(vu, mask, starts))
        actions = np.empty(core.n_games, np.int64)
        K.act_on_views(vu, vi, mask, starts, noise, *arrays, actions)
        assert np.array_equal(actions, ExpertAgent(rules, seed=11).act(obs, mask))


def policy_moves(core, words) -> np.ndarray:
    expert = K.expert_rules(core.rules)
    score_scale, rounds, weights, table, forbidden, mask_bits, chances, unit, scratch = \
        K.rollout_arguments(expert)
    vu, vi, noise = np.empty(K.N_VU, np.uint64), np.empty(K.N_VI, np.int64), np.empty(16)
    return np.array([K.record_action(core.records[g], words[g], score_scale, rounds, vu, vi,
                                     noise, weights, expert.params, expert.masks,
                                     expert.counts, table, forbidden, mask_bits, chances, unit,
                                     scratch) for g in range(core.n_games)], dtype=np.int64)


@pytest.mark.parametrize("rules", RULES)
def test_the_rollout_policy_reads_only_what_the_mover_sees(rules) -> None:
    core = KoiKoiCore(256, rules, seed=9, autoreset=False)
    rng = np.random.default_rng(2)
    words = np.arange(1, 257, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    checked = 0
    for _ in range(30):
        live = np.flatnonzero(~core.round_over)
        if len(live) == 0:
            break
        part = core.fork(live)
        moves = policy_moves(part, words[live])
        hidden = part.fork(np.arange(len(live)))
        hidden.resample_hidden(hidden.mover, rng)  # the opponent's hand and the stock
        assert not np.array_equal(hidden.records, part.records)
        assert np.array_equal(policy_moves(hidden, words[live]), moves)
        # and it is the choice the agent's compiled rule makes on the decoded observation,
        # given the rollout's tie-break numbers (hashed from the word, one per outcome)
        obs, mask = encode_observations(part), part.legal_action_mask()
        expert, arrays = expert_arrays(rules)
        vu, vi = np.empty((len(live), K.N_VU), np.uint64), np.empty((len(live), K.N_VI),
                                                                      np.int64)
        K.views_from_observations(obs, expert.score_unit, expert.rounds, vu, vi)
        starts = np.empty((len(live), 2), np.int64)
        noise = np.zeros(K.count_outcomes(vu, mask, starts) + 1)
        for g in range(len(live)):
            n_first = (starts[g + 1, 0] if g + 1 < len(live) else starts[0, 1]) - starts[g, 0]
            n_second = (starts[g + 1, 1] if g + 1 < len(live) else len(noise) - 1) - starts[g, 1]
            word = words[live][g:g + 1]  # an array: splitmix64 wraps without warnings
            for k in range(n_first + n_second):
                word = splitmix64(word)
                at = starts[g, 0] + k if k < n_first else starts[g, 1] + k - n_first
                noise[at] = int(word[0] >> np.uint64(11)) / 2.0**53
        agents_moves = np.empty(len(live), np.int64)
        K.act_on_views(vu, vi, mask, starts, noise, *arrays, agents_moves)
        assert mask[np.arange(len(live)), moves].all()
        assert np.array_equal(moves, agents_moves)
        checked += len(live)
        actions = np.zeros(core.n_games, np.int64)
        actions[live] = core.sample_legal_actions(rng)[live]
        step = core.fork(live)
        step.step(actions[live])
        core.records[live] = step.records
    assert checked > 3000


@pytest.mark.parametrize("rules", RULES)
def test_an_expert_rollout_is_the_python_step_loop_with_the_same_numbers(rules) -> None:
    core = KoiKoiCore(96, rules, seed=13, autoreset=False)
    twin = core.fork(np.arange(96))
    rewards, moves = core.rollout(("expert", "random"), "round", seed=4)
    games = np.arange(96)
    start = splitmix64(np.uint64(4) ^ splitmix64(games.astype(np.uint64)))
    counter = np.zeros(96, dtype=np.int64)
    paid = np.zeros((96, 2), dtype=np.int64)
    while not twin.round_over.all():
        live = ~twin.round_over
        counter[live] += 1
        part = twin.fork(games[live])
        words = splitmix64(start[live] + counter[live].astype(np.uint64))
        uniforms = (words >> np.uint64(11)).astype(np.float64) / 2.0**53
        random_moves = np.empty(live.sum(), np.int64)
        L.sample_actions(part.records, uniforms, random_moves)
        expert_moves = policy_moves(part, words)
        out = part.step(np.where(part.mover == 0, expert_moves, random_moves))
        twin.records[live] = part.records
        paid[live] += out.reward
    assert np.array_equal(counter, moves)
    assert np.array_equal(paid, rewards)
    assert np.array_equal(twin.records, core.records)


def test_expert_rollouts_end_rounds_and_matches_reproducibly() -> None:
    core = KoiKoiCore(200, "koikoi-japan", seed=3, autoreset=False)
    live = ~core.round_over
    first = core.fork(np.arange(200))
    rewards, moves = first.rollout("expert", "match", seed=1)
    again = core.fork(np.arange(200)).rollout("expert", "match", seed=1)
    assert all(np.array_equal(a, b) for a, b in zip((rewards, moves), again))
    assert (first.phase[live] > ROUND_OVER).all() and (rewards.sum(axis=1) == 0).all()
    # the expert beats the greedy policy over whole matches, from either seat
    won = 0
    for seats in (("expert", "greedy"), ("greedy", "expert")):
        points, _ = core.fork(np.arange(200)).rollout(seats, "match", seed=2)
        won += (points[:, seats.index("expert")] > 0).sum()
    assert won > 220
