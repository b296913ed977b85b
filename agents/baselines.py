"""Baseline agents: random, greedy and a rules-aware expert heuristic.

All three read only the observation and the legal-action mask (see ``agents.base``) and
work on whole batches: candidate actions are flattened to rows (at most 8 per game), valued
with NumPy, and the best one per game is taken.

* :class:`RandomAgent` — uniform over the legal actions.
* :class:`GreedyAgent` — the capture worth most card points now (bright 20, animal 10,
  ribbon 5, chaff 1, the classic Hana-awase card values); with no capture it lays down its
  least valuable card. Fixed koi-koi rule: **always stop** (bank the points at once).
* :class:`ExpertAgent` — values each outcome by a race between the two players to the next
  yaku, built from per-card capture probabilities (see the class docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erf, sqrt

import numpy as np

from hanafuda_env import cards as C
from hanafuda_env.core import CHOOSE_PLAYED, KOIKOI, PLAY, STOP
from hanafuda_env.rules import RuleSpec
from hanafuda_env.scoring import batch_scorer, month_counts, round_points, yaku_table

from .base import Agent, View, argmax_per_row, decode, legal_candidates

_U64 = np.uint64
_MADE_BONUS = 1000.0  # in rule units: making yaku now outranks every other outcome
_KIND_MASKS = np.array([C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS], dtype=_U64)
_KIND_POINTS = np.array([20.0, 10.0, 5.0, 1.0])
_MONTH_OF = C.CARD_MONTH.astype(np.intp) - 1  # (48,) month index 0..11 of each card


def card_points(bits: np.ndarray) -> np.ndarray:
    """Hana-awase card points of each set: a simple, rule-free measure of a capture."""
    counts = np.bitwise_count(np.asarray(bits, dtype=_U64)[..., None] & _KIND_MASKS)
    return counts @ _KIND_POINTS


def _lowest_bit(bits: np.ndarray) -> np.ndarray:
    return bits & (~bits + _U64(1))


@dataclass
class Outcomes:
    """The immediate effect of each candidate card action (one row per outcome).

    A play that matches two field cards has two outcomes (one per field card the player
    would take next); such a play is worth its better outcome.
    """

    row: np.ndarray  # game row in the batch
    action: np.ndarray
    captured: np.ndarray  # uint64: cards that go to the player's pile
    placed: np.ndarray  # uint64: card laid on the field (no match)
    taken: np.ndarray  # uint64: field cards that leave the field
    played: np.ndarray  # uint64: card that leaves the hand


def card_outcomes(view: View, rows: np.ndarray, actions: np.ndarray) -> Outcomes:
    """Outcomes of play (0-47) and take (48-95) actions, following RULES.md §2.2."""
    field = view.field[rows]
    is_play = actions < 48
    card = np.where(is_play, actions, actions - 48)
    bit = C.CARD_BITS[card]
    matches = np.where(is_play, field & C.MONTH_MASK_OF_CARD[card], _U64(0))
    count = np.bitwise_count(matches)
    pending = C.CARD_BITS[np.maximum(view.pending[rows], 0)]
    # play with 2 matches: first outcome takes the lower field card, a copy takes the other
    low = _lowest_bit(matches)
    taken = np.where(is_play, np.where(count == 2, low, matches), bit)
    captured = np.where(is_play, np.where(count > 0, taken | bit, _U64(0)), bit | pending)
    placed = np.where(is_play & (count == 0), bit, _U64(0))
    played = np.where(is_play, bit, _U64(0))
    two = np.flatnonzero(count == 2)
    high = matches[two] & ~low[two]
    return Outcomes(
        row=np.concatenate([rows, rows[two]]), action=np.concatenate([actions, actions[two]]),
        captured=np.concatenate([captured, high | bit[two]]),
        placed=np.concatenate([placed, placed[two]]),
        taken=np.concatenate([taken, high]), played=np.concatenate([played, played[two]]))


class RandomAgent(Agent):
    """Uniformly random legal actions: the floor every other agent must clear."""

    name = "random"

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        keys = self.rng.random(mask.shape)
        return np.where(mask, keys, -1.0).argmax(axis=1)


class GreedyAgent(Agent):
    """Takes the capture worth most card points now; always stops when it makes yaku.

    Without a capture it lays down its least valuable card. Ties break at random, so two
    greedy agents do not mirror each other.
    """

    name = "greedy"

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        view = decode(obs, self.rules)
        actions = np.full(len(obs), STOP, dtype=np.int64)  # the fixed koi-koi rule
        cards = mask[:, :96]
        rows, acts = legal_candidates(cards)
        if len(rows):
            out = card_outcomes(view, rows, acts)
            value = card_points(out.captured) - 0.01 * card_points(out.placed)
            value = value + 1e-3 * self.rng.random(len(value))
            chosen = argmax_per_row(out.row, out.action, value, len(obs))
            actions = np.where(chosen >= 0, chosen, actions)
        return actions


@dataclass(frozen=True)
class ExpertParams:
    """Tunable constants of the expert."""

    potential: float = 0.4  # weight of expected yaku gains beyond the race
    round_sigma: float = 6.0  # spread of one round's result, in rule units (match utility)
    koikoi_margin: float = 0.0  # match-win probability koi-koi must gain over a stop


# ---------------------------------------------------------------------------- card model
# Where a card lies (from one player's view, the opponent to move) and which cards of its
# month are where decide who will capture it. Features of a card: its place (my hand, the
# field, unseen) and the number of its month's other cards in my hand (mh), on the field
# (mf) and unseen (mu), and my cards left (t = hand size / 8).
CARD_FEATURES = ("1", "mh>=1", "mh>=2", "mf>=1", "mf>=2", "mu/3", "mu=0", "t", "t*(mh>=1)",
                 "t*(mf>=1)", "t*mu/3")
HAND, FIELD, UNSEEN = 0, 1, 2

# Logistic-regression weights (place, [mine, theirs], feature) for the chance that a card
# ends in my pile / the opponent's by the round's end. Fitted with
# ``fit_card_model(collect_card_outcomes(ExpertAgent()))`` on self-play rounds played out
# to the last card (``python benchmarks/bench_baselines.py --calibrate`` refits and prints
# them).
CARD_MODEL = np.array([
    [  # hand: mine, theirs
        [-2.05, 0.48, 0.87, 0.81, 3.53, 1.98, 3.48, 2.25, -0.37, -0.07, -1.03],
        [-2.55, 1.02, -0.90, -1.27, -11.29, 1.18, -12.85, 1.62, -0.83, 0.14, -2.84],
    ],
    [  # field: mine, theirs
        [-3.47, 1.96, 0.70, 0.34, -0.05, 1.96, 3.70, 3.47, -0.60, -0.78, -3.03],
        [-2.49, 0.83, -0.47, -0.72, 0.52, 2.81, -13.22, 2.66, -2.16, 0.16, -1.88],
    ],
    [  # unseen: mine, theirs
        [-3.61, 1.49, 0.11, 0.22, 0.20, 0.90, 0.69, 2.63, -1.06, -0.53, -1.41],
        [-2.97, 0.32, 0.08, 0.97, 0.36, 1.41, 0.41, 2.67, -0.84, -1.02, -1.15],
    ],
])


def card_features(hand, field, unseen, my_turns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, 48) place, (N, 48, F) features and (N, 48) alive flag of every card.

    A card is dead when no other card of its month can still be played: nobody can ever
    capture it.
    """
    sets = np.stack([hand, field, unseen], axis=1)
    where = C.bits_to_bool(sets)  # (N, 3, 48)
    mates = month_counts(sets).astype(np.float64)[:, :, _MONTH_OF] - where
    mh, mf, mu = mates[:, 0], mates[:, 1], np.clip(mates[:, 2], 0, 3)
    place = np.where(where[:, 0], HAND, np.where(where[:, 1], FIELD, UNSEEN))
    t = np.broadcast_to((np.asarray(my_turns, dtype=np.float64) / 8.0)[:, None], mh.shape)
    h1, f1, u = (mh >= 1) * 1.0, (mf >= 1) * 1.0, mu / 3.0
    feats = np.stack([np.ones_like(mh), h1, (mh >= 2) * 1.0, f1, (mf >= 2) * 1.0, u,
                      (mu == 0) * 1.0, t, t * h1, t * f1, t * u], axis=-1)
    return place, feats, (mh + mf + mu) > 0


