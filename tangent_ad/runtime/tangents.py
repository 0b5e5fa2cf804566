"""Runtime helpers of the forward-mode rules (``templates/*_forward.py``).

Most tangents are a line of NumPy in their template; these are the few
that are not. ``jvp_X`` is the tangent of ``np.X``'s result (or of the
runtime helper X's, for forward mode over a gradient), given the tangents
of its arguments. Like the rest of ``tangent_ad.runtime``, this
module depends on NumPy only.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.arrays import as_array, numpy_cholesky, zeros_from
from tangent_ad.runtime.core import _keep_dims, _like, dsinc
from tangent_ad.runtime.linalg import (
    conjugate_transpose, grad_einsum, grad_solve_rhs, matrix_transpose)
from tangent_ad.runtime.linalg_tangents import jvp_singular_slope
from tangent_ad.runtime.reductions import grad_norm
from tangent_ad.runtime.structures import zeros_like
from tangent_ad.runtime.triangles import triangle_matrix

__all__ = ["zero_tangent", "broadcast_like", "jvp_mean", "tangent_array", "jvp_einsum", "jvp_jvp_einsum",
           "jvp_cholesky", "jvp_eigh", "jvp_grad_norm", "jvp_grad_einsum",
           "jvp_grad_solve_rhs", "jvp_abs_slope", "abs_slope_curvature", "d2sinc", "trigamma", "tetragamma"]


_ndarray = np.ndarray


def _transpose(x):
    return np.swapaxes(x, -1, -2)


def zero_tangent(x):
    """The zero tangent of a parameter `x` that has no tangent of its own:
    ``zeros_like(x)`` (the structure, shape and dtype of `x`).

    >>> zero_tangent((1.0, np.ones(2)))
    (0.0, array([0., 0.]))
    """
    return zeros_like(x)


def broadcast_like(t, x):
    """The tangent `t` of the value `x` in `x`'s shape (which `t`
    broadcasts to) and floating dtype: the forward counterpart of
    ``unbroadcast``. `t` itself (a Python float stays a float) when they
    already agree.

    >>> broadcast_like(np.ones(2), np.zeros((3, 2))).shape
    (3, 2)
    >>> broadcast_like(1.5, 2.0)
    1.5
    """
    if type(t) is _ndarray and type(x) is _ndarray and t.shape == x.shape \
            and t.dtype == x.dtype:  # the common case, checked cheaply
        return t
    shape, dtype = np.shape(x), np.result_type(x)
    if np.shape(t) != shape:
        t = np.broadcast_to(t, shape)
    if np.issubdtype(dtype, np.inexact) and np.result_type(t) != dtype:
        t = as_array(t).astype(dtype)
    return t


def jvp_mean(t, axis=None, keepdims=False):
    """The tangent of ``np.mean(a, axis, keepdims=keepdims)`` from the
    tangent `t` of `a`: the mean of `t`, computed for a full reduction of
    a float array without ``np.mean``'s overhead (a third of its time on
    small arrays).

    >>> float(jvp_mean(np.array([1.0, 2.0, 6.0])))
    3.0
    """
    if axis is None and not keepdims and type(t) is _ndarray and t.size \
            and t.dtype.kind in "fc" and t.dtype.itemsize >= 4:
        return np.add.reduce(t, axis=None) / t.size
    return np.mean(t, axis, keepdims=keepdims)


def tangent_array(t, value):
    """The tangent of ``value = np.array(x)`` (or ``np.asarray``,
    ``np.astype``) from the tangent `t` of `x`, which may be a (nested)
    list or tuple of tangents: one array of the value's shape and dtype,
    or zeros when the value is of an integer or boolean type, which
    cannot vary.

    >>> tangent_array((1.0, np.ones(1)[0]), np.zeros(2, np.float32))
    array([1., 1.], dtype=float32)
    >>> tangent_array(np.ones(2), np.zeros(2, int))
    array([0., 0.])
    """
    dtype = np.result_type(value)
    if not np.issubdtype(dtype, np.inexact):
        return zeros_from(value, np.shape(value), np.float64)
    return np.reshape(as_array(t, dtype), np.shape(value))


def jvp_einsum(tangents, operands):
    """The tangent of ``np.einsum(*operands)``: for each operand with a
    nonzero tangent, the same contraction with the tangent in the
    operand's place; their sum. Subscript strings have the tangent None.

    >>> float(jvp_einsum((None, np.ones(2), np.zeros(2)), ("i,i->", np.ones(2), np.ones(2))))
    2.0
    """
    total = None
    for i, tangent in enumerate(tangents):
        if tangent is None or isinstance(operands[i], str) or not np.any(tangent):
            continue
        term = np.einsum(*operands[:i], tangent, *operands[i + 1:])
        total = term if total is None else total + term
    if total is None:
        return np.zeros_like(np.einsum(*operands))
    return total


def jvp_jvp_einsum(dtangents, doperands, tangents, operands):
    """The tangent of ``jvp_einsum(tangents, operands)`` (forward mode over
    forward mode): linear in the tangents, and in each other operand, so
    ``jvp_einsum(dtangents, operands)`` plus, for each pair of operands
    i != j, the contraction with the tangent of i and the tangent of the
    operand j in their places.

    >>> x, y = np.ones(2), np.arange(2.0)
    >>> float(jvp_jvp_einsum((None, 0.0, 0.0), (None, np.ones(2), 0.0),
    ...                      (None, 0.0, np.ones(2)), ("i,i->", x, y)))
    2.0
    """
    def present(t, i):
        return t is not None and not isinstance(operands[i], str) and np.any(t)

    total = jvp_einsum(dtangents, operands)
    operands = list(operands)
    for i, t in enumerate(tangents):
        if not present(t, i):
            continue
        for j, dt in enumerate(doperands):
            if j != i and present(dt, j):
                moved = list(operands)
                moved[i], moved[j] = t, dt
                total = total + np.einsum(*moved)
    return total


def jvp_cholesky(t, factor, upper=False):
    """The tangent of ``factor = np.linalg.cholesky(a, upper=upper)`` from
    the tangent `t` of `a`. Only the triangle of `a` that Cholesky reads
    counts (as a symmetric, or Hermitian, matrix). With ``a = L L^H``:
    ``dL = L phi(L^-1 dA L^-H)``, where ``phi`` keeps the lower triangle
    and halves the diagonal.
    """
    factor = numpy_cholesky(factor)
    lower = conjugate_transpose(factor) if upper else factor
    sym = triangle_matrix(t, upper)
    inner = np.linalg.solve(lower, conjugate_transpose(np.linalg.solve(lower, sym)))
    n = np.shape(inner)[-1]
    phi = np.tril(inner) - 0.5 * inner * np.eye(n, dtype=np.result_type(inner))
    tangent = np.matmul(lower, phi)
    return _like(conjugate_transpose(tangent) if upper else tangent, factor)


def jvp_eigh(t, result, UPLO="L"):
    """The tangents ``(dw, dv)`` of ``w, v = np.linalg.eigh(a, UPLO)`` from
    the tangent `t` of `a` (of the triangle eigh reads). With
    ``k = v^T dA v``: ``dw = diag(k)`` and ``dv = v (f * k)``, where
    ``f[i, j] = 1 / (w[j] - w[i])`` off the diagonal and 0 on it. Needs
    distinct eigenvalues.
    """
    w, v = result
    k = np.matmul(_transpose(np.conj(v)), np.matmul(triangle_matrix(t, UPLO), v))
    gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    n = np.shape(w)[-1]
    off = ~np.eye(n, dtype=bool)
    f = np.where(off, 1.0 / np.where(off, gaps, 1.0), 0.0)
    dw = _like(np.real(np.diagonal(k, axis1=-2, axis2=-1)), w)
    dv = _like(np.matmul(v, f * k), v)
    return type(result)(dw, dv) if hasattr(result, "_fields") else (dw, dv)


# ---- tangents of the helpers that reverse-mode code calls --------------------
# (for forward mode over a gradient, templates/runtime_forward.py)

def jvp_grad_norm(dg, dnorm, dx, g, norm, x, ord=None, axis=None, keepdims=False):
    """The tangent of ``grad_norm(g, norm, x, ord, axis, keepdims)``, the
    adjoint ``g * slope`` of a norm, from the tangents of `g`, `norm` and
    `x`. The slope is x / norm for the 2-norm (and Frobenius),
    sign(x) (|x| / norm)^(p-1) for a vector p-norm, u_k v_k^T (a singular
    pair) for the matrix 2-norm and -2-norm, U V^T for the nuclear norm
    (``jvp_singular_slope``), and piecewise constant for the others
    (for real values: for complex ones the 1-norm's slope conj(x) / |x|
    varies, and other p-norms are refused).

    >>> jvp_grad_norm(0.0, 0.6, np.array([1.0, 0.0]), 1.0, 5.0, np.array([3.0, 4.0]))
    array([ 0.128, -0.096])
    """
    tangent = grad_norm(dg, norm, x, ord, axis, keepdims)
    axes = tuple(range(np.ndim(x))) if axis is None else \
        tuple(a % np.ndim(x) for a in ((axis,) if np.ndim(axis) == 0 else axis))
    if ord is None or ord == "fro" or (ord == 2 and len(axes) == 1):
        tangent = tangent + grad_norm(g, norm, dx, ord, axis, keepdims) \
            - grad_norm(g * dnorm / norm, norm, x, ord, axis, keepdims)
    elif len(axes) == 1 and ord == 1 and np.iscomplexobj(x):
        if not keepdims:
            g = _keep_dims(g, np.shape(x), axes)
        tangent = tangent + g * jvp_abs_slope(dx, x)  # slope conj(x) / |x|
    elif len(axes) == 1 and np.iscomplexobj(x) and np.isfinite(ord) and ord != 0:
        if not keepdims:
            g, norm, dnorm = (_keep_dims(v, np.shape(x), axes) for v in (g, norm, dnorm))
        tangent = tangent + g * np.conj(_complex_p_slope_tangent(dx, x, norm, dnorm, ord))
    elif len(axes) == 1 and np.iscomplexobj(x) and ord != 0:
        raise NoDerivativeError(
            f"the second derivative of the vector norm ord={ord} of complex "
            "values is not supported (finite ord is)")
    elif len(axes) == 1 and np.isfinite(ord) and ord not in (0, 1):
        if not keepdims:
            g, norm, dnorm = (_keep_dims(v, np.shape(x), axes) for v in (g, norm, dnorm))
        size = np.abs(x)
        slope = (ord - 1) * (size / norm) ** (ord - 2) / norm * \
            (dx - np.sign(x) * size * dnorm / norm)
        tangent = tangent + g * slope
    elif len(axes) == 2 and np.iscomplexobj(x) and ord not in (2, -2, "nuc"):
        raise NoDerivativeError(
            f"the second derivative of the matrix norm ord={ord} of complex "
            "values is not supported")
    elif len(axes) == 2 and ord in (2, -2, "nuc"):
        if not keepdims:
            g = _keep_dims(g, np.shape(x), axes)
        tangent = tangent + g * jvp_singular_slope(dx, x, ord, axes)
    return _like(tangent, x)


def _complex_p_slope_tangent(dx, x, norm, dnorm, ord):
    """The tangent of the p-norm's slope ``sgn(x) (|x| / norm)^(p-1)`` at
    complex `x` (``sgn(x) = x / |x|``; unconjugated), with
    ``d|x| = re(conj(sgn x) dx)`` and ``d sgn(x) = (dx - sgn(x) d|x|) / |x|``."""
    size = np.abs(x)
    nonzero = size > 0
    sgn = np.divide(x, size, out=np.zeros_like(x), where=nonzero)
    dsize = np.real(np.conj(sgn) * dx)
    ratio = size / norm
    dratio = dsize / norm - size * dnorm / (norm * norm)
    dsgn = np.divide(dx - sgn * dsize, size, out=np.zeros_like(x), where=nonzero)
    return dsgn * ratio ** (ord - 1) + sgn * (ord - 1) * ratio ** (ord - 2) * dratio


def jvp_grad_einsum(dg, doperands, g, operands):
    """The tangents of ``grad_einsum(g, operands)``: the adjoint of each
    array is linear in `g` and in every other array.

    >>> x, y = np.ones(2), np.arange(2.0)
    >>> jvp_grad_einsum(0.0, (None, np.zeros(2), np.ones(2)), 1.0, ("i,i->", x, y))[1]
    array([1., 1.])
    """
    grads = grad_einsum(dg, operands)
    operands = list(operands)
    for j in range(len(operands)):
        t = doperands[j]
        if grads[j] is None or t is None or isinstance(t, str) or not np.any(t):
            continue  # subscripts (a string or, in the sublist form, lists) have no tangent
        part = grad_einsum(g, operands[:j] + [t] + operands[j + 1:])
        for i in range(len(operands)):
            if i != j and grads[i] is not None:
                grads[i] = grads[i] + part[i]
    return grads


def jvp_grad_solve_rhs(dg, da, y, a, x):
    """The tangent of ``y = grad_solve_rhs(g, a, x)``, the solution of
    a^T y = g: the solution of a^T dy = dg - da^T y.

    >>> jvp_grad_solve_rhs(np.ones(2), np.eye(2), np.ones(2), 2.0 * np.eye(2), np.zeros(2))
    array([0., 0.])
    """
    if np.ndim(x) == np.ndim(a) - 1:  # b was a vector
        shift = np.matmul(matrix_transpose(da), y[..., None])[..., 0]
    else:
        shift = np.matmul(matrix_transpose(da), y)
    return grad_solve_rhs(dg - shift, a, x)


def jvp_abs_slope(t, x):
    """The tangent of ``abs_slope(x)`` for the tangent `t` of `x`: zero for
    a real `x`; for a complex one, with s = x / |x| and
    d|x| = Re(conj(s) t), the tangent of conj(s) is
    conj(t - s Re(conj(s) t)) / |x| (zero at x = 0)."""
    if not np.iscomplexobj(x):
        return np.zeros_like(x, dtype=np.result_type(x, 0.0)) \
            if isinstance(x, np.ndarray) else 0.0
    size = np.abs(x)
    s = np.sign(x)
    ds = (t - s * np.real(np.conj(s) * t)) / np.where(size > 0, size, 1.0)
    return np.conj(np.where(size > 0, ds, 0.0))


def abs_slope_curvature(t, x, u):
    """The tangent of ``jvp_abs_slope(t, x)`` for a tangent `u` of `x`
    (`t` held): zero for a real `x`; for a complex one, with r = |x|,
    s = x / r, a = Re(conj(s) t) and ds = (u - s Re(conj(s) u)) / r,
    ``-(conj(ds) a + conj(s) Re(conj(ds) t)) / r - (conj(t) - conj(s) a)
    Re(conj(s) u) / r**2`` (zero at x = 0). Third derivatives of ``abs``."""
    if not np.iscomplexobj(x):
        return np.zeros_like(x, dtype=np.result_type(x, t, 0.0)) \
            if isinstance(x, np.ndarray) or isinstance(t, np.ndarray) else 0.0
    r = np.abs(x)
    safe = np.where(r > 0, r, 1.0)
    s = np.sign(x)
    a = np.real(np.conj(s) * t)
    ds = (u - s * np.real(np.conj(s) * u)) / safe
    dh = -(np.conj(ds) * a + np.conj(s) * np.real(np.conj(ds) * t)) / safe \
        - (np.conj(t) - np.conj(s) * a) * np.real(np.conj(s) * u) / (safe * safe)
    return np.where(r > 0, dh, 0.0)


def d2sinc(x):
    """The second derivative of ``np.sinc`` at `x` (the slope of `dsinc`):
    (-pi sin(pi x) - 2 dsinc(x)) / x, and its Taylor series near 0.

    >>> float(np.round(d2sinc(0.0), 6)), float(np.round(d2sinc(1.0), 6))
    (-3.289868, 2.0)
    """
    safe = np.where(np.abs(x) < 1e-3, 1.0, x)
    exact = (-np.pi * np.sin(np.pi * safe) - 2.0 * dsinc(safe)) / safe
    x2 = np.square(x)
    series = -np.pi ** 2 / 3.0 + np.pi ** 4 * x2 / 10.0 - np.pi ** 6 * x2 * x2 / 168.0
    return _like(np.where(np.abs(x) < 1e-3, series, exact), x)


def trigamma(x):
    """The trigamma function psi' = (log gamma)'', in NumPy alone: the
    recurrence psi'(x) = psi'(x + 6) + sum 1/(x + k)^2, the asymptotic
    series there, and the reflection formula for x < 1/2.

    >>> float(np.round(trigamma(1.0), 10))  # pi^2 / 6
    1.6449340668
    """
    z = as_array(x, np.float64)
    y, reflect = _reflected(z)
    shift = 0.0
    for k in range(6):
        t = 1.0 / (y + k)
        shift = shift + t * t
    y = y + 6.0
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv + 0.5 * inv2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (
        1 / 42 - inv2 * (1 / 30))))
    psi1 = series + shift
    if reflect is not None:
        psi1 = np.where(reflect, (np.pi / np.sin(np.pi * z)) ** 2 - psi1, psi1)
    return _like(psi1 if np.ndim(x) else psi1[()], x)


def _reflected(z):
    """(`z` with 1 - z where z < 1/2, that mask), for the polygammas'
    reflection formulas; (z, None) when no entry of an ndarray needs it,
    which then skips the formula's sines (most of the time, for positive z)."""
    reflect = z < 0.5
    if type(reflect) is np.ndarray and not reflect.any():
        return z, None
    return np.where(reflect, 1.0 - z, z), reflect


