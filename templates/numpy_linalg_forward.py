"""Forward-mode rules for NumPy's products and ``np.linalg``.

A product is linear in each operand: its tangent is one product per
operand, with the operand's tangent in its place. Decompositions follow
the matrix identities, e.g. ``d inv(a) = -inv(a) @ da @ inv(a)`` and
``d det(a) = det(a) tr(a^-1 da)``; those of symmetric matrices
(``cholesky``, ``eigh``) read only the triangle NumPy reads. The rules
are written with functions that have forward rules themselves, so
forward over forward (second derivatives) follows.
"""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    conjugate_transpose, numpy_cholesky, triangle_matrix, full_rank_matrix, grad_svd, inverse_gaps, jvp_grad_svd, jvp_jvp_svd, jvp_svd, matched_eigenvectors,
    matrix_transpose, real_matrix, residual_weights, residuals_like)
from tangent_ad.runtime.tangents import jvp_einsum

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- products --------------------------------------------------------------

@tangent(np.cross)
def cross(result, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[result] = np.cross(d[a], b, axisa, axisb, axisc, axis) + \
        np.cross(a, d[b], axisa, axisb, axisc, axis)


@tangent(np.dot)
def dot(result, a, b):
    d[result] = np.dot(d[a], b) + np.dot(a, d[b])


@tangent(np.einsum)
def einsum(result, operands, optimize=False):
    d[result] = jvp_einsum(d[operands], operands)


@tangent(np.inner)
def inner(result, a, b):
    d[result] = np.inner(d[a], b) + np.inner(a, d[b])


@tangent(np.kron)
def kron(result, a, b):
    d[result] = np.kron(d[a], b) + np.kron(a, d[b])


@tangent(np.matmul)
def matmul(result, x1, x2):
    d[result] = np.matmul(d[x1], x2) + np.matmul(x1, d[x2])


@tangent(np.outer)
def outer(result, a, b):
    d[result] = np.outer(d[a], b) + np.outer(a, d[b])


@tangent(np.tensordot)
def tensordot(result, a, b, axes=2):
    d[result] = np.tensordot(d[a], b, axes) + np.tensordot(a, d[b], axes)


@tangent(np.vdot)
def vdot(result, a, b):
    d[result] = np.vdot(d[a], b) + np.vdot(a, d[b])


# ---- np.linalg -------------------------------------------------------------

@tangent(np.linalg.cholesky)
def cholesky(result, a, upper=False):
    """dL = L phi(L^-1 dA L^-H), phi keeping the lower triangle and half
    the diagonal; dA is the Hermitian matrix of the triangle NumPy reads.
    Written with functions that have rules: forward over forward follows."""
    low = np.where(upper, conjugate_transpose(numpy_cholesky(result)), numpy_cholesky(result))
    inner = np.linalg.solve(low, conjugate_transpose(
        np.linalg.solve(low, triangle_matrix(d[a], upper))))
    dl = low @ (np.tril(inner) - 0.5 * np.triu(np.tril(inner)))
    d[result] = np.where(upper, conjugate_transpose(dl), dl)


@tangent(np.linalg.det)
def det(result, a):
    d[result] = result * np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1)


@tangent(np.linalg.eig)
def eig(result, a):
    """Needs distinct eigenvalues. With K = V^-1 dA V: dw = diag(K) and
    dV = V (F * K), less the part along each vector that would change its
    norm (NumPy's are unit vectors); their phase is left alone."""
    v = result[1]
    k = np.linalg.solve(v, d[a] @ v)
    dv = v @ (inverse_gaps(result[0]) * k)
    d[result] = (np.diagonal(k, 0, -2, -1),
                 dv - v * np.expand_dims(np.real(np.sum(np.conj(v) * dv, -2)), -2))


@tangent(np.linalg.eigvals)
def eigvals(result, a):
    """Needs distinct eigenvalues: diag(V^-1 dA V)."""
    v = matched_eigenvectors(a, result)
    d[result] = np.diagonal(np.linalg.solve(v, d[a] @ v), 0, -2, -1)


@tangent(np.linalg.eigh)
def eigh(result, a, UPLO="L"):
    """Needs distinct eigenvalues. With K = V^H dA V (dA from the triangle
    UPLO): dw = Re diag(K), dV = V (F * K), F_ij = 1 / (w_j - w_i)."""
    k = conjugate_transpose(result[1]) @ (triangle_matrix(d[a], UPLO) @ result[1])
    d[result] = (np.real(np.diagonal(k, 0, -2, -1)), result[1] @ (inverse_gaps(result[0]) * k))


@tangent(np.linalg.inv)
def inv(result, a):
    d[result] = -result @ d[a] @ result