def card_chances(hand, field, unseen, my_turns, model: np.ndarray = CARD_MODEL):
    """(N, 48) chances that each card in a hand, on the field or unseen ends in my pile and
    in the opponent's (0 for cards in piles: callers set those)."""
    place, feats, alive = card_features(hand, field, unseen, my_turns)
    logits = np.einsum("nkf,nkof->nko", feats, model[place])
    probs = 1.0 / (1.0 + np.exp(-logits))
    on_table = (place != UNSEEN) | C.bits_to_bool(unseen)
    a_me = np.where(alive & on_table, probs[..., 0], 0.0)
    a_opp = np.minimum(np.where(alive & on_table, probs[..., 1], 0.0), 1.0 - a_me)
    return a_me, a_opp


class ExpertAgent(Agent):
    """A rules-aware heuristic player that plans from the visible cards only.

    **Card model.** Each card not yet captured gets a probability of ending in each pile,
    from where it lies (hand, field, unseen), where the other cards of its month are (my
    hand, the field, unseen) and how many turns are left: logistic regressions
    (``CARD_MODEL``) fitted to the final owners of cards in self-play rounds played to the
    last card. Cards whose three mates are all captured are dead: nobody can take them.
    My draw still to come in this turn adds its chance to take each field card.

    **Yaku model.** From those probabilities the distribution of each yaku's card count
    (Poisson-binomial, exact) gives the chance of every yaku — or of a standing yaku
    growing — for both players, using the rule set's own yaku table.

    **Race.** The chance that each player improves their yaku total first is spread over
    their remaining turns (opponent first); an outcome is worth ``P(I win) × my score −
    P(they win) × their score`` in round points (§2.5 doubling included), plus a small
    weight on expected yaku gains. A capture that makes yaku now is always taken (the
    highest stop score first). This denies cards the opponent needs, avoids laying down
    cards it can take, and keeps hand cards that pair with valuable field cards.

    **Koi-koi.** Stop and koi-koi are compared as match-win probabilities: a normal
    approximation of the rest of the match (``round_sigma`` per round left) turns the score
    difference plus a round result into a chance of winning the match. A stop banks the
    current score; a koi-koi leads to each way of improving (with its own score, 7-point
    doubling included), to the opponent scoring double, or to nothing, with the race's
    chances. So the expert stops with a safe lead or on the last round when a stop wins,
    calls koi-koi when the opponent is far from yaku and its own improvement is likely and
    valuable, and gambles when only a big score can save the match.
    """

    name = "expert"

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, name: str | None = None,
                 params: ExpertParams | None = None, card_model: np.ndarray | None = None):
        super().__init__(rules, seed, name)
        self.params = params or ExpertParams()
        self.card_model = CARD_MODEL if card_model is None else np.asarray(card_model)
        self._scorer = batch_scorer(self.rules)
        self._build_tables()

    # ------------------------------------------------------------------ tables
    def _build_tables(self) -> None:
        table = yaku_table(self.rules)
        masks: list[int] = []

        def slot(mask: int) -> int:
            if mask not in masks:
                masks.append(mask)
            return masks.index(mask)

        names = [y.name for y in table]
        self._yaku = []
        for y in table:
            conds = tuple((slot(m), need) for m, need in y.conditions)
            extra = slot(y.extra_mask) if y.extra_points else -1
            replaces = tuple(names.index(z.name) for z in table if y.name in z.excluded_by)
            excluders = tuple(names.index(n) for n in y.excluded_by if n in names)
            self._yaku.append((y, conds, extra, replaces, excluders))
        self._mask_bits = np.array(masks, dtype=_U64)
        self._mask_cards = [np.array(C.ids_of(m), dtype=np.intp) for m in masks]

    # ------------------------------------------------------------------ acting
    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        view = decode(obs, self.rules)
        n = len(obs)
        actions = np.full(n, -1, dtype=np.int64)
        deciding = np.flatnonzero(mask[:, STOP] & mask[:, KOIKOI])
        if len(deciding):
            actions[deciding] = self._decide(view, deciding)
        rows, acts = legal_candidates(mask[:, :96])
        if len(rows):
            values, out = self._value_card_actions(view, rows, acts)
            values = values + 1e-9 * self.rng.random(len(values))
            chosen = argmax_per_row(out.row, out.action, values, n)
            actions = np.where(chosen >= 0, chosen, actions)
        lone = actions < 0  # a mask with only stop or only koi-koi (never from the core)
        if lone.any():
            actions[lone] = np.where(mask[lone, STOP], STOP, KOIKOI)
        return actions

    def _value_card_actions(self, view: View, rows: np.ndarray, acts: np.ndarray):
        out = card_outcomes(view, rows, acts)
        r = out.row
        hand = view.hand[r] & ~out.played
        field = (view.field[r] & ~out.taken) | out.placed
        pile = view.own_pile[r] | out.captured
        phase = view.phase[r]
        my_turns = view.own_hand_n[r] - (phase == PLAY)
        draw_now = (phase == PLAY) | (phase == CHOOSE_PLAYED)
        total = self._scorer.totals(pile).astype(np.int64)
        made = total > view.own_total[r]
        stop_score = round_points(total, view.opp_called[r], self.rules).astype(np.float64)
        race = self._race(view, r, hand, field, pile, my_turns, draw_now, total,
                          view.own_called[r])
        # a capture that makes yaku is always taken (the biggest first): it wins the round
        # or, after a koi-koi, keeps every card captured so far
        made_value = _MADE_BONUS * self.rules.points.extra_card + stop_score + 1e-3 * race
        return np.where(made, made_value, race), out

    def _decide(self, view: View, rows: np.ndarray) -> np.ndarray:
        """Stop or koi-koi by comparing the chance of winning the match after each."""
        p = self.params
        total = view.own_total[rows]
        stop = round_points(total, view.opp_called[rows], self.rules).astype(np.float64)
        p_me, p_opp, mine, theirs, exhaust = self._koikoi_race(view, rows)
        diff = view.score_diff[rows][:, None]
        later = np.maximum(view.rounds_left[rows] - 1, 0)
        sigma = (p.round_sigma * self.rules.points.extra_card * np.sqrt(later) + 1e-6)[:, None]
        u_stop = _match_win(diff + stop[:, None], sigma)[:, 0]
        p_none = np.clip(1.0 - p_me - p_opp, 0.0, 1.0)
        # each way a player can improve, weighted by its chance, with its own score: the
        # tail (a big yaku) matters when only a big score saves the match
        u_mine = _weighted(mine[0], _match_win(diff + mine[1], sigma))
        u_theirs = _weighted(theirs[0], _match_win(diff - theirs[1], sigma))
        u_koi = (p_me * u_mine + p_opp * u_theirs
                 + p_none * _match_win(diff + exhaust[:, None], sigma)[:, 0])
        hopeless = u_stop < 1e-9  # a stop loses the match anyway: nothing to lose
        return np.where((u_koi > u_stop + p.koikoi_margin) | hopeless, KOIKOI, STOP)

    def _koikoi_race(self, view: View, rows: np.ndarray):
        """The race after a koi-koi: the opponent moves next and would score double."""
        return self._race(view, rows, view.hand[rows], view.field[rows], view.own_pile[rows],
                          view.own_hand_n[rows], np.zeros(len(rows), bool),
                          view.own_total[rows], np.ones(len(rows), bool), parts=True)

    # ------------------------------------------------------------------ model
    def _race(self, view: View, r: np.ndarray, hand, field, pile, my_turns, draw_now, total,
              me_called, parts: bool = False):
        """Value of a position after my move: who improves their yaku total first."""
        p = self.params
        opp_pile = view.opp_pile[r]
        unseen = view.unseen[r]
        opp_turns = view.opp_hand_n[r]
        a_me, a_opp = self._acquisition(hand, field, pile, opp_pile, unseen, my_turns,
                                        draw_now)
        q_me, gain_me, pot_me, events_me = self._events(pile, a_me, total, view.opp_called[r])
        opp_total = view.opp_total[r]
        q_opp, gain_opp, pot_opp, events_opp = self._events(opp_pile, a_opp, opp_total,
                                                            me_called)
        p_me, p_opp = _race_probabilities(q_me, q_opp, my_turns, opp_turns)
        exhaust = self._exhaustion_value(view, r, total, opp_total, me_called)
        if parts:
            return p_me, p_opp, events_me, events_opp, exhaust
        p_none = np.clip(1.0 - p_me - p_opp, 0.0, 1.0)
        return (p_me * gain_me - p_opp * gain_opp + p_none * exhaust
                + p.potential * (pot_me - pot_opp))

    def _acquisition(self, hand, field, pile, opp_pile, unseen, my_turns, draw_now):
        """(N, 48) chances that each card ends in my pile and in the opponent's."""
        a_me, a_opp = card_chances(hand, field, unseen, my_turns, self.card_model)
        # my draw still to come this turn may take a field card before the opponent moves
        n_unseen = np.maximum(np.bitwise_count(unseen), 1).astype(np.float64)[:, None]
        on_field = C.bits_to_bool(field)
        mates_unseen = month_counts(unseen).astype(np.float64)[:, _MONTH_OF]
        hit = np.where(on_field, draw_now[:, None] * mates_unseen / n_unseen, 0.0)
        a_me = hit + (1.0 - hit) * a_me
        a_opp = (1.0 - hit) * a_opp
        where = C.bits_to_bool(np.stack([pile, opp_pile], axis=1))
        mine, theirs = where[:, 0], where[:, 1]
        a_me = np.where(mine, 1.0, np.where(theirs, 0.0, a_me))
        a_opp = np.where(theirs, 1.0, np.where(mine, 0.0, a_opp))
        return a_me, a_opp

    def _events(self, pile, a, total, loser_called):
        """Chance of improving the yaku total, the score if so, and expected yaku gains."""
        n = len(pile)
        dists = [_count_distribution(a[:, cards]) for cards in self._mask_cards]
        have = np.bitwise_count(pile[:, None] & self._mask_bits).astype(np.intp)  # (N, M)
        breakdown = self._scorer.breakdown(pile)
        standing = breakdown > 0
        rows = np.arange(n)
        probs, gains = [], []
        for i, (yaku, conds, extra, replaces, excluders) in enumerate(self._yaku):
            met = np.ones(n, bool)
            prob = np.ones(n)
            for m, need in conds:
                met &= have[:, m] >= need
                prob = prob * _tail(dists[m], need)
            if yaku.forbidden:
                ok = (pile & _U64(yaku.forbidden)) == 0
                met &= ok
                prob = prob * ok
            blocked = standing[:, list(excluders)].any(axis=1) if excluders else False
            replaced = breakdown[:, list(replaces)].sum(axis=1) if replaces else 0
            new = np.where(met | blocked, 0.0, prob)
            probs.append(new)
            gains.append(np.broadcast_to(np.maximum(yaku.points - replaced,
                                                    yaku.extra_points or 1), (n,)))
            if extra >= 0:
                grow = _tail_at(dists[extra], have[:, extra] + 1, rows)
                probs.append(np.where(standing[:, i], grow, 0.0))
                gains.append(np.full(n, yaku.extra_points))
        probs_a = np.clip(np.stack(probs, axis=1), 0.0, 1.0)
        gains_a = np.stack(gains, axis=1).astype(np.float64)
        q = 1.0 - np.prod(1.0 - probs_a, axis=1)
        score = round_points(total[:, None] + gains_a.astype(np.int64), loser_called[:, None],
                             self.rules).astype(np.float64)
        weight = probs_a.sum(axis=1)
        win = (probs_a * score).sum(axis=1) / np.maximum(weight, 1e-12)
        pot = (probs_a * gains_a).sum(axis=1)
        return q, win, pot, (probs_a, score)

    def _exhaustion_value(self, view: View, r, total, opp_total, me_called) -> np.ndarray:
        """What both hands running out would be worth to me (§2.6, §2.8 on_exhaustion)."""
        rules = self.rules
        called = me_called | view.opp_called[r]
        dealer = view.is_dealer[r]
        pts = float(rules.exhaustion_points)
        quiet = ~called & (total == 0) & (opp_total == 0)
        value = np.zeros(len(r))
        if rules.on_exhaustion in ("dealer-wins", "highest-total"):
            value = np.where(quiet, np.where(dealer, pts, -pts), value)
        elif rules.on_exhaustion == "non-dealer-wins":
            value = np.where(quiet, np.where(dealer, -pts, pts), value)
        if rules.on_exhaustion == "highest-total":
            i_win = (total > opp_total) | ((total == opp_total) & dealer)
            mine = round_points(total, view.opp_called[r], rules)
            theirs = round_points(opp_total, me_called, rules)
            value = np.where(called, np.where(i_win, mine, -theirs), value)
        return value


