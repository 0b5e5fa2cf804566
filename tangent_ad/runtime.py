"""The few helpers that generated derivative code calls.

Generated functions, and the files the command line writes, import these
and nothing else from tangent_ad, so this module depends on NumPy only. Each
helper does one small piece of bookkeeping a reader can look up here:
undoing broadcasting, spreading a reduction's adjoint back over the reduced
axes, and the adjoints of matrix products for operands of any rank.
"""
import numpy as np

from tangent_ad.errors import NonScalarOutputError

__all__ = [
    "ensure_scalar", "unbroadcast", "unreduce", "unreduce_mean", "zeros_like", "inverse_permutation",
    "grad_matmul_lhs", "grad_matmul_rhs",
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


def zeros_like(x):
    """A zero adjoint for `x`: 0.0 for a Python number, else zeros of its
    shape and dtype."""
    if isinstance(x, (float, int)):
        return 0.0
    return np.zeros_like(x)


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
