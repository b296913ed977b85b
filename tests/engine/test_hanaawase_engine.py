"""The Hana-awase engine (RULES.md §3) against the plain reference, and its invariants over
many random games at every player count."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.core import HanaawaseCore, describe_round
from hanafuda_env.hanaawase.rules import HanaawaseRules
from hanafuda_env.hanaawase.scoring import score_round
from hanafuda_env.hanaawase.state import MATCH_OVER, ROUND_OVER
from hanafuda_env.koikoi.core import IllegalActionError
from hanafuda_env.koikoi.state import StateError
from tests.hanaawase_reference import RefRound

PLAYER_COUNTS = range(2, 8)
VARIANTS = [{}, {"chaff_zero": True}, {"yaku_nagashi": True, "arashi": True},
            {"fuke": True}]
THREE_PLAYER_VARIANTS = [{"nana_kasu": True, "roku_kasu": True, "hatcho": True}]


def ids(bits: int) -> set[int]:
    return set(C.ids_of(int(bits)))


def deal_order(core: HanaawaseCore, g: int) -> list[int]:
    """The 48-card order of game g's current deal, in the engine's layout."""
    n, s = core.num_players, core.records[g]
    dealer = int(s["dealer"])
    order: list[int] = []
    for k in range(n):
        order += sorted(ids(s["hands"][(dealer + k) % n]))
    order += sorted(ids(s["field"]))
    order += [int(c) for c in s["stock"][:core.rules.stock_size]]
    return order


def cases() -> list[tuple[int, dict]]:
    out = [(n, v) for n in PLAYER_COUNTS for v in VARIANTS]
    return out + [(3, v) for v in THREE_PLAYER_VARIANTS]


@pytest.mark.parametrize(("n", "options"), cases())
def test_the_kernel_plays_and_scores_like_the_reference(n: int, options: dict) -> None:
    games = 48
    core = HanaawaseCore(games, num_players=n, seed=100 + n, **options)
    rng = np.random.default_rng(n)
    refs = [RefRound.deal(deal_order(core, g), n, int(core.dealer[g]), **options)
            for g in range(games)]
    if options.get("nana_kasu") or options.get("roku_kasu"):
        # dealt hands with 6 or 7 chaff are rare: give a few games such hands
        for g in range(0, games, 4):
            chaff = [c for c in range(48) if C.DECK[c].kind == C.CHAFF]
            rest = [c for c in range(48) if c not in chaff[:7 - g % 8 // 4]]
            order = chaff[:7 - g % 8 // 4] + list(rng.permutation(rest))
            core.records["phase"][g] = ROUND_OVER
            core.deal_next([g], decks=[int(c) for c in order])
            refs[g] = RefRound.deal(deal_order(core, g), n, int(core.dealer[g]), **options)
    rules = core.rules
    for _ in range(n * rules.hand_size * 3):
        if core.round_over.all():
            break
        mask = core.legal_action_mask()
        actions = core.sample_legal_actions(rng)
        for g in range(games):
            if refs[g].over:
                continue
            assert np.flatnonzero(mask[g]).tolist() == refs[g].legal()
            assert int(core.mover[g]) == refs[g].mover
        out = core.step(actions)
        for g in range(games):
            if actions[g] < 0:
                continue
            refs[g].play(int(actions[g]))
            s = core.records[g]
            for p in range(n):
                assert ids(s["hands"][p]) == refs[g].hands[p]
                assert ids(s["piles"][p]) == refs[g].piles[p]
            assert ids(s["field"]) == refs[g].field_cards
        for row, g in zip(out.rows, out.row_games):
            expected = refs[g].score()
            assert row["card_points"][:n].tolist() == expected["cards"]
            assert row["score"][:n].tolist() == expected["scores"]
            assert bool(row["void"]) == expected["void"]
            assert int(row["next_dealer"]) == expected["next_dealer"]
            scores = expected["scores"]
            assert row["rank"][:n].tolist() == [sum(q > s for q in scores) for s in scores]
            seats = describe_round(row, rules)
            assert [seat["yaku"] for seat in seats] == expected["yaku"]
            plain = score_round([int(b) for b in row["piles"][:n]],
                                [C.mask_of(h) for h in refs[g].dealt], int(row["dealer"]), rules)
            assert list(plain.score) == expected["scores"]
    assert core.round_over.all()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_matches_keep_every_invariant(n: int) -> None:
    rules = HanaawaseRules(num_players=n, rounds=3)
    games = 64
    core = HanaawaseCore(games, rules, seed=n)
    rng = np.random.default_rng(10 + n)
    matches = 0
    while matches < 2 * games:
        mask = core.legal_action_mask()
        assert mask.any(axis=1).all(), "a legal action at every decision"
        s = core.records
        cards = np.zeros((games, 48), dtype=np.int64)
        for bits in (*s["hands"][:, :n].T, *s["piles"][:, :n].T, s["field"]):
            cards += C.bits_to_bool(bits)
        for g in range(games):
            cards[g, s["stock"][g, s["stock_pos"][g]:rules.stock_size]] += 1
            if s["pending"][g] >= 0:
                cards[g, s["pending"][g]] += 1
        assert (cards == 1).all(), "48 cards accounted for"
        out = core.step(core.sample_legal_actions(rng))
        if len(out.rows):
            assert np.allclose(out.rewards.sum(axis=1), 0.0), "zero-sum rewards"
            ended = out.row_games
            assert (core.hands[ended] == 0).all(), "every hand empty at the round's end"
            assert (core.stock_pos[ended] == rules.stock_size).all(), "the stock drawn out"
            assert (out.rows["card_points"].sum(axis=1) == 264).all()
            matches += int(out.match_over.sum())
            assert (core.phase[ended] == np.where(out.match_over[ended], MATCH_OVER,
                                                  ROUND_OVER)).all()
            over = out.rows[out.rows["match_over"]]
            assert (over["match_rounds"] == rules.rounds).all()
            for row in over:
                final = row["match_scores"][:n]
                assert (row["match_ranks"][:n] == (final[None, :] > final[:, None]).sum(1)).all()
            core.deal_next()
    assert (core.phase < ROUND_OVER).all(), "every finished game was dealt on"


def test_the_top_scorer_deals_next_and_a_tie_goes_first_in_turn_order() -> None:
    core = HanaawaseCore(256, num_players=4, seed=3, rounds=5)
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 400:
        dealers = core.dealer.copy()
        out = core.step(core.sample_legal_actions(rng))
        for row, g in zip(out.rows, out.row_games):
            scores = row["score"][:4]
            order = [(int(dealers[g]) + k) % 4 for k in range(4)]
            top = max(order, key=lambda seat: (scores[seat], -order.index(seat)))
            assert int(row["next_dealer"]) == top == int(core.dealer[g])
            checked += 1
        core.deal_next()
    assert checked >= 400


def test_a_voided_round_keeps_its_dealer_and_scores_nothing() -> None:
    core = HanaawaseCore(64, num_players=7, seed=5, fuke=True)
    rng = np.random.default_rng(1)
    voids = 0
    while voids < 20:
        dealers = core.dealer.copy()
        out = core.step(core.sample_legal_actions(rng))
        for row, g in zip(out.rows, out.row_games):
            if row["void"]:
                voids += 1
                assert (row["score"] == 0).all()
                assert int(row["next_dealer"]) == int(dealers[g])
                assert row["card_points"][:7].min() <= 20
            else:
                assert row["card_points"][:7].min() > 20
        core.deal_next()


def test_the_same_seed_deals_the_same_games_and_matches_start_with_any_dealer() -> None:
    a, b = HanaawaseCore(32, num_players=5, seed=9), HanaawaseCore(32, num_players=5, seed=9)
    assert (a.records == b.records).all()
    assert not (a.records == HanaawaseCore(32, num_players=5, seed=10).records).all()
    dealers = HanaawaseCore(2000, num_players=5, seed=1).dealer
    assert set(np.unique(dealers).tolist()) == set(range(5))
    one = HanaawaseCore(1, num_players=5, seed=[int(a.seed[7])])
    assert (one.records[0] == a.records[7]).all(), "a game deals alone as in a batch"


def test_dealing_a_given_deck_follows_the_layout_and_the_field_redeal_rule() -> None:
    core = HanaawaseCore(1, num_players=3, seed=0)
    core.records["phase"][0] = ROUND_OVER
    before = core.records.copy()
    with pytest.raises(ValueError, match="each card id 0..47 exactly once"):
        core.deal_next(decks=[0] * 48)
    with pytest.raises(ValueError, match="shape"):
        core.deal_next(decks=list(range(47)))
    assert (core.records == before).all()
    dealer = int(core.dealer[0])
    order = list(range(48))
    core.deal_next(decks=order)
    assert ids(core.hands[0, dealer]) == set(range(7))
    assert ids(core.hands[0, (dealer + 1) % 3]) == set(range(7, 14))
    assert ids(core.field[0]) == set(range(21, 27))
    assert core.stock[0, :21].tolist() == list(range(27, 48))
    shuffled = HanaawaseCore(3000, num_players=6, seed=2)  # a 12-card field
    fields = C.bits_to_bool(shuffled.field).reshape(-1, 12, 4).sum(axis=2)
    assert (fields < 4).all()
    allowed = HanaawaseCore(3000, num_players=6, seed=2, redeal_field_four=False)
    fields = C.bits_to_bool(allowed.field).reshape(-1, 12, 4).sum(axis=2)
    assert (fields == 4).any()


def test_an_illegal_action_is_refused_with_the_legal_ones_and_changes_nothing() -> None:
    core = HanaawaseCore(4, num_players=3, seed=1)
    before = core.records.copy()
    actions = np.array([core.legal_actions(g)[0] for g in range(4)])
    bad = next(a for a in range(96) if a not in core.legal_actions(2))
    actions[2] = bad
    with pytest.raises(IllegalActionError, match=r"game 2: action .* legal actions"):
        core.step(actions)
    assert (core.records == before).all()
    with pytest.raises(ValueError, match="4 integers"):
        core.step([0, 1])
    finished = HanaawaseCore(1, num_players=2, seed=1)
    finished.rollout("random")
    with pytest.raises(IllegalActionError, match="round is over"):
        finished.step([0])
    with pytest.raises(ValueError, match="only games whose round is over"):
        core.deal_next([0])


def test_fork_copies_games_and_a_loaded_state_is_checked_by_field() -> None:
    core = HanaawaseCore(8, num_players=4, seed=2)
    forked = core.fork([3, 5], copies=2)
    assert forked.n_games == 4 and (forked.records[1] == core.records[3]).all()
    forked.step(forked.sample_legal_actions(np.random.default_rng(0)))
    assert not (forked.records[0] == core.records[3]).all()
    saved = core.state_dict()
    other = HanaawaseCore(8, num_players=4, seed=7)
    other.load_state_dict(saved)
    assert (other.records == core.records).all()
    for field, value, message in [("phase", 3, "phase"), ("stock_pos", 99, "stock_pos"),
                                  ("dealer", 6, "dealer")]:
        bad = core.state_dict()
        bad["records"][field][1] = value
        with pytest.raises(StateError, match=message):
            other.load_state_dict(bad)
    bad = core.state_dict()
    hand = int(bad["records"]["hands"][0, 1])
    bad["records"]["piles"][0, 0] |= np.uint64(hand & -hand)  # a card in two places
    with pytest.raises(StateError, match="exactly once"):
        other.load_state_dict(bad)
    with pytest.raises(StateError, match="other rules"):
        HanaawaseCore(8, num_players=3).load_state_dict(saved)
    assert (other.records == core.records).all()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_kernel_rollouts_play_whole_matches_zero_sum(n: int) -> None:
    core = HanaawaseCore(200, num_players=n, seed=4, rounds=2)
    scores, decisions = core.rollout(["greedy"] + ["random"] * (n - 1), until="match", seed=1)
    assert decisions >= 200 * 2 * n * core.rules.hand_size  # plays, plus the field choices
    assert (core.phase == MATCH_OVER).all()
    assert (scores == core.match_score[:, :n]).all()
    again = HanaawaseCore(200, num_players=n, seed=4, rounds=2)
    assert (again.rollout(["greedy"] + ["random"] * (n - 1), "match", seed=1)[0] == scores).all()
    if n in (2, 3, 4, 6):
        assert (scores.sum(axis=1) == 0).all()
    assert scores[:, 0].mean() > scores[:, 1:].mean(), "greedy beats random"
