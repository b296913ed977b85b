"""KoiKoiGame (one game, Python ints) against KoiKoiCore (NumPy batch): same state after every
step, same rewards and records, same legal actions and observations, for several rule sets."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common.seeding import game_seeds, splitmix64
from hanafuda_env.koikoi import kernel
from hanafuda_env.koikoi.core import (
    DECIDE,
    KOIKOI,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.koikoi.game import KoiKoiGame, game_seed_of
from hanafuda_env.koikoi.observation import OBS_DIM, encode_game, encode_observations
from hanafuda_env.koikoi.rules import resolve_rules

RULE_SETS = {
    "nintendo": "nintendo",
    "ten-base": "ten-base",
    "koikoi-japan": "koikoi-japan",
    "multiple-koikoi": {"multiple_koikoi": True, "on_exhaustion": "non-dealer-wins"},
    "dealer-wins": {"on_exhaustion": "dealer-wins", "rounds": 3},
    "highest-total": {"on_exhaustion": "highest-total", "next_dealer": "alternate"},
    "alternate-3-rounds": {"next_dealer": "alternate", "rounds": 3, "hand_yaku": "none"},
    "variants": {"rain_washes_sake": True, "akatan_aotan": "combined-15", "hand_yaku": "teshi",
                 "sake_cup_is_chaff": False, "target_score": 25},
}


def core_state(core: KoiKoiCore, g: int) -> dict:
    """Game ``g`` of a core as the plain values ``KoiKoiGame.state_dict`` gives."""
    state = {}
    for name in KoiKoiGame._STATE:
        value = getattr(core, "seeds" if name == "seed" else name)[g]
        state[name] = value.tolist()
    return state


def core_rounds(outcome_rounds, g: int) -> list[dict]:
    rows = [r for r in outcome_rounds.records() if r["game"] == g]
    for r in rows:
        r["game"] = 0
    return rows


def core_matches(matches, g: int) -> list[dict]:
    return [{"winner": int(matches.winner[k]), "scores": matches.scores[k].tolist(),
             "rounds": int(matches.rounds[k])}
            for k in range(len(matches.game)) if matches.game[k] == g]


def pick_actions(games: list[KoiKoiGame], rng: np.random.Generator, koikoi_p: float
                 ) -> np.ndarray:
    """A random legal action per game; at a koi-koi decision call it with ``koikoi_p``."""
    actions = []
    for game in games:
        if game.phase == DECIDE:
            actions.append(KOIKOI if rng.random() < koikoi_p else STOP)
        else:
            legal = game.legal_actions()
            actions.append(legal[int(rng.integers(len(legal)))])
    return np.array(actions, dtype=np.int64)


def assert_same_reset(mine, out, g: int) -> None:
    """A game's reset reports what game ``g`` of a core's reset reports."""
    assert mine.rounds == core_rounds(out.rounds, g)
    assert mine.matches == core_matches(out.matches, g)
    assert list(mine.reward) == out.reward[g].tolist() and mine.match_over == out.match_over[g]


def assert_same(games: list[KoiKoiGame], core: KoiKoiCore, check_obs: bool = True) -> None:
    mask = core.legal_action_mask()
    obs = [encode_observations(core, seats=s) for s in (0, 1)] if check_obs else None
    for g, game in enumerate(games):
        assert game.state_dict() == core_state(core, g), f"game {g}"
        assert game.legal_actions() == np.flatnonzero(mask[g]).tolist()
        game_mask = game.legal_action_mask()
        assert game_mask.dtype == np.int8 and game_mask.shape == (98,)
        assert np.array_equal(game_mask, mask[g].astype(np.int8))
        if check_obs:
            for seat in (0, 1):
                mine = encode_game(game, seat)
                assert mine.dtype == np.float32 and mine.shape == (OBS_DIM,)
                assert np.array_equal(mine, obs[seat][g]), f"game {g} seat {seat}"


def play_both(games: list[KoiKoiGame], core: KoiKoiCore, steps: int, seed: int,
              koikoi_p: float = 0.5, check_obs: bool = True) -> dict[str, int]:
    """Step the core and the games with the same random actions, comparing everything."""
    rng = np.random.default_rng(seed)
    seen: dict[str, int] = {}
    for _ in range(steps):
        actions = pick_actions(games, rng, koikoi_p)
        out = core.step(actions)
        for g, game in enumerate(games):
            mine = game.step(int(actions[g]))
            assert mine.reward == tuple(out.reward[g].tolist())
            assert mine.round_over == bool(out.round_over[g])
            assert mine.match_over == bool(out.match_over[g])
            assert mine.rounds == core_rounds(out.rounds, g)
            assert mine.matches == core_matches(out.matches, g)
            for row in mine.rounds:
                seen[row["reason"]] = seen.get(row["reason"], 0) + 1
                if sum(row["koikoi_calls"]):
                    seen["koikoi-called"] = seen.get("koikoi-called", 0) + 1
            seen["matches"] = seen.get("matches", 0) + len(mine.matches)
        assert_same(games, core, check_obs)
    return seen


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_random_play_matches_core(name):
    rules = resolve_rules(RULE_SETS[name])
    core = KoiKoiCore(8, rules=rules, seed=11)
    games = [KoiKoiGame(rules, game_seed=int(s)) for s in core.seeds]
    first = core.reset(seed=123)
    for g, game in enumerate(games):
        assert_same_reset(game.reset(game_seed=int(core.seeds[g])), first, g)
    assert_same(games, core)
    seen = play_both(games, core, steps=500, seed=5, koikoi_p=0.6)
    # the run went through the paths worth comparing
    assert seen["koikoi-called"] > 0 and seen["matches"] > 0
    assert seen.get("stop", 0) > 0
    assert seen.get("yaku-after-koikoi", 0) + seen.get("yaku-on-last-card", 0) > 0
    exhaustion = "no-game" if rules.on_exhaustion == "no-game" else "exhaustion-win"
    assert seen.get(exhaustion, 0) > 0


@pytest.mark.parametrize("bad", [1.9, True, -1, 2**64, "3"])
def test_the_plain_game_checks_seeds_as_the_core_does(bad) -> None:
    """A float, a bool, text or a seed out of range is refused by name (never truncated or
    taken as 1), and a refused reset leaves the game as it was."""
    with pytest.raises(ValueError, match=r"^seed must be an integer in 0 \.\. 2\*\*64 - 1"):
        KoiKoiGame(seed=bad)
    with pytest.raises(ValueError, match=r"^seed must be"):
        KoiKoiCore(1, seed=bad)
    game = KoiKoiGame(seed=4)
    before = game.state_dict()
    with pytest.raises(ValueError, match=r"^game_seed must be an integer"):
        game.reset(game_seed=bad)
    assert game.state_dict() == before


def test_same_seed_deals_the_same_match():
    for seed in (0, 1, 7, 2**64 - 1, 123456789):
        assert game_seed_of(seed) == int(game_seeds(seed, 1)[0])
        game, core = KoiKoiGame(seed=seed), KoiKoiCore(1, seed=seed)
        assert game.state_dict() == core_state(core, 0)
    core = KoiKoiCore(5, rules="ten-base", seed=99)
    for g in range(5):
        assert game_seed_of(99, g) == int(core.seeds[g])
        game = KoiKoiGame("ten-base", game_seed=int(core.seeds[g]))
        assert game.state_dict() == core_state(core, g)
    x = np.arange(5, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    assert [int(kernel.splitmix64(v)) for v in x] == splitmix64(x).tolist()
    with pytest.raises(ValueError):
        KoiKoiGame(seed=-1)


def _deck(dealer_hand: list[int], other_hand: list[int]) -> list[int]:
    """A legal deck order with the given hands: field has no full month."""
    rest = [c for c in range(48) if c not in dealer_hand + other_hand]
    field: list[int] = []
    for c in rest:  # at most two cards per month on the field
        if len(field) < 8 and sum(f // 4 == c // 4 for f in field) < 2:
            field.append(c)
    stock = [c for c in rest if c not in field]
    return dealer_hand + other_hand + field + stock


@pytest.mark.parametrize("hand_yaku", ["teshi+kuttsuki", "teshi", "none"])
def test_hand_yaku_deals_match_core(hand_yaku):
    teshi = [0, 1, 2, 3, 4, 8, 12, 16]
    kuttsuki = [20, 21, 24, 25, 28, 29, 32, 33]
    plain = [5, 9, 13, 17, 36, 40, 44, 45]
    rules = resolve_rules({"hand_yaku": hand_yaku, "rounds": 1})
    for hands, dealer in [((teshi, plain), 0), ((plain, kuttsuki), 1), ((kuttsuki, teshi), 1)]:
        options = {"deck": _deck(*hands), "dealer": dealer}
        core = KoiKoiCore(1, rules=rules, seed=3)
        game = KoiKoiGame(rules, seed=3)
        dealt = game.reset(seed=3, options=options)
        assert_same_reset(dealt, core.reset(seed=3, options=options), 0)
        assert game.state_dict() == core_state(core, 0)
        counts = [hand == teshi and hand_yaku != "none"
                  or hand == kuttsuki and hand_yaku == "teshi+kuttsuki" for hand in hands]
        got = dealt.rounds
        assert bool(got) == any(counts)
        assert dealt.match_over == any(counts)  # one round per match: it ended at the deal
        if any(counts):  # the dealer's hand yaku wins over the other's
            assert got[0]["reason"] == "hand-yaku" and got[0]["turns"] == 0
            winner = dealer if counts[0] else 1 - dealer
            assert got[0]["winner"] == winner
            assert dealt.matches[0] == {"winner": winner, "scores": got[0]["reward"],
                                        "rounds": 1}
        play_both([game], core, steps=60, seed=1)


def test_from_core_mid_game_and_to_core_continue_identically():
    rules = resolve_rules({"multiple_koikoi": True})
    core = KoiKoiCore(6, rules=rules, seed=21)
    rng = np.random.default_rng(0)
    for _ in range(137):
        core.step(core.sample_legal_actions(rng))
    games = [KoiKoiGame.from_core(core, g) for g in range(6)]
    assert_same(games, core)
    play_both(games, core, steps=200, seed=8, check_obs=False)
    # and back: a game exported to a core continues like the game
    exported = [game.to_core() for game in games]
    for g, twin in enumerate(exported):
        assert core_state(twin, 0) == games[g].state_dict()
        play_both([games[g].copy()], twin, steps=40, seed=g, check_obs=False)


def test_copy_is_independent_and_replays_the_same():
    game = KoiKoiGame("ten-base", seed=5)
    rng = np.random.default_rng(2)
    for _ in range(50):
        game.step(pick_actions([game], rng, 0.5)[0])
    before = game.state_dict()
    clone = game.copy()
    actions = []
    for _ in range(300):
        actions.append(int(pick_actions([clone], rng, 0.5)[0]))
        clone.step(actions[-1])
    assert game.state_dict() == before
    for action in actions:
        game.step(action)
    assert game.state_dict() == clone.state_dict()


def test_encode_game_writes_into_out():
    game = KoiKoiGame(seed=9)
    out = np.full(OBS_DIM, -5.0, dtype=np.float32)
    result = encode_game(game, 1, out=out)
    assert result is out
    assert np.array_equal(out, encode_observations(game.to_core(), seats=1)[0])
