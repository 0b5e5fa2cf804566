"""Runtime helpers of the shape rules (templates/numpy_shape.py): each
``unX`` undoes the data movement of ``np.X`` for the adjoint."""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.arrays import scatter_add, size_of, zeros_from
from tangent_ad.runtime.boundary import cast_like
from tangent_ad.runtime.core import _like

__all__ = ["r_concat", "c_concat", "unatleast", "unblock_diag", "unconcatenate", "unstack", "untile", "unrepeat", "unpad", "undiagonal", "undiag", "untake", "untake_along_axis", "unarray", "unsort", "unrollaxis", "unslide", "linspace_fraction"]


def r_concat(items):
    """``np.r_[items]``, as a function (tangent_ad.frontend.numpy_forms
    rewrites ``np.r_[a, b]`` into ``r_concat((a, b))``): numbers and
    arrays joined along the first axis, numbers as 1-d arrays.

    >>> r_concat((np.array([1.0, 2.0]), 3.0))
    array([1., 2., 3.])
    """
    return np.r_[tuple(items)]


def c_concat(items):
    """``np.c_[items]``, as a function: arrays joined along the last axis,
    1-d arrays as columns (``np.column_stack`` for 1-d arrays).

    >>> c_concat((np.array([1.0, 2.0]), np.array([3.0, 4.0])))
    array([[1., 3.],
           [2., 4.]])
    """
    return np.c_[tuple(items)]


