"""The vectorized core against the plain reference in tests/reference.py, move by move.

Both sides deal the same cards from the same seed; a seeded random policy picks each
game's action and both sides apply it. After every step every visible piece of state, the
legal action set, the rewards and every finished round and match must agree. Coverage
counters from the reference prove that the rule paths under test were actually reached.
"""

from __future__ import annotations

import zlib
from collections import Counter

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi import kernel
from hanafuda_env.koikoi.core import DECIDE, KOIKOI, STOP, KoiKoiCore
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.rules import RuleSet, resolve_rules
from hanafuda_env.koikoi.scoring import batch_scorer, hand_yaku_points, score_yaku
from tests.reference import ReferenceGame, game_seed, hand_yaku, to_mask, yaku_points

N_GAMES = 32
N_STEPS = 320

# (id, rule changes from the Nintendo preset, reference coverage tags that must be reached)
COMMON = ("reason:stop", "reason:yaku-after-koikoi", "reason:yaku-on-last-card",
          "reason:no-game", "choose", "capture_three", "koikoi_doubling", "exhausted_after_koikoi")


def without(tags: tuple[str, ...], tag: str) -> tuple[str, ...]:
    return tuple(t for t in tags if t != tag)


VARIANTS: list[tuple[str, dict, tuple[str, ...]]] = [
    ("nintendo", {}, COMMON + ("seven_point_doubling", "match_won", "pile:four_brights",
                               "pile:all_poetry_ribbons", "yaku:akatan_aotan")),
    ("ten-base", {"preset": "ten-base"},
     ("reason:stop", "reason:exhaustion-win", "highest_total_win", "koikoi_call_again",
      "reason:yaku-after-koikoi", "pile:all_poetry_ribbons")),
    ("sake-not-chaff", {"sake_cup_is_chaff": False}, COMMON + ("pile:sake_cup_decides_kasu",)),
    ("no-hanami-tsukimi", {"hanami_tsukimi": False}, COMMON),
    ("rain-washes-sake", {"rain_washes_sake": True},
     COMMON + ("total_went_down", "pile:rain_and_sake")),
    ("combined-15", {"akatan_aotan": "combined-15"},
     COMMON + ("pile:all_poetry_ribbons", "yaku:akatan_aotan")),
    ("separate", {"akatan_aotan": "separate"}, COMMON + ("pile:all_poetry_ribbons",)),
    ("no-extra-card", {"points": {"extra_card": 0}, "akatan_aotan": "combined-15"},
     COMMON + ("pile:all_poetry_ribbons", "yaku:akatan_aotan")),
    ("no-seven-doubling", {"seven_point_doubling": False}, COMMON),
    ("no-koikoi-doubling", {"koikoi_doubling": False}, without(COMMON, "koikoi_doubling")),
    ("multiple-koikoi", {"multiple_koikoi": True}, COMMON + ("koikoi_call_again",)),
    ("dealer-wins", {"on_exhaustion": "dealer-wins"}, COMMON + ("reason:exhaustion-win",)),
    ("non-dealer-wins", {"on_exhaustion": "non-dealer-wins", "exhaustion_points": 4},
     COMMON + ("reason:exhaustion-win",)),
    ("highest-total", {"on_exhaustion": "highest-total"},
     without(COMMON, "reason:no-game") + ("reason:exhaustion-win", "highest_total_win")),
    ("teshi-only", {"hand_yaku": "teshi"}, COMMON),
    ("no-hand-yaku", {"hand_yaku": "none"}, COMMON),
    ("alternate-dealer", {"next_dealer": "alternate"}, COMMON),
    ("three-rounds", {"rounds": 3}, COMMON + ("match_won", "match_draw")),
    ("target-score", {"target_score": 12}, COMMON + ("target_reached", "match_won")),
]

