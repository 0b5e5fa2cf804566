"""What a generated derivative does at its boundary: arguments in, results out.

A gradient has its argument's type, structure, shape and dtype, always: a
float32 array gets a float32 gradient even where it met a float64
constant, a tuple a tuple, a (1,)-shaped array a (1,)-shaped array. The
rules inside a derivative need not know this: the generated function
casts its results once, where it returns (``return cast_like(bx, x)``),
the way JAX casts a cotangent back to its input's dtype. An integer
argument is a point of the real line: it enters as float64
(``x = float_argument(x)``), so that no adjoint is truncated to an
integer on the way. A bool has no derivative and is refused.
"""
import numpy as np

from tangent_ad.errors import InternalError, NonDifferentiableArgumentError
from tangent_ad.runtime.objects import is_object, map_fields
from tangent_ad.runtime.arrays import is_foreign_array, zeros_from

__all__ = ["cast_like", "float_argument"]

_ndarray = np.ndarray


def float_argument(x):
    """The argument `x` of a derivative as a point where it is taken: a
    Python int becomes a float and an integer array (or NumPy integer) a
    float64 one, in containers too; a bool is refused.

    >>> float_argument(np.array([1, 2]))
    array([1., 2.])
    >>> float_argument({"w": np.ones(2, np.float32), "n": 3})["n"]
    3
    """
    kind = type(x)
    if kind is float or kind is _ndarray and x.dtype.kind in "fc":
        return x  # the common case, decided by two type checks
    if kind is bool or isinstance(x, np.bool_) or kind is _ndarray and x.dtype.kind == "b":
        raise NonDifferentiableArgumentError(
            f"cannot differentiate with respect to a bool argument ({_describe(x)}): "
            "a bool has no derivative")
    if kind is int:
        return float(x)
    if isinstance(x, np.integer) or kind is _ndarray and x.dtype.kind in "iu":
        return np.asarray(x, np.float64)[()] if kind is not _ndarray else x.astype(np.float64)
    if is_foreign_array(x):  # a Dask or CuPy array
        if x.dtype.kind == "b":
            raise NonDifferentiableArgumentError(
                f"cannot differentiate with respect to a bool argument ({_describe(x)}): "
                "a bool has no derivative")
        return x.astype(np.float64) if x.dtype.kind in "iu" else x
    return _float_items(x)


