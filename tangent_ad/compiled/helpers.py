"""Numba versions of the runtime helpers a staged derivative still calls.

Staging removes most helpers once the kinds of the arguments are known;
the few left (``cast_like`` at the return, ``float_argument`` of an int
argument, ``unbroadcast`` and ``zeros_like`` where a kind was not decided;
``unindex`` and ``updated`` of basic indices; ``accumulate``, ``abs_slope``,
``sigmoid`` and ``iterated`` of numbers and arrays)
are written here for Numba with ``numba.extending.overload``: each picks,
when Numba compiles the call, the case for its argument types, as the
Python helper picks it at run time. A helper without a Numba version stops
compilation with a `CompileError` naming the line that calls it
(``compiler``). `namespace` swaps them in by identity, not by name.

Importing this module imports Numba.
"""
import numpy as np
from numba import types
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from tangent_ad import runtime


def _number(t):
    return isinstance(t, (types.Float, types.Integer)) and not isinstance(t, types.Boolean)


def _stand_in(helper):
    """A function named like `helper` whose only body is its Numba version."""
    def stand_in(*args):
        raise RuntimeError(f"{helper.__name__} runs compiled only")
    stand_in.__name__ = stand_in.__qualname__ = helper.__name__
    stand_in.__doc__ = f"The Numba version of tangent_ad.runtime.{helper.__name__}."
    return stand_in


cast_like = _stand_in(runtime.cast_like)
float_argument = _stand_in(runtime.float_argument)
zeros_like = _stand_in(runtime.zeros_like)
zero_tangent = _stand_in(runtime.zero_tangent)
unbroadcast = _stand_in(runtime.unbroadcast)
ensure_real = _stand_in(runtime.ensure_real)
ensure_scalar = _stand_in(runtime.ensure_scalar)
size_of = _stand_in(runtime.size_of)
abs_slope = _stand_in(runtime.abs_slope)
accumulate = _stand_in(runtime.accumulate)
iterated = _stand_in(runtime.iterated)
unindex = _stand_in(runtime.unindex)
updated = _stand_in(runtime.updated)
accumulate_at = _stand_in(runtime.accumulate_at)
sigmoid = _stand_in(runtime.sigmoid)
zeroed = _stand_in(runtime.zeroed)
conj_complex = _stand_in(runtime.conj_complex)
uniterated = _stand_in(runtime.uniterated)


@overload(cast_like)
def _cast_like(g, x):
    """`g` in the type of `x`: a float for a number, an array of x's dtype."""
    if _number(g) and isinstance(x, types.Float):
        return lambda g, x: _as_float_of(g, x)
    if _number(g) and isinstance(x, types.Integer):
        return lambda g, x: float(g)
    if isinstance(g, types.Array) and isinstance(x, types.Array) and g.ndim == x.ndim:
        if g.dtype == x.dtype:
            return lambda g, x: g
        target = as_dtype(x.dtype if isinstance(x.dtype, types.Float) else types.float64).type
        return lambda g, x: g.astype(target)
    return None


def _as_float_of(g, x):
    raise RuntimeError("runs compiled only")


@overload(_as_float_of)
def _as_float_of_impl(g, x):
    if x == types.float32:
        return lambda g, x: np.float32(g)
    return lambda g, x: float(g)


@overload(float_argument)
def _float_argument(x):
    if isinstance(x, types.Float):
        return lambda x: x
    if isinstance(x, types.Integer) and not isinstance(x, types.Boolean):
        return lambda x: float(x)
    if isinstance(x, types.Array) and isinstance(x.dtype, types.Float):
        return lambda x: x
    if isinstance(x, types.Array) and isinstance(x.dtype, types.Integer):
        return lambda x: x.astype(np.float64)
    return None


def _zeros(x):
    if _number(x):
        return lambda x: 0.0
    if isinstance(x, types.Array):
        return lambda x: np.zeros_like(x)
    return None


overload(zeros_like)(_zeros)
overload(zero_tangent)(_zeros)


@overload(unbroadcast)
def _unbroadcast(g, x):
    """`g` summed to the shape of `x` (leading axes of g that x lacks)."""
    if _number(g) and _number(x):
        return lambda g, x: _as_float_of(g, x)
    if isinstance(g, types.Array) and _number(x):
        return lambda g, x: _as_float_of(np.sum(g), x)
    if _number(g) and isinstance(x, types.Array):
        return lambda g, x: np.full(x.shape, g, x.dtype)
    if isinstance(g, types.Array) and isinstance(x, types.Array):
        if g.ndim == x.ndim:
            def same_rank(g, x):
                if g.shape != x.shape:
                    raise ValueError("unbroadcast over an axis of length 1 is not compiled")
                return g
            return same_rank
        if g.ndim > x.ndim:
            return lambda g, x: np.ascontiguousarray(g).reshape((-1,) + x.shape).sum(axis=0)
    return None


