"""Runtime helpers of the reduction rules (templates/numpy_reductions.py):
max/min, var/std, cumulative sums, norms, median."""
import numpy as np

from tangent_ad.runtime.arrays import zeros_from
from tangent_ad.runtime.core import (
    _axes, _keep_dims, _like, unbroadcast, unreduce, unreduce_mean)

__all__ = ["unaverage", "unweights", "weights_like", "unreduce_max", "unreduce_var", "uncumsum", "grad_norm", "undiff", "unreduce_median",
           "unsum"]


def unreduce_max(g, extreme, x, axis=None, keepdims=False):
    """Route the adjoint `g` of a max (or min) `extreme` of `x` to the
    elements of `x` equal to it, shared equally between ties.

    >>> unreduce_max(1.0, 3.0, np.array([3.0, 1.0, 3.0]))
    array([0.5, 0. , 0.5])
    """
    hits = x == unreduce(extreme, x, axis, keepdims)
    share = hits / np.sum(hits, axis=axis, keepdims=True)
    return _like(unreduce(g, x, axis, keepdims) * share, x)


def weights_like(weights, a, axis=None):
    """The `weights` of ``np.average(a, axis, weights)`` with the axes of
    `a`: as they are when they have its shape, else their axes moved onto
    `axis` (an int or a tuple) and 1 elsewhere, which broadcasts.

    >>> weights_like(np.array([1.0, 2.0]), np.zeros((3, 2)), axis=1)
    array([[1., 2.]])
    """
    if np.shape(weights) == np.shape(a):
        return weights
    axes = _axes(axis, np.ndim(a))
    order = np.argsort(axes)
    shape = [1] * np.ndim(a)
    for k, ax in enumerate(axes):
        shape[ax] = np.shape(weights)[k]
    return np.reshape(np.transpose(weights, order), shape)


def unweights(s, weights, axis=None):
    """`s`, shaped like the averaged array, summed back to the shape of
    `weights`: the adjoint of weights_like (linear in `s`).

    >>> unweights(np.ones((3, 2)), np.zeros(2), axis=1)
    array([3., 3.])
    """
    if np.shape(s) == np.shape(weights):
        return _like(s, weights)
    axes = _axes(axis, np.ndim(s))
    others = tuple(i for i in range(np.ndim(s)) if i not in axes)
    total = np.sum(s, axis=others) if others else s
    return _like(np.transpose(total, np.argsort(np.argsort(axes))), weights)


def unaverage(g, a, axis=None, weights=None, keepdims=False):
    """Spread the adjoint `g` of ``np.average(a, axis, weights)`` over `a`:
    g * w / sum(w) (over `axis`), or the mean's g / n without weights.

    >>> unaverage(1.0, np.zeros(2), weights=np.array([1.0, 3.0]))
    array([0.25, 0.75])
    """
    if weights is None:
        return unreduce_mean(g, a, axis, keepdims)
    w = weights_like(weights, a, axis)
    total = np.sum(w, axis=axis, keepdims=keepdims)
    return _like(unreduce(g / total, a, axis, keepdims) * w, a)


def unreduce_var(g, x, axis=None, ddof=0, keepdims=False):
    """Spread the adjoint `g` of ``np.var(x, axis, ddof=ddof)`` over `x`:
    each element gets g * 2 (x - mean) / (n - ddof).

    The variance of complex entries is the real mean of |x - mean|^2:
    its slope is conjugated (JAX's convention inside a derivative, see
    conj_complex), and only the real part of `g` counts. Linear in `g`
    and in `x`, so the forward rules use it as the slope too.

    >>> unreduce_var(1.0, np.array([1.0, 3.0]))
    array([-1.,  1.])
    >>> complex(unreduce_var(1.0, np.array([1j, -1j]))[0])
    -1j
    """
    count = int(np.prod([np.shape(x)[a] for a in _axes(axis, np.ndim(x))]))
    centered = x - np.mean(x, axis=axis, keepdims=True)
    if np.iscomplexobj(centered):
        g, centered = np.real(g), np.conj(centered)
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


def grad_norm(g, norm, x, ord=None, axis=None, keepdims=False):
    """Adjoint of ``np.linalg.norm(x, ord, axis, keepdims)``.

    Vector norms: any ord (the max/min element for +-inf, shared among
    ties). Matrix norms: 'fro', 'nuc', 1, -1, inf, -inf (the extreme
    column or row sum) and 2, -2 (the extreme singular pair). For complex
    entries the slope is conjugated (JAX's convention, see conj_complex).

    >>> grad_norm(1.0, 5.0, np.array([3.0, 4.0]))
    array([0.6, 0.8])
    """
    axes = _axes(axis, np.ndim(x))
    if not keepdims:
        g, norm = _keep_dims(g, np.shape(x), axes), _keep_dims(norm, np.shape(x), axes)
    if ord is None or ord == "fro" or (ord == 2 and len(axes) == 1):
        slope = x / norm
    elif len(axes) == 1:
        slope = _vector_norm_slope(x, norm, ord, axes[0])
    else:
        slope = _matrix_norm_slope(x, ord, axes)
    if np.iscomplexobj(slope):
        slope = np.conj(slope)
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


def undiff(g, n=1, axis=-1):
    """Adjoint of ``np.diff(x, n, axis)``: minus the difference of `g`
    padded with a zero at both ends, `n` times.

    >>> undiff(np.array([1.0, 2.0]), n=1)
    array([-1., -1.,  2.])
    """
    zero = zeros_from(g, ())
    for _ in range(n):
        g = -np.diff(g, axis=axis, prepend=zero, append=zero)
    return g


def unreduce_median(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.median(x, axis)``: `g` to the middle element, or
    half of it to each of the two middle elements of an even count.

    >>> unreduce_median(1.0, np.array([4.0, 1.0, 3.0, 2.0]))
    array([0. , 0. , 0.5, 0.5])
    """
    axes = _axes(axis, np.ndim(x))
    flat = axis is None or len(axes) == np.ndim(x)
    ends = tuple(range(-len(axes), 0))  # a tuple of axes: moved to the end, then merged
    moved = np.moveaxis(x, axes, ends)
    values = np.ravel(x) if flat else np.reshape(moved, np.shape(moved)[:-len(axes)] + (-1,))
    n = np.shape(values)[-1]
    order = np.argsort(values, axis=-1)
    g = unreduce(g, x, axis, keepdims)
    g = np.ravel(g)[:1] if flat else np.reshape(np.moveaxis(g, axes, ends),
                                                np.shape(values)[:-1] + (-1,))[..., :1]
    out = zeros_from(g, np.shape(values))
    for k in {(n - 1) // 2, n // 2}:
        np.put_along_axis(out, order[..., k:k + 1],
                          np.take_along_axis(out, order[..., k:k + 1], -1)
                          + g / (2 if n % 2 == 0 else 1), -1)
    out = np.reshape(out, np.shape(x)) if flat else \
        np.moveaxis(np.reshape(out, np.shape(moved)), ends, axes)
    return _like(out, x)


def unsum(g, items):
    """The adjoint of ``sum(items)`` (the builtin): `g` for each item,
    reduced to the item's shape, in a list or tuple like `items`; for an
    array, `g` spread over its rows. The items of a list may differ in
    shape (``sum([x, 1.0])``), so a list is not read as one array.

    >>> unsum(np.array([1.0, 2.0]), [np.zeros(2), 1.0])
    [array([1., 2.]), 3.0]
    """
    if isinstance(items, (list, tuple)):
        return type(items)(unbroadcast(g, item) for item in items)
    return unreduce(g, items, 0)
