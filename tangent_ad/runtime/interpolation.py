"""Runtime helpers of the rules of ``np.interp``, ``np.polyval``,
``np.trapezoid``, ``np.correlate`` and ``np.meshgrid``
(templates/numpy_arrays.py).

``np.interp(x, xp, fp)`` is linear in ``fp`` (and ``left``, ``right``)
and piecewise linear in ``x`` and ``xp``. Its helpers locate each ``x``
the way JAX's ``jnp.interp`` does: in the interval ``[xp[i-1], xp[i]]``
with ``i = clip(searchsorted(xp, x, 'right'), 1, len(xp) - 1)``, so at an
interior knot the slope is that of the interval to its right, and at the
first and last knots that of the interval inside; outside ``[xp[0],
xp[-1]]`` the value is ``left`` or ``right`` and has slope 0. Each helper
is linear in the adjoint or tangent it moves, and has a forward rule
(templates/numpy_arrays_forward.py), so second derivatives follow.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.arrays import as_array, scatter_add, zeros_from
from tangent_ad.runtime.core import _like, unbroadcast

__all__ = ["interp_slope", "uninterp", "uninterp_steps", "unpolyval", "polyder_coefficients",
           "untrapezoid", "untrapezoid_x", "untrapezoid_dx", "correlation_full", "unmeshgrid"]


# ---- np.interp ---------------------------------------------------------------

def _at(values, index):
    """``values[index]`` for an integer array `index`, dispatched on the
    index's array library too (np.take dispatches on `values` alone)."""
    flat = np.take_along_axis(as_array(values), np.reshape(index, (-1,)), 0)
    return np.reshape(flat, np.shape(index))


def _interval(x, xp, period):
    """(lower knot index, upper knot index, fraction t, inside mask, 1 / width)."""
    if period is not None:
        raise NoDerivativeError(
            "the derivative of np.interp is implemented without period only",
            hint="unwrap x with np.mod (x - xp[0]) % period + xp[0] before calling np.interp")
    n = np.shape(xp)[0]
    if n < 2:  # one knot: the value is fp[0] there, left or right elsewhere
        zero = np.zeros(np.shape(x), dtype=int)
        return zero, zero, np.zeros(np.shape(x)), x == xp[0], np.zeros(np.shape(x))
    hi = np.clip(np.searchsorted(xp, x, side="right"), 1, n - 1)
    lo = hi - 1
    width = _at(xp, hi) - _at(xp, lo)
    inverse = np.where(width != 0, 1.0 / np.where(width != 0, width, 1.0), 0.0)
    inside = (x >= np.take(xp, 0)) & (x <= np.take(xp, -1))
    return lo, hi, (x - _at(xp, lo)) * inverse, inside, inverse


def interp_slope(x, xp, fp, period=None):
    """The slope of ``np.interp(x, xp, fp)`` in `x`: that of the interval
    holding each x (JAX's at the knots), 0 outside ``[xp[0], xp[-1]]``.
    Linear in `fp`.

    >>> interp_slope(np.array([0.5, 1.0, 3.0]), np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, 3.0]))
    array([2., 1., 0.])
    """
    lo, hi, _, inside, inverse = _interval(x, xp, period)
    slope = np.where(inside, (_at(fp, hi) - _at(fp, lo)) * inverse, 0.0)
    return slope if np.ndim(x) else slope[()]


def _scatter(values, index, n):
    """The sums of `values` at the positions `index`, in n slots (in the
    values' array library)."""
    return scatter_add(zeros_from(values, (n,)), (np.ravel(index),), np.ravel(values))


