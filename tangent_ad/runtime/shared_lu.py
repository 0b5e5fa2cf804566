"""One LU factorization of a matrix, shared by its solves, determinant and
inverse: what a specialized copy calls in place of np.linalg.solve,
slogdet and inv of one real square matrix (``staging/shared_factors.py``).

Each step is the LAPACK routine NumPy's function runs (``getrf``, then
``getrs`` or ``getri``), through SciPy (the copy uses them only when SciPy
is installed). A singular matrix raises LinAlgError where NumPy
does (solve, inverse), and its log-determinant is (0, -inf) as NumPy's is.
"""
import numpy as np

__all__ = ["factored", "inv_factored", "slogdet_factored", "solve_factored"]

_SLOGDET = type(np.linalg.slogdet(np.eye(1)))  # NumPy's named pair


class Factored:
    """The LU factors of a real square matrix: `lu` (L below the
    diagonal, U on and above it), the row pivots `piv` (0-based), `info`
    (> 0: U is exactly singular) and the LAPACK routines of its dtype."""

    __slots__ = ("lu", "piv", "info", "getrs", "getri")

    def __init__(self, a):
        from scipy.linalg import get_lapack_funcs  # (SciPy is optional: imported when used)
        getrf, self.getrs, self.getri = get_lapack_funcs(("getrf", "getrs", "getri"), (a,))
        self.lu, self.piv, self.info = getrf(a)

    def nonsingular(self):
        if self.info > 0:
            raise np.linalg.LinAlgError("Singular matrix")


def factored(a):
    """The LU factors of the real square matrix `a` (a `Factored`)."""
    return Factored(a)


def solve_factored(f, b, transposed=False):
    """``np.linalg.solve(a, b)`` (``a.T`` when `transposed`) from `a`'s
    factors `f`, for a vector or matrix `b` of `a`'s dtype.

    >>> solve_factored(factored(np.array([[2.0, 0.0], [1.0, 1.0]])), np.array([2.0, 3.0]))
    array([1., 2.])
    """
    f.nonsingular()
    x, _ = f.getrs(f.lu, f.piv, b, trans=1 if transposed else 0)
    return x


def inv_factored(f):
    """``np.linalg.inv(a)`` from `a`'s factors `f`.

    >>> inv_factored(factored(np.array([[2.0, 1.0], [1.0, 1.0]])))
    array([[ 1., -1.],
           [-1.,  2.]])
    """
    f.nonsingular()
    inverse, _ = f.getri(f.lu, f.piv)
    return inverse


def slogdet_factored(f):
    """``np.linalg.slogdet(a)`` from `a`'s factors `f`: the sign of the
    determinant of U times the pivots' parity, and the sum of the logs of
    U's diagonal, as scalars of `a`'s dtype.

    >>> slogdet_factored(factored(np.array([[0.0, 2.0], [3.0, 0.0]])))
    SlogdetResult(sign=np.float64(-1.0), logabsdet=np.float64(1.791759469228055))
    """
    scalar = f.lu.dtype.type
    if f.info > 0:
        return _SLOGDET(scalar(0.0), scalar(-np.inf))
    diagonal = np.diagonal(f.lu)
    swaps = np.count_nonzero(f.piv != np.arange(len(f.piv)))
    sign = np.prod(np.sign(diagonal)) * (-1 if swaps % 2 else 1)
    return _SLOGDET(scalar(sign), scalar(np.sum(np.log(np.abs(diagonal)))))
