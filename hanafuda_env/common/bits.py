"""Bit tricks on 48-bit card sets, compiled: population count and lowest set bit as the CPU's
instructions (LLVM intrinsics), and the splitmix64 hash of :mod:`hanafuda_env.common.seeding`, for
the kernel and the compiled observation encoder."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from hanafuda_env.common.seeding import GOLDEN, MIX1, MIX2

U64 = np.uint64
ONE, ZERO = U64(1), U64(0)


@intrinsic
def _ctpop(typingctx, x):
    """The CPU's population count of a uint64 (LLVM ctpop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    """Trailing zero bits of a uint64 (LLVM cttz)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def popcount(x: np.uint64) -> np.int64:
    return np.int64(_ctpop(x))


@njit(cache=True, inline="always")
def lowest_index(x: np.uint64) -> np.int64:
    """Index of the lowest set bit of a non-zero set."""
    return np.int64(_cttz(x))


@njit(cache=True, inline="always")
def card_bit(card) -> np.uint64:
    return ONE << U64(card)


@njit(cache=True, inline="always")
def splitmix64(x: np.uint64) -> np.uint64:
    """``seeding.splitmix64`` of one word."""
    z = x + GOLDEN
    z = (z ^ (z >> U64(30))) * MIX1
    z = (z ^ (z >> U64(27))) * MIX2
    return z ^ (z >> U64(31))
