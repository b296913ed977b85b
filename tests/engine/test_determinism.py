"""Seeds fully decide a game: reproducibility, batch-size independence, forks, and the seeds
a core takes (per game, checked, never None unless allowed)."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common.seeding import check_seed_value, lone_game_seeds
from hanafuda_env.koikoi.core import KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame

N_STEPS = 200


def play(core: KoiKoiCore, rng: np.random.Generator) -> np.ndarray:
    return core.sample_legal_actions(rng)


def rows_of(results, games) -> list[dict]:
    return [r for r in results.records() if r["game"] in games]


def assert_states_equal(a: dict, b: dict, where: str) -> None:
    for key in a:
        assert np.array_equal(a[key], b[key]), f"{where}: {key} differs"


def test_same_seed_same_trajectory() -> None:
    cores = [KoiKoiCore(8, "nintendo", seed=123) for _ in range(2)]
    rngs = [np.random.default_rng(9) for _ in range(2)]
    for t in range(N_STEPS):
        assert_states_equal(cores[0].state_dict(), cores[1].state_dict(), f"step {t}")
        actions = [play(c, r) for c, r in zip(cores, rngs, strict=True)]
        assert np.array_equal(actions[0], actions[1])
        outs = [c.step(a) for c, a in zip(cores, actions, strict=True)]
        assert np.array_equal(outs[0].reward, outs[1].reward)
        assert outs[0].rounds.records() == outs[1].rounds.records()
        assert np.array_equal(outs[0].matches.scores, outs[1].matches.scores)
    # reset with the seed again replays the first deal
    again = KoiKoiCore(8, "nintendo", seed=123)
    cores[0].reset(seed=123)
    assert_states_equal(again.state_dict(), cores[0].state_dict(), "after reset")


def test_different_seeds_deal_differently() -> None:
    a, b = KoiKoiCore(8, seed=1), KoiKoiCore(8, seed=2)
    assert not np.array_equal(a.hands, b.hands)
    assert len(set(a.hands[:, 0].tolist())) == 8, "games of one batch got the same deal"


def test_game_trajectory_does_not_depend_on_batch_size() -> None:
    small, large = KoiKoiCore(4, "ten-base", seed=77), KoiKoiCore(16, "ten-base", seed=77)
    rng = np.random.default_rng(3)
    rounds_seen = 0
    for t in range(N_STEPS):
        s, big = small.state_dict(), large.state_dict()
        for key in s:
            assert np.array_equal(s[key], big[key][:4]), f"step {t}: {key} differs"
        actions = play(large, rng)
        out_small, out_large = small.step(actions[:4]), large.step(actions)
        assert np.array_equal(out_small.reward, out_large.reward[:4])
        assert out_small.rounds.records() == rows_of(out_large.rounds, range(4))
        rounds_seen += len(out_small.rounds)
    assert rounds_seen >= 8


def test_fork_continues_like_its_source() -> None:
    source = KoiKoiCore(6, "nintendo", seed=5)
    rng = np.random.default_rng(5)
    for _ in range(23):  # somewhere in the middle of a round
        source.step(play(source, rng))
    picked, copies = np.array([1, 4]), 3
    clone = source.fork(picked, copies=copies)
    index = np.repeat(picked, copies)
    rounds_seen = 0
    for t in range(N_STEPS):
        s, c = source.state_dict(), clone.state_dict()
        for key in s:
            assert np.array_equal(s[key][index], c[key]), f"step {t}: {key} differs"
        actions = play(source, rng)
        out_s, out_c = source.step(actions), clone.step(actions[index])
        assert np.array_equal(out_s.reward[index], out_c.reward)
        for k, g in enumerate(index.tolist()):
            copied = [dict(r, game=g) for r in rows_of(out_c.rounds, {k})]
            assert copied == rows_of(out_s.rounds, {g}), f"step {t}: copy {k} rounds differ"
        rounds_seen += len(out_c.rounds)
    assert rounds_seen >= 10, "the fork never crossed a round end"


def test_fork_with_seed_keeps_the_round_and_changes_later_deals() -> None:
    source = KoiKoiCore(4, "nintendo", seed=8)
    rng = np.random.default_rng(8)
    for _ in range(5):
        source.step(play(source, rng))
    g, copies = 2, 4
    clone = source.fork(g, copies=copies, seed=999)
    current_round = source.round_index[g]
    ended = False
    for _ in range(N_STEPS):
        s, c = source.state_dict(), clone.state_dict()
        for key in ("hands", "field", "piles", "stock", "stock_pos", "mover", "phase",
                    "pending", "koikoi_calls", "match_score"):
            for k in range(copies):
                assert np.array_equal(s[key][g], c[key][k]), f"{key} differs before round end"
        actions = play(source, rng)
        out_s = source.step(actions)
        out_c = clone.step(np.full(copies, actions[g]))
        if out_s.round_over[g]:
            first = [r for r in out_s.rounds.records() if r["game"] == g][0]
            for k in range(copies):
                theirs = [r for r in out_c.rounds.records() if r["game"] == k][0]
                assert dict(theirs, game=g) == first, "the current round's result changed"
            ended = True
            break
    assert ended, "the source round never ended"
    assert source.round_index[g] != current_round or len(out_s.matches.game)
    # the next deal comes from the new seed: every copy differs from the source and each other
    deals = {(int(clone.hands[k, 0]), int(clone.hands[k, 1])) for k in range(copies)}
    assert len(deals) == copies
    assert (int(source.hands[g, 0]), int(source.hands[g, 1])) not in deals


def test_a_list_of_game_seeds_is_used_as_is_and_lone_game_seeds_convert_seeds() -> None:
    seeds = [5, 6, 2**64 - 1]
    raw = KoiKoiCore(3, "nintendo", seed=seeds)
    assert raw.seeds.tolist() == seeds  # what a core holds: a state round-trips
    batch = KoiKoiCore(3, "nintendo", seed=lone_game_seeds(seeds))
    for g, seed in enumerate(seeds):
        alone = KoiKoiCore(1, "nintendo", seed=seed)
        for key, value in alone.state_dict().items():
            assert np.array_equal(batch.state_dict()[key][g], value[0]), f"game {g}: {key}"
        assert raw.seeds[g] == KoiKoiGame("nintendo", game_seed=seed).seed
    assert batch.seeds[0] == KoiKoiGame("nintendo", seed=5).seed


@pytest.mark.parametrize("bad", [[5, 6], [[5, 6, 7]], [5, 6, 0.5], [5, True, 7], [5, -1, 7],
                                 [5, 2**64, 7], ["5", 6, 7], np.array([1.0, 2.0, 3.0])])
def test_a_bad_seed_list_names_the_problem_and_changes_nothing(bad) -> None:
    core = KoiKoiCore(3, "nintendo", seed=1)
    before = core.state_dict()
    with pytest.raises(ValueError, match="seed"):
        core.reset(seed=bad)
    assert_states_equal(before, core.state_dict(), "after a rejected reset")


@pytest.mark.parametrize("games, copies, seed", [(1.9, 1, None), (True, 1, None),
                                                 (np.array([0.5, 2.7]), 1, None),
                                                 (np.array([True, False, True]), 1, None),
                                                 ([[0, 1]], 1, None), (1, 0, None), (1, 2.0, None),
                                                 (1, 1, 0.5), (1, 1, -3)])
def test_fork_refuses_what_is_not_a_game_index(games, copies, seed) -> None:
    core = KoiKoiCore(4, "nintendo", seed=0)
    with pytest.raises(ValueError, match="fork"):
        core.fork(games, copies=copies, seed=seed)
    assert core.fork(np.uint8(3)).hands[0].tolist() == core.hands[3].tolist()


def test_seed_checks_refuse_none_unless_allowed() -> None:
    """None is a seed only where the caller allows it; a list of game seeds may not hold
    None."""
    with pytest.raises(ValueError, match="must be an integer"):
        check_seed_value(None)
    assert check_seed_value(None, allow_none=True) is None
    with pytest.raises(ValueError, match="every seed of the list"):
        KoiKoiCore(2).reset(seed=[1, None])