def _weighted(probs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mean of ``values`` per row under weights ``probs`` (uniform when all are 0)."""
    weight = probs.sum(axis=1, keepdims=True)
    probs = np.where(weight > 0, probs / np.maximum(weight, 1e-300), 1.0 / probs.shape[1])
    return (probs * values).sum(axis=1)


def _count_distribution(a: np.ndarray) -> np.ndarray:
    """(N, k) independent card chances -> (N, k+1) distribution of how many are captured."""
    n, k = a.shape
    dist = np.zeros((n, k + 1))
    dist[:, 0] = 1.0
    for j in range(k):
        pj = a[:, j:j + 1]
        shifted = dist[:, :-1] * pj
        dist *= 1.0 - pj
        dist[:, 1:] += shifted
    return dist


def _tail(dist: np.ndarray, need: int) -> np.ndarray:
    return dist[:, need:].sum(axis=1) if need < dist.shape[1] else np.zeros(len(dist))


def _tail_at(dist: np.ndarray, need: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """P(count >= need) with a per-row ``need``."""
    tails = np.concatenate([np.cumsum(dist[:, ::-1], axis=1)[:, ::-1],
                            np.zeros((len(dist), 1))], axis=1)
    return tails[rows, np.minimum(need, dist.shape[1])]


def _race_probabilities(q_me, q_opp, my_turns, opp_turns):
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
    for t in range(8):
        opp_moves = opp_turns > t
        p_opp += np.where(opp_moves, alive * h_opp, 0.0)
        alive = np.where(opp_moves, alive * (1.0 - h_opp), alive)
        me_moves = my_turns > t
        p_me += np.where(me_moves, alive * h_me, 0.0)
        alive = np.where(me_moves, alive * (1.0 - h_me), alive)
    return p_me, p_opp


_erf = np.vectorize(erf, otypes=[np.float64])


def _match_win(margin: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Chance of winning the match with this score margin and ``sigma`` of noise to come
    (a draw counts half)."""
    z = np.asarray(margin, dtype=np.float64) / (np.asarray(sigma) * sqrt(2.0))
    return 0.5 * (1.0 + _erf(z))
