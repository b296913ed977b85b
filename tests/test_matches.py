"""Dealing, whole matches, illegal actions and rendering of the core, on the fixed decks
and the two-game driver of ``scenarios.py``."""

from __future__ import annotations

import numpy as np
import pytest
from scenarios import (
    EXHAUST,
    HAND_CASES,
    PLAIN_FIELD,
    QUIET,
    SANKO_T5,
    Duo,
    cards,
    make_deck,
    pairs_deck,
    play_pairs,
    script,
)

from hanafuda_env import cards as C
from hanafuda_env.core import (
    CHOOSE_PLAYED,
    KOIKOI,
    PLAY,
    STOP,
    IllegalActionError,
    KoiKoiCore,
)
from hanafuda_env.rendering import card_label, render_game
from hanafuda_env.results import END_HAND_YAKU, END_STOP
from hanafuda_env.scoring import month_counts


# ------------------------------------------------------------------ dealing
def test_random_deals_never_show_four_of_a_month() -> None:
    core = KoiKoiCore(4000, {"hand_yaku": "none"}, seed=2024)
    assert (month_counts(core.field).max(axis=1) < 4).all()
    everything = core.hands[:, 0] | core.hands[:, 1] | core.field
    for seat in (0, 1):
        assert (np.bitwise_count(core.hands[:, seat]) == 8).all()
    assert (np.bitwise_count(everything) == 24).all()
    for g in range(0, 4000, 397):  # hands, field and stock hold the deck once
        assert sorted(C.ids_of(int(everything[g])) + core.stock[g].tolist()) == list(range(48))
    redealt = core.deal_count > 1
    assert redealt.sum() >= 3  # p ≈ 0.4 % per deal: some deals were really thrown back
    # the first dealer is a fair coin, and the dealer moves first
    assert 0.45 < core.dealer.mean() < 0.55
    assert (core.mover == core.dealer).all() and (core.phase == PLAY).all()


def test_redeal_comes_before_the_hand_yaku_check(monkeypatch) -> None:
    """First shuffle: four pines on the field and a teshi in hand; it must be dealt again."""
    core = KoiKoiCore(1, seed=1)
    bad = make_deck([4, 5, 6, 7, 8, 12, 16, 20], [9, 13, 17, 21, 24, 28, 32, 36],
                    [0, 1, 2, 3, 40, 41, 44, 45])
    good = make_deck([0, 4, 8, 12, 16, 20, 24, 37], [5, 9, 13, 17, 28, 32, 38, 41], PLAIN_FIELD)
    decks = [bad, good]
    monkeypatch.setattr(core, "_shuffled_decks",
                        lambda games: np.array([decks.pop(0)], dtype=np.int8))
    dealt = core.reset(seed=1, options={"dealer": 0})
    assert len(dealt.rounds) == 0 and not dealt.match_over.any() and not decks
    assert cards(core.hands[0, 0]) == set(good[:8]) and cards(core.field[0]) == set(PLAIN_FIELD)


def test_round_end_then_hand_yaku_deal_in_one_step(monkeypatch) -> None:
    """A round ends, the next deal holds a teshi: both rounds come back from one step."""
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    teshi = make_deck(*HAND_CASES["dealer-teshi"][:3])
    plain = make_deck([0, 4, 8, 12, 16, 20, 24, 37], [5, 9, 13, 17, 28, 32, 38, 41], PLAIN_FIELD)
    decks = [teshi, plain]

    def shuffled(games: np.ndarray) -> np.ndarray:
        return np.array([decks.pop(0) if len(decks) > 1 else decks[0]] * len(games), np.int8)

    monkeypatch.setattr(duo.core, "_shuffled_decks", shuffled)
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    r = out.rounds
    for g in (0, 1):
        rows = np.flatnonzero(r.game == g)
        assert r.reason[rows].tolist() == [END_STOP, END_HAND_YAKU]
        assert r.round_index[rows].tolist() == [0, 1]
        assert r.points[rows].tolist() == [5, 6]
        assert r.winner[rows].tolist() == [g, g]  # the dealer won and dealt the teshi to itself
        assert out.reward[g, g] == 11 and out.reward[g, 1 - g] == -11
    assert duo.core.round_index.tolist() == [2, 2]
    assert cards(duo.core.field[0]) == set(PLAIN_FIELD)


