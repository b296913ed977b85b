"""A borrowed array is the same array without a reference count: reads and writes go to the
caller's data, for every layout the loops pass (1-D, 3-D, strided)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hanafuda_env.common.borrow import borrowed


@njit(cache=False)
def _sum_and_mark(array):
    view = borrowed(array)
    total = view.sum()
    view.flat[0] = -1
    return total, view.shape, view.strides


def test_borrowed_array_reads_and_writes_the_callers_data() -> None:
    for array in (np.arange(10, dtype=np.int64), np.arange(24, dtype=np.int64).reshape(2, 3, 4),
                  np.arange(20, dtype=np.int64)[::2]):
        expected_sum, shape, strides = int(array.sum()), array.shape, array.strides
        total, seen_shape, seen_strides = _sum_and_mark(array)
        assert (total, seen_shape, seen_strides) == (expected_sum, shape, strides)
        assert array.flat[0] == -1
