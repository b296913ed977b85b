"""The expert heuristic in whole-array NumPy: the reference the compiled expert
(``hanafuda_env.koikoi.expert.kernel``, played by ``agents.bots.expert.ExpertAgent``) must decide
exactly as, tie breaks included (the same numbers from the same generator).

Every candidate outcome and koi-koi decision of a batch is valued in one pass of array
operations: card chances from :func:`~hanafuda_env.koikoi.expert.card_model.chance_table`, and
the count tails of all yaku masks, for both players, from one :func:`count_tails` per group of
similar-sized masks. ``test_expert_estimates`` pins these tricks to plain card-by-card
formulas.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from math import erf, sqrt

import numpy as np

from agents.bots.base import Agent, View, argmax_per_row, decode, legal_candidates
from agents.bots.baselines import Outcomes, card_outcomes
from agents.bots.expert import ExpertParams
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import CHOOSE_PLAYED, HAND_SIZE, KOIKOI, PLAY, STOP
from hanafuda_env.koikoi.expert.card_model import (
    CARD_MODEL,
    CARD_OF_ROW,
    CODES,
    MAX_TURNS,
    ROW_OF_CARD,
    card_chances,
    chance_table,
    month_nibbles,
)
from hanafuda_env.koikoi.rules import QUIET_EXHAUSTION_WINNER, RuleSpec
from hanafuda_env.koikoi.scoring import PileTotals, round_points, yaku_table

_U64 = np.uint64
_MADE_BONUS = 1000.0  # in rule units: making yaku now outranks every other outcome
_IN_NIBBLE = np.arange(4, dtype=_U64)[:, None, None]  # shifts to each card of a month nibble


def count_tails(probs: np.ndarray, cap: int, out: np.ndarray | None = None) -> np.ndarray:
    """(K, …) independent chances → (cap + 1, …) chances that at least r = 0..cap happen.

    One step per card, vectorized over all other axes (masks × positions), so the whole
    yaku table of a batch costs a few dozen array operations, and only up to the largest
    count a yaku asks for (kasu's 25 chaff need 10). The tails follow the same recursion
    as the count distribution, T'[r] = T[r] + p (T[r - 1] - T[r]); a zero chance leaves
    them as they were, so masks of different sizes pad with zeros.
    """
    probs = np.asarray(probs, dtype=np.float64)
    tails = np.empty((cap + 1, *probs.shape[1:])) if out is None else out
    tails[0] = 1.0
    tails[1:] = 0.0
    step = np.empty((cap, *probs.shape[1:]))
    for j, p in enumerate(probs):
        k = min(j + 1, cap)  # after j cards, tails above j are still 0
        rise = np.subtract(tails[:k], tails[1:k + 1], out=step[:k])
        rise *= p
        tails[1:k + 1] += rise
    return tails


@dataclass
class _Positions:
    """Positions after my move (or my koi-koi), one row each: what the race values."""

    r: np.ndarray  # game row in the batch
    hand: np.ndarray
    field: np.ndarray
    pile: np.ndarray
    my_turns: np.ndarray
    draw_now: np.ndarray  # my draw of this turn is still to come
    total: np.ndarray  # my yaku total
    me_called: np.ndarray
    my_calls: np.ndarray  # my koi-koi calls this round (a win's own-call bonus)
    breakdown: np.ndarray  # (N, n_yaku) points per yaku of ``pile``

    def __add__(self, other: _Positions) -> _Positions:
        return _Positions(*(np.concatenate([getattr(self, f.name), getattr(other, f.name)])
                            for f in fields(self)))


@dataclass
class _Race:
    """Who improves their yaku total first, and how, for a batch of positions."""

    p_me: np.ndarray
    p_opp: np.ndarray
    win_me: np.ndarray  # expected round score if I improve first
    win_opp: np.ndarray
    pot_me: np.ndarray  # expected yaku gains
    pot_opp: np.ndarray
    probs_me: np.ndarray  # (N, events) chance of each way to improve
    score_me: np.ndarray  # (N, events) round score after it
    probs_opp: np.ndarray
    score_opp: np.ndarray
    exhaust: np.ndarray  # value to me of both hands running out

    def __getitem__(self, rows: slice) -> _Race:
        return _Race(*(getattr(self, f.name)[rows] for f in fields(self)))


class NumpyExpert(Agent):
    """The expert of ``agents.bots.expert.ExpertAgent``, in NumPy."""

    name = "expert"

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, name: str | None = None,
                 params: ExpertParams | None = None, card_model: np.ndarray | None = None):
        super().__init__(rules, seed, name)
        self.params = params or ExpertParams()
        self.card_model = CARD_MODEL if card_model is None else np.asarray(card_model)
        self._chances = chance_table(self.card_model)
        self._scorer = PileTotals(self.rules)
        self._build_tables()

    # ------------------------------------------------------------------ tables
    def _build_tables(self) -> None:
        """Index arrays that turn the yaku table into whole-batch gathers.

        The count tails of all masks lie in one (rows, positions) array: mask m's
        P(r or more of its cards not yet in the pile get there) in row
        ``base[m] + r × stride[m]``, so each condition of each yaku is one gather.
        """
        table = yaku_table(self.rules)
        masks: list[int] = []

        def slot(mask: int) -> int:
            if mask not in masks:
                masks.append(mask)
            return masks.index(mask)

        names = [y.name for y in table]
        conds = [[(slot(m), need) for m, need in y.conditions] for y in table]
        extras = [slot(y.extra_mask) if y.extra_points else -1 for y in table]
        cards = [C.ids_of(m) for m in masks]
        caps = [0] * len(masks)  # the largest count asked of each mask
        for yaku_conds, extra in zip(conds, extras):
            for m, need in yaku_conds:
                caps[m] = max(caps[m], need)
            if extra >= 0:
                caps[extra] = max(caps[extra], 1)
        # masks of similar size share one padded recursion; the tails of group g lie in
        # rows offset_g + r × len(g) + i of one array, then a row of ones
        groups: list[list[int]] = []
        for m in sorted(range(len(masks)), key=lambda m: -len(cards[m])):
            if groups and 4 * len(cards[m]) >= 3 * len(cards[groups[-1][0]]):
                groups[-1].append(m)
            else:
                groups.append([m])
        base = np.zeros(len(masks), dtype=np.intp)
        stride = np.zeros(len(masks), dtype=np.intp)
        self._groups: list[tuple[np.ndarray, int, slice]] = []
        offset = 0
        for group in groups:
            cap = max(caps[m] for m in group)
            at = np.full((len(cards[group[0]]), len(group)), 48, dtype=np.intp)  # 48: pad
            for i, m in enumerate(group):
                at[:len(cards[m]), i] = ROW_OF_CARD[cards[m]]
                base[m], stride[m] = offset + i, len(group)
            self._groups.append((at, cap, slice(offset, offset + (cap + 1) * len(group))))
            offset += (cap + 1) * len(group)
        self._n_tails = offset + 1  # the last row: ones, for conditions a yaku lacks
        self._mask_bits = np.array(masks, dtype=_U64)[:, None]

        n_yaku, n_conds = len(table), max(len(c) for c in conds)
        self._cond_mask = np.zeros((n_yaku, n_conds), dtype=np.intp)
        self._cond_need = np.zeros((n_yaku, n_conds, 1), dtype=np.intp)
        self._cond_at = np.full((n_yaku, n_conds, 1), offset, dtype=np.intp)
        self._cond_stride = np.zeros((n_yaku, n_conds, 1), dtype=np.intp)
        for i, yaku_conds in enumerate(conds):
            for j, (m, need) in enumerate(yaku_conds):
                self._cond_mask[i, j] = m
                self._cond_need[i, j], self._cond_at[i, j], self._cond_stride[i, j] = (
                    need, base[m], stride[m])
        self._forbidden = np.array([y.forbidden for y in table], dtype=_U64)[:, None]
        # for each yaku, the yaku that cancel it and those it replaces, padded with n_yaku
        # (a row of zero points)
        excluders = [[names.index(e) for e in y.excluded_by if e in names] for y in table]
        replaces = [[i for i in range(n_yaku) if j in excluders[i]] for j in range(n_yaku)]
        self._excluders, self._replaces = (
            np.array([row + [n_yaku] * (max(map(len, rows)) - len(row)) for row in rows],
                     dtype=np.intp) for rows in (excluders, replaces))
        self._points = np.array([y.points for y in table], dtype=np.int64)[:, None]
        self._floor = np.array([y.extra_points or 1 for y in table], dtype=np.int64)[:, None]
        # events, in this order: each yaku made anew, then (with extra points) growing
        new_cols, grow_cols, grow_yaku = [], [], []
        for i, extra in enumerate(extras):
            new_cols.append(len(new_cols) + len(grow_cols))
            if extra >= 0:
                grow_cols.append(len(new_cols) + len(grow_cols))
                grow_yaku.append(i)
        self._new_cols, self._grow_cols, self._grow_yaku = (
            np.array(x, dtype=np.intp) for x in (new_cols, grow_cols, grow_yaku))
        grow_masks = [extras[i] for i in grow_yaku]
        self._grow_at = base[grow_masks] + stride[grow_masks]  # P(one more card)
        self._grow_points = np.array([table[i].extra_points for i in grow_yaku],
                                     dtype=np.int64)[:, None]
        self._n_events = len(self._new_cols) + len(self._grow_cols)

    # ------------------------------------------------------------------ acting
    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        view = decode(obs, self.rules)
        n = len(obs)
        actions = np.full(n, -1, dtype=np.int64)
        deciding = np.flatnonzero(mask[:, STOP] & mask[:, KOIKOI])
        rows, acts = legal_candidates(mask[:, :96])
        values, out, decisions = self._evaluate(view, rows, acts, deciding)
        actions[deciding] = decisions
        if len(rows):
            values = values + 1e-9 * self.rng.random(len(values))
            chosen = argmax_per_row(out.row, out.action, values, n)
            actions = np.where(chosen >= 0, chosen, actions)
        lone = actions < 0  # a mask with only stop or only koi-koi (never from the core)
        if lone.any():
            actions[lone] = np.where(mask[lone, STOP], STOP, KOIKOI)
        return actions

    def _evaluate(self, view: View, rows: np.ndarray, acts: np.ndarray, deciding: np.ndarray
                  ) -> tuple[np.ndarray, Outcomes, np.ndarray]:
        """Values of the card actions and stop/koi-koi choices of the ``deciding`` rows.

        All their positions go through one race, so the per-call cost of the many small
        array operations is paid once per batch.
        """
        out = card_outcomes(view, rows, acts)
        cards = self._card_positions(view, out)
        positions = cards + self._koikoi_positions(view, deciding)
        if len(positions.r) == 0:
            return np.zeros(0), out, np.zeros(0, dtype=np.int64)
        race = self._race(view, positions)
        k = len(cards.r)
        return self._card_values(view, cards, race[:k]), out, self._decide(view, deciding,
                                                                          race[k:])

    def _card_positions(self, view: View, out: Outcomes) -> _Positions:
        r = out.row
        pile = view.own_pile[r] | out.captured
        phase = view.phase[r]
        breakdown = self._scorer.breakdown(pile, view.own_called[r])
        return _Positions(
            r=r, hand=view.hand[r] & ~out.played, field=(view.field[r] & ~out.taken) | out.placed,
            pile=pile, my_turns=view.own_hand_n[r] - (phase == PLAY),
            draw_now=(phase == PLAY) | (phase == CHOOSE_PLAYED),
            total=breakdown.sum(axis=1, dtype=np.int64), me_called=view.own_called[r],
            my_calls=view.own_calls[r], breakdown=breakdown)

    def _koikoi_positions(self, view: View, rows: np.ndarray) -> _Positions:
        """After a koi-koi: the opponent moves next and would score double."""
        pile = view.own_pile[rows]
        breakdown = self._scorer.breakdown(pile, True)  # the sake yaku raised by the call
        return _Positions(
            r=rows, hand=view.hand[rows], field=view.field[rows], pile=pile,
            my_turns=view.own_hand_n[rows], draw_now=np.zeros(len(rows), bool),
            total=breakdown.sum(axis=1, dtype=np.int64), me_called=np.ones(len(rows), bool),
            my_calls=view.own_calls[rows] + 1, breakdown=breakdown)

    def _card_values(self, view: View, pos: _Positions, race: _Race) -> np.ndarray:
        """Value of each card outcome: the race in round points, or a made yaku first."""
        p = self.params
        r = pos.r
        made = pos.total > view.own_total[r]
        stop_score = round_points(pos.total, view.opp_called[r], self.rules,
                                  pos.my_calls).astype(np.float64)
        p_none = np.clip(1.0 - race.p_me - race.p_opp, 0.0, 1.0)
        value = (race.p_me * race.win_me - race.p_opp * race.win_opp + p_none * race.exhaust
                 + p.potential * (race.pot_me - race.pot_opp))
        # a capture that makes yaku is always taken (the biggest first): it wins the round
        # or, after a koi-koi, keeps every card captured so far
        made_value = _MADE_BONUS * self.rules.point_unit + stop_score + 1e-3 * value
        return np.where(made, made_value, value)

    def _decide(self, view: View, rows: np.ndarray, race: _Race) -> np.ndarray:
        """Stop or koi-koi by comparing the chance of winning the match after each."""
        p = self.params
        total = view.own_total[rows]
        stop = round_points(total, view.opp_called[rows], self.rules,
                            view.own_calls[rows]).astype(np.float64)
        diff = view.score_diff[rows][:, None]
        later = np.maximum(view.rounds_left[rows] - 1, 0)
        sigma = (p.round_sigma * self.rules.point_unit * np.sqrt(later) + 1e-6)[:, None]
        stake = self.rules.starting_points
        u_stop = _match_chance(diff + stop[:, None], sigma, stake)[:, 0]
        p_me, p_opp = race.p_me, race.p_opp
        p_none = np.clip(1.0 - p_me - p_opp, 0.0, 1.0)
        # each way a player can improve, weighted by its chance, with its own score: the
        # tail (a big yaku) matters when only a big score saves the match
        u_mine = _weighted(race.probs_me, _match_chance(diff + race.score_me, sigma, stake))
        u_theirs = _weighted(race.probs_opp, _match_chance(diff - race.score_opp, sigma,
                                                            stake))
        u_koi = (p_me * u_mine + p_opp * u_theirs
                 + p_none * _match_chance(diff + race.exhaust[:, None], sigma, stake)[:, 0])
        hopeless = u_stop < 1e-9  # a stop loses the match anyway: nothing to lose
        return np.where((u_koi > u_stop + p.koikoi_margin) | hopeless, KOIKOI, STOP)

    # ------------------------------------------------------------------ model
    def _race(self, view: View, pos: _Positions) -> _Race:
        """Who improves their yaku total first from each position, and with what."""
        r, n = pos.r, len(pos.r)
        opp_pile = view.opp_pile[r]
        opp_total = view.opp_total[r]
        chances = self._acquisition(pos.hand, pos.field, pos.pile, opp_pile, view.unseen[r],
                                    pos.my_turns, pos.draw_now)
        # both players in one pass: positions 0..n-1 are mine, n..2n-1 the opponent's
        q, win, pot, probs, score = self._events(
            np.concatenate([pos.pile, opp_pile]), chances.reshape(49, 2 * n),
            np.concatenate([pos.total, opp_total]),
            np.concatenate([view.opp_called[r], pos.me_called]),
            np.concatenate([pos.breakdown, self._scorer.breakdown(opp_pile, view.opp_called[r])]),
            np.concatenate([pos.my_calls, view.opp_calls[r]]))
        p_me, p_opp = _race_probabilities(q[:n], q[n:], pos.my_turns, view.opp_hand_n[r])
        exhaust = self._exhaustion_value(view, r, pos.total, opp_total, pos.me_called,
                                         pos.my_calls)
        probs, score = probs.T, score.T  # (positions, events) views
        return _Race(p_me, p_opp, win[:n], win[n:], pot[:n], pot[n:], probs[:n], score[:n],
                     probs[n:], score[n:], exhaust)

    def _acquisition(self, hand: np.ndarray, field: np.ndarray, pile: np.ndarray,
                     opp_pile: np.ndarray, unseen: np.ndarray, my_turns: np.ndarray,
                     draw_now: np.ndarray) -> np.ndarray:
        """(49, 2, N) chances that each card not in a pile ends in my pile ([:, 0]) and in
        the opponent's ([:, 1]): rows as ``ROW_OF_CARD``, row 48 zero padding."""
        n = len(hand)
        nib = month_nibbles(hand, field, unseen, pile | opp_pile)  # (4, 12, N)
        my_turns = np.asarray(my_turns)
        if n and (my_turns.min() < 0 or my_turns.max() > MAX_TURNS):  # beyond the table
            a = np.stack(card_chances(hand, field, unseen, my_turns, self.card_model))
            a = a.transpose(0, 2, 1)[:, CARD_OF_ROW].reshape(2, 4, 12, n)
        else:
            at = (nib[0] | nib[1] << _U64(4) | nib[2] << _U64(8)).astype(np.intp)
            a = np.take(self._chances, at + my_turns * CODES, axis=2)  # (2, 4, 12, N)
        # my draw still to come this turn may take a field card before the opponent moves
        n_unseen = np.maximum(np.bitwise_count(unseen), 1).astype(np.float64)
        hit = draw_now * np.bitwise_count(nib[2]).astype(np.float64) / n_unseen  # (12, N)
        drawn = (1.0 - hit) * a
        drawn[0] += hit
        on_field = ((nib[1] >> _IN_NIBBLE) & _U64(1)).astype(bool)  # (4, 12, N)
        a = np.where(on_field, drawn, a)
        # a card in a pile counts through the pile, not as a chance (only odd observations
        # put a pile card in another set too)
        if ((pile | opp_pile) & (hand | field | unseen)).any():
            a = np.where(((nib[3] >> _IN_NIBBLE) & _U64(1)).astype(bool), 0.0, a)
        chances = np.empty((49, 2, n))
        chances[:48] = a.reshape(2, 48, n).transpose(1, 0, 2)
        chances[48] = 0.0
        return chances

    def _events(self, pile: np.ndarray, chances: np.ndarray, total: np.ndarray,
                loser_called: np.ndarray, breakdown: np.ndarray,
                winner_calls: np.ndarray | int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Chance of improving the yaku total, the score if so, expected yaku gains, and
        (events, N) chances and scores of each way to improve.

        A yaku needs ``need`` cards of a mask: with ``have`` already in the pile, that is
        ``need - have`` of the mask's other cards, read off the tails of their count.
        """
        n = len(pile)
        tails = np.empty((self._n_tails, n))
        tails[-1] = 1.0
        for at, cap, rows in self._groups:
            count_tails(chances[at], cap, out=tails[rows].reshape(cap + 1, at.shape[1], n))
        have = np.bitwise_count(self._mask_bits & pile).astype(np.intp)  # (masks, N)
        held = have[self._cond_mask]  # (yaku, conditions, N)
        at = self._cond_at + self._cond_stride * np.maximum(self._cond_need - held, 0)
        prob = np.take(tails, at * n + np.arange(n)).prod(axis=1)
        allowed = (self._forbidden & pile) == 0
        met = (held >= self._cond_need).all(axis=1) & allowed
        scored = np.zeros((len(self._points) + 1, n), dtype=np.int64)  # the last row: none
        scored[:-1] = breakdown.T
        blocked = scored[self._excluders].any(axis=1)
        replaced = scored[self._replaces].sum(axis=1)
        probs = np.empty((self._n_events, n))
        probs[self._new_cols] = np.where(met | blocked, 0.0, prob * allowed)
        probs[self._grow_cols] = np.where(scored[self._grow_yaku] > 0, tails[self._grow_at],
                                          0.0)
        np.clip(probs, 0.0, 1.0, out=probs)
        gains = np.empty((self._n_events, n), dtype=np.int64)
        gains[self._new_cols] = np.maximum(self._points - replaced, self._floor)
        gains[self._grow_cols] = self._grow_points
        q = 1.0 - np.prod(1.0 - probs, axis=0)
        score = round_points(total + gains, loser_called, self.rules,
                             winner_calls).astype(np.float64)
        weight = probs.sum(axis=0)
        win = (probs * score).sum(axis=0) / np.maximum(weight, 1e-12)
        pot = (probs * gains).sum(axis=0)
        return q, win, pot, probs, score

    def _exhaustion_value(self, view: View, r: np.ndarray, total: np.ndarray,
                          opp_total: np.ndarray, me_called: np.ndarray,
                          my_calls: np.ndarray | None = None) -> np.ndarray:
        """What both hands running out would be worth to me (§2.6, §2.8, §2.10
        on_exhaustion); ``my_calls``: my koi-koi calls (default ``me_called``'s one)."""
        rules = self.rules
        my_calls = me_called.astype(np.int64) if my_calls is None else my_calls
        called = me_called | view.opp_called[r]
        dealer = view.is_dealer[r]
        pts = float(rules.exhaustion_points)
        quiet = ~called & (total == 0) & (opp_total == 0)
        if rules.on_exhaustion == "dealer-wins-always":
            quiet = np.ones(len(r), dtype=bool)
        value = np.zeros(len(r))
        offset = QUIET_EXHAUSTION_WINNER[rules.on_exhaustion]  # 0: the dealer wins, 1: other
        if offset is not None:
            value = np.where(quiet, np.where(dealer != bool(offset), pts, -pts), value)
        if rules.on_exhaustion == "highest-total":
            i_win = (total > opp_total) | ((total == opp_total) & dealer)
            mine = round_points(total, view.opp_called[r], rules, my_calls)
            theirs = round_points(opp_total, me_called, rules, view.opp_calls[r])
            value = np.where(called, np.where(i_win, mine, -theirs), value)
        return value


def _weighted(probs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mean of ``values`` per row under weights ``probs`` (uniform when all are 0)."""
    weight = probs.sum(axis=1, keepdims=True)
    probs = np.where(weight > 0, probs / np.maximum(weight, 1e-300), 1.0 / probs.shape[1])
    return (probs * values).sum(axis=1)


def _race_probabilities(q_me: np.ndarray, q_opp: np.ndarray, my_turns: np.ndarray,
                        opp_turns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Chances that I / the opponent improve first, turns alternating, opponent first.

    Each side's chance over the rest of the round is spread evenly over its turns.
    """
    my_turns = np.asarray(my_turns, dtype=np.float64)
    opp_turns = np.asarray(opp_turns, dtype=np.float64)
    h_me = np.where(my_turns > 0, 1.0 - (1.0 - q_me) ** (1.0 / np.maximum(my_turns, 1)), 0.0)
    h_opp = np.where(opp_turns > 0, 1.0 - (1.0 - q_opp) ** (1.0 / np.maximum(opp_turns, 1)),
                     0.0)
    alive = np.ones_like(h_me)
    p_me = np.zeros_like(h_me)
    p_opp = np.zeros_like(h_me)
    for t in range(HAND_SIZE):  # a player has at most a hand of turns left
        opp_moves = opp_turns > t
        p_opp += np.where(opp_moves, alive * h_opp, 0.0)
        alive = np.where(opp_moves, alive * (1.0 - h_opp), alive)
        me_moves = my_turns > t
        p_me += np.where(me_moves, alive * h_me, 0.0)
        alive = np.where(me_moves, alive * (1.0 - h_me), alive)
    return p_me, p_opp


def _erf(x: np.ndarray) -> np.ndarray:
    """``math.erf`` of each element (NumPy has no erf), once per distinct value: the
    scores a koi-koi decision weighs repeat a lot."""
    x = np.asarray(x, dtype=np.float64)
    values, inverse = np.unique(x.ravel(), return_inverse=True)
    return np.array([erf(v) for v in values.tolist()])[inverse].reshape(x.shape)


def _match_chance(margin: np.ndarray, sigma: np.ndarray, stake: int | None = None
                  ) -> np.ndarray:
    """Chance of winning the match with this score margin and ``sigma`` of noise to come
    (a draw counts half). With a starting stake the match ends once a player has lost it
    (§2.10): a margin of the stake or more is decided."""
    margin = np.asarray(margin, dtype=np.float64)
    z = margin / (np.asarray(sigma) * sqrt(2.0))
    chance = 0.5 * (1.0 + _erf(z))
    if stake is not None:
        chance = np.where(margin >= stake, 1.0, np.where(margin <= -stake, 0.0, chance))
    return chance