def _float_items(x):
    """Integer arrays inside containers become float64; Python numbers,
    bools, strings and the rest inside them keep their value."""
    if type(x) is _ndarray and x.dtype.kind in "iu":
        return x.astype(np.float64)
    if isinstance(x, dict):
        return type(x)((k, _float_items(v)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        return _rebuild(x, [_float_items(v) for v in x])
    return x


def _describe(x):
    if isinstance(x, _ndarray):
        return f"an array of dtype {x.dtype}"
    return type(x).__name__


def cast_like(g, x):
    """The derivative `g` of the value `x` in `x`'s type, structure, shape
    and dtype: a float for a Python number, an array of `x`'s shape and
    dtype (float64 for an integer `x`) for an array, a tuple for a tuple,
    a dict for a dict. A complex `g` of a real `x` keeps its real part (the
    imaginary part has no direction in which `x` can move); a real `g` of
    a complex `x` becomes complex.

    >>> cast_like(np.ones(2), np.zeros(2, np.float32)).dtype
    dtype('float32')
    >>> cast_like([np.ones(2), 2.0], (np.zeros(2), 1.0))
    (array([1., 1.]), 2.0)
    >>> cast_like(np.array([1.5 + 2j]), np.zeros(1))
    array([1.5])
    >>> cast_like(np.array([3.0]), [1.0])
    [3.0]
    """
    kind = type(x)
    if kind is _ndarray:
        if type(g) is _ndarray and g.dtype is x.dtype and g.shape == x.shape and \
                x.dtype.kind in "fc":
            return g  # the common case, decided by four checks
        if is_foreign_array(g):  # a NumPy parameter of a function of Dask data:
            return _foreign_like(g, x)  # its gradient stays lazy
        return _array_like(g, x)
    if kind is float:
        return g if type(g) is float else float(_real_number(g))
    if isinstance(x, dict):
        g = g if isinstance(g, dict) else {}
        return type(x)((k, cast_like(g.get(k), v)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        items = [None] * len(x) if g is None else list(g)
        if len(items) != len(x):
            raise InternalError(f"a derivative of {len(items)} entries came out for a "
                                f"{type(x).__name__} of {len(x)}")
        return _rebuild(x, [cast_like(gi, xi) for gi, xi in zip(items, x)])
    if kind is int:
        return 0.0 if g is None else float(_real_number(g))
    if kind is complex:
        return 0j if g is None else complex(np.asarray(g).reshape(()))
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        return _array_like(g, x)[()]
    if is_foreign_array(x):
        return _foreign_like(g, x)
    if is_object(x):  # fields that carry no derivative keep their value
        if g is not None and not is_object(g):
            _not_object(g, x)
        return map_fields(lambda v, gv: cast_like(gv, v), x, g)
    return g  # not a number (a string, None, a function...): as it came


def _not_object(g, x):
    raise InternalError(f"a derivative of type {type(g).__name__} came out for a "
                        f"{type(x).__name__} object")


def _array_like(g, x):
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    if g is None:
        return np.zeros(np.shape(x), dtype)
    if isinstance(g, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in g):
        g = [np.asarray(_numbers(v)) for v in g]  # rows of nested lists
    a = np.asarray(g)
    if a.dtype.kind == "O":
        a = np.asarray(a.tolist())
    if a.dtype.kind == "c" and dtype.kind != "c":
        a = a.real
    if a.shape != x.shape:
        # only axes of length 1 may differ: a reshape that moves entries
        # would hide a wrong derivative
        if a.size == np.size(x) and _squeezed(a.shape) == _squeezed(x.shape):
            a = a.reshape(x.shape)
        elif a.size == 1:
            a = np.full(x.shape, a.reshape(()))
        else:
            raise InternalError(f"a derivative of shape {a.shape} came out for a value "
                                f"of shape {x.shape}")
    return a.astype(dtype, copy=False)


def _foreign_like(g, x):
    """`g` as an array of `x`'s library (Dask, CuPy), shape and dtype,
    converted by that library's functions, never through NumPy."""
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    if g is None:
        return zeros_from(x, x.shape, dtype)
    if not is_foreign_array(g):
        g = np.asarray(g, like=x)  # a NumPy value (a constant adjoint) into x's library
    if g.dtype.kind == "c" and dtype.kind != "c":
        g = np.real(g)
    if g.shape != x.shape:
        if g.size == x.size and _squeezed(g.shape) == _squeezed(x.shape):
            g = np.reshape(g, x.shape)
        elif g.size == 1:
            g = np.broadcast_to(np.reshape(g, ()), x.shape)
        else:
            raise InternalError(f"a derivative of shape {g.shape} came out for a value "
                                f"of shape {x.shape}")
    return g if g.dtype == dtype else g.astype(dtype)


def _squeezed(shape):
    return tuple(n for n in shape if n != 1)


def _numbers(v):
    return [_numbers(i) for i in v] if isinstance(v, (list, tuple)) else v


def _real_number(g):
    """`g` (a number or a one-entry array) as one real NumPy value."""
    if g is None:
        return 0.0
    a = g if is_foreign_array(g) else np.asarray(g)
    if a.size != 1:
        raise InternalError(f"a derivative of shape {a.shape} came out for a number")
    a = np.reshape(a, ())
    return np.real(a) if a.dtype.kind == "c" else a


def _rebuild(like, items):
    """A tuple, list or named tuple of `like`'s type."""
    if hasattr(like, "_fields"):
        return type(like)(*items)
    return type(like)(items)