# The KoiKoi-Japan options (RULES.md §2.10) alone, and their preset.
KOIKOI_JAPAN_VARIANTS: list[tuple[str, dict, tuple[str, ...]]] = [
    ("koikoi-japan", {"preset": "koikoi-japan"},
     ("reason:stop", "reason:exhaustion-win", "exhausted_after_koikoi", "koikoi_call_again",
      "own_call_bonus", "stake_lost", "redeal", "reason:yaku-on-last-card",
      "pile:all_poetry_ribbons", "yaku:akatan_aotan", "yaku:tan")),
    ("tane-with-ino-shika-cho", {"tane_with_ino_shika_cho": True}, COMMON + ("yaku:tane",)),
    ("tan-with-poetry-ribbons", {"tan_with_poetry_ribbons": True},
     COMMON + ("pile:all_poetry_ribbons", "yaku:tan")),
    ("combined-plus-each", {"akatan_aotan": "combined-plus-each"},
     COMMON + ("pile:all_poetry_ribbons", "yaku:akatan_aotan", "yaku:akatan")),
    ("sake-after-koikoi", {"sake_after_koikoi": 8}, COMMON + ("yaku:hanami_zake",)),
    ("own-koikoi-bonus", {"own_koikoi_bonus": True, "multiple_koikoi": True},
     COMMON + ("own_call_bonus", "koikoi_call_again")),
    ("dealer-wins-always", {"on_exhaustion": "dealer-wins-always", "exhaustion_points": 2},
     without(COMMON, "reason:no-game") + ("reason:exhaustion-win",)),
    ("redeal-hand-four", {"redeal_hand_four": True}, COMMON + ("redeal",)),
    ("starting-points", {"starting_points": 15}, COMMON + ("stake_lost", "match_won")),
]
VARIANTS += KOIKOI_JAPAN_VARIANTS

# A first deal where the dealer (seat 0) takes all six poetry ribbons by its third turn
# under a scripted opening, so both sets are completed in one turn (rare in random play).
POETRY_DECK = [21, 33, 37, 3, 43, 46, 47, 26,  # dealer: the three blue ribbons
               12, 16, 28, 29, 30, 36, 41, 42,  # other hand
               2, 6, 10, 22, 34, 38, 31, 44,  # field: one card of each ribbon's month
               1, 24, 5, 25, 9, 27]  # stock top: the dealer draws the red ribbons
POETRY_DECK += [c for c in range(48) if c not in POETRY_DECK]
POETRY_SCRIPT = [21, 12, 33, 16, 37]  # then the dealer holds both sets and decides

STATE_KEYS = ("hands", "field", "piles", "stock", "stock_pos", "dealer", "mover", "phase",
              "pending", "koikoi_calls", "yaku_total", "turn", "round_index", "match_score",
              "points_won")


def reference_state(refs: list[ReferenceGame]) -> dict[str, np.ndarray]:
    """The reference games' state laid out like the core's arrays."""
    return {
        "hands": np.array([[to_mask(r.hands[0]), to_mask(r.hands[1])] for r in refs],
                          dtype=np.uint64),
        "field": np.array([to_mask(r.field) for r in refs], dtype=np.uint64),
        "piles": np.array([[to_mask(r.piles[0]), to_mask(r.piles[1])] for r in refs],
                          dtype=np.uint64),
        "stock": np.array([r.stock for r in refs]),
        "stock_pos": np.array([r.stock_pos for r in refs]),
        "dealer": np.array([r.dealer for r in refs]),
        "mover": np.array([r.mover for r in refs]),
        "phase": np.array([r.phase for r in refs]),
        "pending": np.array([r.pending for r in refs]),
        "koikoi_calls": np.array([r.calls for r in refs]),
        "yaku_total": np.array([r.last_total for r in refs]),
        "turn": np.array([r.turn for r in refs]),
        "round_index": np.array([r.round_index for r in refs]),
        "match_score": np.array([r.scores for r in refs]),
        "points_won": np.array([r.won for r in refs]),
    }


