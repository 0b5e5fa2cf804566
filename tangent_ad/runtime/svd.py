"""Runtime helpers of the rules of ``np.linalg.svd`` (reverse:
templates/numpy_linalg.py, forward: templates/numpy_linalg_forward.py).

For the thin decomposition ``a = u @ diag(s) @ vh`` of an m x n matrix
(k = min(m, n) singular values, ``v = vh^H``), with ``p = u^H da v``
and ``f[i, j] = 1 / (s[j]**2 - s[i]**2)`` off the diagonal (0 on it):

    ds  = Re diag(p)
    du  = u (f * (p s + s p^H) + diag(i Im p_ii / s_i)) + (1 - u u^H) da v / s
    dv  = v (f * (s p + p^H s)) + (1 - v v^H) da^H u / s

and the adjoint is the transpose of that map. A complex matrix's
vectors are unique only up to a phase per pair (u_i e^{it}, v_i e^{it});
the diagonal term is one choice of how the phases move (dv has no
imaginary diagonal), so derivatives of what does not depend on the
phases (``np.abs(u)``, ``u @ np.diag(s) @ vh``, projectors) are right,
and those of a function that reads a phase are of that choice. Distinct,
nonzero singular values are needed. The formulas for the vectors are in
svd_formulas.py, written once for arrays and for dual numbers, which
give their second derivatives.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.svd_formulas import Dual, vectors_adjoint, vectors_tangent

__all__ = ["grad_svd", "jvp_svd", "jvp_grad_svd", "jvp_jvp_svd"]


def _t(x):
    return np.swapaxes(x, -1, -2)


def _thin(a):
    return np.linalg.svd(a, full_matrices=False)


def _refuse_vectors(a, full_matrices):
    m, n = np.shape(a)[-2:]
    if full_matrices and m != n:
        raise NoDerivativeError(
            "the derivative of np.linalg.svd with full_matrices=True of a non-square matrix "
            "is not defined (its extra singular vectors are not unique): pass "
            "full_matrices=False")


def _values_adjoint(g, u, vh):
    """The adjoint of ``s`` alone: ``conj(u diag(g) vh)`` (JAX's convention,
    as the other reverse rules; svd is not holomorphic)."""
    return np.conj(np.matmul(u * np.expand_dims(g, -2), vh))


def grad_svd(g, usv, a, full_matrices=True, compute_uv=True):
    """The adjoint of `a` in ``usv = np.linalg.svd(a, full_matrices,
    compute_uv)`` from the adjoint `g` of `usv` (``(gu, gs, gvh)``,
    entries possibly None, or ``gs`` alone without `compute_uv`). Its
    parameter is not named ``result``, which templates reserve, so that it
    can have a forward rule.

    >>> a = np.array([[3.0, 0.0], [0.0, 2.0]])
    >>> grad_svd(np.array([1.0, 0.0]), np.linalg.svd(a, compute_uv=False), a, compute_uv=False)
    array([[1., 0.],
           [0., 0.]])
    """
    if not compute_uv:
        u, _, vh = _thin(a)
        return _values_adjoint(g, u, vh)
    _refuse_vectors(a, full_matrices)
    u, s, vh = usv
    gu, gs, gvh = g
    if gu is None and gs is None and gvh is None:
        return np.zeros_like(a)
    return vectors_adjoint(gu, gs, gvh, u, s, vh)


def jvp_svd(da, usv, a, full_matrices=True, compute_uv=True):
    """The tangent of ``usv = np.linalg.svd(a, full_matrices,
    compute_uv)`` from the tangent `da` of `a` (module docstring)."""
    if not compute_uv:
        u, _, vh = _thin(a)
        return np.real(np.einsum("...ji,...jk,...ik->...i", np.conj(u), da, np.conj(vh)))
    _refuse_vectors(a, full_matrices)
    u, s, vh = usv
    parts = vectors_tangent(da, u, s, vh)
    return type(usv)(*parts) if hasattr(usv, "_fields") else parts


def jvp_grad_svd(dg, da, g, a, full_matrices=True, compute_uv=True):
    """The tangent of ``grad_svd(g, result, a, ...)`` (forward mode over a
    gradient), for the singular values alone: the adjoint
    ``conj(u diag(g) vh)`` is linear in `g` and moves with u and vh."""
    if compute_uv:
        return _dual_adjoint(dg, da, g, a, full_matrices)
    _refuse_vectors(a, False)
    u, s, vh = _thin(a)
    du, _, dvh = jvp_svd(da, (u, s, vh), a, False, True)
    total = 0.0
    if dg is not None:
        total = total + _values_adjoint(dg, u, vh)
    weighted = np.expand_dims(g, -2)
    return total + np.conj(np.matmul(du * weighted, vh) + np.matmul(u * weighted, dvh))


def jvp_jvp_svd(dt, da, t, a, full_matrices=True, compute_uv=True):
    """The tangent of ``jvp_svd(t, usv, a, ...)`` (forward mode over forward
    mode), for the singular values alone: ``Re diag(u^H t v)`` is linear in
    `t` and moves with u and v."""
    if compute_uv:
        return _dual_tangent(dt, da, t, a, full_matrices)
    _refuse_vectors(a, False)
    u, s, vh = _thin(a)
    du, _, dvh = jvp_svd(da, (u, s, vh), a, False, True)
    total = jvp_svd(dt, None, a, False, False) if dt is not None else 0.0
    return total + np.real(np.einsum("...ji,...jk,...ik->...i", np.conj(du), t, np.conj(vh)) +
                           np.einsum("...ji,...jk,...ik->...i", np.conj(u), t, np.conj(dvh)))


# ---- second derivatives of the vectors: the formulas on dual numbers ------------

def _moving(a, da, full_matrices):
    """(u, s, vh) of a as dual numbers carrying their tangents for `da`."""
    usv = np.linalg.svd(a, full_matrices=full_matrices)
    tangents = jvp_svd(da, usv, a, full_matrices, True)
    return [Dual(x, t) for x, t in zip(usv, tangents)]


def _dual_adjoint(dg, da, g, a, full_matrices):
    """The tangent of ``grad_svd(g, usv, a)`` with the vectors, from the
    tangents of the adjoints `g` (``dg``, entries possibly None) and of a."""
    _refuse_vectors(a, full_matrices)
    u, s, vh = _moving(a, da, full_matrices) if da is not None else \
        [Dual(x) for x in np.linalg.svd(a, full_matrices=full_matrices)]
    dg = (None, None, None) if dg is None else dg
    parts = [None if x is None else Dual(x, t) for x, t in zip(g, dg)]
    if all(x is None for x in parts):
        return np.zeros_like(a)
    out = vectors_adjoint(*parts, u, s, vh)
    return np.zeros_like(a) if out.t is None else out.t


def _dual_tangent(dt, da, t, a, full_matrices):
    """The tangent of ``jvp_svd(t, usv, a)`` with the vectors, from the
    tangents `dt` of t and `da` of a."""
    _refuse_vectors(a, full_matrices)
    usv = np.linalg.svd(a, full_matrices=full_matrices)
    u, s, vh = _moving(a, da, full_matrices) if da is not None else [Dual(x) for x in usv]
    out = vectors_tangent(Dual(t, dt), u, s, vh)
    parts = tuple(np.zeros_like(x.v) if x.t is None else x.t for x in out)
    return type(usv)(*parts) if hasattr(usv, "_fields") else parts
