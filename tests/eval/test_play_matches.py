"""The batched evaluator ``play_matches``: its counts add up and are balanced, matches ended at
the deal are counted by the core's rule, it is reproducible, it seats and deals as documented
whatever the batch, self-play pairs cancel the deal, and its koi-koi figures match the
rounds played."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from agents.bots.baselines import GreedyAgent, RandomAgent
from agents.bots.expert import ExpertAgent
from agents.eval import matches as evaluation
from agents.eval.matches import play_matches
from hanafuda_env.common.results import END_HAND_YAKU
from hanafuda_env.common.seeding import game_seeds
from hanafuda_env.koikoi.core import KOIKOI, KoiKoiCore
from hanafuda_env.koikoi.rules import resolve_rules

SHORT = resolve_rules("nintendo").replace(rounds=3)

# ------------------------------------------------------------------ evaluation
def test_play_matches_counts_are_consistent_and_balanced():
    result = play_matches(GreedyAgent(SHORT, seed=0), RandomAgent(SHORT, seed=1), 11, SHORT,
                          seed=7, batch=4)
    assert result["wins"] + result["draws"] + result["losses"] == result["matches"] == 11
    assert result["seats"] == {"a_at_seat_0": 6, "a_at_seat_1": 5, "a_deals_first": 5}
    assert result["rounds"] == 33  # every match has exactly three rounds
    per_match, per_round = result["points_per_match"], result["points_per_round"]
    assert per_match["pairs"] == per_round["pairs"] == 6  # the last pair has one match
    assert per_match["mean"] * 11 == pytest.approx(per_round["mean"] * 33)
    assert sum(result["round_ends"].values()) == 33
    a, b = result["a"], result["b"]
    assert a["rounds_won"] + b["rounds_won"] <= 33
    assert a["koikoi"]["calls"] == 0  # greedy always stops
    assert b["koikoi"]["paid_off"] <= b["koikoi"]["rounds_called"] <= b["koikoi"]["calls"]
    assert sum(a["yaku"].values()) >= a["rounds_won"]  # no-game rule: a win needs yaku
    json.dumps(result)  # plain Python all the way down


def test_one_round_matches_that_end_at_the_deal_are_counted():
    # with one round per match every hand yaku ends a match inside KoiKoiCore.reset, which
    # reports it like any other
    rules = resolve_rules("nintendo").replace(rounds=1)
    result = play_matches(RandomAgent(rules, seed=0), RandomAgent(rules, seed=1), 300, rules,
                          seed=0)
    assert result["round_ends"]["hand-yaku"] > 0
    assert result["rounds"] == 300
    assert result["wins"] + result["draws"] + result["losses"] == 300
    assert result["draws"] == result["round_ends"].get("no-game", 0)


# A seed whose first pair of matches is dealt three hand yaku in a row (found by a search over
# seeds with the engine; the test checks the deals it relies on).
HAND_YAKU_RUN_SEED = 2440668


def test_a_target_score_reached_at_the_deal_is_counted_by_the_cores_rule():
    """Three hand yaku dealt in a row: seat 0 scores 6, seat 1 6, seat 0 6. Seat 0 has scored
    the target 12 (net only +6), so both matches of the pair end inside reset and are
    counted from the core's match rows, without a single move."""
    rules = resolve_rules("nintendo").replace(target_score=12)
    core = KoiKoiCore(1, rules, seed=0)
    dealt = core.reset(seed=game_seeds(HAND_YAKU_RUN_SEED, 1), options={"dealer": 0})
    assert dealt.rounds.winner.tolist() == [0, 1, 0] and dealt.match_over.all()
    assert set(dealt.rounds.reason.tolist()) == {END_HAND_YAKU}
    result = play_matches(RandomAgent(rules, seed=0), RandomAgent(rules, seed=1), 2, rules,
                          seed=HAND_YAKU_RUN_SEED)
    assert (result["wins"], result["draws"], result["losses"]) == (1, 0, 1)  # seat 0 won both
    assert result["rounds"] == 6 and result["round_ends"] == {"hand-yaku": 6}
    assert result["points_per_match"]["mean"] == 0 and result["a"]["moves"] == 0
    assert result["a"]["rounds_won"] == result["b"]["rounds_won"] == 3