def assert_same_state(core: KoiKoiCore, refs: list[ReferenceGame], where: str) -> None:
    mine = reference_state(refs)
    for key in STATE_KEYS:
        theirs = np.asarray(getattr(core, key))
        if np.array_equal(theirs, mine[key]):
            continue
        diff = theirs != mine[key]
        g = int(np.flatnonzero(diff.reshape(len(refs), -1).any(axis=1))[0])
        pytest.fail(f"{where}, game {g}: {key} differs: core {theirs[g].tolist()} "
                    f"reference {mine[key][g].tolist()}")
    legal = np.zeros((len(refs), 98), dtype=bool)
    for g, ref in enumerate(refs):
        legal[g, ref.legal_actions()] = True
    core_legal = core.legal_action_mask()
    if not np.array_equal(core_legal, legal):
        g = int(np.flatnonzero((core_legal != legal).any(axis=1))[0])
        pytest.fail(f"{where}, game {g}: legal actions differ: core "
                    f"{np.flatnonzero(core_legal[g]).tolist()} reference "
                    f"{np.flatnonzero(legal[g]).tolist()}")


def core_rounds_by_game(results, n_games: int) -> list[list[dict]]:
    rows: list[list[dict]] = [[] for _ in range(n_games)]
    for k, record in enumerate(results.records()):
        game = record.pop("game")
        record["piles"] = (int(results.piles[k, 0]), int(results.piles[k, 1]))
        rows[game].append(record)
    return rows


def assert_same_rounds(results, ref_rounds: list[list[dict]], where: str) -> None:
    core_rows = core_rounds_by_game(results, len(ref_rounds))
    for g, (theirs, mine) in enumerate(zip(core_rows, ref_rounds, strict=True)):
        assert theirs == mine, f"{where}, game {g}: finished rounds differ"


def assert_same_matches(matches, ref_matches: list[list[dict]], where: str) -> None:
    core_matches: list[list[dict]] = [[] for _ in ref_matches]
    for k in range(len(matches.game)):
        core_matches[int(matches.game[k])].append({"winner": int(matches.winner[k]),
                                                   "scores": matches.scores[k].tolist(),
                                                   "rounds": int(matches.rounds[k])})
    assert core_matches == ref_matches, f"{where}: match results differ"


def run_against_reference(rules: RuleSet, seed: int, n_games: int = N_GAMES,
                          n_steps: int = N_STEPS, koikoi_bias: float = 0.8,
                          opening: tuple[list[int], list[int]] | None = None) -> Counter:
    """Play ``n_games`` random games on both sides; returns the reference coverage counts.

    Odd games call koi-koi with probability ``koikoi_bias`` (so wins after a koi-koi and
    exhaustion after one are reached); even games decide uniformly. ``opening`` = (deck,
    actions) fixes every game's first deal (seat 0 deals) and first actions; later deals
    come from the seed.
    """
    deck, script = opening if opening else (None, [])
    dealer = 0 if opening else None
    core = KoiKoiCore(n_games, rules, seed=0)
    initial = core.reset(seed=seed, options={"deck": deck, "dealer": dealer})
    refs = [ReferenceGame(rules, game_seed(seed, g), dealer=dealer, deck=deck)
            for g in range(n_games)]
    assert_same_rounds(initial.rounds, [r.initial_rounds for r in refs], "reset")
    assert_same_matches(initial.matches, [r.initial_matches for r in refs], "reset")
    assert_same_state(core, refs, "reset")
    rng = np.random.default_rng(seed)
    bias = np.where(np.arange(n_games) % 2 == 1, koikoi_bias, 0.5)
    for t in range(n_steps):
        actions = core.sample_legal_actions(rng)
        call = rng.random(n_games) < bias
        actions = np.where(core.phase == DECIDE, np.where(call, KOIKOI, STOP), actions)
        if t < len(script):
            actions[:] = script[t]
        outcome = core.step(actions)
        outs = [ref.step(int(a)) for ref, a in zip(refs, actions, strict=True)]
        where = f"{rules.name} seed {seed} step {t}"
        assert outcome.reward.tolist() == [o.reward for o in outs], f"{where}: rewards differ"
        assert outcome.round_over.tolist() == [bool(o.rounds) for o in outs], where
        assert outcome.match_over.tolist() == [bool(o.matches) for o in outs], where
        assert_same_rounds(outcome.rounds, [o.rounds for o in outs], where)
        assert_same_matches(outcome.matches, [o.matches for o in outs], where)
        assert_same_state(core, refs, where)
    total: Counter = Counter()
    for ref in refs:
        total.update(ref.coverage)
    return total


