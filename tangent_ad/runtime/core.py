"""The core runtime helpers: broadcasting, reductions, indexing, checks.

Every derivative uses some of these: ``unbroadcast`` sums an adjoint back
to its operand's shape, ``unreduce`` spreads a reduction's adjoint over the
reduced axes, ``unindex`` scatters an indexing's adjoint back.
"""
import operator
import sys

import numpy as np

from tangent_ad.errors import NonScalarOutputError, UnsupportedSyntaxError
from tangent_ad.runtime.arrays import as_array, is_foreign_array, scatter_add, size_of
from tangent_ad.runtime.structures import accumulate, rebuild, unindex_container, zeros_like

__all__ = ["ensure_scalar", "ensure_real", "unbroadcast", "unplus", "untimes", "unreduce", "unreduce_mean", "unindex", "accumulate_at", "accumulate_into", "inverse_permutation", "conj_complex", "abs_slope", "dsinc", "sigmoid", "digamma"]


_ndarray = np.ndarray
_float64 = np.float64
_SCALAR_TYPES = frozenset((float, int, np.float64, np.float32))


def ensure_scalar(value):
    """Raise NonScalarOutputError unless `value` is a real scalar (size 1,
    not complex, not a bool).

    A gradient is defined for real scalar outputs only: seeding a larger
    output with 1.0 would silently differentiate its sum, a complex one
    its real part, and a bool has no derivative.
    """
    if type(value) in _SCALAR_TYPES:  # fast path: a real number is a scalar
        return
    if isinstance(value, (tuple, list, dict)) and len(value) != 1:
        raise NonScalarOutputError(  # np.size fails on a ragged tuple
            f"grad needs a function with a scalar output, but it returned a "
            f"{type(value).__name__} of {len(value)} values",
            hint="for a function that returns (loss, aux), use grad(f, has_aux=True); "
                 "for the vector-Jacobian product of a tuple output, use tangent_ad.vjp")
    if size_of(value) != 1:
        raise NonScalarOutputError(
            f"grad needs a function with a scalar output, but it returned a "
            f"value of shape {np.shape(value)}")
    ensure_real(value)
    dtype = value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype
    if dtype.kind == "b":  # (a Dask value's dtype is known before it is computed)
        raise NonScalarOutputError(
            "grad needs a real-valued output, but the function returned a bool, "
            "which has no derivative",
            hint="return the number the comparison reads instead, or use "
                 "tangent_ad.vjp for a function of any output")


def ensure_real(value):
    """Raise NonScalarOutputError if `value` is complex: the output of a
    gradient's function, or the values it sums (a sum of complex values is
    complex, the sum of bools a count).

    >>> ensure_real(np.ones(3))
    """
    if type(value) is _ndarray and value.dtype.kind != "c" or type(value) in _SCALAR_TYPES:
        return  # the common cases, decided by two type checks
    if np.iscomplexobj(value):
        raise NonScalarOutputError(
            "grad needs a real-valued output, but the function returned a complex "
            "value: the gradient of its real part would be silently wrong for it",
            hint="differentiate a real value (np.real(...), np.abs(...) ** 2), or use "
                 "tangent_ad.vjp with a cotangent for a holomorphic function")


def _like(g, x):
    """Return `g` as a value of `x`'s kind: a Python float for a Python
    number, otherwise an array (or NumPy scalar) of `x`'s dtype."""
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        if type(g) is not float and np.iscomplexobj(g):
            g = np.real(g)  # a real argument's adjoint: the real part
        return float(g) if np.ndim(g) == 0 else g
    dtype = getattr(x, "dtype", None)
    if dtype is not None and getattr(g, "dtype", dtype) != dtype and \
            np.issubdtype(dtype, np.inexact):
        if np.iscomplexobj(g) and not np.issubdtype(dtype, np.complexfloating):
            g = np.real(g)
        if is_foreign_array(g):  # a Dask or CuPy array stays one
            return np.reshape(g.astype(dtype), np.shape(x))
        return np.asarray(g).astype(dtype, copy=False).reshape(np.shape(x))
    return g