def test_play_matches_is_reproducible():
    first = play_matches(ExpertAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=0), 8, SHORT, 5)
    again = play_matches(ExpertAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=0), 8, SHORT, 5)
    untimed = ("wins", "draws", "losses", "points_per_match", "points_per_round", "round_ends")
    assert {k: first[k] for k in untimed} == {k: again[k] for k in untimed}
    for side in ("a", "b"):
        for key in ("koikoi", "yaku", "moves", "rounds_won"):
            assert first[side][key] == again[side][key]
    other = play_matches(ExpertAgent(SHORT, seed=0), GreedyAgent(SHORT, seed=0), 8, SHORT, 6)
    assert other["points_per_round"] != first["points_per_round"]  # the seed matters


def test_play_matches_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n_matches"):
        play_matches(RandomAgent(), RandomAgent(), 0)


def test_self_play_pairs_cancel_the_deal():
    """The same deterministic agent on both sides: every pair's points cancel exactly, so
    the pair interval has no width, where a per-match one would claim a spread."""
    rules = resolve_rules("nintendo").replace(rounds=3)
    result = play_matches(GreedyAgent(rules, seed=0), GreedyAgent(rules, seed=0), 40, rules,
                          seed=3)
    per_match = result["points_per_match"]
    assert per_match["mean"] == 0 and per_match["low"] == per_match["high"] == 0
    assert result["wins"] == result["losses"]


# ------------------------------------------------------------------ registry and CLI


# ------------------------------------------------------------ seating and deals
class _EndAgent:
    """Plays its lowest (or highest) legal action, so a game's step shows who moved."""

    def __init__(self, name: str, highest: bool):
        self.name, self.highest = name, highest

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.highest:
            return (mask.shape[1] - 1 - mask[:, ::-1].argmax(1)).astype(np.int64)
        return mask.argmax(1).astype(np.int64)