def uninterp(g, x, xp, left=None, right=None, period=None):
    """The adjoint of `fp` in ``np.interp(x, xp, fp, left, right)``, a
    linear map of fp: ``(1 - t) g`` to the lower knot of each interval and
    ``t g`` to the upper one, and the adjoint of the points left of xp[0]
    (right of xp[-1]) to fp[0] (fp[-1]) when `left` (`right`) is None.

    >>> uninterp(np.ones(2), np.array([0.25, 5.0]), np.array([0.0, 1.0]))
    array([0.75, 1.25])
    """
    lo, hi, t, inside, _ = _interval(x, xp, period)
    g = np.broadcast_to(g, np.shape(x))
    n = np.shape(xp)[0]
    out = _scatter(np.where(inside, g * (1 - t), 0.0), lo, n) + \
        _scatter(np.where(inside, g * t, 0.0), hi, n)
    slots = np.arange(n)
    if left is None:
        out = out + np.sum(np.where(x < np.take(xp, 0), g, 0.0)) * (slots == 0)
    if right is None:
        out = out + np.sum(np.where(x > np.take(xp, -1), g, 0.0)) * (slots == n - 1)
    return out


def uninterp_steps(g, x, xp, period=None):
    """The adjoint of the map ``fp -> interp_slope(x, xp, fp)``: ``g / h``
    to the upper knot of each interval, ``-g / h`` to the lower one.

    >>> uninterp_steps(np.ones(1), np.array([0.5]), np.array([0.0, 2.0]))
    array([-0.5,  0.5])
    """
    lo, hi, _, inside, inverse = _interval(x, xp, period)
    n = np.shape(xp)[0]
    step = np.where(inside, np.broadcast_to(g, np.shape(x)) * inverse, 0.0)
    return _scatter(step, hi, n) - _scatter(step, lo, n)


# ---- np.polyval --------------------------------------------------------------

def polyder_coefficients(p):
    """The coefficients of the derivative of the polynomial `p` (highest
    power first, as ``np.polyval`` reads them; linear in p).

    >>> polyder_coefficients(np.array([3.0, 2.0, 1.0]))
    array([6., 2.])
    """
    n = np.shape(p)[0]
    powers = np.reshape(np.arange(n - 1, 0, -1), (-1,) + (1,) * (np.ndim(p) - 1))
    return p[:-1] * powers


def unpolyval(g, p, x, order=0):
    """The adjoint of `p` in ``np.polyval(p, x)`` (``sum_k p[k] x**(n-1-k)``):
    ``g x**(n-1-k)`` reduced to the shape of p[k]; with `order`, the same
    with the `order`-th derivative of each power (for the tangent of this
    helper in x).

    >>> unpolyval(1.0, np.zeros(3), 2.0)
    array([4., 2., 1.])
    """
    n = np.shape(p)[0]
    parts = []
    for k in range(n):
        power = n - 1 - k
        factor = np.prod(np.arange(power, power - order, -1)) if order else 1
        term = factor * np.power(x, max(power - order, 0)) if power >= order else \
            np.zeros(np.shape(x))
        parts.append(unbroadcast(g * term, p[k]))
    return _like(np.stack(parts), p)


# ---- np.trapezoid --------------------------------------------------------------

def _weights(x, dx, n, axis, ndim):
    """The weights w of ``trapezoid(y) = sum(w * y, axis)``, shaped to
    broadcast against y: dx (1/2 at both ends) for even spacing, half the
    spacing around each point for the points `x`."""
    if x is None:
        if np.ndim(dx) != 0:
            raise NoDerivativeError("the derivative of np.trapezoid takes a scalar dx")
        factors = np.ones(n)
        factors[0] = factors[-1] = 0.5
        if n == 1:
            factors[0] = 0.0
        w = factors * dx
    else:
        if np.ndim(x) == 1:
            x = np.reshape(x, (-1,) + (1,) * (ndim - 1 - axis % ndim))
        steps = np.diff(x, axis=axis)
        first = np.zeros_like(np.take(x, [0], axis=axis))
        w = 0.5 * (np.concatenate([first, steps], axis=axis) +
                   np.concatenate([steps, first], axis=axis))
        return w
    return np.reshape(w, (-1,) + (1,) * (ndim - 1 - axis % ndim))


def untrapezoid(g, y, x=None, dx=1.0, axis=-1):
    """The adjoint of `y` in ``np.trapezoid(y, x, dx, axis)``: `g` spread
    along `axis` with the weights of the rule (linear in g, and in x or dx).

    >>> untrapezoid(1.0, np.zeros(3), dx=2.0)
    array([1., 2., 1.])
    """
    n, ndim = np.shape(y)[axis], np.ndim(y)
    return _like(np.expand_dims(g, axis) * _weights(x, dx, n, axis, ndim), y)


