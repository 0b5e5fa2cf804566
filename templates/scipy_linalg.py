"""Reverse-mode rules for ``scipy.linalg``, registered only when SciPy is
installed. They follow the matrix identities, in functions that have
rules of their own (so second derivatives follow): the adjoint of a
triangular solve is a triangular solve with the transpose, that of
``expm`` the corner of ``expm`` of a block matrix (Najfeld and Havel's
identity), that of ``sqrtm`` and of ``solve_sylvester`` a Sylvester
equation with the transposes.
"""
from tangent_ad.registry import adjoint, nonholomorphic, structured

try:
    import numpy as np
    from scipy import linalg

    from tangent_ad.runtime import grad_cholesky, matrix_transpose, unblock_diag, untriangle
except ImportError:  # no SciPy: no rules, and nothing else changes
    linalg = None

d = None  # d[x] is the adjoint of x; templates are parsed, never run


if linalg is not None:

    @adjoint(linalg.solve_triangular)
    def solve_triangular(result, a, b, trans=0, lower=False, check_finite=True):
        """trans is 0 (a x = b) or 1 (a^T x = b); the adjoint of a is in its triangle."""
        gb = linalg.solve_triangular(a, d[result], trans=1 - trans, lower=lower)
        d[b] = gb
        g2 = np.reshape(gb, (np.shape(a)[-1], -1))
        x2 = np.reshape(result, (np.shape(a)[-1], -1))
        outer = (1 - trans) * np.matmul(g2, matrix_transpose(x2)) + \
            trans * np.matmul(x2, matrix_transpose(g2))
        d[a] = -np.where(lower, np.tril(outer), np.triu(outer))

    @adjoint(linalg.cholesky)
    def cholesky(result, a, lower=False, check_finite=True):
        """Reads the upper triangle of a (the lower one with lower=True)."""
        d[a] = untriangle(grad_cholesky(d[result], result, 1 - lower), 1 - lower)

    nonholomorphic(linalg.cholesky)  # a complex a is read as Hermitian

    @adjoint(linalg.expm)
    def expm(result, A):
        n = np.shape(A)[-1]
        At = matrix_transpose(A)
        d[A] = linalg.expm(np.concatenate((np.concatenate((At, d[result]), -1),
                                           np.concatenate((np.zeros_like(A), At), -1)),
                                          -2))[..., :n, n:]

    @adjoint(linalg.sqrtm)
    def sqrtm(result, A):
        """result @ result = A: a Sylvester equation with the transposes."""
        d[A] = linalg.solve_sylvester(matrix_transpose(result), matrix_transpose(result),
                                      d[result])

    @adjoint(linalg.solve_sylvester)
    def solve_sylvester(result, a, b, q):
        """a @ result + result @ b = q."""
        lam = linalg.solve_sylvester(matrix_transpose(a), matrix_transpose(b), d[result])
        d[q] = lam
        d[a] = -np.matmul(lam, matrix_transpose(result))
        d[b] = -np.matmul(matrix_transpose(result), lam)

    @adjoint(linalg.block_diag)
    def block_diag(result, arrs):
        d[arrs] = unblock_diag(d[result], arrs)

    structured(linalg.block_diag)
