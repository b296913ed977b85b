"""Observation vectors and masks built by hand, with the encoder's layout and scaling."""

from __future__ import annotations

import numpy as np

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import (
    NUM_ACTIONS,
    PLAY,
)
from hanafuda_env.koikoi.observation import BLOCK, OBS_DIM, SCALAR_INDEX


def make_obs(hand=(), field=(), own=(), opp=(), pending=-1, phase=PLAY, opp_hand_n=None,
             stock_left=None, own_total=0, opp_total=0, own_called=False, opp_called=False,
             dealer=True, rounds_left=12, rounds=12, score_diff=0.0, unit=1):
    """One observation vector built by hand, with the encoder's layout and scaling."""
    obs = np.zeros((1, OBS_DIM), dtype=np.float32)
    sets = {"hand": C.mask_of(hand), "field": C.mask_of(field), "own_pile": C.mask_of(own),
            "opp_pile": C.mask_of(opp), "pending": C.mask_of([pending] if pending >= 0 else [])}
    seen = 0
    for name, bits in sets.items():
        obs[0, BLOCK[name]] = C.bits_to_bool(np.array([bits], dtype=np.uint64))[0]
        seen |= bits
    unseen = C.ALL_CARDS & ~seen
    obs[0, BLOCK["unseen"]] = C.bits_to_bool(np.array([unseen], dtype=np.uint64))[0]
    obs[0, BLOCK["phase"].start + phase] = 1.0
    opp_hand_n = len(hand) if opp_hand_n is None else opp_hand_n
    if stock_left is None:
        stock_left = min(24, unseen.bit_count() - opp_hand_n)
    scale = 10.0 * unit
    values = {"stock_left": stock_left / 24, "own_hand_size": len(hand) / 8,
              "opp_hand_size": opp_hand_n / 8, "own_called_koikoi": float(own_called),
              "opp_called_koikoi": float(opp_called), "own_yaku_total": own_total / scale,
              "opp_yaku_total": opp_total / scale, "is_dealer": float(dealer),
              "round_progress": (rounds - rounds_left) / rounds,
              "rounds_left": rounds_left / rounds,
              "score_diff": score_diff / scale}
    for name, value in values.items():
        obs[0, SCALAR_INDEX[name]] = value
    return obs


def mask_for(actions) -> np.ndarray:
    mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
    mask[0, list(actions)] = True
    return mask
