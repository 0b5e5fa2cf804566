"""Reverse-mode rules for NumPy's products and ``np.linalg``.

Products contract the adjoint of the result with the other operand
(``grad_tensordot_lhs`` and friends in ``tangent_ad.runtime`` handle every
rank). Decompositions follow the matrix identities, e.g. the adjoint of
``inv(a)`` is ``-inv(a).T @ g @ inv(a).T``. ``cholesky``, ``eigh`` and
``eigvalsh`` read one triangle of their argument (the lower one unless
told otherwise) as a symmetric matrix, so their adjoints are folded onto
that triangle (``untriangle``; for cholesky, ``grad_cholesky_triangle``
folds and computes in one) and are zero on the other, as NumPy's result
does not depend on it. ``eig`` and ``eigvals`` read the whole
matrix; their rules (``V^-T (diag(gw) + F * (V^T gv)) V^T``, with
``F_ij = 1 / (w_j - w_i)``) and lstsq's are written with functions that
have rules, so they have second derivatives.
"""
import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic, structured
from tangent_ad.runtime import (
    grad_cholesky_triangle, grad_cross_lhs, grad_cross_rhs, grad_dot_lhs, grad_dot_rhs,
    grad_eigh_pair, grad_einsum,
    grad_kron_lhs, grad_kron_rhs, grad_matmul_lhs, grad_matmul_rhs,
    grad_solve_lhs, grad_solve_rhs, grad_svd, grad_tensordot_lhs, grad_tensordot_rhs,
    full_rank_matrix, inverse_gaps, matched_eigenvectors, matrix_transpose, real_matrix, residual_weights,
    unbroadcast, untriangle)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- products --------------------------------------------------------------