def _observed_seating(monkeypatch: pytest.MonkeyPatch, n_matches: int,
                      batch: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Play A (lowest legal action) against B (highest) with a core that records each
    wave's deal seeds and first dealers, and which seat moved lowest at the first step."""
    waves: list[dict[str, np.ndarray]] = []

    class RecordingCore(KoiKoiCore):
        def reset(self, seed=None, options=None):
            outcome = super().reset(seed=seed, options=options)
            if options is not None:
                dealer = np.broadcast_to(np.asarray(options["dealer"]), (self.n_games,))
                waves.append({"seed": np.array(seed, dtype=np.uint64), "dealer": dealer.copy()})
            return outcome

        def step(self, actions):
            wave = waves[-1]
            if "seat_a" not in wave:  # the first move of every game: none has ended
                mask = self.legal_action_mask()
                lowest = mask.argmax(1)
                highest = mask.shape[1] - 1 - mask[:, ::-1].argmax(1)
                assert (lowest < highest).all()
                assert ((actions == lowest) | (actions == highest)).all()
                wave["seat_a"] = np.where(actions == lowest, self.mover, 1 - self.mover)
            return super().step(actions)

    monkeypatch.setattr(evaluation, "KoiKoiCore", RecordingCore)
    result = evaluation.play_matches(_EndAgent("low", False), _EndAgent("high", True),
                                     n_matches, SHORT, seed=4, batch=batch)
    observed = {key: np.concatenate([w[key] for w in waves]) for key in waves[0]}
    assert len(observed["seat_a"]) == n_matches
    return observed, result


def test_play_matches_seats_and_deals_as_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    """Match j: A at seat j % 2, first deal to seat (j // 2) % 2, the deck of pair j // 2.
    So A changes seat within a pair over the same cards, and deals first in half the
    matches; the reported seat counts are what was played."""
    n = 11
    seen, result = _observed_seating(monkeypatch, n, batch=4)
    j = np.arange(n)
    assert seen["seat_a"].tolist() == (j % 2).tolist()
    assert seen["dealer"].tolist() == ((j // 2) % 2).tolist()
    seeds = seen["seed"]
    assert (seeds[0:-1:2] == seeds[1::2]).all()  # a pair shares its deal
    assert len(set(seeds[::2].tolist())) == (n + 1) // 2  # pairs do not
    a_deals = seen["seat_a"] == seen["dealer"]
    assert result["seats"] == {"a_at_seat_0": int((seen["seat_a"] == 0).sum()),
                               "a_at_seat_1": int((seen["seat_a"] == 1).sum()),
                               "a_deals_first": int(a_deals.sum())}
    assert a_deals[:10].sum() == 5  # A deals first in one match of each pair


def test_seating_does_not_depend_on_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    one, _ = _observed_seating(monkeypatch, 6, batch=1)
    all_at_once, _ = _observed_seating(monkeypatch, 6, batch=64)
    for key in ("seat_a", "dealer", "seed"):
        assert one[key].tolist() == all_at_once[key].tolist()


# ----------------------------------------------------------- koi-koi statistics
class Caller:
    """Random legal cards, and koi-koi at every decision."""

    name = "caller"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        cards = np.where(mask, self.rng.random(mask.shape), -1.0).argmax(axis=1)
        return np.where(mask[:, KOIKOI], KOIKOI, cards)


def test_a_koikoi_pays_off_only_when_the_caller_wins_that_round(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """play_matches' koi-koi figures against the rounds themselves: ``rounds_called`` counts
    the rounds an agent called koi-koi in, ``paid_off`` those of them it won. One-round
    matches in one wave: game j is match j, A sits at seat j % 2, and each game's first
    finished round is its match."""
    finished = []

    class Recording(KoiKoiCore):
        def reset(self, *args: Any, **kwargs: Any) -> Any:
            out = super().reset(*args, **kwargs)
            finished.append(out.rounds)
            return out

        def step(self, actions: Any) -> Any:
            out = super().step(actions)
            finished.append(out.rounds)
            return out

    monkeypatch.setattr(evaluation, "KoiKoiCore", Recording)
    n = 40
    result = play_matches(Caller(), RandomAgent(seed=1), n, {"rounds": 1}, seed=0, batch=n)
    first: dict[int, tuple[int, list[int]]] = {}
    for rounds in finished:
        for g, winner, calls in zip(rounds.game, rounds.winner, rounds.koikoi_calls):
            first.setdefault(int(g), (int(winner), calls.tolist()))
    assert sorted(first) == list(range(n))
    for side, seat_of in (("a", lambda j: j % 2), ("b", lambda j: 1 - j % 2)):
        called = [j for j in range(n) if first[j][1][seat_of(j)] > 0]
        won = [j for j in called if first[j][0] == seat_of(j)]
        stats = result[side]["koikoi"]
        assert (stats["rounds_called"], stats["paid_off"]) == (len(called), len(won))
    a = result["a"]["koikoi"]
    assert a["calls"] == a["decisions"] > 0 and 0 < a["paid_off"] < a["rounds_called"]


def test_records_follow_matches_whose_first_round_ends_at_the_deal() -> None:
    """A hand yaku can end a match's first round at its deal, which moves the core's dealer
    on before the recorders are made: each record still starts from the dealer the match
    was given, and every record replays exactly."""
    from hanafuda_env.koikoi.records import replay

    records: list = []
    play_matches(ExpertAgent(), RandomAgent(), 16, seed=3, records=records)  # such a deal
    assert len(records) == 16
    for match in records:
        replay(match)
