"""The few helpers that generated derivative code calls.

Generated functions, and the files the command line writes, import these
and nothing else from tangent_ad, so this module depends on NumPy only. Each
helper does one small piece of bookkeeping a reader can look up here:
undoing broadcasting, spreading a reduction's adjoint back over the reduced
axes, and the adjoints of matrix products for operands of any rank.
"""
import numpy as np

from tangent_ad.errors import NonScalarOutputError
from tangent_ad.structures import (
    accumulate, appended, unindex_container, updated, zeroed, zeros_like)

__all__ = [
    "accumulate", "appended", "updated", "zeroed", "ensure_scalar", "unbroadcast", "unindex", "unreduce", "unreduce_mean",
    "zeros_like", "inverse_permutation", "grad_matmul_lhs", "grad_matmul_rhs",
]


def ensure_scalar(value):
    """Raise NonScalarOutputError unless `value` is a scalar (size 1).

    A gradient is defined for scalar outputs only; seeding a larger output
    with 1.0 would silently differentiate its sum.
    """
    if np.size(value) != 1:
        raise NonScalarOutputError(
            f"grad needs a function with a scalar output, but it returned a "
            f"value of shape {np.shape(value)}")


def _like(g, x):
    """Return `g` as a value of `x`'s kind: a Python float for a Python
    number, otherwise an array (or NumPy scalar) of `x`'s dtype."""
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        return float(g) if np.ndim(g) == 0 else g
    dtype = getattr(x, "dtype", None)
    if dtype is not None and getattr(g, "dtype", dtype) != dtype and \
            np.issubdtype(dtype, np.inexact):
        return np.asarray(g).astype(dtype, copy=False).reshape(np.shape(x))
    return g


def unbroadcast(g, x):
    """Sum the adjoint `g` over the axes along which `x` was broadcast.

    >>> unbroadcast(np.ones((3, 2)), np.zeros((1, 2)))
    array([[3., 3.]])
    """
    shape = np.shape(x)
    gshape = np.shape(g)
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape)
            if n == 1 and gshape[lead + i] != 1)
        g = np.reshape(np.sum(g, axis=axes), shape)
    return _like(g, x)


def unreduce(g, x, axis=None, keepdims=False):
    """Spread the adjoint `g` of a reduction of `x` back to `x`'s shape.

    >>> unreduce(np.array([1., 2.]), np.zeros((2, 3)), axis=1)
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    shape = np.shape(x)
    if axis is not None and not keepdims:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        g = np.expand_dims(g, tuple(a % len(shape) for a in axes))
    return _like(np.broadcast_to(g, shape), x)


def unreduce_mean(g, x, axis=None, keepdims=False):
    """Spread the adjoint `g` of a mean of `x` back over `x`'s shape.

    >>> unreduce_mean(6.0, np.zeros(3))
    array([2., 2., 2.])
    """
    count = np.size(x) // max(np.size(g), 1) if axis is not None else np.size(x)
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
    else:
        np.add.at(z, index, g)
    return z


def _is_basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (int, np.integer, slice, type(None), type(Ellipsis)))
               for i in items)


def inverse_permutation(axes):
    """The axes that undo `np.transpose(x, axes)`; None stays None."""
    if axes is None:
        return None
    return tuple(int(i) for i in np.argsort([a % len(axes) for a in axes]))


def _matmul_operands(g, a, b):
    """Promote 1-D operands (and `g` with them) to matrices, as `@` does."""
    a2 = a[None, :] if np.ndim(a) == 1 else a
    b2 = b[:, None] if np.ndim(b) == 1 else b
    if np.ndim(b) == 1:
        g = np.expand_dims(g, -1)
    if np.ndim(a) == 1:
        g = np.expand_dims(g, -2)
    return g, a2, b2


def grad_matmul_lhs(g, a, b):
    """Adjoint of `a` in `a @ b` (for matrices: `g @ b.T`), any ranks."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    g2, _, b2 = _matmul_operands(g, a, b)
    ga = np.matmul(g2, np.swapaxes(b2, -1, -2))
    if np.ndim(a) == 1:
        ga = ga[..., 0, :]
    return unbroadcast(ga, a)