@overload(ensure_real)
def _ensure_real(value):
    if _number(value) or isinstance(value, types.Array) and \
            not isinstance(value.dtype, types.Complex):
        return lambda value: None
    return None


@overload(ensure_scalar)
def _ensure_scalar(value):
    if _number(value):
        return lambda value: None
    return None


@overload(size_of)
def _size_of(x):
    """The number of entries of `x` (1 for a number)."""
    if _number(x):
        return lambda x: 1
    if isinstance(x, types.Array):
        return lambda x: x.size
    return None


def _real(t):
    return _number(t) or isinstance(t, types.Array) and \
        isinstance(t.dtype, (types.Float, types.Integer))


def _basic_index(t):
    """An int, a slice, or a tuple of them: what NumPy writes without
    adding up repeated positions (a fancy index goes through scatter_add
    in Python, which has no Numba version here)."""
    if isinstance(t, (types.BaseTuple)):
        return all(_basic_index(item) for item in t.types)
    return isinstance(t, (types.Integer, types.SliceType)) and not isinstance(t, types.Boolean)


@overload(abs_slope)
def _abs_slope(x):
    """sign(x) for a real `x` (complex: no Numba version)."""
    if _real(x):
        return lambda x: np.sign(x)
    return None


@overload(sigmoid)
def _sigmoid(x):
    """1 / (1 + exp(-x)) from exp(-|x|), for a real number or array."""
    if isinstance(x, types.Float):
        def logistic(x):
            small = np.exp(-abs(x))
            return (1.0 if x >= 0 else small) / (1.0 + small)
        return logistic
    if isinstance(x, types.Array) and isinstance(x.dtype, types.Float):
        def logistic_array(x):
            small = np.exp(-np.abs(x))
            return np.where(x >= 0, 1.0, small) / (1.0 + small)
        return logistic_array
    return None


@overload(accumulate)
def _accumulate(a, b):
    """a + b for numbers and arrays (containers: no Numba version)."""
    if _real(a) and _real(b):
        return lambda a, b: a + b
    return None


@overload(iterated)
def _iterated(items):
    """An array or a list is iterated as it is."""
    if isinstance(items, (types.Array, types.List)):
        return lambda items: items
    return None


@overload(unindex)
def _unindex(g, x, index):
    """Zeros like the array `x` with `g` at a basic `index`."""
    if isinstance(x, types.Array) and _basic_index(index) and _real(g):
        def spread(g, x, index):
            z = np.zeros_like(x)
            z[index] = g
            return z
        return spread
    return None


@overload(updated)
def _updated(array, index, value):
    """A copy of the float array `array` with `value` at a basic `index`
    (an integer array would truncate the value: no Numba version)."""
    if isinstance(array, types.Array) and isinstance(array.dtype, types.Float) and \
            _basic_index(index) and _real(value):
        def written(array, index, value):
            copy = array.copy()
            copy[index] = value
            return copy
        return written
    return None


@overload(accumulate_at)
def _accumulate_at(a, g, x, index):
    """a + unindex(g, x, index) for an array `x` and a basic `index`."""
    if isinstance(x, types.Array) and _real(a) and _real(g) and _basic_index(index):
        def added(a, g, x, index):
            z = np.zeros_like(x)
            z[index] = g
            return a + z
        return added
    return None


@overload(zeroed)
def _zeroed(g, index, like=None):
    """A copy of the array adjoint `g` with zeros at a basic `index`."""
    if isinstance(g, types.Array) and _basic_index(index):
        def cleared(g, index, like=None):
            copy = g.copy()
            copy[index] = 0
            return copy
        return cleared
    return None


@overload(conj_complex)
def _conj_complex(g):
    """A real adjoint passes unchanged (complex: no Numba version)."""
    if _real(g):
        return lambda g: g
    return None


@overload(uniterated)
def _uniterated(g, items):
    """The adjoint of an array's or a list's iteration is `g` itself."""
    if isinstance(items, (types.Array, types.List)):
        return lambda g, items: g
    return None


_VERSIONS = {id(getattr(runtime, f.__name__)): f for f in (
    cast_like, float_argument, zeros_like, zero_tangent, unbroadcast, ensure_real,
    ensure_scalar, size_of, abs_slope, accumulate, iterated, unindex, updated,
    accumulate_at, zeroed, conj_complex, uniterated, sigmoid)}


def namespace(ns):
    """A copy of the namespace `ns` of generated code, each runtime helper
    with a Numba version replaced by that version (found by identity)."""
    return {key: _VERSIONS.get(id(value), value) for key, value in ns.items()}
