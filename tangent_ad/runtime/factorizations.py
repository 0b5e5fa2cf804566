"""Runtime helpers of the rules of SciPy's factor pairs
(templates/scipy_linalg.py): ``lu_factor`` returns ``(lu, piv)`` with
``a = P L U``, where LAPACK's pivots `piv` say that row i was swapped with
row piv[i], in turn. The rules need P and P^T applied to a matrix; both
are linear in it, with forward rules of their own, so the rules (written
with triangular solves, which have rules) have second derivatives.
"""
import numpy as np

__all__ = ["permute_rows", "unpermute_rows"]


def _permutation(piv):
    """The rows of a that ``L U`` holds, in order: ``(P^T a) = a[perm]``."""
    piv = np.asarray(piv)
    n = np.shape(piv)[-1]
    perm = np.array(np.broadcast_to(np.arange(n), np.shape(piv)))
    for i in range(n):
        j = piv[..., i:i + 1]
        here = perm[..., i:i + 1].copy()
        perm[..., i:i + 1] = np.take_along_axis(perm, j, -1)
        np.put_along_axis(perm, j, here, -1)
    return perm


def unpermute_rows(piv, m):
    """``P^T m`` for the pivots `piv` of ``scipy.linalg.lu_factor``.

    >>> unpermute_rows(np.array([1, 1]), np.array([[1.0], [2.0]]))
    array([[2.],
           [1.]])
    """
    perm = _permutation(piv)
    return np.take_along_axis(m, np.expand_dims(perm, -1), -2)


def permute_rows(piv, m):
    """``P m`` for the pivots `piv` of ``scipy.linalg.lu_factor`` (so that
    ``permute_rows(piv, L @ U)`` is the factored matrix).

    >>> permute_rows(np.array([1, 1]), np.array([[2.0], [1.0]]))
    array([[1.],
           [2.]])
    """
    perm = np.argsort(_permutation(piv), axis=-1)
    return np.take_along_axis(m, np.expand_dims(perm, -1), -2)