@pytest.mark.parametrize("name, changes, needed", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_core_matches_reference(name: str, changes: dict, needed: tuple[str, ...]) -> None:
    rules = RuleSet.from_dict(changes)
    opening = (POETRY_DECK, POETRY_SCRIPT) if "pile:all_poetry_ribbons" in needed else None
    coverage = run_against_reference(rules, seed=zlib.crc32(name.encode()), opening=opening)
    missing = [tag for tag in needed if not coverage[tag]]
    assert not missing, f"{name}: random play never reached {missing}; coverage {coverage}"


def test_the_largest_allowed_values_stay_exact() -> None:
    """Every point value at its cap, in the longest match: the batch scorer's int16 counts
    times points equal the exact scorer on the largest piles (all 48 cards down to random
    ones), and a dozen rounds of play pay what the exact reference pays."""
    from dataclasses import fields

    from hanafuda_env.koikoi.rules import MAX_POINTS, MAX_ROUNDS, PointTable

    rules = RuleSet.from_dict({
        "points": {f.name: MAX_POINTS for f in fields(PointTable)}, "rounds": MAX_ROUNDS,
        "exhaustion_points": MAX_POINTS, "akatan_aotan": "combined-15",
        "on_exhaustion": "dealer-wins", "multiple_koikoi": True})
    rng = np.random.default_rng(77)
    piles = [(1 << 48) - 1] + [int(rng.integers(0, 2**48)) for _ in range(500)]
    totals = batch_scorer(rules).totals(np.array(piles, dtype=np.uint64))
    exact = [sum(score_yaku(C.ids_of(p), rules).values()) for p in piles]
    assert totals.tolist() == exact and max(exact) > 2**15  # past int16, exact still
    coverage = run_against_reference(rules, seed=77, n_steps=640)
    assert coverage["koikoi_doubling"] and coverage["reason:exhaustion-win"], coverage


# ------------------------------------------------------------------ dealt decks
def _deck(dealer_hand: list[int], other_hand: list[int], field: list[int]) -> list[int]:
    """A full deck order: the given hands and field, the rest as the stock in id order."""
    used = dealer_hand + other_hand + field
    return used + [c for c in range(48) if c not in used]


TESHI_PINE = [0, 1, 2, 3, 4, 8, 12, 16]  # all four pine
TESHI_PINE_2 = [0, 1, 2, 3, 20, 24, 28, 32]
KUTTSUKI = [4, 5, 8, 9, 12, 13, 16, 17]  # four pairs
BOTH = [20, 21, 22, 23, 24, 25, 28, 29]  # four peony and two pairs: teshi and kuttsuki
PLAIN_A = [32, 36, 40, 44, 33, 37, 41, 26]  # no hand yaku
PLAIN_B = [34, 38, 42, 46, 35, 39, 43, 27]
FIELD = [6, 7, 10, 11, 14, 15, 18, 19]

@pytest.mark.parametrize("preset", ["nintendo", "ten-base"])
@pytest.mark.parametrize("hand_rule", ["teshi+kuttsuki", "teshi", "none"])
@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.parametrize("rounds", [12, 1])
def test_dealt_hand_yaku_against_reference(preset: str, hand_rule: str, dealer: int,
                                           rounds: int) -> None:
    """Crafted deals: dealer priority when both hold hand yaku, teshi+kuttsuki scored once;
    with one round per match, a hand yaku ends the match inside reset."""
    rules = resolve_rules(preset).replace(hand_yaku=hand_rule, rounds=rounds)
    decks = [
        _deck(TESHI_PINE, PLAIN_A, FIELD),  # dealer teshi
        _deck(PLAIN_A, KUTTSUKI, [0, 1, 2, 6, 7, 10, 11, 14]),  # non-dealer kuttsuki
        _deck(KUTTSUKI, TESHI_PINE_2, [6, 7, 10, 11, 14, 15, 18, 19]),  # both: dealer's wins
        _deck(PLAIN_A, BOTH, [0, 1, 2, 4, 5, 6, 8, 9]),  # both kinds at once: scored once
        _deck(BOTH, TESHI_PINE, [5, 6, 7, 9, 10, 11, 13, 14]),  # both players hold teshi
    ]
    seed = 77
    core = KoiKoiCore(len(decks), rules, seed=0)
    initial = core.reset(seed=seed, options={"dealer": dealer, "deck": decks})
    refs = [ReferenceGame(rules, game_seed(seed, g), dealer=dealer, deck=deck)
            for g, deck in enumerate(decks)]
    assert_same_rounds(initial.rounds, [r.initial_rounds for r in refs], "crafted deal")
    assert_same_matches(initial.matches, [r.initial_matches for r in refs], "crafted deal")
    assert_same_state(core, refs, "crafted deal")
    first_winner = [r.initial_rounds[0]["winner"] if r.initial_rounds else None for r in refs]
    other = 1 - dealer
    expected = {"none": [None] * 5,
                "teshi": [dealer, None, other, other, dealer],
                "teshi+kuttsuki": [dealer, other, dealer, other, dealer]}
    # ten-base gives kuttsuki no points, so there it is no yaku at all
    effective = "teshi" if hand_rule != "none" and not rules.points.kuttsuki else hand_rule
    assert first_winner == expected[effective]
    ended = [w is not None and rounds == 1 for w in first_winner]
    assert initial.match_over.tolist() == ended
    rng = np.random.default_rng(5)
    for t in range(60):
        actions = core.sample_legal_actions(rng)
        outcome = core.step(actions)
        outs = [ref.step(int(a)) for ref, a in zip(refs, actions, strict=True)]
        assert outcome.reward.tolist() == [o.reward for o in outs]
        assert_same_rounds(outcome.rounds, [o.rounds for o in outs], f"step {t}")
        assert_same_state(core, refs, f"step {t}")


@pytest.mark.parametrize(("teshi_points", "doubling", "expected"),
                         [(6, True, 6), (8, True, 16), (8, False, 8)])
def test_hand_yaku_worth_seven_doubles(teshi_points: int, doubling: bool, expected: int) -> None:
    """§2.5 scores every win, hand yaku included: a teshi worth 7 or more doubles when
    7-point doubling is on (nobody can have called koi-koi)."""
    rules = RuleSet.from_dict({"points": {"teshi": teshi_points},
                               "seven_point_doubling": doubling})
    deck = _deck(TESHI_PINE, PLAIN_A, FIELD)
    core = KoiKoiCore(1, rules, seed=0)
    rounds = core.reset(seed=3, options={"dealer": 0, "deck": [deck]}).rounds
    ref = ReferenceGame(rules, game_seed(3, 0), dealer=0, deck=deck)
    game = KoiKoiGame(rules, seed=0)
    game_rounds = game.reset(seed=3, options={"dealer": 0, "deck": deck}).rounds
    assert (rounds.base[0], rounds.points[0]) == (teshi_points, expected)
    # the next deals are random and may hold hand yaku too: all three must agree on them
    assert [r["points"] for r in ref.initial_rounds] == rounds.points.tolist()
    assert [r["points"] for r in game_rounds] == rounds.points.tolist()


@pytest.mark.parametrize(("teshi", "kuttsuki", "expected"),
                         [(6, 6, {"teshi": 6}), (0, 6, {"kuttsuki": 6}),
                          (3, 5, {"kuttsuki": 5}), (5, 3, {"teshi": 5}), (0, 0, None)])
def test_a_hand_both_teshi_and_kuttsuki_scores_as_the_one_worth_more(
        teshi: int, kuttsuki: int, expected: dict[str, int] | None) -> None:
    """Decision (§2.3, custom points): four of a month plus two pairs scores once, as the
    better yaku (teshi on a tie); ``teshi: 0`` does not hide the kuttsuki. Core, plain
    game and reference agree on the points and the name."""
    rules = RuleSet.from_dict({"points": {"teshi": teshi, "kuttsuki": kuttsuki}})
    deck = _deck(BOTH, PLAIN_A, [0, 1, 2, 4, 5, 6, 8, 9])
    core = KoiKoiCore(1, rules, seed=0)
    engines = [core.reset(seed=3, options={"dealer": 0, "deck": [deck]}).rounds.records(),
               KoiKoiGame(rules, seed=0).reset(seed=3, options={"dealer": 0, "deck": deck}).rounds,
               ReferenceGame(rules, game_seed(3, 0), dealer=0, deck=deck).initial_rounds]
    for rows in engines:
        first = rows[0]["yaku"] if rows and rows[0]["turns"] == 0 else None
        assert first == expected
    points, teshi = kernel.hand_yaku(np.uint64(C.mask_of(BOTH)), kernel.compile_rules(rules).params)
    held = (points, "teshi" if teshi else "kuttsuki") if points else (0, "")
    assert held == (next(iter(expected.items()))[::-1] if expected else (0, ""))


# ------------------------------------------------------------------ scoring alone
SCORING_RULES = [v[1] for v in VARIANTS[:9]] + [{"preset": "ten-base", "akatan_aotan": a}
                                                 for a in ("combined-10", "combined-15")]


@pytest.mark.parametrize("changes", SCORING_RULES, ids=lambda c: str(c) or "nintendo")
def test_scoring_matches_reference(changes: dict) -> None:
    """Random capture piles, heavy in yaku cards, scored by the engine and the reference."""
    rules = RuleSet.from_dict(changes)
    rng = np.random.default_rng(3)
    special = np.array(sorted(C.ids_of(C.BRIGHTS | C.POETRY_RIBBONS | C.INO_SHIKA_CHO
                                       | C.SAKE_CUP)))
    piles = []
    for _ in range(3000):
        n_special = rng.integers(0, len(special) + 1)
        n_other = rng.integers(0, 25)
        pile = set(rng.choice(special, n_special, replace=False).tolist())
        pile |= set(rng.choice(48, n_other, replace=False).tolist())
        piles.append(pile)
    scorer = batch_scorer(rules)
    masks = np.array([to_mask(p) for p in piles], dtype=np.uint64)
    totals = scorer.totals(masks)
    breakdown = scorer.breakdown(masks)
    for k, pile in enumerate(piles):
        mine = yaku_points(pile, rules)
        from_table = {n: int(p) for n, p in zip(scorer.names, breakdown[k], strict=True) if p}
        assert from_table == mine, f"pile {sorted(pile)}"
        assert {n: p for n, p in score_yaku(pile, rules).items() if p} == mine
        assert int(totals[k]) == sum(mine.values())


@pytest.mark.parametrize("hand_rule", ["teshi+kuttsuki", "teshi", "none"])
def test_hand_yaku_matches_reference(hand_rule: str) -> None:
    rules = RuleSet().replace(hand_yaku=hand_rule)
    rng = np.random.default_rng(11)
    hands = [TESHI_PINE, KUTTSUKI, BOTH, PLAIN_A, PLAIN_B]
    for _ in range(400):  # random hands built from pairs, so kuttsuki shows up often
        months = rng.choice(12, 4, replace=True)
        hand: set[int] = set()
        for mo in months:
            free = [c for c in range(4 * mo, 4 * mo + 4) if c not in hand]
            hand |= set(rng.choice(free, min(2, len(free)), replace=False).tolist())
        while len(hand) < 8:
            hand.add(int(rng.integers(48)))
        hands.append(sorted(hand))
    masks = np.array([[to_mask(h), to_mask(h)] for h in hands], dtype=np.uint64)
    points = hand_yaku_points(masks, rules)
    for k, hand in enumerate(hands):
        mine = hand_yaku(set(hand), rules)
        assert int(points[k, 0]) == (mine[1] if mine else 0), f"hand {hand}"
