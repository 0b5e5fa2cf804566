"""Runtime helpers of the rules of SciPy's factor pairs and banded
solves (templates/scipy_linalg.py): ``lu_factor`` returns ``(lu, piv)``
with ``a = P L U``, where LAPACK's pivots `piv` say that row i was swapped
with row piv[i], in turn; the rules need P and P^T applied to a matrix.
``solve_banded((l, u), ab, b)`` stores ``a[i, j]`` at ``ab[u + i - j, j]``;
its rules need the transpose in that storage, the product with a matrix
and the band of an outer product, each computed diagonal by diagonal.
All are linear (or bilinear) in the arrays they move, with forward rules
of their own, so the rules have second derivatives.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError

__all__ = ["square_matrix", "transpose_flag", "permute_rows", "unpermute_rows", "banded_transposed", "banded_matmul", "band_outer"]


def square_matrix(a, what):
    """`a`, refused unless square: the rules of `what` (lu_factor's) are
    written for a = P L U with square factors.

    >>> square_matrix(np.eye(2), "scipy.linalg.lu_factor").shape
    (2, 2)
    """
    if np.shape(a)[-1] != np.shape(a)[-2]:
        raise NoDerivativeError(f"the derivative of {what} is implemented for square matrices only")
    return a


def transpose_flag(trans):
    """lu_solve's `trans` as 0 (a x = b) or 1 (a^T x = b); 2 ('C', the
    conjugate transpose) is refused: for a real matrix pass trans=1.

    >>> transpose_flag("T")
    1
    """
    flag = {0: 0, 1: 1, "N": 0, "T": 1}.get(trans if isinstance(trans, str) else int(trans))
    if flag is None:
        raise NoDerivativeError(
            "the derivative of scipy.linalg.lu_solve is implemented for trans=0 and trans=1",
            hint="for a real matrix, trans=1 solves the same system as trans=2")
    return flag


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


# ---- banded storage ------------------------------------------------------------

def _diagonals(l_and_u, n):
    """(row of ab, offset i - j, first j, end j) for each stored diagonal."""
    lower, upper = (int(k) for k in l_and_u)
    for r in range(lower + upper + 1):
        off = r - upper
        yield r, off, max(0, -off), min(n, n - off)


def banded_transposed(l_and_u, ab):
    """The banded storage of a^T (with (u, l) diagonals) from that of a;
    the entries ab does not use are zero.

    >>> banded_transposed((1, 0), np.array([[1.0, 2.0], [3.0, 0.0]]))
    array([[0., 3.],
           [1., 2.]])
    """
    lower, upper = (int(k) for k in l_and_u)
    n = np.shape(ab)[-1]
    out = np.zeros(np.shape(ab), dtype=np.result_type(ab, np.float64))
    for r in range(lower + upper + 1):
        shift = r - lower
        j0, j1 = max(0, -shift), min(n, n - shift)
        if j1 > j0:
            out[r, j0:j1] = ab[lower + upper - r, j0 + shift:j1 + shift]
    return out


def banded_matmul(l_and_u, ab, x):
    """``a @ x`` for the banded storage `ab` of a (x a vector or a matrix).

    >>> banded_matmul((1, 0), np.array([[1.0, 2.0], [3.0, 0.0]]), np.array([1.0, 1.0]))
    array([1., 5.])
    """
    n = np.shape(ab)[-1]
    x2 = np.reshape(x, (n, -1))
    out = np.zeros(np.shape(x2), dtype=np.result_type(ab, x2))
    for r, off, j0, j1 in _diagonals(l_and_u, n):
        if j1 > j0:
            out[j0 + off:j1 + off] += ab[r, j0:j1, None] * x2[j0:j1]
    return np.reshape(out, np.shape(x))


def band_outer(l_and_u, g, x, ab):
    """The band of ``g @ x^T`` in the banded storage of `ab` (g and x
    vectors or matrices of n rows): ``out[u + i - j, j] = sum_k g[i, k]
    x[j, k]``, zero where ab holds no entry of a.

    >>> band_outer((1, 0), np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.zeros((2, 2)))
    array([[3., 8.],
           [6., 0.]])
    """
    n = np.shape(ab)[-1]
    g2, x2 = np.reshape(g, (n, -1)), np.reshape(x, (n, -1))
    out = np.zeros(np.shape(ab), dtype=np.result_type(g2, x2))
    for r, off, j0, j1 in _diagonals(l_and_u, n):
        if j1 > j0:
            out[r, j0:j1] = np.sum(g2[j0 + off:j1 + off] * x2[j0:j1], axis=-1)
    return out
