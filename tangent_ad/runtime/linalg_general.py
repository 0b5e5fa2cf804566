"""Runtime helpers of the rules for general (not symmetric) matrices in
templates/numpy_linalg.py: ``np.linalg.eig``, ``np.linalg.eigvals`` and
``np.linalg.lstsq``.

The rules themselves are written with NumPy functions that have rules of
their own (solve, matmul, diagonal, ...), so second derivatives follow;
these helpers are the few pieces that are not NumPy calls, each with a
forward rule in templates/numpy_linalg_forward.py.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError

__all__ = ["inverse_gaps", "matched_eigenvectors", "residual_weights", "residuals_like",
           "full_rank_matrix"]


def inverse_gaps(w):
    """``F[..., i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it: the
    weights of the eigenvector part of eig's derivative (the eigenvalues
    must be distinct).

    >>> inverse_gaps(np.array([1.0, 3.0]))
    array([[ 0. ,  0.5],
           [-0.5,  0. ]])
    """
    gap = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    off = ~np.eye(np.shape(w)[-1], dtype=bool)
    return np.divide(1.0, gap, out=np.zeros_like(gap), where=off)


def matched_eigenvectors(a, w):
    """The unit eigenvectors of `a` (``np.linalg.eig(a)[1]``) in the order
    of the eigenvalues `w` that ``np.linalg.eigvals(a)`` returned (LAPACK
    does not promise the same order with and without eigenvectors): each
    column is that of the eigenvalue of eig nearest to w[j].

    >>> a = np.diag([2.0, 1.0])
    >>> matched_eigenvectors(a, np.array([1.0, 2.0]))
    array([[0., 1.],
           [1., 0.]])
    """
    values, vectors = np.linalg.eig(a)
    nearest = np.argmin(np.abs(np.expand_dims(values, -2) - np.expand_dims(w, -1)), axis=-1)
    return np.take_along_axis(vectors, np.expand_dims(nearest, -2), -1)


def residual_weights(g, b):
    """The adjoint `g` of the residuals of ``np.linalg.lstsq(a, b)`` (one
    per column of b, or none when a has no more rows than columns or is
    rank deficient) as a row that scales the columns of ``b - a @ x``.

    >>> residual_weights(np.array([2.0]), np.zeros(3))
    array([[2.]])
    >>> residual_weights(np.zeros(0), np.zeros((3, 2)))
    array([[0., 0.]])
    """
    columns = 1 if np.ndim(b) == 1 else np.shape(b)[-1]
    if np.size(g) == 0:
        return np.zeros((1, columns), dtype=np.result_type(g, b))
    return np.reshape(g, (1, columns))


def residuals_like(t, residuals):
    """The tangent `t` of the residuals of ``np.linalg.lstsq`` (one per
    column of b) in their shape; empty where lstsq returns no residuals.

    >>> residuals_like(np.float64(2.0), np.array([0.5]))
    array([2.])
    >>> residuals_like(np.zeros(2), np.zeros(0))
    array([], dtype=float64)
    """
    if np.size(residuals) == 0:
        return np.zeros(np.shape(residuals), dtype=np.result_type(t, residuals))
    return np.reshape(t, np.shape(residuals))


def full_rank_matrix(a, rank, what):
    """`a`, refused when complex or of rank below min(m, n) (`rank` as
    lstsq reports it): the rule of `what` differentiates pinv(a) b, which
    is the derivative of lstsq's solution only at full rank.

    >>> full_rank_matrix(np.eye(2), 2, "np.linalg.lstsq")[0, 0]
    np.float64(1.0)
    """
    if np.iscomplexobj(a):
        raise NoDerivativeError(f"the derivative of {what} is implemented for real matrices only")
    if np.ndim(rank) == 0 and int(rank) < min(np.shape(a)[-2:]):
        raise NoDerivativeError(
            f"the derivative of {what} is implemented for matrices of full rank; this one has "
            f"rank {int(rank)} < {min(np.shape(a)[-2:])}",
            hint="a rank-deficient least-squares solution is not differentiable there; "
                 "regularize a (add a small ridge) or drop dependent columns")
    return a
