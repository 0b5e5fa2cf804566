"""Reverse-mode rules for ``scipy.linalg``, registered only when SciPy is
installed. They follow the matrix identities, in functions that have
rules of their own (so second derivatives follow): the adjoint of a
triangular solve is a triangular solve with the transpose, that of
``expm`` the corner of ``expm`` of a block matrix (Najfeld and Havel's
identity), that of ``sqrtm`` and of ``solve_sylvester`` a Sylvester
equation with the transposes. The factor pairs of ``lu_factor`` and
``cho_factor`` are tuples: the solves with them have adjoints in the
factor (through the matrix it factors), and the factorizations adjoints
in their argument, so that a solve with a factor pair differentiates as
a solve with the matrix.
"""
from tangent_ad.registry import adjoint, nonholomorphic, structured

try:
    import numpy as np
    from scipy import linalg

    from tangent_ad.runtime import (
        band_outer, banded_transposed, grad_cholesky, grad_cholesky_triangle, matrix_transpose,
        permute_rows,
        product_triangle, real_matrix, square_matrix, transpose_flag, unblock_diag,
        unpermute_rows, untriangle)
except ImportError:  # no SciPy: no rules, and nothing else changes
    linalg = None

d = None  # d[x] is the adjoint of x; templates are parsed, never run


if linalg is not None:

    @adjoint(linalg.solve_triangular)
    def solve_triangular(result, a, b, trans=0, lower=False, check_finite=True):
        """trans is 0 (a x = b) or 1 (a^T x = b); the adjoint of a is in its triangle."""
        gb = linalg.solve_triangular(a, d[result], trans=1 - trans, lower=lower)
        d[b] = gb
        g2 = np.reshape(-gb, (np.shape(a)[-1], -1))
        x2 = np.reshape(result, (np.shape(a)[-1], -1))
        d[a] = product_triangle(x2, g2, lower, a) if trans else product_triangle(g2, x2, lower, a)

    @adjoint(linalg.cholesky)
    def cholesky(result, a, lower=False, check_finite=True):
        """Reads the upper triangle of a (the lower one with lower=True)."""
        d[a] = grad_cholesky_triangle(d[result], result, 1 - lower)

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

    # ---- factor pairs ---------------------------------------------------------

    @adjoint(linalg.lu_factor)
    def lu_factor(result, a, overwrite_a=False, check_finite=True):
        """Square a = P L U; (lu, piv) is a structure, piv has no derivative.

        L is unit lower below the diagonal of lu, U upper. With
        X = L^-1 P^T da U^-1, d lu is L tril(X, -1) + triu(X) U; its
        adjoint is P L^-T X' U^-T."""
        n = np.shape(square_matrix(a, "scipy.linalg.lu_factor"))[-1]
        lower = np.tril(result[0], -1) + np.eye(n)
        upper = np.triu(result[0])
        inner = np.tril(matrix_transpose(lower) @ np.tril(d[result][0], -1), -1) + \
            np.triu(np.triu(d[result][0]) @ matrix_transpose(upper))
        left = linalg.solve_triangular(lower, inner, 1, True)
        d[a] = permute_rows(result[1], matrix_transpose(
            linalg.solve_triangular(upper, matrix_transpose(left), 0, False)))

    @adjoint(linalg.lu_solve)
    def lu_solve(result, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
        """trans 0 (a x = b) or 1 (a^T x = b); lu's adjoint via a = P L U.

        The adjoint of a, -gb x^T, reaches lu through a = P L U (piv is
        an integer)."""
        flag = transpose_flag(trans)
        gb = linalg.lu_solve(lu_and_piv, d[result], 1 - flag)
        d[b] = gb
        n = np.shape(b)[0]
        g2 = np.reshape(gb, (n, -1))
        x2 = np.reshape(result, (n, -1))
        pa = unpermute_rows(lu_and_piv[1], -((1 - flag) * (g2 @ matrix_transpose(x2)) +
                                             flag * (x2 @ matrix_transpose(g2))))
        d[lu_and_piv] = (
            np.tril(pa @ matrix_transpose(np.triu(lu_and_piv[0])), -1) +
            np.triu(matrix_transpose(np.tril(lu_and_piv[0], -1) + np.eye(n)) @ pa), None)

    @adjoint(linalg.cho_factor)
    def cho_factor(result, a, lower=False, overwrite_a=False, check_finite=True):
        """Real a; c's other triangle is a's own, its adjoint passes through.

        result = (c, lower): the factor in one triangle of c (read from
        that triangle of a), and in the other a's own entries, which SciPy
        leaves there."""
        factor = np.where(lower, np.tril(result[0]), np.triu(result[0]))
        g = real_matrix(d[result][0], "scipy.linalg.cho_factor")
        d[a] = untriangle(grad_cholesky(np.where(lower, np.tril(g), np.triu(g)), factor,
                                        1 - lower), 1 - lower) + \
            np.where(lower, np.triu(g, 1), np.tril(g, -1))

    @adjoint(linalg.cho_solve)
    def cho_solve(result, c_and_lower, b, overwrite_b=False, check_finite=True):
        """Real factors: a = U^T U (or L L^T) from c's factor triangle.

        The factor's adjoint is U (s + s^T) (or (s + s^T) L), s = -gb x^T."""
        gb = linalg.cho_solve(c_and_lower, real_matrix(d[result], "scipy.linalg.cho_solve"))
        d[b] = gb
        n = np.shape(b)[0]
        abar = -np.reshape(gb, (n, -1)) @ matrix_transpose(np.reshape(result, (n, -1)))
        sym = abar + matrix_transpose(abar)
        factor = np.where(c_and_lower[1], np.tril(c_and_lower[0]), np.triu(c_and_lower[0]))
        d[c_and_lower] = (np.where(c_and_lower[1], np.tril(sym @ factor),
                                   np.triu(factor @ sym)), None)

    @adjoint(linalg.solve_banded)
    def solve_banded(result, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,
                     check_finite=True):
        """In b and ab (a[i, j] = ab[u + i - j, j]); l_and_u is constant.

        The adjoint of b is a banded solve with a^T, that of ab the band
        of -gb x^T."""
        gb = linalg.solve_banded((l_and_u[1], l_and_u[0]), banded_transposed(l_and_u, ab),
                                 d[result])
        d[b] = gb
        d[ab] = -band_outer(l_and_u, gb, result, ab)

    structured(linalg.lu_factor, linalg.lu_solve, linalg.cho_factor, linalg.cho_solve)
