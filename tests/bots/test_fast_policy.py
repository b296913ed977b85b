"""The ``fast`` policy: legal moves in every phase, the same moves from a record (the kernel's
rollout policy) and from its observation (the agent), nothing read that the mover cannot
see, rollouts reproducible by seed, and its names registered where the other policies'
are."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.fast import FastAgent
from agents.bots.registry import make_agent
from agents.bots.search import SearchAgent
from agents.eval.matches import play_matches
from hanafuda_env.koikoi import batch as B
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.expert import fast as F
from hanafuda_env.koikoi.kernel import compile_rules
from hanafuda_env.koikoi.rules import PRESETS, resolve_rules
from hanafuda_env.koikoi.state import CHOOSE_DRAWN, CHOOSE_PLAYED, DECIDE, PLAY, ROUND_OVER

RULES = ["nintendo", "ten-base", "koikoi-japan"]


def kernel_moves(core: KoiKoiCore) -> np.ndarray:
    """The rollout policy's move in every game (-1 where the round is over)."""
    out = np.empty(core.n_games, dtype=np.int64)
    F.records_actions(core.records, *compile_rules(core.rules).ctx, out)
    return out


def positions(rules: str, n_games: int = 256, steps: int = 60, seed: int = 0):
    """Cores copied every third step of play that mixes random and fast moves: every phase,
    early and late in rounds, koi-koi calls made, matches ended and dealt anew."""
    core = KoiKoiCore(n_games, rules, seed=seed)
    rng = np.random.default_rng(seed)
    found = []
    for step in range(steps):
        if step % 3 == 2:
            found.append(core.fork(np.arange(n_games)))
        moves = kernel_moves(core)
        core.step(np.where(rng.random(n_games) < 0.5, core.sample_legal_actions(rng), moves))
    return found


@pytest.fixture(scope="module", params=RULES)
def played(request):
    return request.param, positions(request.param)


def test_every_move_is_legal_in_every_phase(played) -> None:
    _, cores = played
    phases = set()
    for core in cores:
        moves, mask = kernel_moves(core), core.legal_action_mask()
        live = np.flatnonzero(core.phase < ROUND_OVER)
        assert mask[live, moves[live]].all()
        phases |= set(core.phase[live].tolist())
    assert {PLAY, CHOOSE_PLAYED, CHOOSE_DRAWN, DECIDE} <= phases


def test_the_agent_plays_the_kernel_policys_moves(played) -> None:
    rules, cores = played
    agent = make_agent("fast", rules)
    assert isinstance(agent, FastAgent)
    for core in cores:
        live = np.flatnonzero(core.phase < ROUND_OVER)
        part = core.fork(live)
        assert np.array_equal(agent.act(part.observe(), part.legal_action_mask()),
                              kernel_moves(part))


def test_the_policy_reads_only_what_the_mover_sees(played) -> None:
    _, cores = played
    rng = np.random.default_rng(1)
    changed = 0
    for core in cores:
        part = core.fork(np.flatnonzero(core.phase < ROUND_OVER))
        moves = kernel_moves(part)
        for _ in range(2):
            hidden = part.fork(np.arange(part.n_games))
            hidden.resample_hidden(hidden.mover, rng)  # the opponent's hand and the stock
            changed += int((hidden.records != part.records).sum())
            assert np.array_equal(kernel_moves(hidden), moves)
    assert changed > 0


def test_rollouts_are_reproducible_by_seed_and_end_their_rounds() -> None:
    source = KoiKoiCore(1, seed=3, autoreset=False)
    runs = []
    for _ in range(2):
        worlds = source.fork(0, 64)
        totals, decisions = worlds.rollout("fast", "match", seed=11)
        assert (worlds.phase >= ROUND_OVER).all() and (decisions > 0).all()
        runs.append((totals.copy(), worlds.records.copy()))
    assert np.array_equal(runs[0][0], runs[1][0])
    assert np.array_equal(runs[0][1], runs[1][1])
    mixed = source.fork(0, 64)
    mixed.rollout(("fast", "expert"), "round", seed=11)
    assert (mixed.phase >= ROUND_OVER).all()


def test_matches_against_other_bots_are_legal_and_reproducible() -> None:
    rules = resolve_rules("nintendo")
    results = [play_matches(FastAgent(rules), make_agent("random", rules, seed=2), 8, rules,
                            seed=5) for _ in range(2)]
    assert results[0]["win_rate"] == results[1]["win_rate"]
    assert results[0]["win_rate"]["value"] > 0.5


def test_the_unit_read_from_the_yaku_table_is_the_rule_sets() -> None:
    for name in PRESETS:
        rules = resolve_rules(name)
        assert F.rule_unit(compile_rules(rules).yaku_counts) == rules.point_unit


def test_the_name_is_registered_as_a_rollout_policy_and_a_search_rollout() -> None:
    assert B.POLICIES["fast"] not in {v for k, v in B.POLICIES.items() if k != "fast"}
    assert len(F.CARD_FEATURE_NAMES) == F.N_CARD_FEATURES
    core = KoiKoiCore(4, seed=0)
    agent = SearchAgent(core.rules, seed=0, worlds=4, rollout="fast")
    actions = agent.act(core.observe(), core.legal_action_mask())
    assert core.legal_action_mask()[np.arange(4), actions].all()
