"""Tangents of the adjoints of the matrix decompositions, for forward mode
over a gradient (``templates/runtime_forward.py``): Cholesky's, eigh's,
and the slope of the matrix 2-norm and nuclear norm, which comes from the
singular value decomposition.

Each differentiates its adjoint's formula step by step, with two facts
about inverses and decompositions:

* ``d(L^-1) = -L^-1 dL L^-1``;
* for ``A = U diag(s) V^T`` (thin, distinct singular values), with
  ``X = U^T dA V``: ``U^T dU`` and ``V^T dV`` are antisymmetric, with
  ``(U^T dU)_ij = (s_j X_ij + s_i X_ji) / (s_j^2 - s_i^2)`` and
  ``(V^T dV)_ij = (s_i X_ij + s_j X_ji) / (s_j^2 - s_i^2)`` off the
  diagonal, and the parts of dU, dV outside the spans of U, V are
  ``(I - U U^T) dA V / s`` and ``(I - V V^T) dA^T U / s``.

eigh's and the norms' work for complex matrices too (conjugates where
the adjoints have them; the norms' slopes through the complex singular
vectors of ``svd_formulas``); Cholesky's is for real matrices only.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.linalg import grad_eigh, matrix_transpose
from tangent_ad.runtime.svd_formulas import vectors_tangent

__all__ = ["grad_eigh_pair", "jvp_grad_cholesky", "jvp_grad_eigh", "jvp_singular_slope"]


def _sym(s):
    """The symmetric part of (a stack of) square matrices."""
    return 0.5 * (s + matrix_transpose(s))


def _real_only(name, *values):
    """Refuse complex values rather than return a wrong tangent: these
    formulas transpose where complex matrices need conjugate transposes,
    and the complex SVD has a phase freedom they do not account for."""
    if any(np.iscomplexobj(v) for v in values):
        raise NoDerivativeError(
            f"the second derivative of {name} is implemented for real matrices only")


def _halve_diagonal(m):
    """`m` with its diagonal halved: the lower triangle of L^T dA that
    Cholesky's derivative keeps counts the diagonal once, not twice."""
    return m - 0.5 * m * np.eye(np.shape(m)[-1], dtype=np.result_type(m))


def jvp_grad_cholesky(dg, dlower, result, g, lower, upper=False):
    """The tangent of ``result = grad_cholesky(g, lower, upper)`` from the
    tangents `dg` of the adjoint and `dlower` of the factor.

    With ``P = phi(L^T g)`` (lower triangle, diagonal halved) and
    ``S = L^-T P L^-1``, the adjoint is ``R = sym(S)``. Differentiating,
    with ``M = dL L^-1`` (so ``d(L^-1) = -L^-1 M``)::

        dS = L^-T phi(dL^T g + L^T dg) L^-1 - M^T S - S M
        dR = sym(L^-T phi(dL^T g + L^T dg) L^-1) - M^T R - R M

    since ``sym(M^T S + S M) = M^T R + R M``.

    >>> L, g = np.array([[2.0]]), np.array([[1.0]])
    >>> jvp_grad_cholesky(np.zeros((1, 1)), np.ones((1, 1)), np.array([[0.25]]), g, L)
    array([[-0.125]])
    """
    _real_only("np.linalg.cholesky", dg, dlower, g, lower)
    if upper:
        dg, dlower, g, lower = (matrix_transpose(m) for m in (dg, dlower, g, lower))
    inverse = np.linalg.inv(lower)
    moved = _halve_diagonal(np.tril(np.matmul(matrix_transpose(dlower), g)
                                    + np.matmul(matrix_transpose(lower), dg)))
    spread = _sym(np.matmul(np.matmul(matrix_transpose(inverse), moved), inverse))
    m = np.matmul(dlower, inverse)
    return spread - np.matmul(matrix_transpose(m), result) - np.matmul(result, m)


def grad_eigh_pair(g, eigen):
    """Adjoint of `a` in ``eigen = np.linalg.eigh(a)``: ``grad_eigh(g,
    eigen)``. The reverse rule of eigh calls it rather than ``grad_eigh``
    because templates reserve the parameter name ``result`` (which
    ``grad_eigh`` uses) for the value they differentiate, so only this
    spelling can have a forward rule.

    >>> grad_eigh_pair((np.array([0.0, 1.0]), None), np.linalg.eigh(np.diag([1.0, 2.0])))
    array([[0., 0.],
           [0., 1.]])
    """
    return grad_eigh(g, eigen)