def _axes(axis, ndim):
    """`axis` (None, an int or a tuple) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if np.ndim(axis) == 0 else axis))


def unbroadcast(g, x):
    """Sum the adjoint `g` over the axes along which `x` was broadcast.

    >>> unbroadcast(np.ones((3, 2)), np.zeros((1, 2)))
    array([[3., 3.]])
    >>> unbroadcast(np.ones((3, 2)), np.zeros(2))
    array([3., 3.])
    """
    # Fast paths first, for the common cases, with the cheapest checks:
    # real scalars (a Python float becomes np.float64 after np.cos, so a
    # loop's adjoints mix the two), and NumPy arrays of one dtype whose
    # shapes are equal or differ only by leading axes.
    kind = type(x)
    if kind is float or kind is _float64:  # a Python float, as _like gives
        if type(g) is float:
            return g
        if type(g) is _float64:
            return float(g)
        if type(g) is _ndarray and g.dtype.kind == "f":  # summed over every axis
            return float(np.add.reduce(g, axis=tuple(range(g.ndim))))
    elif kind is _ndarray:
        if type(g) is _ndarray and g.dtype == x.dtype:
            shape, gshape = x.shape, g.shape
            if gshape == shape:
                return g
            lead = len(gshape) - len(shape)
            if shape and lead > 0 and gshape[lead:] == shape:
                return np.add.reduce(g, axis=0 if lead == 1 else tuple(range(lead)))
    if isinstance(x, (tuple, list)) and isinstance(g, (tuple, list)):
        raise UnsupportedSyntaxError(
            "a + or * of tuples or lists was differentiated as arithmetic: the "
            "function does not show that its operands are sequences",
            hint="build the sequence with a literal where it is concatenated or "
                 "repeated, e.g. t = (p[0], p[1]) + (q[0],), or index the parts")
    shape = np.shape(x)
    gshape = np.shape(g)
    if gshape != shape:
        lead = len(gshape) - len(shape)
        if lead < 0:  # a size-1 adjoint (a seed of 1.0) of a (1,)- or (1, 1)-shaped x
            return _like(np.reshape(g, shape) if size_of(g) == np.prod(shape, dtype=int)
                         else np.broadcast_to(g, shape), x)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape)
            if n == 1 and gshape[lead + i] != 1)
        g = np.reshape(np.sum(g, axis=axes), shape)
    return _like(g, x)


def _is_sequence(x):
    return isinstance(x, (tuple, list))


def unplus(g, a, b, side):
    """The adjoint of operand `side` (0 or 1) of ``a + b``: for two
    sequences (a concatenation) the part of `g` that came from it, in its
    type; otherwise `g` reduced to its shape, as for an addition.

    >>> unplus((1.0, 2.0, 3.0), (0.0,), [0.0, 0.0], 1)
    [2.0, 3.0]
    >>> unplus(np.ones(2), 0.0, np.zeros(2), 0)
    2.0
    """
    if _is_sequence(a) and _is_sequence(b):
        part = list(g)[:len(a)] if side == 0 else list(g)[len(a):]
        return rebuild(a if side == 0 else b, part)
    return unbroadcast(g, a if side == 0 else b)


def untimes(g, x, other):
    """The adjoint of the operand `x` of a product ``x * other`` (either
    order: both ``*`` commute): for a sequence repeated an int number of
    times, the sum of `g`'s repeats, entry by entry; none (0.0) for the
    int count of a repetition; otherwise that of a product.

    >>> untimes((1.0, 2.0, 3.0, 4.0), (0.0, 0.0), 2)
    (4.0, 6.0)
    >>> untimes(np.ones(2), 3.0, np.array([1.0, 2.0]))
    3.0
    """
    if _is_sequence(x):
        count = operator.index(other)  # a TypeError, as in Python, for a float
        total, n = zeros_like(x), len(x)
        items = list(g)
        for start in range(0, n * max(count, 0), n):
            total = accumulate(total, rebuild(x, items[start:start + n]))
        return total
    if _is_sequence(other):
        return 0.0
    return unbroadcast(g * other, x)


def unreduce(g, x, axis=None, keepdims=False):
    """Spread the adjoint `g` of a reduction of `x` back to `x`'s shape.

    >>> unreduce(np.array([1., 2.]), np.zeros((2, 3)), axis=1)
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    shape = np.shape(x)
    if axis is not None and not keepdims and shape:  # NumPy lets a 0-d sum take axis=0
        g = _keep_dims(g, shape, _axes(axis, len(shape)))
    return _like(np.broadcast_to(g, shape), x)


