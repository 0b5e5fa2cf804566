"""Forward-mode rules for ``scipy.linalg`` (see ``scipy_linalg.py``),
registered only when SciPy is installed."""
from tangent_ad.registry import tangent

try:
    import numpy as np
    from scipy import linalg

    from tangent_ad.runtime import matrix_transpose
    from tangent_ad.runtime.tangents import jvp_cholesky
except ImportError:  # no SciPy: no rules, and nothing else changes
    linalg = None

d = None  # d[x] is the tangent of x; templates are parsed, never run


if linalg is not None:

    @tangent(linalg.solve_triangular)
    def solve_triangular(result, a, b, trans=0, lower=False, check_finite=True):
        d[result] = linalg.solve_triangular(
            a, d[b] - np.matmul((1 - trans) * d[a] + trans * matrix_transpose(d[a]), result),
            trans=trans, lower=lower)

    @tangent(linalg.cholesky)
    def cholesky(result, a, lower=False, check_finite=True):
        d[result] = jvp_cholesky(d[a], result, 1 - lower)

    @tangent(linalg.expm)
    def expm(result, A):
        """The corner of expm([[A, dA], [0, A]])."""
        n = np.shape(A)[-1]
        d[result] = linalg.expm(np.concatenate((np.concatenate((A, d[A]), -1),
                                                np.concatenate((np.zeros_like(A), A), -1)),
                                               -2))[..., :n, n:]

    @tangent(linalg.sqrtm)
    def sqrtm(result, A):
        d[result] = linalg.solve_sylvester(result, result, d[A])

    @tangent(linalg.solve_sylvester)
    def solve_sylvester(result, a, b, q):
        d[result] = linalg.solve_sylvester(
            a, b, d[q] - np.matmul(d[a], result) - np.matmul(result, d[b]))

    @tangent(linalg.block_diag)
    def block_diag(result, arrs):
        d[result] = linalg.block_diag(*d[arrs])
