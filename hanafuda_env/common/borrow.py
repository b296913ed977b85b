"""Arrays without reference counts, for the compiled loops.

Numba counts references to every array it holds: each time a loop passes the rule arrays
to an inlined rule, the inlined body binds them anew and pays an atomic increment and
decrement (``NRT_incref`` / ``NRT_decref``), a fifth of a random rollout's time. An array
the caller owns for the whole call needs no count: :func:`borrowed` gives the same data,
shape and strides with no meminfo, so those calls see a null pointer and skip the atomics.
Borrowed arrays must not outlive the call that borrowed them (never return or store one).
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def borrowed(typingctx, array):
    """``array`` without its reference count (see the module docstring)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        source = make_array(signature.args[0])(context, builder, args[0])
        view = make_array(signature.return_type)(context, builder)
        populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                       itemsize=source.itemsize, meminfo=None, parent=None)
        return view._getvalue()

    return array(array), codegen


__all__ = ["borrowed"]