def test_given_deck_is_checked() -> None:
    core = KoiKoiCore(1, seed=0)
    four = make_deck([4, 5, 6, 7, 8, 12, 16, 20], [9, 13, 17, 21, 24, 28, 32, 36],
                     [0, 1, 2, 3, 40, 41, 44, 45])
    with pytest.raises(ValueError, match="four"):
        core.reset(seed=0, options={"deck": four})
    with pytest.raises(ValueError):
        core.reset(seed=0, options={"deck": [0] * 48})
    with pytest.raises(ValueError):
        core.reset(seed=0, options={"deck": list(range(47))})


# ------------------------------------------------------------------ matches
def test_match_ends_after_three_rounds() -> None:
    """Random legal play: rounds are numbered 0, 1, 2 and every third one closes the match."""
    n = 16
    core = KoiKoiCore(n, {"rounds": 3}, seed=5)
    rng = np.random.default_rng(5)
    index = np.zeros(n, dtype=int)
    score = np.zeros((n, 2), dtype=int)
    matches = np.zeros(n, dtype=int)
    rounds, out = core.reset(seed=5).rounds, None
    for _step in range(1000):
        finished: dict[int, list[list[int]]] = {}
        for k in range(len(rounds)):
            g = int(rounds.game[k])
            assert rounds.round_index[k] == index[g] and rounds.reward[k].sum() == 0
            score[g] += rounds.reward[k]
            index[g] += 1
            if index[g] == 3:
                finished.setdefault(g, []).append(score[g].tolist())
                index[g], score[g] = 0, 0
        if out is not None:
            assert out.match_over.tolist() == [g in finished for g in range(n)]
            for m in range(len(out.matches.game)):
                g = int(out.matches.game[m])
                s = finished[g].pop(0)
                assert out.matches.scores[m].tolist() == s and out.matches.rounds[m] == 3
                assert out.matches.winner[m] == (0 if s[0] > s[1] else 1 if s[1] > s[0] else -1)
                matches[g] += 1
            assert not any(finished.values())
        assert (core.round_index == index).all() and (core.match_score == score).all()
        if (matches > 0).all():
            return
        mask = core.legal_action_mask()
        out = core.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        rounds = out.rounds
    raise AssertionError("matches did not finish")


def test_drawn_match_with_equal_totals() -> None:
    deck, dp, op = pairs_deck(*QUIET, inert=EXHAUST)
    duo = Duo(deck, {"rounds": 1})
    out, _ = play_pairs(duo, script(dp, op, 16))
    assert out.match_over.all()
    assert out.matches.winner.tolist() == [-1, -1]
    assert out.matches.scores.tolist() == [[0, 0], [0, 0]]
    assert out.matches.rounds.tolist() == [1, 1]
    assert (duo.core.round_index == 0).all()


@pytest.mark.parametrize(("target", "over"), [(5, True), (6, False)])
def test_target_score_ends_the_match(target: int, over: bool) -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck, {"target_score": target})
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert out.match_over.tolist() == [over, over]
    if over:
        assert out.matches.game.tolist() == [0, 1]
        assert out.matches.winner.tolist() == [0, 1]  # the dealer's seat
        assert out.matches.scores.tolist() == [[5, -5], [-5, 5]]
        assert out.matches.rounds.tolist() == [1, 1]
        assert (duo.core.match_score == 0).all() and (duo.core.round_index == 0).all()
    else:
        assert (duo.core.round_index == 1).all()