def _keep_dims(g, shape, axes):
    """`g`, the value or adjoint of a reduction over `axes` of an array of
    `shape` without keepdims, with the reduced axes put back (size 1).

    A size-1 adjoint may come as a scalar (``grad`` seeds a (1,)-shaped
    output with 1.0): it is reshaped, as expand_dims would find no axis.
    """
    if np.ndim(g) + len(axes) == len(shape):
        return np.expand_dims(g, axes)
    return np.reshape(g, tuple(1 if i in axes else n for i, n in enumerate(shape)))


def unreduce_mean(g, x, axis=None, keepdims=False):
    """Spread the adjoint `g` of a mean of `x` back over `x`'s shape.

    >>> unreduce_mean(6.0, np.zeros(3))
    array([2., 2., 2.])
    """
    count = size_of(x) // max(size_of(g), 1) if axis is not None else size_of(x)
    return unreduce(g / count, x, axis, keepdims)


def unindex(g, x, index):
    """The adjoint of `x[index]`: zeros shaped like `x`, with `g` added at
    `index` (repeated fancy indices add up).

    >>> unindex(np.ones(2), np.zeros(4), slice(1, 3))
    array([0., 1., 1., 0.])
    """
    if isinstance(x, (tuple, list, dict)):
        return unindex_container(g, x, index)
    z = np.zeros_like(x)
    if _is_basic_index(index):
        z[index] = g
        return z
    return scatter_add(z, index, g)


def accumulate_at(a, g, x, index):
    """``accumulate(a, unindex(g, x, index))``, the adjoint `a` of a
    container `x` with the adjoint `g` of ``x[index]`` added, without the
    zeros ``unindex`` makes for the other items (an array `x` as written).

    >>> accumulate_at([np.ones(2), 1.0], 2.0, [np.zeros(2), 0.0], 1)
    [array([1., 1.]), 3.0]
    """
    if g is None:
        return a
    if type(a) is np.ndarray and type(x) is np.ndarray and a.shape == x.shape and \
            a.dtype == x.dtype and _is_basic_index(index):
        out = a.copy()  # a + zeros holding g at index, without the zeros
        out[index] = out[index] + np.asarray(g).astype(x.dtype, copy=False)
        return out
    if a is None or not isinstance(x, (tuple, list, dict)) or type(a) is not type(x):
        return accumulate(a, unindex(g, x, index))
    if isinstance(a, dict):
        out = dict(a)
        out.update({k: zeros_like(v) for k, v in x.items() if k not in a})
        out[index] = accumulate(out.get(index), g)
        return out
    items = list(a)
    items[index] = accumulate(items[index], g)
    return rebuild(a, items) if isinstance(a, tuple) else items


def accumulate_into(a, g, x, index):
    """`accumulate_at`, writing into the list `a` itself: for an adjoint
    list no other name holds (``staging/in_place.py`` proves it), which
    is then not copied at every step of a loop. Anything else as
    `accumulate_at`.

    >>> a = [0.0, 0.0]
    >>> accumulate_into(a, 2.0, [1.0, 1.0], 1) is a, a
    (True, [0.0, 2.0])
    """
    if type(a) is list and type(x) is list and g is not None:
        a[index] = accumulate(a[index], g)
        return a
    return accumulate_at(a, g, x, index)


def _is_basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (int, np.integer, slice, type(None), type(Ellipsis)))
               for i in items)


def inverse_permutation(axes):
    """The axes that undo `np.transpose(x, axes)`; None stays None."""
    if axes is None:
        return None
    return tuple(int(i) for i in np.argsort([a % len(axes) for a in axes]))