@tangent(np.linalg.eigvalsh)
def eigvalsh(result, a, UPLO="L"):
    """Needs distinct eigenvalues. Reads the triangle UPLO of da, as eigh."""
    d[result] = np.sum(np.linalg.eigh(a, UPLO)[1] * (np.where(
        UPLO == "U", np.triu(d[a]) + matrix_transpose(np.triu(d[a], 1)),
        np.tril(d[a]) + matrix_transpose(np.tril(d[a], -1))) @ np.linalg.eigh(a, UPLO)[1]),
        axis=-2)


@tangent(np.linalg.lstsq)
def lstsq(result, a, b, rcond=None):
    """Real a of full rank: x = pinv(a) b, with the tangent of pinv."""
    p = np.linalg.pinv(full_rank_matrix(a, result[2], "np.linalg.lstsq"))
    dat = matrix_transpose(d[a])
    dp = -p @ d[a] @ p + (p @ matrix_transpose(p)) @ (dat - dat @ (a @ p)) + \
        (dat - (p @ a) @ dat) @ (matrix_transpose(p) @ p)
    r = b - a @ result[0]
    d[result] = (dp @ b + p @ d[b],
                 residuals_like(2.0 * np.sum(r * (d[b] - d[a] @ result[0]), 0), result[1]),
                 np.zeros_like(result[2]), jvp_svd(d[a], result[3], a, True, False))


@tangent(np.linalg.matrix_power)
def matrix_power(result, a, n):
    """The corner of matrix_power([[a, da], [0, a]], n)."""
    m = np.shape(a)[-1]
    d[result] = np.linalg.matrix_power(np.concatenate((np.concatenate((a, d[a]), -1),
                                                       np.concatenate((np.zeros_like(a), a), -1)),
                                                      -2), n)[..., :m, m:]


@tangent(np.linalg.pinv)
def pinv(result, a, rcond=None, hermitian=False):
    """Needs a matrix of full rank; real matrices only."""
    d[result] = -result @ real_matrix(d[a], "np.linalg.pinv") @ result + \
        (result @ matrix_transpose(result)) @ \
        (matrix_transpose(d[a]) - matrix_transpose(d[a]) @ (a @ result)) + \
        (matrix_transpose(d[a]) - (result @ a) @ matrix_transpose(d[a])) @ \
        (matrix_transpose(result) @ result)


@tangent(np.linalg.slogdet)
def slogdet(result, a):
    d[result] = (np.zeros_like(result[0]),
                 np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1))


@tangent(np.linalg.solve)
def solve(result, a, b):
    d[result] = np.linalg.solve(a, d[b] - d[a] @ result)


@tangent(np.linalg.svd)
def svd(result, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Needs distinct nonzero singular values. A complex matrix's vectors are unique up to a phase per pair: derivatives of what does not read the phases (`np.abs(u)`, `u @ np.diag(s) @ vh`) are right."""
    d[result] = jvp_svd(d[a], result, a, full_matrices, compute_uv)


# ---- the adjoints of the reverse rules --------------------------------------

@tangent(conjugate_transpose)
def conjugate_transpose_rule(result, x):
    d[result] = conjugate_transpose(d[x])


@tangent(triangle_matrix)
def triangle_matrix_rule(result, a, upper=False):
    d[result] = triangle_matrix(d[a], upper)


@tangent(numpy_cholesky)
def numpy_cholesky_rule(result, factor):
    """The Dask guard: the identity."""
    d[result] = d[factor]


@tangent(inverse_gaps)
def inverse_gaps_rule(result, w):
    """F_ij = 1 / (w_j - w_i): dF_ij = (dw_i - dw_j) F_ij^2."""
    d[result] = (np.expand_dims(d[w], -1) - np.expand_dims(d[w], -2)) * result * result


@tangent(matched_eigenvectors)
def matched_eigenvectors_rule(result, a, w):
    """eig's tangent of the vectors (the order does not matter to it)."""
    k = np.linalg.solve(result, d[a] @ result)
    dv = result @ (inverse_gaps(w) * k)
    d[result] = dv - result * np.expand_dims(np.real(np.sum(np.conj(result) * dv, -2)), -2)


@tangent(full_rank_matrix)
def full_rank_matrix_rule(result, a, rank, what):
    d[result] = d[a]


@tangent(residual_weights)
def residual_weights_rule(result, g, b):
    d[result] = residual_weights(d[g], b)


@tangent(residuals_like)
def residuals_like_rule(result, t, residuals):
    d[result] = residuals_like(d[t], residuals)


@tangent(grad_svd)
def grad_svd_rule(result, g, usv, a, full_matrices=True, compute_uv=True):
    d[result] = jvp_grad_svd(d[g], d[a], g, a, full_matrices, compute_uv)


@tangent(jvp_svd)
def jvp_svd_rule(result, da, usv, a, full_matrices=True, compute_uv=True):
    d[result] = jvp_jvp_svd(d[da], d[a], da, a, full_matrices, compute_uv)
