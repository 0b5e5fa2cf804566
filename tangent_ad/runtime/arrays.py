"""Allocation and scatter that follow the arrays they are given.

NumPy's dispatch protocols (``__array_function__``, ``__array_ufunc__``)
send ``np.sum(x)`` on a Dask or CuPy array to that library, so the
helpers stay in the operands' library as long as they call NumPy
*functions* on the operands. What breaks that is a fresh NumPy array:
``np.zeros(shape)``, ``np.asarray(x)``. The helpers here allocate from an
operand instead (``np.zeros_like(g, shape=...)`` dispatches on `g`), and
scatter-add in a way each library supports.
"""
import numpy as np

__all__ = ["zeros_from", "scatter_add", "is_foreign_array", "as_array", "size_of"]

_ndarray = np.ndarray


def is_foreign_array(x):
    """Whether `x` is an array of another library that NumPy dispatches to
    (a Dask or CuPy array, not a NumPy one)."""
    return type(x) is not _ndarray and not isinstance(x, np.generic) and \
        hasattr(x, "__array_function__") and hasattr(x, "shape")


def size_of(x):
    """The number of entries of `x` (``x.size``, or ``np.size(x)`` for a
    number or a list): Dask implements the attribute, not ``np.size``.

    >>> size_of(np.zeros((2, 3))), size_of(1.5)
    (6, 1)
    """
    size = getattr(x, "size", None)
    return size if type(size) is int else int(np.size(x))


def zeros_from(like, shape, dtype=None):
    """Zeros of `shape` in `like`'s library, of `like`'s dtype unless
    `dtype` is given (float64 for a Python number).

    >>> zeros_from(np.ones(2, np.float32), (2, 3)).dtype
    dtype('float32')
    >>> zeros_from(1.5, (2,))
    array([0., 0.])
    """
    if not hasattr(like, "dtype"):
        return np.zeros(shape, dtype or np.result_type(like))
    return np.zeros_like(like, dtype=dtype, shape=shape)


def scatter_add(out, where, values):
    """``out[where] += values`` with repeated indices adding up (NumPy's
    ``np.add.at``); returns the result, which is `out` itself for NumPy
    and CuPy arrays. A library without ``ufunc.at`` (Dask) gets the sum
    by ``np.bincount`` of the flattened positions, which it implements.

    >>> scatter_add(np.zeros(3), ([0, 2, 2],), np.ones(3))
    array([1., 0., 2.])
    """
    if type(out) is _ndarray:
        np.add.at(out, where, values)
        return out
    try:
        np.add.at(out, where, values)
        return out
    except (NotImplementedError, TypeError, AttributeError, ValueError):
        pass
    positions = np.arange(int(np.prod(np.shape(out), dtype=int))).reshape(np.shape(out))
    taken = positions[where]
    values = np.broadcast_to(values, np.shape(taken)) if np.shape(values) != np.shape(taken) \
        else values
    weights = np.ravel(values)
    index = np.asarray(np.ravel(taken), like=weights)
    if hasattr(weights, "rechunk"):  # Dask pairs the blocks of index and weights
        index = index.rechunk(weights.chunks)
    size = np.size(positions)
    if weights.dtype.kind == "c":  # bincount sums real weights
        added = np.bincount(index, weights=np.real(weights), minlength=size) + \
            1j * np.bincount(index, weights=np.imag(weights), minlength=size)
    else:
        added = np.bincount(index, weights=weights, minlength=size)
    return out + np.reshape(added, np.shape(out)).astype(out.dtype)


def as_array(t, dtype=None):
    """``np.asarray(t, dtype)`` that keeps an array of another library (or
    a list or tuple of them, stacked) in that library.

    >>> as_array([1.0, 2.0], np.float32)
    array([1., 2.], dtype=float32)
    """
    if is_foreign_array(t):
        return t if dtype is None or t.dtype == dtype else t.astype(dtype)
    if isinstance(t, (list, tuple)) and any(_holds_foreign(v) for v in t):
        return np.stack([as_array(v, dtype) for v in t])
    return np.asarray(t, dtype=dtype)


def _holds_foreign(t):
    if isinstance(t, (list, tuple)):
        return any(_holds_foreign(v) for v in t)
    return is_foreign_array(t)
