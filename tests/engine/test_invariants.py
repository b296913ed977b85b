"""Properties that must hold at every step of any game, checked over many random games."""

from __future__ import annotations

import numpy as np
import pytest

from hanafuda_env.common import cards as C
from hanafuda_env.common.results import END_NAMES, StepOutcome
from hanafuda_env.koikoi.core import (
    CHOOSE_DRAWN,
    CHOOSE_PLAYED,
    DECIDE,
    KOIKOI,
    PLAY,
    STOP,
    KoiKoiCore,
)
from hanafuda_env.koikoi.observation import (
    SCALAR_INDEX,
    SCORE_CLIP,
    encode_observations,
    score_unit,
)
from hanafuda_env.koikoi.rules import RuleSet
from hanafuda_env.koikoi.scoring import round_score

N_GAMES = 48
N_STEPS = 300
MAX_TURNS = 16  # 8 cards in each hand, one per turn
MAX_DECISIONS = 4 * MAX_TURNS  # play, two field choices, koi-koi decision

RULE_SETS = {
    "nintendo": {},
    "ten-base": {"preset": "ten-base"},
    "multiple-koikoi": {"multiple_koikoi": True, "on_exhaustion": "dealer-wins"},
    "short-matches": {"rounds": 3, "target_score": 8, "next_dealer": "alternate"},
    "koikoi-japan": {"preset": "koikoi-japan"},
}


def popcount(bits: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(bits, dtype=np.uint64)).astype(np.int64)


def assert_cards_accounted(core: KoiKoiCore) -> None:
    """Hands, field, piles, the pending card and the undrawn stock hold each card once."""
    for g in range(core.n_games):
        pos = int(core.stock_pos[g])
        parts = [int(core.hands[g, 0]), int(core.hands[g, 1]), int(core.field[g]),
                 int(core.piles[g, 0]), int(core.piles[g, 1]),
                 C.mask_of(core.stock[g, pos:].tolist())]
        if core.pending[g] >= 0:
            parts.append(1 << int(core.pending[g]))
        assert sum(p.bit_count() for p in parts) == C.NUM_CARDS, f"game {g}: a card is twice"
        union = 0
        for part in parts:
            union |= part
        assert union == C.ALL_CARDS, f"game {g}: cards missing: {C.describe(~union & C.ALL_CARDS)}"