def tetragamma(x):
    """The second derivative of digamma, psi'' = (log gamma)''', in NumPy
    alone, as `trigamma`: the recurrence psi''(x) = psi''(x + 6) - sum
    2/(x + k)^3, the asymptotic series there, and the reflection
    psi''(x) = psi''(1 - x) - 2 pi^3 cos(pi x) / sin(pi x)^3 for x < 1/2.

    >>> float(np.round(tetragamma(1.0), 10))  # -2 zeta(3)
    -2.4041138063
    """
    z = as_array(x, np.float64)
    y, reflect = _reflected(z)
    shift = 0.0
    for k in range(6):
        t = 1.0 / (y + k)
        shift = shift + t * t * t
    shift = 2.0 * shift
    y = y + 6.0
    inv = 1.0 / y
    inv2 = inv * inv
    series = -inv2 - inv * inv2 - 0.5 * inv2 * inv2 + inv2 * inv2 * inv2 * (
        1 / 6 - inv2 * (1 / 6 - inv2 * (3 / 10 - inv2 * (5 / 6))))
    psi2 = series - shift
    if reflect is not None:
        psi2 = np.where(reflect, psi2 - 2.0 * np.pi ** 3 * np.cos(np.pi * z) /
                        np.sin(np.pi * z) ** 3, psi2)
    return _like(psi2 if np.ndim(x) else psi2[()], x)
