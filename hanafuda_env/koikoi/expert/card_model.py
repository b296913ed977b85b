"""The expert's card model: who is likely to capture each card by the round's end.

A card's chances of ending in my pile and in the opponent's come from logistic regressions
on where it and its month's other cards lie (``CARD_MODEL``, refitted by ``python
benchmarks/bench_baselines.py --calibrate``). Kept apart from the expert
(:mod:`hanafuda_env.koikoi.expert.kernel`) because it is data plus its features: the race built on
it does not change when it is refitted.
"""

from __future__ import annotations

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.deals import HAND_SIZE
from hanafuda_env.koikoi.scoring import month_counts

_U64 = np.uint64
_MONTH_OF = C.CARD_MONTH.astype(np.intp) - 1  # (48,) month index 0..11 of each card

# Where a card lies (from one player's view, the opponent to move) and which cards of its
# month are where decide who will capture it. Features of a card: its place (my hand, the
# field, unseen) and the number of its month's other cards in my hand (mh), on the field
# (mf) and unseen (mu), and my turns left (t = my_turns / 8).
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


def card_features(hand: np.ndarray, field: np.ndarray, unseen: np.ndarray, my_turns: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, 48) place, (N, 48, F) features and (N, 48) alive flag of every card.

    A card is dead when no other card of its month can still be played: nobody can ever
    capture it.
    """
    sets = np.stack([hand, field, unseen], axis=1)
    where = C.bits_to_bool(sets)  # (N, 3, 48)
    mates = month_counts(sets).astype(np.float64)[:, :, _MONTH_OF] - where
    mh, mf, mu = mates[:, 0], mates[:, 1], np.clip(mates[:, 2], 0, 3)
    place = np.where(where[:, 0], HAND, np.where(where[:, 1], FIELD, UNSEEN))
    t = np.broadcast_to((np.asarray(my_turns, dtype=np.float64) / HAND_SIZE)[:, None], mh.shape)
    h1, f1, u = (mh >= 1) * 1.0, (mf >= 1) * 1.0, mu / 3.0
    feats = np.stack([np.ones_like(mh), h1, (mh >= 2) * 1.0, f1, (mf >= 2) * 1.0, u,
                      (mu == 0) * 1.0, t, t * h1, t * f1, t * u], axis=-1)
    return place, feats, (mh + mf + mu) > 0


def card_chances(hand: np.ndarray, field: np.ndarray, unseen: np.ndarray,
                 my_turns: np.ndarray, model: np.ndarray = CARD_MODEL
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Two (N, 48) arrays: the chance that each card in a hand, on the field or unseen ends
    in my pile, and in the opponent's (0 for cards in piles: callers set those)."""
    place, feats, alive = card_features(hand, field, unseen, my_turns)
    logits = np.einsum("nkf,nkof->nko", feats, model[place])
    probs = 1.0 / (1.0 + np.exp(-logits))
    on_table = (place != UNSEEN) | C.bits_to_bool(unseen)
    a_me = np.where(alive & on_table, probs[..., 0], 0.0)
    a_opp = np.minimum(np.where(alive & on_table, probs[..., 1], 0.0), 1.0 - a_me)
    return a_me, a_opp


# A card's chances depend only on where its month's four cards lie and on my turns left, so
# the expert looks them up in a table of every placement instead of evaluating the model
# for all 48 cards of every candidate outcome. It keeps cards in rows k × 12 + month (k: the
# card's place in its month), the layout the month nibbles of a card set give directly.
_MONTH_SHIFTS = np.arange(0, 48, 4, dtype=_U64)[:, None]  # month m: the nibble of 4m..4m+3
_NIBBLE = _U64(0xF)
ROW_OF_CARD = (np.arange(48) % 4) * 12 + np.arange(48) // 4
CARD_OF_ROW = np.argsort(ROW_OF_CARD)
MAX_TURNS = 8
CODES = 1 << 12  # a month's placement code: hand | field << 4 | unseen << 8
_CHANCE_TABLES: dict[tuple, np.ndarray] = {}


def chance_table(model: np.ndarray = CARD_MODEL) -> np.ndarray:
    """(2, 4, 9 × 4096) :func:`card_chances` (mine, theirs) of a month's four cards at
    ``my_turns × 4096 + code`` for my_turns 0–8 and every placement code of the month.

    Built from :func:`card_chances` itself, twelve codes a row (one per month), so a
    lookup gives the model's own numbers, even for sets that overlap; cached per model.
    """
    model = np.asarray(model, dtype=np.float64)
    key = (model.shape, model.tobytes())
    if key not in _CHANCE_TABLES:
        reps = MAX_TURNS + 1
        codes = np.arange(-(-CODES // 12) * 12).reshape(-1, 12) % CODES  # (rows, month)
        shifts = 4 * np.arange(12)
        hand, field, unseen = (((codes >> s & 0xF) << shifts).sum(axis=1).astype(_U64)
                               for s in (0, 4, 8))
        turns = np.repeat(np.arange(reps), len(codes))
        mine, theirs = card_chances(np.tile(hand, reps), np.tile(field, reps),
                                    np.tile(unseen, reps), turns, model)
        at = (turns[:, None] * CODES + np.tile(codes, (reps, 1))).ravel()  # (rows × 12,)
        table = np.zeros((2, 4, reps * CODES))
        for k, chances in enumerate((mine, theirs)):
            table[k][:, at] = chances.reshape(-1, 4).T  # card 4m + j: month m, place j
        table.flags.writeable = False  # shared by every expert with this model
        _CHANCE_TABLES[key] = table
    return _CHANCE_TABLES[key]


def month_nibbles(*sets: np.ndarray) -> np.ndarray:
    """(S, 12, N) each set's four bits of every month (N card sets each)."""
    return (np.stack(sets)[:, None, :] >> _MONTH_SHIFTS) & _NIBBLE
