"""Runtime helpers of the rules of ``np.linalg.svd`` (reverse:
templates/numpy_linalg.py, forward: templates/numpy_linalg_forward.py).

For the thin decomposition ``a = u @ diag(s) @ vh`` of an m x n matrix
(k = min(m, n) singular values, ``v = vh^H``), with ``p = u^H da v``
and ``f[i, j] = 1 / (s[j]**2 - s[i]**2)`` off the diagonal (0 on it):

    ds  = Re diag(p)
    du  = u (f * (p s + s p^H)) + (1 - u u^H) da v / s
    dv  = v (f * (s p + p^H s)) + (1 - v v^H) da^H u / s

and the adjoint is the transpose of that map. Real matrices only for the
singular vectors (a complex one has a phase freedom in u and v that these
formulas do not fix); the singular values alone work for complex
matrices too. Distinct, nonzero singular values are needed.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError

__all__ = ["grad_svd", "jvp_svd", "jvp_grad_svd", "jvp_jvp_svd"]


def _t(x):
    return np.swapaxes(x, -1, -2)


def _h(x):
    return np.conj(_t(x))


def _thin(a):
    return np.linalg.svd(a, full_matrices=False)


def _gaps(s):
    s2 = s * s
    gaps = np.expand_dims(s2, -2) - np.expand_dims(s2, -1)  # [i, j] = s_j^2 - s_i^2
    off = ~np.eye(np.shape(s)[-1], dtype=bool)
    return np.where(off, 1.0 / np.where(off, gaps, 1.0), 0.0)


def _refuse_vectors(a, full_matrices):
    if np.iscomplexobj(a):
        raise NoDerivativeError(
            "the derivative of the singular vectors of a complex matrix is not supported "
            "(np.linalg.svd(a, compute_uv=False), the singular values alone, is)")
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
    v = _t(vh)
    f = _gaps(s)
    inner = np.zeros(np.shape(a)[:-2] + (np.shape(s)[-1],) * 2)
    total = np.zeros(np.shape(a))
    if gs is not None:
        inner = inner + np.expand_dims(gs, -1) * np.eye(np.shape(s)[-1])
    sd = np.expand_dims(s, -2)  # multiplies columns by s
    if gu is not None:
        ugu = np.matmul(_t(u), gu)
        inner = inner + (f * (ugu - _t(ugu))) * sd
        rest = gu - np.matmul(u, ugu)
        total = total + np.matmul(rest / sd, vh)
    if gvh is not None:
        gv = _t(gvh)
        vgv = np.matmul(_t(v), gv)
        inner = inner + np.expand_dims(s, -1) * (f * (vgv - _t(vgv)))
        rest = gv - np.matmul(v, vgv)
        total = total + np.matmul(u / sd, _t(rest))
    return total + np.matmul(u, np.matmul(inner, vh))


def jvp_svd(da, usv, a, full_matrices=True, compute_uv=True):
    """The tangent of ``usv = np.linalg.svd(a, full_matrices,
    compute_uv)`` from the tangent `da` of `a` (module docstring)."""
    if not compute_uv:
        u, _, vh = _thin(a)
        return np.real(np.einsum("...ji,...jk,...ik->...i", np.conj(u), da, np.conj(vh)))
    _refuse_vectors(a, full_matrices)
    u, s, vh = usv
    v = _t(vh)
    p = np.matmul(_t(u), np.matmul(da, v))
    f = _gaps(s)
    sd = np.expand_dims(s, -2)
    ds = np.diagonal(p, axis1=-2, axis2=-1)
    du = np.matmul(u, f * (p * sd + np.expand_dims(s, -1) * _t(p)))
    du = du + np.matmul(da - np.matmul(u, np.matmul(_t(u), da)), v) / sd
    dv = np.matmul(v, f * (np.expand_dims(s, -1) * p + _t(p) * sd))
    dv = dv + np.matmul(_t(da) - np.matmul(v, np.matmul(vh, _t(da))), u) / sd
    parts = (du, ds, _t(dv))
    return type(usv)(*parts) if hasattr(usv, "_fields") else parts


def jvp_grad_svd(dg, da, g, a, full_matrices=True, compute_uv=True):
    """The tangent of ``grad_svd(g, result, a, ...)`` (forward mode over a
    gradient), for the singular values alone: the adjoint
    ``conj(u diag(g) vh)`` is linear in `g` and moves with u and vh."""
    if compute_uv:
        raise NoDerivativeError(
            "the second derivative of np.linalg.svd is implemented for the singular values "
            "alone (compute_uv=False)")
    _refuse_vectors(a, False)
    u, s, vh = _thin(a)
    du, _, dvh = jvp_svd(da, (u, s, vh), a, False, True)
    total = 0.0
    if dg is not None:
        total = total + _values_adjoint(dg, u, vh)
    weighted = np.expand_dims(g, -2)
    return total + np.matmul(du * weighted, vh) + np.matmul(u * weighted, dvh)


def jvp_jvp_svd(dt, da, t, a, full_matrices=True, compute_uv=True):
    """The tangent of ``jvp_svd(t, usv, a, ...)`` (forward mode over forward
    mode), for the singular values alone: ``Re diag(u^H t v)`` is linear in
    `t` and moves with u and v."""
    if compute_uv:
        raise NoDerivativeError(
            "the second derivative of np.linalg.svd is implemented for the singular values "
            "alone (compute_uv=False)")
    _refuse_vectors(a, False)
    u, s, vh = _thin(a)
    du, _, dvh = jvp_svd(da, (u, s, vh), a, False, True)
    total = jvp_svd(dt, None, a, False, False) if dt is not None else 0.0
    return total + np.einsum("...ji,...jk,...ik->...i", du, t, vh) + \
        np.einsum("...ji,...jk,...ik->...i", u, t, dvh)