def conj_complex(g):
    """`g` with every complex entry conjugated; real values pass unchanged.

    Adjoints inside a derivative follow JAX's convention; a gradient that
    went through a non-holomorphic step (``np.real``, ``np.abs``, ...)
    conjugates its results once, with this, to return df/dRe z + i df/dIm z.
    Tuples, lists and dicts of adjoints are converted entry by entry.

    >>> conj_complex(np.array([1.0 + 2.0j]))
    array([1.-2.j])
    >>> conj_complex((1.5, {"w": 2j}))
    (1.5, {'w': -2j})
    """
    if type(g) is float or type(g) is _ndarray and g.dtype.kind != "c":
        return g  # the real case, decided by two type checks
    if isinstance(g, (tuple, list)):
        items = [conj_complex(v) for v in g]
        return type(g)(*items) if hasattr(g, "_fields") else type(g)(items)
    if isinstance(g, dict):
        return {k: conj_complex(v) for k, v in g.items()}
    if type(g) is complex:
        return g.conjugate()
    return np.conj(g) if np.iscomplexobj(g) else g


def abs_slope(x):
    """The derivative of ``abs`` at `x`, in the convention of adjoints
    inside a derivative (JAX's): ``sign(x)`` for a real `x`, ``conj(x) /
    abs(x)`` for a complex one; 0 at 0. A helper, not ``np.sign``, because
    ``np.sign`` has a zero derivative, which is wrong for complex `x`.

    >>> abs_slope(np.array([-2.0, 0.0, 3.0]))
    array([-1.,  0.,  1.])
    >>> complex(abs_slope(3.0 + 4.0j))
    (0.6-0.8j)
    """
    slope = np.sign(x)
    return np.conj(slope) if np.iscomplexobj(slope) else slope


def dsinc(x):
    """The slope of ``np.sinc`` at `x`: (cos(pi x) - sinc(x)) / x, 0 at 0.

    >>> dsinc(np.array([0.0, 0.5, 1.0]))
    array([ 0.        , -1.27323954, -1.        ])
    """
    safe = np.where(x == 0, 1.0, x)
    slope = (np.cos(np.pi * safe) - np.sinc(safe)) / safe
    return _like(np.where(x == 0, 0.0, slope), x)


def sigmoid(x):
    """The logistic function 1 / (1 + exp(-x)), the slope of
    ``np.logaddexp(a, x)`` at ``x - a``: exactly that for NumPy values
    (an exp(-x) that overflows gives 0, with no warning), from exp(-|x|),
    which never overflows, for other arrays.

    >>> sigmoid(np.array([-800.0, 0.0, 800.0]))
    array([0. , 0.5, 1. ])
    """
    if type(x) is np.ndarray or type(x) is float or isinstance(x, np.floating):
        # computed now: where exp(-x) overflows to inf the quotient is 0, the
        # limit, and each value is within a rounding of the exact one
        with np.errstate(over="ignore"):
            return 1.0 / (1.0 + np.exp(-x))
    small = np.exp(-np.abs(x))  # other arrays (Dask: lazy) warn of no overflow this way
    return np.where(x >= 0, 1.0, small) / (1.0 + small)


def digamma(x):
    """The digamma function psi = (log gamma)', in NumPy alone.

    The recurrence psi(x) = psi(x + 6) - sum 1/(x + k) moves `x` where
    the asymptotic series is accurate to about 1e-11; the reflection
    formula handles x < 1/2.

    >>> float(np.round(digamma(1.0), 10))  # minus the Euler-Mascheroni constant
    -0.5772156649

    When SciPy's special functions are loaded (the code differentiated
    called ``gammaln`` from there), a NumPy array or float goes to their
    ``psi``: a quarter of the time, and exact to a rounding.
    """
    special = sys.modules.get("scipy.special")
    if special is not None and (type(x) is float or isinstance(x, np.floating) or
                                type(x) is np.ndarray and x.dtype.kind == "f"):
        return _like(special.psi(x), x)
    z = as_array(x, np.float64)
    reflect = z < 0.5
    y = np.where(reflect, 1.0 - z, z)
    shift = sum(1.0 / (y + k) for k in range(6))
    y = y + 6.0
    inv2 = 1.0 / (y * y)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 * (1 / 132)))))
    psi = np.log(y) - 0.5 / y - series - shift
    psi = np.where(reflect, psi - np.pi / np.tan(np.pi * z), psi)
    return _like(psi if np.ndim(x) else psi[()], x)