def grad_matmul_rhs(g, a, b):
    """Adjoint of `b` in `a @ b` (for matrices: `a.T @ g`), any ranks."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    g2, a2, _ = _matmul_operands(g, a, b)
    gb = np.matmul(np.swapaxes(a2, -1, -2), g2)
    if np.ndim(b) == 1:
        gb = gb[..., 0]
    return unbroadcast(gb, b)


# ---- helpers of the NumPy rules (templates/numpy_*.py) ----------------------

def cast_like(g, x):
    """`g` as an adjoint of `x`: a float for a Python float, else `x`'s dtype.

    A real adjoint of a complex `x` becomes complex; a complex adjoint of
    a real `x` keeps its real part (the imaginary part has no direction
    in which `x` can move).

    >>> cast_like(np.array([1.5 + 2j]), np.zeros(1))
    array([1.5])
    >>> cast_like(np.ones(2, np.float32), np.zeros(2, np.complex64)).dtype
    dtype('complex64')
    """
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        g = np.real(g)
    return _like(g, x)


def dsinc(x):
    """The slope of ``np.sinc`` at `x`: (cos(pi x) - sinc(x)) / x, 0 at 0.

    >>> dsinc(np.array([0.0, 0.5, 1.0]))
    array([ 0.        , -1.27323954, -1.        ])
    """
    safe = np.where(x == 0, 1.0, x)
    slope = (np.cos(np.pi * safe) - np.sinc(safe)) / safe
    return _like(np.where(x == 0, 0.0, slope), x)


def digamma(x):
    """The digamma function psi = (log gamma)', in NumPy alone.

    The recurrence psi(x) = psi(x + 6) - sum 1/(x + k) moves `x` where
    the asymptotic series is accurate to about 1e-11; the reflection
    formula handles x < 1/2.

    >>> float(np.round(digamma(1.0), 10))  # minus the Euler-Mascheroni constant
    -0.5772156649
    """
    z = np.asarray(x, dtype=np.float64)
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


def _axes(axis, ndim):
    """`axis` (None, an int or a tuple) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if np.ndim(axis) == 0 else axis))


def unreduce_max(g, result, x, axis=None, keepdims=False):
    """Route the adjoint `g` of a max (or min) `result` of `x` to the
    elements of `x` equal to it, shared equally between ties.

    >>> unreduce_max(1.0, 3.0, np.array([3.0, 1.0, 3.0]))
    array([0.5, 0. , 0.5])
    """
    hits = x == unreduce(result, x, axis, keepdims)
    share = hits / np.sum(hits, axis=axis, keepdims=True)
    return _like(unreduce(g, x, axis, keepdims) * share, x)


def unreduce_var(g, x, axis=None, ddof=0, keepdims=False):
    """Spread the adjoint `g` of ``np.var(x, axis, ddof=ddof)`` over `x`:
    each element gets g * 2 (x - mean) / (n - ddof).

    >>> unreduce_var(1.0, np.array([1.0, 3.0]))
    array([-1.,  1.])
    """
    count = int(np.prod([np.shape(x)[a] for a in _axes(axis, np.ndim(x))]))
    centered = x - np.mean(x, axis=axis, keepdims=True)
    return _like(unreduce(g, x, axis, keepdims) * 2.0 * centered / (count - ddof), x)


def uncumsum(g, x, axis=None):
    """Adjoint of ``np.cumsum(x, axis)``: `g` summed from the end.

    >>> uncumsum(np.array([1.0, 2.0, 3.0]), np.zeros(3))
    array([6., 5., 3.])
    """
    if axis is None:
        g, axis = np.ravel(g), 0
    total = np.flip(np.cumsum(np.flip(g, axis), axis), axis)
    return _like(np.reshape(total, np.shape(x)), x)


def grad_norm(g, result, x, ord=None, axis=None, keepdims=False):
    """Adjoint of ``np.linalg.norm(x, ord, axis, keepdims)``.

    Vector norms: any ord (the max/min element for +-inf, shared among
    ties). Matrix norms: 'fro', 'nuc', 1, -1, inf, -inf (the extreme
    column or row sum) and 2, -2 (the extreme singular pair).

    >>> grad_norm(1.0, 5.0, np.array([3.0, 4.0]))
    array([0.6, 0.8])
    """
    axes = _axes(axis, np.ndim(x))
    if not keepdims:
        g, result = np.expand_dims(g, axes), np.expand_dims(result, axes)
    if ord is None or ord == "fro" or (ord == 2 and len(axes) == 1):
        slope = x / result
    elif len(axes) == 1:
        slope = _vector_norm_slope(x, result, ord, axes[0])
    else:
        slope = _matrix_norm_slope(x, ord, axes)
    return _like(g * slope, x)


def _share_of_extreme(values, extreme, axis):
    hits = values == extreme
    return hits / np.sum(hits, axis=axis, keepdims=True)


def _vector_norm_slope(x, result, ord, axis):
    if ord == 0:
        return np.zeros_like(x)
    if np.isinf(ord):
        return np.sign(x) * _share_of_extreme(np.abs(x), result, axis)
    return np.sign(x) * (np.abs(x) / result) ** (ord - 1)