def jvp_grad_eigh(dg, deigen, g, eigen):
    """The tangent of ``grad_eigh_pair(g, eigen)`` from the tangents
    ``dg = (dgw, dgv)`` of the adjoints of the eigenvalues and vectors and
    ``deigen = (dw, dv)`` of the decomposition. Adjoints or tangents may
    be None (zero).

    The adjoint is ``herm(conj(V) K V^T)`` with ``K = diag(re gw) + F *
    (V^T gv)``, ``F_ij = 1 / (w_j - w_i)`` off the diagonal (0 on it) and
    ``herm(S) = (S + S^H) / 2`` (``grad_eigh``; conj does nothing to a real
    V), so::

        dK = diag(re dgw) + dF * (V^T gv) + F * (dV^T gv + V^T dgv)
        dF_ij = -(dw_j - dw_i) F_ij^2
        d herm(conj(V) K V^T) = herm(conj(dV) K V^T + conj(V) dK V^T + conj(V) K dV^T)

    >>> eigen = np.linalg.eigh(np.diag([1.0, 2.0]))
    >>> jvp_grad_eigh((np.array([1.0, 0.0]), None), (np.zeros(2), np.zeros((2, 2))),
    ...               (np.zeros(2), None), eigen)
    array([[1., 0.],
           [0., 0.]])
    """
    (gw, gv), (dgw, dgv), (w, v), (dw, dv) = g, dg, eigen, deigen
    n = np.shape(w)[-1]
    eye = np.eye(n, dtype=v.dtype)
    vt = matrix_transpose(v)
    dv = np.zeros_like(v) if dv is None else dv
    gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # w_j - w_i
    off = ~np.eye(n, dtype=bool)
    f = np.divide(1.0, gaps, out=np.zeros_like(gaps), where=off)
    inner = np.zeros_like(v)
    dinner = np.zeros_like(v)
    if gw is not None:
        inner = inner + np.expand_dims(np.real(gw), -1) * eye
    if dgw is not None:
        dinner = dinner + np.expand_dims(np.real(dgw), -1) * eye
    if gv is not None:
        projected = np.matmul(vt, gv)
        inner = inner + f * projected
        if dw is not None:
            dgaps = np.expand_dims(dw, -2) - np.expand_dims(dw, -1)
            dinner = dinner - dgaps * f * f * projected
        dinner = dinner + f * np.matmul(matrix_transpose(dv), gv)
    if dgv is not None:
        dinner = dinner + f * np.matmul(vt, dgv)
    dvt = matrix_transpose(dv)
    left, dleft = (np.conj(v), np.conj(dv)) if np.iscomplexobj(v) else (v, dv)
    moved = np.matmul(np.matmul(dleft, inner), vt) + np.matmul(np.matmul(left, dinner), vt) \
        + np.matmul(np.matmul(left, inner), dvt)
    return 0.5 * (moved + np.conj(matrix_transpose(moved)))


def _complex_singular_slope_tangent(da, a, ord):
    """The tangent of the conjugated slope, ``conj(U V^H)`` for 'nuc' or
    ``conj(u_k v_k^H)`` for ord 2, -2, of a complex `a`: through the
    tangents of the singular vectors (``svd_formulas.vectors_tangent``),
    whose phases cancel in these products."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    du, _, dvh = vectors_tangent(da, u, s, vh)
    if ord == "nuc":
        moved = np.matmul(du, vh) + np.matmul(u, dvh)
    else:
        k = 0 if ord == 2 else np.shape(s)[-1] - 1
        pick, row = slice(k, k + 1), slice(k, k + 1)
        moved = du[..., :, pick] * vh[..., row, :] + u[..., :, pick] * dvh[..., row, :]
    return np.conj(moved)


def jvp_singular_slope(dx, x, ord, axes):
    """The tangent, in the direction `dx`, of the slope of the matrix norm
    ``np.linalg.norm(x, ord, axes)`` for ord 2, -2 (the outer product
    ``u_k v_k^T`` of the largest or smallest singular pair) and 'nuc'
    (``U V^T``). Needs distinct singular values for ord 2 and -2, and
    nonzero ones.

    Both tangents have the form ``U K V^T + (I - U U^T) dA V W V^T +
    U W U^T dA (I - V V^T)``. For 'nuc', ``W = diag(1 / s)`` and
    ``K = U^T dU + (V^T dV)^T``, which simplifies to
    ``K_ij = (X_ij - X_ji) / (s_i + s_j)``. For the pair k,
    ``W = e_k e_k^T / s_k`` and ``K = a e_k^T + e_k b^T``, where
    ``du_k = U a + ...`` and ``dv_k = V b + ...``:
    ``a_j = (s_k X_jk + s_j X_kj) / (s_k^2 - s_j^2)``,
    ``b_j = (s_k X_kj + s_j X_jk) / (s_k^2 - s_j^2)``, ``a_k = b_k = 0``.

    >>> jvp_singular_slope(np.array([[0.0, 1.0], [0.0, 0.0]]), np.diag([2.0, 1.0]), 2, (0, 1))
    array([[0.        , 0.66666667],
           [0.33333333, 0.        ]])
    """
    a = np.moveaxis(x, axes, (-2, -1))
    da = np.moveaxis(dx, axes, (-2, -1))
    if np.iscomplexobj(a) or np.iscomplexobj(da):
        return np.moveaxis(_complex_singular_slope_tangent(da, a, ord), (-2, -1), axes)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    ut, v = matrix_transpose(u), matrix_transpose(vh)
    projected = np.matmul(np.matmul(ut, da), v)  # X = U^T dA V
    if ord == "nuc":
        inner = (projected - matrix_transpose(projected)) / \
            (np.expand_dims(s, -1) + np.expand_dims(s, -2))
        weights = 1.0 / s
    else:
        k = 0 if ord == 2 else np.shape(s)[-1] - 1
        unit = np.eye(np.shape(s)[-1], dtype=s.dtype)[k]
        sk = s[..., k:k + 1]
        gap = np.where(unit == 1.0, 1.0, sk * sk - s * s)
        column, row = projected[..., :, k], projected[..., k, :]  # X_jk, X_kj
        left = (1.0 - unit) * (sk * column + s * row) / gap
        right = (1.0 - unit) * (sk * row + s * column) / gap
        inner = np.expand_dims(left, -1) * unit + np.expand_dims(unit, -1) * \
            np.expand_dims(right, -2)
        weights = unit / sk
    outside_u = np.matmul(da, v) * np.expand_dims(weights, -2)  # dA V W
    outside_u = outside_u - np.matmul(u, np.matmul(ut, outside_u))
    outside_v = np.expand_dims(weights, -1) * np.matmul(ut, da)  # W U^T dA
    outside_v = outside_v - np.matmul(np.matmul(outside_v, v), vh)
    tangent = np.matmul(np.matmul(u, inner), vh) + np.matmul(outside_u, vh) + \
        np.matmul(u, outside_v)
    return np.moveaxis(tangent, (-2, -1), axes)
