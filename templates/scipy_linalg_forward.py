"""Forward-mode rules for ``scipy.linalg`` (see ``scipy_linalg.py``),
registered only when SciPy is installed."""
from tangent_ad.registry import tangent

try:
    import numpy as np
    from scipy import linalg

    from tangent_ad.runtime import (
        band_outer, banded_matmul, banded_transposed, conjugate_transpose, matrix_transpose, permute_rows, real_matrix,
        square_matrix, transpose_flag, triangle_matrix, unpermute_rows)
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
        """np.linalg.cholesky's rule, on the triangle SciPy reads."""
        low = np.where(lower, result, conjugate_transpose(result))
        inner = np.linalg.solve(low, conjugate_transpose(
            np.linalg.solve(low, triangle_matrix(d[a], 1 - lower))))
        dl = low @ (np.tril(inner) - 0.5 * np.triu(np.tril(inner)))
        d[result] = np.where(lower, dl, conjugate_transpose(dl))

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

    # ---- factor pairs ---------------------------------------------------------

    @tangent(linalg.lu_factor)
    def lu_factor(result, a, overwrite_a=False, check_finite=True):
        """X = L^-1 P^T da U^-1; d lu = L tril(X, -1) + triu(X) U."""
        n = np.shape(square_matrix(a, "scipy.linalg.lu_factor"))[-1]
        lower = np.tril(result[0], -1) + np.eye(n)
        upper = np.triu(result[0])
        left = linalg.solve_triangular(lower, unpermute_rows(result[1], d[a]), 0, True)
        inner = matrix_transpose(linalg.solve_triangular(upper, matrix_transpose(left), 1, False))
        d[result] = (lower @ np.tril(inner, -1) + np.triu(inner) @ upper, None)

    @tangent(linalg.lu_solve)
    def lu_solve(result, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
        """da = P (dL U + L dU) from the tangent of lu."""
        n = np.shape(b)[0]
        da = permute_rows(lu_and_piv[1], np.tril(d[lu_and_piv][0], -1) @ np.triu(lu_and_piv[0]) +
                          (np.tril(lu_and_piv[0], -1) + np.eye(n)) @ np.triu(d[lu_and_piv][0]))
        d[result] = linalg.lu_solve(
            lu_and_piv, d[b] - ((1 - transpose_flag(trans)) * da +
                                transpose_flag(trans) * matrix_transpose(da)) @ result, trans)

    @tangent(linalg.cho_factor)
    def cho_factor(result, a, lower=False, overwrite_a=False, check_finite=True):
        """dL = L phi(L^-1 da L^-T) (phi: the lower triangle, half the
        diagonal) on the factor's triangle; da itself on the other."""
        factor = np.where(lower, np.tril(result[0]), np.triu(result[0]))
        low = np.where(lower, factor, matrix_transpose(factor))
        t = real_matrix(d[a], "scipy.linalg.cho_factor")
        sym = np.where(lower, np.tril(t) + matrix_transpose(np.tril(t, -1)),
                       np.triu(t) + matrix_transpose(np.triu(t, 1)))
        inner = np.linalg.solve(low, matrix_transpose(np.linalg.solve(low, sym)))
        dl = low @ (np.tril(inner) - 0.5 * np.triu(np.tril(inner)))
        d[result] = (np.where(lower, dl, matrix_transpose(dl)) +
                     np.where(lower, np.triu(t, 1), np.tril(t, -1)), None)

    @tangent(linalg.cho_solve)
    def cho_solve(result, c_and_lower, b, overwrite_b=False, check_finite=True):
        factor = np.where(c_and_lower[1], np.tril(c_and_lower[0]), np.triu(c_and_lower[0]))
        df = np.where(c_and_lower[1], np.tril(d[c_and_lower][0]), np.triu(d[c_and_lower][0]))
        da = np.where(c_and_lower[1], df @ matrix_transpose(factor) + factor @ matrix_transpose(df),
                      matrix_transpose(df) @ factor + matrix_transpose(factor) @ df)
        d[result] = linalg.cho_solve(c_and_lower, d[b] - da @ result)

    @tangent(permute_rows)
    def permute_rows_rule(result, piv, m):
        d[result] = permute_rows(piv, d[m])

    @tangent(unpermute_rows)
    def unpermute_rows_rule(result, piv, m):
        d[result] = unpermute_rows(piv, d[m])

    @tangent(linalg.solve_banded)
    def solve_banded(result, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,
                     check_finite=True):
        d[result] = linalg.solve_banded(l_and_u, ab, d[b] - banded_matmul(l_and_u, d[ab], result))

    @tangent(banded_transposed)
    def banded_transposed_rule(result, l_and_u, ab):
        d[result] = banded_transposed(l_and_u, d[ab])

    @tangent(banded_matmul)
    def banded_matmul_rule(result, l_and_u, ab, x):
        d[result] = banded_matmul(l_and_u, d[ab], x) + banded_matmul(l_and_u, ab, d[x])

    @tangent(band_outer)
    def band_outer_rule(result, l_and_u, g, x, ab):
        d[result] = band_outer(l_and_u, d[g], x, ab) + band_outer(l_and_u, g, d[x], ab)

    @tangent(square_matrix)
    def square_matrix_rule(result, a, what):
        d[result] = square_matrix(d[a], what)

    @tangent(transpose_flag)
    def transpose_flag_rule(result, trans):
        """An integer: a rule that reads no tangent declares a zero one."""
        d[result] = transpose_flag(trans)