@adjoint(np.cross)
def cross(result, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[a] = grad_cross_lhs(d[result], a, b, axisa, axisb, axisc, axis)
    d[b] = grad_cross_rhs(d[result], a, b, axisa, axisb, axisc, axis)


@adjoint(np.dot)
def dot(result, a, b):
    d[a] = grad_dot_lhs(d[result], a, b)
    d[b] = grad_dot_rhs(d[result], a, b)


@adjoint(np.einsum)
def einsum(result, operands, optimize=False):
    """`optimize` orders the contractions only; the adjoints are contracted
    in NumPy's optimized order."""
    d[operands] = grad_einsum(d[result], operands)


@adjoint(np.inner)
def inner(result, a, b):
    d[a] = grad_tensordot_lhs(d[result], a, b, ((-1,), (-1,)))
    d[b] = grad_tensordot_rhs(d[result], a, b, ((-1,), (-1,)))


@adjoint(np.kron)
def kron(result, a, b):
    d[a] = grad_kron_lhs(d[result], a, b)
    d[b] = grad_kron_rhs(d[result], a, b)


@adjoint(np.matmul)
def matmul(result, x1, x2):
    d[x1] = grad_matmul_lhs(d[result], x1, x2)
    d[x2] = grad_matmul_rhs(d[result], x1, x2)


@adjoint(np.outer)
def outer(result, a, b):
    d[a] = np.reshape(np.dot(d[result], np.ravel(b)), np.shape(a))
    d[b] = np.reshape(np.dot(np.ravel(a), d[result]), np.shape(b))


@adjoint(np.tensordot)
def tensordot(result, a, b, axes=2):
    d[a] = grad_tensordot_lhs(d[result], a, b, axes)
    d[b] = grad_tensordot_rhs(d[result], a, b, axes)


@adjoint(np.vdot)
def vdot(result, a, b):
    """sum(conj(a) * b): holomorphic in b, not in a."""
    d[a] = np.reshape(np.conj(d[result] * b), np.shape(a))
    d[b] = np.reshape(d[result] * np.conj(a), np.shape(b))


nonholomorphic(np.vdot)


# ---- np.linalg -------------------------------------------------------------

@adjoint(np.linalg.cholesky)
def cholesky(result, a, upper=False):
    """Reads the lower triangle of a (the upper one with upper=True)."""
    d[a] = grad_cholesky_triangle(d[result], result, upper)  # untriangle(grad_cholesky(...))


@adjoint(np.linalg.det)
def det(result, a):
    d[a] = np.expand_dims(d[result] * result, (-2, -1)) * \
        matrix_transpose(np.linalg.inv(a))


@adjoint(np.linalg.eig)
def eig(result, a):
    """Distinct eigenvalues; the vectors keep norm 1, their phase is free.

    NumPy's eigenvectors have norm 1 and a phase of LAPACK's choosing: the
    derivative keeps the norm and leaves the phase alone (JAX's
    convention), so only functions of the vectors that do not depend on
    their phase (np.abs(v), v v^H) have meaningful gradients. Not
    holomorphic (the norm), in JAX's convention."""
    v = result[1]
    vt = matrix_transpose(v)
    gv = d[result][1] - np.conj(v) * np.expand_dims(np.real(np.sum(d[result][1] * v, -2)), -2)
    d[a] = np.linalg.solve(vt, (np.expand_dims(d[result][0], -1) * np.eye(np.shape(v)[-1]) +
                                inverse_gaps(result[0]) * (vt @ gv)) @ vt)


nonholomorphic(np.linalg.eig)


@adjoint(np.linalg.eigvals)
def eigvals(result, a):
    """Needs distinct eigenvalues: V^-T diag(g) V^T (holomorphic)."""
    vt = matrix_transpose(matched_eigenvectors(a, result))
    d[a] = np.linalg.solve(vt, np.expand_dims(d[result], -1) * vt)


@adjoint(np.linalg.eigh)
def eigh(result, a, UPLO="L"):
    """Needs distinct eigenvalues. Reads the triangle UPLO of a."""
    d[a] = untriangle(grad_eigh_pair(d[result], result), UPLO)


nonholomorphic(np.linalg.eigh, np.linalg.cholesky)  # a complex a is read as Hermitian


@adjoint(np.linalg.inv)
def inv(result, a):
    d[a] = -matrix_transpose(result) @ d[result] @ matrix_transpose(result)


@adjoint(np.linalg.eigvalsh)
def eigvalsh(result, a, UPLO="L"):
    """Needs distinct eigenvalues; real matrices only. Reads the triangle UPLO of a."""
    d[a] = untriangle((np.linalg.eigh(real_matrix(a, "np.linalg.eigvalsh"), UPLO)[1] *
                       np.expand_dims(d[result], -2)) @
                      matrix_transpose(np.linalg.eigh(a, UPLO)[1]), UPLO)


@adjoint(np.linalg.lstsq)
def lstsq(result, a, b, rcond=None):
    """Real a of full rank; x, the residuals and the singular values.

    x = pinv(a) b (either way: more rows or more columns); the residuals
    |b - a x|^2 and the singular values are differentiated too, the rank
    has no derivative."""
    p = np.linalg.pinv(full_rank_matrix(a, result[2], "np.linalg.lstsq"))
    pt = matrix_transpose(p)
    x = np.reshape(result[0], (np.shape(a)[-1], -1))
    gx = np.reshape(d[result][0], (np.shape(a)[-1], -1))
    r = np.reshape(b, (np.shape(a)[0], -1)) - a @ x
    gr = 2.0 * r * residual_weights(d[result][1], b)
    d[b] = np.reshape(pt @ gx + gr, np.shape(b))
    d[a] = r @ matrix_transpose(p @ (pt @ gx)) - (pt @ gx + gr) @ matrix_transpose(x) + \
        (pt @ x) @ matrix_transpose(gx - matrix_transpose(a) @ (pt @ gx)) + \
        grad_svd(d[result][3], result[3], a, True, False)


structured(np.linalg.eig, np.linalg.lstsq)


@adjoint(np.linalg.matrix_power)
def matrix_power(result, a, n):
    """Any integer n: the corner of matrix_power([[a^T, g], [0, a^T]], n)."""
    m = np.shape(a)[-1]
    at = matrix_transpose(a)
    d[a] = np.linalg.matrix_power(np.concatenate((np.concatenate((at, d[result]), -1),
                                                  np.concatenate((np.zeros_like(a), at), -1)),
                                                 -2), n)[..., :m, m:]


@adjoint(np.linalg.pinv)
def pinv(result, a, rcond=None, hermitian=False):
    """Needs a matrix of full rank; real matrices only."""
    d[a] = -matrix_transpose(result) @ d[result] @ matrix_transpose(result) + \
        (matrix_transpose(d[result]) - real_matrix(a, "np.linalg.pinv") @
         (result @ matrix_transpose(d[result]))) @ (result @ matrix_transpose(result)) + \
        (matrix_transpose(result) @ result) @ \
        (matrix_transpose(d[result]) - (matrix_transpose(d[result]) @ result) @ a)


@adjoint(np.linalg.slogdet)
def slogdet(result, a):
    """Not usable yet: indexing the result fails."""
    d[a] = np.expand_dims(d[result][1], (-2, -1)) * matrix_transpose(np.linalg.inv(a))


nonholomorphic(np.linalg.slogdet)  # log |det a| of a complex a


@adjoint(np.linalg.solve)
def solve(result, a, b):
    gb = grad_solve_rhs(d[result], a, result)
    d[a] = grad_solve_lhs(gb, a, result)
    d[b] = unbroadcast(gb, b)


@adjoint(np.linalg.svd)
def svd(result, a, full_matrices=True, compute_uv=True, hermitian=False):
    """Needs distinct nonzero singular values. A complex matrix's vectors are unique up to a phase per pair: derivatives of what does not read the phases (`np.abs(u)`, `u @ np.diag(s) @ vh`) are right."""
    d[a] = grad_svd(d[result], result, a, full_matrices, compute_uv)


nonholomorphic(np.linalg.svd)  # the singular values of a complex a are real