def assert_phase_consistent(core: KoiKoiCore) -> None:
    """Each decision is one the rules can ask for; hand sizes and stock follow the turn count."""
    mover_hand = core.hands[np.arange(core.n_games), core.mover]
    assert (core.phase >= PLAY).all() and (core.phase <= DECIDE).all()
    choosing = (core.phase == CHOOSE_PLAYED) | (core.phase == CHOOSE_DRAWN)
    assert ((core.pending >= 0) == choosing).all()
    pending_month = C.MONTH_MASK_OF_CARD[np.maximum(core.pending, 0)]
    assert (popcount(core.field & pending_month)[choosing] == 2).all()
    assert (popcount(mover_hand)[core.phase == PLAY] > 0).all()
    assert (popcount(mover_hand)[core.phase == DECIDE] > 0).all()  # koi-koi needs a card
    playing = core.phase == PLAY
    turn = core.turn.astype(np.int64)
    dealer_hand = core.hands[np.arange(core.n_games), core.dealer]
    other_hand = core.hands[np.arange(core.n_games), 1 - core.dealer]
    assert (popcount(dealer_hand)[playing] == (8 - (turn + 1) // 2)[playing]).all()
    assert (popcount(other_hand)[playing] == (8 - turn // 2)[playing]).all()
    assert (core.stock_pos[playing] == turn[playing]).all()
    assert (core.mover[playing] == np.where(turn % 2 == 0, core.dealer, 1 - core.dealer)
            [playing]).all()
    assert (turn <= MAX_TURNS).all()


def assert_results_consistent(core: KoiKoiCore, outcome) -> None:
    rounds, matches = outcome.rounds, outcome.matches
    assert (outcome.reward.sum(axis=1) == 0).all(), "rewards must be zero-sum"
    assert (rounds.reward.sum(axis=1) == 0).all()
    per_game = np.zeros_like(outcome.reward)
    np.add.at(per_game, rounds.game, rounds.reward)
    assert np.array_equal(per_game, outcome.reward)
    ended = np.zeros(core.n_games, dtype=bool)
    ended[matches.game] = True
    assert np.array_equal(ended, outcome.match_over)
    if isinstance(outcome, StepOutcome):  # else a reset: no round was being played
        finished = np.zeros(core.n_games, dtype=bool)
        finished[rounds.game] = True
        # round_over is about the round being played; rounds dealt and ended at once (hand
        # yaku) only come with it.
        assert np.array_equal(finished, outcome.round_over)
        assert not (outcome.match_over & ~outcome.round_over).any()
    won = rounds.winner >= 0
    assert np.array_equal(rounds.points, np.where(won, rounds.base * rounds.multiplier, 0))
    assert (rounds.points >= 0).all()
    seat = np.maximum(rounds.winner, 0)
    rows = np.arange(len(rounds))
    own_calls = rounds.koikoi_calls[rows, seat]
    loser_called = rounds.koikoi_calls[rows, 1 - seat] > 0
    if not core.rules.own_koikoi_bonus:  # the doublings of §2.5 alone
        assert np.isin(rounds.multiplier, (1, 2, 4)).all()
    assert np.array_equal(rounds.reward[np.arange(len(rounds)), seat],
                          np.where(won, rounds.points, 0))
    assert ((rounds.turns >= 0) & (rounds.turns <= MAX_TURNS)).all()
    by_yaku = np.isin(rounds.reason, [END_NAMES.index(n) for n in
                                      ("stop", "yaku-after-koikoi", "yaku-on-last-card")])
    # a yaku win scores its yaku as the rules say (§2.5; the own-call bonus of §2.10)
    base, multiplier = round_score(rounds.yaku.sum(axis=1)[by_yaku], loser_called[by_yaku],
                                   core.rules, own_calls[by_yaku])
    assert np.array_equal(base, rounds.base[by_yaku])
    assert np.array_equal(multiplier, rounds.multiplier[by_yaku])
    assert (rounds.winner[rounds.reason == END_NAMES.index("no-game")] == -1).all()
    assert (matches.winner == np.where(matches.scores[:, 0] > matches.scores[:, 1], 0,
                                       np.where(matches.scores[:, 1] > matches.scores[:, 0],
                                                1, -1))).all()


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_invariants_hold_over_random_games(name: str) -> None:
    rules = RuleSet.from_dict(RULE_SETS[name])
    core = KoiKoiCore(N_GAMES, rules, seed=0)
    rng = np.random.default_rng(31)
    tally = MatchTally(N_GAMES, rules)
    outcome = core.reset(seed=31)
    assert_results_consistent(core, outcome)
    tally.add(core, outcome)
    decisions = np.zeros(N_GAMES, dtype=np.int64)
    for _ in range(N_STEPS):
        assert_cards_accounted(core)
        assert_phase_consistent(core)
        mask = core.legal_action_mask()
        assert mask.any(axis=1).all(), "a game has no legal action"
        assert np.array_equal(core.match_score, tally.score)
        assert_lead_observed(core, tally.won)
        actions = core.sample_legal_actions(rng)
        assert mask[np.arange(N_GAMES), actions].all(), "sampled an illegal action"
        call = rng.random(N_GAMES) < 0.7
        actions = np.where(core.phase == DECIDE, np.where(call, KOIKOI, STOP), actions)
        decisions += 1
        outcome = core.step(actions)
        assert_results_consistent(core, outcome)
        assert (decisions[outcome.round_over] <= MAX_DECISIONS).all(), "a round ran too long"
        decisions[outcome.round_over] = 0
        tally.add(core, outcome)
    assert tally.rounds > 8 * N_GAMES
    if rules.rounds <= 3:
        assert tally.matches > N_GAMES


def assert_lead_observed(core: KoiKoiCore, won: np.ndarray) -> None:
    """Each seat's observation holds its match lead: its points won minus the opponent's
    (once, not the difference of the two zero-sum scores, which counts the lead twice)."""
    unit = score_unit(core.rules)
    for seat in (0, 1):
        lead = (won[:, seat] - won[:, 1 - seat]) / unit
        seen = encode_observations(core, seat)[:, SCALAR_INDEX["score_diff"]]
        np.testing.assert_allclose(seen, np.clip(lead, -SCORE_CLIP, SCORE_CLIP), rtol=1e-6)


class MatchTally:
    """Match scores kept from the round rows alone (RULES §2.8, §2.10), checked against every
    match row that a step or a reset reports."""

    def __init__(self, n_games: int, rules: RuleSet):
        self.rules = rules
        self.score = np.zeros((n_games, 2), dtype=np.int64)  # zero-sum
        self.won = np.zeros((n_games, 2), dtype=np.int64)  # points scored: what a target counts
        self.index = np.zeros(n_games, dtype=np.int64)
        self.rounds = self.matches = 0

    def add(self, core: KoiKoiCore, outcome) -> None:
        rounds, matches = outcome.rounds, outcome.matches
        closed = np.zeros(len(self.index), dtype=np.int64)  # match rows used per game
        self.rounds += len(rounds)
        for k in range(len(rounds)):  # rows of one game come in the order they were played
            g = int(rounds.game[k])
            assert rounds.round_index[k] == self.index[g]
            self.score[g] += rounds.reward[k]
            self.won[g] += np.maximum(rounds.reward[k], 0)
            self.index[g] += 1
            target, stake = self.rules.target_score, self.rules.starting_points
            if self.rules.rounds > self.index[g] and (target is None
                                                      or self.won[g].max() < target) and (
                    stake is None or stake + self.score[g].min() > 0):
                continue
            row = np.flatnonzero(matches.game == g)[closed[g]]
            closed[g] += 1
            assert matches.scores[row].tolist() == self.score[g].tolist()
            assert matches.rounds[row] == self.index[g]
            self.score[g], self.won[g], self.index[g] = 0, 0, 0
            self.matches += 1
        assert closed.sum() == len(matches.game), "a match row that no round closed"
        assert np.array_equal(core.round_index, self.index)


@pytest.mark.parametrize("changes", [{"rounds": 1}, {"rounds": 6, "target_score": 6},
                                     {"preset": "ten-base", "rounds": 2, "target_score": 30}])
def test_reset_reports_matches_ended_at_the_deal(changes: dict) -> None:
    """A dealt hand yaku that ends a short match inside ``reset`` yields a match row, by the
    same rule as in ``step`` (points scored reach the target; the round limit)."""
    rules = RuleSet.from_dict(changes)
    core = KoiKoiCore(3000, rules, seed=0)  # about 1 deal in 80 holds a hand yaku
    outcome = core.reset(seed=17)
    assert_results_consistent(core, outcome)
    tally = MatchTally(core.n_games, rules)
    tally.add(core, outcome)
    assert tally.matches > 10
    rows, matches = outcome.rounds, outcome.matches
    first = np.unique(rows.game, return_index=True)[1]  # each game's first round
    first_match = np.unique(matches.game, return_index=True)[1]
    # with these rules any hand yaku ends its match, won by whoever held it
    assert matches.game[first_match].tolist() == rows.game[first].tolist()
    assert (matches.winner[first_match] == rows.winner[first]).all()
    assert (matches.rounds[first_match] == 1).all()


def test_full_matches_end_with_match_results() -> None:
    """Driving short matches to the end: every match closes once and restarts at round 0."""
    core = KoiKoiCore(16, RuleSet().replace(rounds=3), seed=4)
    rng = np.random.default_rng(4)
    closed = np.zeros(16, dtype=np.int64)
    for _ in range(250):
        outcome = core.step(core.sample_legal_actions(rng))
        closed += outcome.match_over
        assert (core.round_index[outcome.match_over] < 3).all()
        assert (outcome.matches.rounds == 3).all()
    assert (closed >= 2).all()
