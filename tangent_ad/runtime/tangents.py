"""Runtime helpers of the forward-mode rules (``templates/*_forward.py``).

Most tangents are a line of NumPy in their template; these are the few
that are not. ``jvp_X`` is the tangent of ``np.X``'s result, given the
tangents of its arguments. Like the rest of ``tangent_ad.runtime``, this
module depends on NumPy only.
"""
import numpy as np

from tangent_ad.runtime.core import _like
from tangent_ad.runtime.structures import zeros_like

__all__ = ["zero_tangent", "broadcast_like", "tangent_array", "jvp_einsum",
           "jvp_cholesky", "jvp_eigh"]


def _transpose(x):
    return np.swapaxes(x, -1, -2)


def zero_tangent(x):
    """The zero tangent of a parameter `x` that has no tangent of its own:
    ``zeros_like(x)`` (the structure, shape and dtype of `x`).

    >>> zero_tangent((1.0, np.ones(2)))
    (0.0, array([0., 0.]))
    """
    return zeros_like(x)


def broadcast_like(t, x):
    """The tangent `t` of the value `x` in `x`'s shape (which `t`
    broadcasts to) and floating dtype: the forward counterpart of
    ``unbroadcast``. `t` itself (a Python float stays a float) when they
    already agree.

    >>> broadcast_like(np.ones(2), np.zeros((3, 2))).shape
    (3, 2)
    >>> broadcast_like(1.5, 2.0)
    1.5
    """
    shape, dtype = np.shape(x), np.result_type(x)
    if np.shape(t) != shape:
        t = np.broadcast_to(t, shape)
    if np.issubdtype(dtype, np.inexact) and np.result_type(t) != dtype:
        t = np.asarray(t).astype(dtype)
    return t


def tangent_array(t, result):
    """The tangent of ``result = np.array(x)`` (or ``np.asarray``,
    ``np.astype``) from the tangent `t` of `x`, which may be a (nested)
    list or tuple of tangents: one array of the result's shape and dtype,
    or zeros when the result is of an integer or boolean type, which
    cannot vary.

    >>> tangent_array((1.0, np.ones(1)[0]), np.zeros(2, np.float32))
    array([1., 1.], dtype=float32)
    >>> tangent_array(np.ones(2), np.zeros(2, int))
    array([0., 0.])
    """
    dtype = np.result_type(result)
    if not np.issubdtype(dtype, np.inexact):
        return np.zeros(np.shape(result))
    return np.reshape(np.asarray(t, dtype=dtype), np.shape(result))


def jvp_einsum(tangents, operands):
    """The tangent of ``np.einsum(*operands)``: for each operand with a
    nonzero tangent, the same contraction with the tangent in the
    operand's place; their sum. Subscript strings have the tangent None.

    >>> float(jvp_einsum((None, np.ones(2), np.zeros(2)), ("i,i->", np.ones(2), np.ones(2))))
    2.0
    """
    total = None
    for i, tangent in enumerate(tangents):
        if tangent is None or isinstance(operands[i], str) or not np.any(tangent):
            continue
        term = np.einsum(*operands[:i], tangent, *operands[i + 1:])
        total = term if total is None else total + term
    if total is None:
        return np.zeros_like(np.einsum(*operands))
    return total


def jvp_cholesky(t, factor, upper=False):
    """The tangent of ``factor = np.linalg.cholesky(a, upper=upper)`` from
    the tangent `t` of `a`. Only the triangle of `a` that Cholesky reads
    counts (as a symmetric matrix). With ``a = L L^T``:
    ``dL = L phi(L^-1 dA L^-T)``, where ``phi`` keeps the lower triangle
    and halves the diagonal.
    """
    lower = _transpose(factor) if upper else factor
    part = np.triu if upper else np.tril
    sym = part(t) + _transpose(part(t, 1 if upper else -1))
    inner = np.linalg.solve(lower, _transpose(np.linalg.solve(lower, sym)))
    n = np.shape(inner)[-1]
    phi = np.tril(inner) - 0.5 * inner * np.eye(n, dtype=np.result_type(inner))
    tangent = np.matmul(lower, phi)
    return _like(_transpose(tangent) if upper else tangent, factor)


def jvp_eigh(t, result, UPLO="L"):
    """The tangents ``(dw, dv)`` of ``w, v = np.linalg.eigh(a, UPLO)`` from
    the tangent `t` of `a` (of the triangle eigh reads). With
    ``k = v^T dA v``: ``dw = diag(k)`` and ``dv = v (f * k)``, where
    ``f[i, j] = 1 / (w[j] - w[i])`` off the diagonal and 0 on it. Needs
    distinct eigenvalues.
    """
    w, v = result
    part = np.triu if UPLO == "U" else np.tril
    sym = part(t) + _transpose(part(t, 1 if UPLO == "U" else -1))
    k = np.matmul(_transpose(np.conj(v)), np.matmul(sym, v))
    gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    n = np.shape(w)[-1]
    off = ~np.eye(n, dtype=bool)
    f = np.where(off, 1.0 / np.where(off, gaps, 1.0), 0.0)
    dw = _like(np.real(np.diagonal(k, axis1=-2, axis2=-1)), w)
    dv = _like(np.matmul(v, f * k), v)
    return type(result)(dw, dv) if hasattr(result, "_fields") else (dw, dv)
