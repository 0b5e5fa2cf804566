"""Reverse-mode rules for NumPy functions that compute with whole arrays:
``np.gradient`` (central differences, a linear map), ``np.select``
(each choice's adjoint is the adjoint where it is taken),
``np.convolve`` and ``np.correlate`` (bilinear: each operand's adjoint is
the full adjoint convolved with the other operand reversed),
``np.interp`` (linear in fp, piecewise linear in x and xp), ``np.polyval``
(linear in p), ``np.trapezoid`` (bilinear in y and the spacing),
``np.meshgrid`` (each grid's adjoint summed over the axes it is repeated
along) and ``np.unwrap`` (the identity plus piecewise-constant jumps).
Their helpers are in tangent_ad/runtime/array_ops.py and interpolation.py.
"""
import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic, structured
from tangent_ad.runtime import (
    convolution_full, correlation_full, interp_slope, unmeshgrid, polyder_coefficients, unbroadcast,
    ungradient, uninterp, unpolyval, unselect, unselect_default, untrapezoid, untrapezoid_dx,
    untrapezoid_x)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


@adjoint(np.gradient)
def gradient(result, f, axis=None, edge_order=1):
    """Unit spacing only."""
    d[f] = ungradient(d[result], f, axis, edge_order)


@adjoint(np.select)
def select(result, condlist, choicelist, default=0):
    d[choicelist] = unselect(d[result], condlist, choicelist)
    d[default] = unselect_default(d[result], condlist, default)


@adjoint(np.convolve)
def convolve(result, a, v, mode="full"):
    d[a] = np.convolve(convolution_full(d[result], a, v, mode), np.flip(v), "valid")
    d[v] = np.convolve(convolution_full(d[result], a, v, mode), np.flip(a), "valid")


@adjoint(np.correlate)
def correlate(result, a, v, mode="valid"):
    """np.convolve(a, conj(v[::-1])): conjugate-linear in v."""
    d[a] = np.convolve(correlation_full(d[result], a, v, mode), np.conj(v), "valid")
    d[v] = np.conj(np.flip(np.convolve(correlation_full(d[result], a, v, mode), np.flip(a),
                                       "valid")))


nonholomorphic(np.correlate)


@adjoint(np.interp)
def interp(result, x, xp, fp, left=None, right=None, period=None):
    """At a knot, the slope to its right (JAX's); 0 outside the knots; no period.

    NumPy's interp is not differentiable at the knots: there the slope is
    that of the interval to the right (the inner one at the first and last
    knots), as JAX's; outside [xp[0], xp[-1]], where the value is left or
    right, it is 0."""
    d[x] = d[result] * interp_slope(x, xp, fp, period)
    d[xp] = uninterp(-d[result] * interp_slope(x, xp, fp, period), x, xp, 0.0, 0.0, period)
    d[fp] = uninterp(d[result], x, xp, left, right, period)
    d[left] = np.sum(np.where(np.less(x, xp[0]), d[result], 0.0))
    d[right] = np.sum(np.where(np.greater(x, xp[-1]), d[result], 0.0))


@adjoint(np.polyval)
def polyval(result, p, x):
    """Linear in p; in x, the derivative polynomial."""
    d[p] = unpolyval(d[result], p, x)
    d[x] = unbroadcast(d[result] * np.polyval(polyder_coefficients(p), x), x)


@adjoint(np.trapezoid)
def trapezoid(result, y, x=None, dx=1.0, axis=-1):
    """Bilinear in y and the spacing (x, or dx without x)."""
    d[y] = untrapezoid(d[result], y, x, dx, axis)
    d[x] = untrapezoid_x(d[result], y, x, axis)
    d[dx] = untrapezoid_dx(d[result], y, x, axis)


if hasattr(np, "trapz"):  # NumPy < 2.4: the old name of np.trapezoid
    adjoint(np.trapz)(trapezoid)


@adjoint(np.meshgrid)
def meshgrid(result, xi, copy=True, sparse=False, indexing="xy"):
    d[xi] = unmeshgrid(d[result], xi, indexing)


structured(np.meshgrid)


@adjoint(np.unwrap)
def unwrap(result, p, discont=None, axis=-1, period=6.283185307179586):
    """The identity: the multiples of period it adds are constant between jumps."""
    d[p] = d[result]