def untrapezoid_x(g, y, x, axis=-1):
    """The adjoint of the points `x` in ``np.trapezoid(y, x, axis=axis)``:
    ``(y[i-1] - y[i+1]) / 2`` inside, ``-(y[0] + y[1]) / 2`` and
    ``(y[-2] + y[-1]) / 2`` at the ends, times `g` (linear in g and in y).

    >>> untrapezoid_x(1.0, np.array([1.0, 2.0, 4.0]), np.zeros(3))
    array([-1.5, -1.5,  3. ])
    """
    y = np.moveaxis(y, axis, -1)
    n = np.shape(y)[-1]
    pad = zeros_from(y, np.shape(y)[:-1] + (1,))
    before = np.concatenate([pad, y[..., :-1]], -1)
    after = np.concatenate([y[..., 1:], pad], -1)
    ends = np.zeros(n)  # -y[0] / 2 at the first point, +y[-1] / 2 at the last
    ends[0] -= 0.5
    ends[-1] += 0.5
    s = 0.5 * (before - after) + ends * y
    out = np.moveaxis(np.expand_dims(g, -1) * s, -1, axis)
    if np.ndim(x) == 1:
        return _like(np.sum(np.moveaxis(out, axis, -1), axis=tuple(range(np.ndim(out) - 1))), x)
    return unbroadcast(out, x)


def untrapezoid_dx(g, y, x=None, axis=-1):
    """The adjoint of the spacing dx of ``np.trapezoid(y, dx=dx, axis=axis)``:
    ``sum(g * trapezoid(y, dx=1))``; 0 when points `x` are given (NumPy
    then ignores dx). Linear in g and in y.

    >>> untrapezoid_dx(2.0, np.array([1.0, 3.0]))
    np.float64(4.0)
    """
    if x is not None:
        return np.zeros(())[()]
    return np.sum(g * np.trapezoid(y, axis=axis))


# ---- np.correlate --------------------------------------------------------------

def correlation_full(g, a, v, mode="valid"):
    """The adjoint `g` of ``np.correlate(a, v, mode)`` placed in the full
    correlation (zeros outside), the full convolution of a with
    ``conj(v[::-1])``. 'same' keeps it from (len(v) - 1) // 2 on, or from
    len(a) // 2 when a is the shorter (NumPy swaps the operands then).

    >>> correlation_full(np.ones(2), np.ones(3), np.ones(2), "valid")
    array([0., 1., 1., 0.])
    """
    n, m = np.size(a), np.size(v)
    mode = {"f": "full", "s": "same", "v": "valid"}.get(str(mode)[:1], mode)
    same = (m - 1) // 2 if n >= m else n // 2
    start = {"full": 0, "same": same, "valid": min(n, m) - 1}[mode]
    g = np.reshape(g, (-1,))
    return np.pad(g, (start, n + m - 1 - start - np.size(g)))


# ---- np.meshgrid ---------------------------------------------------------------

def unmeshgrid(g, xi, indexing="xy"):
    """The adjoints of the coordinate arrays `xi` of ``np.meshgrid(*xi,
    indexing=indexing)`` from those `g` of the grids (dense or sparse):
    each grid summed over every axis but its own (with 'xy', the first
    two grids run along axes 1 and 0), in the shape of its array.

    >>> unmeshgrid([np.ones((2, 3)), np.ones((2, 3))], [np.zeros(3), np.zeros(2)])
    [array([2., 2., 2.]), array([3., 3.])]
    """
    n = len(xi)
    out = []
    for i, (gi, x) in enumerate(zip(g, xi)):
        axis = {0: 1, 1: 0}.get(i, i) if indexing == "xy" and n > 1 else i
        others = tuple(k for k in range(np.ndim(gi)) if k != axis)
        total = np.sum(gi, axis=others) if others else gi
        out.append(_like(np.reshape(total, np.shape(x)), x))
    return out