def _matrix_norm_slope(x, ord, axes):
    y = np.moveaxis(x, axes, (-2, -1))
    if ord in (1, -1, np.inf, -np.inf):
        along = -2 if ord in (1, -1) else -1  # column sums for 1, row sums for inf
        sums = np.sum(np.abs(y), axis=along, keepdims=True)
        pick = np.max if ord > 0 else np.min
        extreme = pick(sums, axis=-1 if along == -2 else -2, keepdims=True)
        slope = np.sign(y) * _share_of_extreme(sums, extreme, -1 if along == -2 else -2)
    else:
        u, _, vh = np.linalg.svd(y, full_matrices=False)
        if ord == "nuc":
            slope = np.matmul(u, vh)
        else:
            k = 0 if ord == 2 else -1  # the largest or the smallest singular value
            slope = u[..., :, k:k + 1 or None] * vh[..., k:k + 1 or None, :]
    return np.moveaxis(slope, (-2, -1), axes)


def unconcatenate(g, arrays, axis=0):
    """Adjoint of a concatenation of `arrays` along `axis` (also of
    ``vstack``, ``hstack``, ``dstack`` and ``column_stack``, which first
    promote their inputs): `g` cut into one piece per array, each piece
    in its array's shape.

    >>> unconcatenate(np.arange(5.0), (np.zeros(2), np.zeros(3)))
    [array([0., 1.]), array([2., 3., 4.])]
    """
    across = max(np.size(g) // max(np.shape(g)[axis], 1), 1)
    ends = np.cumsum([np.size(a) // across for a in arrays])[:-1]
    return [_like(np.reshape(piece, np.shape(a)), a)
            for piece, a in zip(np.split(g, ends, axis), arrays)]


def unstack(g, arrays, axis=0):
    """Adjoint of ``np.stack(arrays, axis)``: the slices of `g` along `axis`.

    >>> unstack(np.array([[1.0, 2.0], [3.0, 4.0]]), (np.zeros(2), np.zeros(2)), axis=1)
    [array([1., 3.]), array([2., 4.])]
    """
    return [_like(np.take(g, i, axis), a) for i, a in enumerate(arrays)]


def untile(g, x, reps):
    """Adjoint of ``np.tile(x, reps)``: the sum of the tiles of `g`.

    >>> untile(np.arange(6.0), np.zeros(2), 3)
    array([6., 9.])
    """
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    n = max(np.ndim(x), len(reps))
    shape = (1,) * (n - np.ndim(x)) + np.shape(x)
    reps = (1,) * (n - len(reps)) + reps
    blocks = np.reshape(g, [k for pair in zip(reps, shape) for k in pair])
    return _like(np.reshape(np.sum(blocks, axis=tuple(range(0, 2 * n, 2))),
                            np.shape(x)), x)


def unrepeat(g, x, repeats, axis=None):
    """Adjoint of ``np.repeat(x, repeats, axis)``: each run of copies summed.

    >>> unrepeat(np.arange(5.0), np.zeros(3), (2, 0, 3))
    array([1., 0., 9.])
    """
    source = np.ravel(x) if axis is None else x
    axis = 0 if axis is None else axis % np.ndim(x)
    n = np.shape(source)[axis]
    runs = np.moveaxis(g, axis, 0)
    total = np.zeros((n,) + np.shape(runs)[1:], dtype=np.result_type(g))
    np.add.at(total, np.repeat(np.arange(n), repeats), runs)
    return _like(np.reshape(np.moveaxis(total, 0, axis), np.shape(x)), x)


def unpad(g, pad_width, mode="constant"):
    """Adjoint of ``np.pad(x, pad_width)`` in constant mode: `g` without
    the padding.

    >>> unpad(np.arange(6.0), (1, 2))
    array([1., 2., 3.])
    """
    if mode != "constant":
        raise NotImplementedError(
            f"tangent_ad differentiates np.pad only in mode='constant', not {mode!r}")
    width = np.broadcast_to(np.asarray(pad_width), (np.ndim(g), 2))
    return g[tuple(slice(int(before), n - int(after))
                   for (before, after), n in zip(width, np.shape(g)))]


def undiagonal(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal(x, offset, axis1, axis2)``: zeros shaped
    like `x` with `g` (or anything that broadcasts to the diagonal, such
    as the adjoint of a trace with an axis added) on the diagonal.

    >>> undiagonal(np.array([1.0, 2.0]), np.zeros((2, 3)), offset=1)
    array([[0., 1., 0.],
           [0., 0., 2.]])
    """
    out = np.zeros(np.shape(x), dtype=np.result_type(g))
    n = np.shape(np.diagonal(out, offset, axis1, axis2))[-1]
    i = np.arange(n)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    np.moveaxis(out, (axis1, axis2), (-2, -1))[..., rows, cols] = g
    return _like(out, x)


def undiag(g, v, k=0):
    """Adjoint of ``np.diag(v, k)``: the k-th diagonal of `g` for a vector
    `v`, `g` placed on that diagonal for a matrix `v`.

    >>> undiag(np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros(2))
    array([1., 4.])
    """
    if np.ndim(v) == 1:
        return _like(np.diagonal(g, k), v)
    return undiagonal(g, v, k)


def untake(g, a, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take(a, indices, axis, mode=mode)``: `g` added at
    the indices it was taken from (repeated indices accumulate).

    >>> untake(np.array([1.0, 2.0, 3.0]), np.zeros(3), (0, 2, 2))
    array([1., 0., 5.])
    """
    n = np.size(a) if axis is None else np.shape(a)[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    out = np.zeros(np.size(a) if axis is None else np.shape(a), dtype=np.result_type(g))
    where = indices if axis is None else (slice(None),) * (axis % np.ndim(a)) + (indices,)
    np.add.at(out, where, g)
    return _like(np.reshape(out, np.shape(a)), a)


def untake_along_axis(g, arr, indices, axis=-1):
    """Adjoint of ``np.take_along_axis(arr, indices, axis)`` (and of a
    sort, with the sorting indices): `g` added where it was taken from.

    >>> untake_along_axis(np.array([[1.0, 2.0]]), np.zeros((1, 3)), np.array([[2, 0]]), 1)
    array([[2., 0., 1.]])
    """
    if axis is None:
        return untake(np.ravel(g), arr, np.ravel(indices))
    out = np.zeros(np.shape(arr), dtype=np.result_type(g))
    where = list(np.indices(np.shape(g), sparse=True))
    where[axis] = indices
    np.add.at(out, tuple(where), g)
    return _like(out, arr)


def _tensordot_axes(a, b, axes):
    """The contracted axes of a and b in np.tensordot(a, b, axes), as two
    tuples of non-negative axes (none when either operand is a scalar)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return (), ()
    if np.ndim(axes) == 0:
        return tuple(range(na - axes, na)), tuple(range(axes))
    a_axes, b_axes = axes
    return _axes(a_axes, na), _axes(b_axes, nb)


def grad_tensordot_lhs(g, a, b, axes=2):
    """Adjoint of `a` in ``np.tensordot(a, b, axes)``: `g` contracted with
    `b` over `b`'s free axes, then `a`'s axes put back in order.

    >>> grad_tensordot_lhs(np.ones((2, 4)), np.zeros((2, 3)), np.ones((3, 4)), 1)
    array([[4., 4., 4.],
           [4., 4., 4.]])
    """
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    a_free = [i for i in range(np.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(np.ndim(b)) if i not in b_axes]
    ga = np.tensordot(g, _conj(b), axes=(list(range(len(a_free), np.ndim(g))), b_free))
    order = a_free + [a_axes[b_axes.index(i)] for i in sorted(b_axes)]
    return _like(np.transpose(ga, np.argsort(order)), a)


def grad_tensordot_rhs(g, a, b, axes=2):
    """Adjoint of `b` in ``np.tensordot(a, b, axes)``.

    >>> grad_tensordot_rhs(np.ones((2, 4)), np.ones((2, 3)), np.zeros((3, 4)), 1)
    array([[2., 2., 2., 2.],
           [2., 2., 2., 2.],
           [2., 2., 2., 2.]])
    """
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    a_free = [i for i in range(np.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(np.ndim(b)) if i not in b_axes]
    gb = np.tensordot(_conj(a), g, axes=(a_free, list(range(len(a_free)))))
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + b_free
    return _like(np.transpose(gb, np.argsort(order)), b)


def _dot_axes(a, b):
    """np.dot contracts the last axis of a with the second-to-last of b."""
    return (-1,), (-2 if np.ndim(b) > 1 else -1,)


def grad_dot_lhs(g, a, b):
    """Adjoint of `a` in ``np.dot(a, b)``, for operands of any rank.

    >>> grad_dot_lhs(1.0, np.zeros(2), np.array([3.0, 4.0]))
    array([3., 4.])
    """
    return grad_tensordot_lhs(g, a, b, _dot_axes(a, b))


def grad_dot_rhs(g, a, b):
    """Adjoint of `b` in ``np.dot(a, b)``, for operands of any rank.

    >>> grad_dot_rhs(np.ones(2), np.eye(2), np.zeros(2))
    array([1., 1.])
    """
    return grad_tensordot_rhs(g, a, b, _dot_axes(a, b))


def _conj(x):
    """The complex conjugate of a complex `x`; a real `x` itself."""
    return np.conj(x) if np.iscomplexobj(x) else x