def unconcatenate(g, arrays, axis=0):
    """Adjoint of a concatenation of `arrays` along `axis` (also of
    ``vstack``, ``hstack``, ``dstack`` and ``column_stack``, which first
    promote their inputs): `g` cut into one piece per array, each piece
    in its array's shape.

    >>> unconcatenate(np.arange(5.0), (np.zeros(2), np.zeros(3)))
    [array([0., 1.]), array([2., 3., 4.])]
    """
    if type(g) is np.ndarray and axis is not None and g.ndim and all(
            type(a) is np.ndarray and a.ndim == g.ndim and a.dtype == g.dtype for a in arrays):
        return _pieces(g, arrays, axis)  # arrays of g's rank and dtype: slices of g
    if np.ndim(g) == 0:  # a gradient's seed, 1.0, for a result of one element
        g = np.full(np.shape(np.concatenate([np.zeros(np.shape(a)) for a in arrays], axis)), g)
    axis = 0 if axis is None else axis  # axis=None concatenates flattened arrays
    across = max(size_of(g) // max(np.shape(g)[axis], 1), 1)
    ends = np.cumsum([size_of(a) // across for a in arrays])[:-1]
    return [_like(np.reshape(piece, np.shape(a)), a)
            for piece, a in zip(np.split(g, ends, axis), arrays)]


def _pieces(g, arrays, axis):
    """`g` sliced along `axis` into pieces as long as `arrays` are there."""
    index, start, pieces = [slice(None)] * g.ndim, 0, []
    for a in arrays:
        stop = start + a.shape[axis]
        index[axis] = slice(start, stop)
        pieces.append(g[tuple(index)])
        start = stop
    return pieces


def unstack(g, arrays, axis=0):
    """Adjoint of ``np.stack(arrays, axis)``: the slices of `g` along `axis`.

    >>> unstack(np.array([[1.0, 2.0], [3.0, 4.0]]), (np.zeros(2), np.zeros(2)), axis=1)
    [array([1., 3.]), array([2., 4.])]
    """
    if np.ndim(g) == 0:  # a gradient's seed, 1.0, for a result of one element
        g = np.full(np.shape(np.stack([np.zeros(np.shape(a)) for a in arrays], axis)), g)
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
    total = zeros_from(runs, (n,) + np.shape(runs)[1:])
    total = scatter_add(total, np.repeat(np.arange(n), repeats), runs)
    return _like(np.reshape(np.moveaxis(total, 0, axis), np.shape(x)), x)


def unpad(g, pad_width, mode="constant"):
    """Adjoint of ``np.pad(x, pad_width, mode)``: `g` without the padding
    in mode 'constant'; in the modes that copy entries of `x` ('edge',
    'reflect', 'symmetric', 'wrap') each copy's adjoint is also added back
    to the entry it copies, axis by axis in the reverse of np.pad's order.

    >>> unpad(np.arange(6.0), (1, 2))
    array([1., 2., 3.])
    >>> unpad(np.array([1.0, 2.0, 3.0, 4.0]), (1, 1), "edge")
    array([3., 7.])
    """
    width = np.broadcast_to(np.asarray(pad_width), (np.ndim(g), 2))
    if mode == "constant":
        return g[tuple(slice(int(before), n - int(after))
                       for (before, after), n in zip(width, np.shape(g)))]
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NoDerivativeError(
            f"tangent_ad differentiates np.pad in modes 'constant', 'edge', "
            f"'reflect', 'symmetric' and 'wrap', not {mode!r}")
    for axis in reversed(range(np.ndim(g))):
        before, after = (int(w) for w in width[axis])
        if before or after:
            g = _fold_padding(g, axis, before, after, mode)
    return g


def _fold_padding(g, axis, before, after, mode):
    """The adjoint of padding one axis: np.pad of the indices 0..n-1 says
    which entry each padded position copies; add `g` there."""
    n = np.shape(g)[axis] - before - after
    source = np.pad(np.arange(n), (before, after), mode)
    moved = np.moveaxis(g, axis, -1)
    out = zeros_from(moved, np.shape(moved)[:-1] + (n,))
    out = scatter_add(out, (..., source), moved)
    return np.moveaxis(out, -1, axis)


def undiagonal(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal(x, offset, axis1, axis2)``: zeros shaped
    like `x` with `g` (or anything that broadcasts to the diagonal, such
    as the adjoint of a trace with an axis added) on the diagonal.

    >>> undiagonal(np.array([1.0, 2.0]), np.zeros((2, 3)), offset=1)
    array([[0., 1., 0.],
           [0., 0., 2.]])
    """
    out = zeros_from(g, np.shape(x))
    n = np.shape(np.diagonal(out, offset, axis1, axis2))[-1]
    i = np.arange(n)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    moved = scatter_add(np.moveaxis(out, (axis1, axis2), (-2, -1)), (..., rows, cols), g)
    return _like(np.moveaxis(moved, (-2, -1), (axis1, axis2)), x)


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
    n = size_of(a) if axis is None else np.shape(a)[axis]
    indices = indices if hasattr(indices, "shape") else np.asarray(indices)
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    out = zeros_from(g, (size_of(a),) if axis is None else np.shape(a))
    where = indices if axis is None else (slice(None),) * (axis % np.ndim(a)) + (indices,)
    out = scatter_add(out, where, g)
    return _like(np.reshape(out, np.shape(a)), a)


def untake_along_axis(g, arr, indices, axis=-1):
    """Adjoint of ``np.take_along_axis(arr, indices, axis)`` (and of a
    sort, with the sorting indices): `g` added where it was taken from.

    >>> untake_along_axis(np.array([[1.0, 2.0]]), np.zeros((1, 3)), np.array([[2, 0]]), 1)
    array([[2., 0., 1.]])
    """
    if axis is None:
        return untake(np.ravel(g), arr, np.ravel(indices))
    out = zeros_from(g, np.shape(arr))
    where = list(np.indices(np.shape(g), sparse=True))
    where[axis] = indices
    out = scatter_add(out, tuple(where), g)
    return _like(out, arr)


def unarray(g, x, value):
    """Adjoint of ``value = np.array(x)`` (or ``np.asarray``, ``np.astype``):
    `g` in the form of `x`, a list for each (nested) list or tuple; zero
    when `value` has an integer or boolean dtype, which cannot vary.

    >>> g = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> unarray(g, ([0.0, 0.0], np.zeros(2)), g)
    [[1.0, 2.0], array([3., 4.])]
    >>> unarray(np.ones(2), np.ones(2), np.ones(2, dtype=int))
    array([0., 0.])
    """
    if not np.issubdtype(np.result_type(value), np.inexact):
        g = np.zeros(np.shape(value))
    if isinstance(x, (list, tuple)):
        return [unarray(piece, item, piece) for piece, item in zip(g, x)]
    return cast_like(np.reshape(g, np.shape(x)), x)


def unsort(g, x, ordered, axis=-1):
    """Adjoint of a reordering of `x` along `axis` (``np.sort``,
    ``np.partition``): the k-th smallest element of `x` gets the adjoint
    of the k-th smallest element of `ordered`.

    >>> unsort(np.array([10.0, 20.0, 30.0]), np.array([3.0, 1.0, 2.0]),
    ...        np.array([1.0, 2.0, 3.0]))
    array([30., 10., 20.])
    """
    ranked = np.take_along_axis(np.ravel(g) if axis is None else g,
                                np.argsort(ordered, axis=axis), axis=axis)
    return untake_along_axis(ranked, x, np.argsort(x, axis=axis), axis)


def unrollaxis(g, x, axis, start=0):
    """Adjoint of ``np.rollaxis(x, axis, start)``: the axes put back.

    >>> unrollaxis(np.zeros((4, 2, 3)), np.zeros((2, 3, 4)), 2).shape
    (2, 3, 4)
    """
    n = np.ndim(x)
    axis, start = axis % n, start + n if start < 0 else start
    order = list(range(n))
    order.insert(start - 1 if axis < start else start, order.pop(axis))
    return np.transpose(g, tuple(int(i) for i in np.argsort(order)))


def unslide(g, x, window_shape, axis=None):
    """Adjoint of ``sliding_window_view(x, window_shape, axis)``: each
    window's entries added back where they were read, one slice of `x` per
    offset inside the window.

    >>> unslide(np.ones((2, 3)), np.zeros(4), 3)
    array([1., 2., 2., 1.])
    """
    shape = np.shape(x)
    windows = tuple(np.atleast_1d(window_shape).tolist())
    axes = tuple(range(len(shape))) if axis is None else tuple(np.atleast_1d(axis).tolist())
    axes = tuple(a % len(shape) for a in axes)
    lengths = list(shape)
    for a, w in zip(axes, windows):
        lengths[a] -= w - 1
    out = np.zeros_like(x)  # (in x's own array library: no np.asarray here)
    for offset in np.ndindex(*windows):
        start = [0] * len(shape)
        for a, step in zip(axes, offset):
            start[a] += step
        out[tuple(slice(s, s + n) for s, n in zip(start, lengths))] += g[(Ellipsis,) + offset]
    return out


def linspace_fraction(samples, num, endpoint=True, axis=0):
    """Where each sample of ``np.linspace(start, stop, num, endpoint,
    axis=axis)`` lies between start (0) and stop (1), shaped to broadcast
    against the `samples` (the result of linspace).

    >>> linspace_fraction(np.zeros((3, 2)), 3, axis=0)
    array([[0. ],
           [0.5],
           [1. ]])
    """
    t = np.linspace(0.0, 1.0, num, endpoint)
    shape = [1] * np.ndim(samples)
    shape[axis] = num
    return np.reshape(t, shape)


def unatleast(g, arys):
    """Adjoints of the arrays in ``np.atleast_Nd(*arys)``: each reshaped
    back; one array gives one adjoint, several a list (as the result).

    >>> unatleast(np.ones((1, 2)), (np.zeros(2),))
    (array([1., 1.]),)
    """
    if len(arys) == 1:
        return (_like(np.reshape(g, np.shape(arys[0])), arys[0]),)
    return tuple(_like(np.reshape(gi, np.shape(a)), a) for gi, a in zip(g, arys))


def unblock_diag(g, arrs):
    """Adjoints of the arrays in ``scipy.linalg.block_diag(*arrs)``: each
    its block of `g` (a 1-D array is a block of one row, a number one of
    one element), reshaped back.

    >>> unblock_diag(np.arange(9.0).reshape(3, 3), (np.zeros((1, 1)), np.zeros(2)))
    (array([[0.]]), array([4., 5.]))
    """
    out, row, col = [], 0, 0
    for a in arrs:
        rows, cols = np.shape(np.atleast_2d(a))
        out.append(_like(np.reshape(g[row:row + rows, col:col + cols], np.shape(a)), a))
        row, col = row + rows, col + cols
    return tuple(out)