def test_target_score_counts_points_scored_not_the_net_score() -> None:
    """RULES §2.8: the first to *reach* the target wins; earlier losses do not count against."""
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck, {"target_score": 8})
    # Earlier rounds: the dealer scored 3, the other player 6 (net: dealer -3).
    duo.core.points_won[:] = [[3, 6], [6, 3]]
    duo.core.match_score[:] = [[-3, 3], [3, -3]]
    out, _ = play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert out.match_over.tolist() == [True, True]  # dealer: 3 + 5 = 8 points scored
    assert out.matches.winner.tolist() == [0, 1]
    assert out.matches.scores.tolist() == [[2, -2], [-2, 2]]  # reported as net totals
    assert (duo.core.points_won == 0).all()


# ------------------------------------------------------------------ illegal actions
def test_illegal_action_changes_no_game() -> None:
    deck = make_deck([2, 10, 4, 12, 16, 20, 36, 44], [5, 13, 17, 21, 24, 37, 40, 45],
                     [0, 1, 8, 9, 28, 29, 32, 33], [3, 6, 14, 11, 30])
    quiet = make_deck(deck[:8], deck[8:16], deck[16:24], [14, 15])
    core = KoiKoiCore(3, seed=9)
    core.reset(seed=9, options={"deck": np.array([deck, deck, quiet]), "dealer": [0, 1, 0]})
    # games 0 and 1 now choose between the two pines; in game 2 the other player is to play
    core.step(np.array([2, 2, 4]))
    assert core.phase.tolist() == [CHOOSE_PLAYED, CHOOSE_PLAYED, PLAY]
    before = core.state_dict()
    cases = [([48, 50, 5], "game 1", "action 50", "[48, 49]"),  # card 2 is not on the field
             ([48, 49, 96], "game 2", "action 96", "[5, 13,"),  # stop outside a decision
             ([98, 48, 5], "game 0", "action 98", "[48, 49]"),
             ([-1, 48, 5], "game 0", "action -1", "[48, 49]"),
             ([48, 48, 4], "game 2", "action 4", "[5, 13,")]  # the other player's card
    for actions, *parts in cases:
        with pytest.raises(IllegalActionError) as info:
            core.step(np.array(actions))
        for part in parts:
            assert part in str(info.value)
        after = core.state_dict()
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value, err_msg=name)
    with pytest.raises(ValueError):
        core.step(np.array([48.0, 48.0, 5.0]))
    with pytest.raises(ValueError):
        core.step(np.array([48, 48]))
    core.step(np.array([48, 49, 5]))  # the legal move still works afterwards
    assert core.phase.tolist() == [PLAY, PLAY, PLAY]


# ------------------------------------------------------------------ rendering
def test_render_game_shows_the_table() -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    play_pairs(duo, script(dp, op, 6), {5: KOIKOI})
    core = duo.core
    text = render_game(core, 0)
    assert "sanko 5" in text and "total 5" in text and "koi-koi" in text
    for card in cards(core.field[0]) | cards(core.piles[0, 0]) | cards(core.piles[0, 1]):
        assert card_label(card) in text
    for card in cards(core.hands[0, 0]) | cards(core.hands[0, 1]):
        assert card_label(card) in text
    for viewer in (0, 1):
        hidden = 1 - viewer
        lines = render_game(core, 0, viewer=viewer).splitlines()
        start = lines.index(next(x for x in lines if x.startswith(f"player_{hidden}")))
        assert lines[start + 1].strip() == "hand:  5 hidden cards"
        shown = lines[lines.index(next(x for x in lines if x.startswith(f"player_{viewer}")))
                      + 1]
        for card in cards(core.hands[0, viewer]):
            assert card_label(card) in shown


def test_render_shows_the_match_score() -> None:
    deck, dp, op = pairs_deck(*SANKO_T5)
    duo = Duo(deck)
    play_pairs(duo, script(dp, op, 5), {5: STOP})
    assert "score 5 : -5" in render_game(duo.core, 0)
    assert "score -5 : 5" in render_game(duo.core, 1, viewer=0)
    assert "round 2/12" in render_game(duo.core, 1)
