"""Forward-mode rules for ``np.gradient``, ``np.select``, ``np.convolve``,
``np.correlate``, ``np.interp``, ``np.polyval`` and ``np.trapezoid``, and
for the runtime helpers of their reverse rules and of ``np.cross``'s (for
forward mode over a gradient). Most are linear in the array they move:
the tangent is the same call on the tangent (bilinear ones have a term
per operand). The interpolation helpers also move with the knots: their
tangents follow from ``t = (x - xp[i-1]) / (xp[i] - xp[i-1])``, whose
tangent is ``(dx - interp(x, xp, dxp)) / h``."""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    convolution_full, correlation_full, grad_cross_lhs, unmeshgrid, grad_cross_rhs, interp_slope,
    polyder_coefficients, real_matrix, ungradient, uninterp, uninterp_steps, unpolyval, unselect,
    unselect_default, untrapezoid, untrapezoid_dx, untrapezoid_x)

d = None  # d[x] is the tangent of x; templates are parsed, never run


@tangent(np.gradient)
def gradient(result, f, axis=None, edge_order=1):
    d[result] = np.gradient(d[f], axis=axis, edge_order=edge_order)


@tangent(np.select)
def select(result, condlist, choicelist, default=0):
    d[result] = np.select(condlist, d[choicelist], d[default])


@tangent(np.convolve)
def convolve(result, a, v, mode="full"):
    d[result] = np.convolve(d[a], v, mode) + np.convolve(a, d[v], mode)



@tangent(np.correlate)
def correlate(result, a, v, mode="valid"):
    d[result] = np.correlate(d[a], v, mode) + np.correlate(a, d[v], mode)


@tangent(np.interp)
def interp(result, x, xp, fp, left=None, right=None, period=None):
    """At the knots, the slope of the interval to the right (JAX's)."""
    d[result] = interp_slope(x, xp, fp, period) * \
        (d[x] - np.interp(x, xp, d[xp], 0.0, 0.0, period)) + \
        np.interp(x, xp, d[fp], d[left], d[right], period)


@tangent(np.polyval)
def polyval(result, p, x):
    d[result] = np.polyval(d[p], x) + np.polyval(polyder_coefficients(p), x) * d[x]


@tangent(np.trapezoid)
def trapezoid(result, y, x=None, dx=1.0, axis=-1):
    """dx counts only without x, as in NumPy."""
    d[result] = np.trapezoid(d[y], x, dx, axis) + np.trapezoid(y, d[x], dx, axis) + \
        d[dx] * np.trapezoid(y, None, 1.0, axis) * (x is None)


if hasattr(np, "trapz"):  # NumPy < 2.4: the old name of np.trapezoid
    tangent(np.trapz)(trapezoid)


@tangent(np.meshgrid)
def meshgrid(result, xi, copy=True, sparse=False, indexing="xy"):
    d[result] = np.meshgrid(*d[xi], copy=copy, sparse=sparse, indexing=indexing)


@tangent(np.unwrap)
def unwrap(result, p, discont=None, axis=-1, period=6.283185307179586):
    d[result] = d[p]


# ---- the adjoints of the reverse rules -------------------------------------

@tangent(grad_cross_lhs)
def grad_cross_lhs_rule(result, g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[result] = grad_cross_lhs(d[g], a, b, axisa, axisb, axisc, axis) + \
        grad_cross_lhs(g, a, d[b], axisa, axisb, axisc, axis)


@tangent(grad_cross_rhs)
def grad_cross_rhs_rule(result, g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[result] = grad_cross_rhs(d[g], a, b, axisa, axisb, axisc, axis) + \
        grad_cross_rhs(g, d[a], b, axisa, axisb, axisc, axis)


@tangent(ungradient)
def ungradient_rule(result, g, f, axis=None, edge_order=1):
    d[result] = ungradient(d[g], f, axis, edge_order)


@tangent(unselect)
def unselect_rule(result, g, condlist, choicelist):
    d[result] = unselect(d[g], condlist, choicelist)


@tangent(unselect_default)
def unselect_default_rule(result, g, condlist, default):
    d[result] = unselect_default(d[g], condlist, default)


@tangent(real_matrix)
def real_matrix_rule(result, a, what):
    d[result] = real_matrix(d[a], what)


@tangent(convolution_full)
def convolution_full_rule(result, g, a, v, mode="full"):
    d[result] = convolution_full(d[g], a, v, mode)


@tangent(correlation_full)
def correlation_full_rule(result, g, a, v, mode="valid"):
    d[result] = correlation_full(d[g], a, v, mode)


@tangent(interp_slope)
def interp_slope_rule(result, x, xp, fp, period=None):
    """Linear in fp; piecewise constant in x; 1 / h moves with the knots."""
    d[result] = interp_slope(x, xp, d[fp], period) - \
        result * interp_slope(x, xp, d[xp], period)


@tangent(uninterp)
def uninterp_rule(result, g, x, xp, left=None, right=None, period=None):
    d[result] = uninterp(d[g], x, xp, left, right, period) + uninterp_steps(
        g * (d[x] - np.interp(x, xp, d[xp], 0.0, 0.0, period)), x, xp, period)


@tangent(uninterp_steps)
def uninterp_steps_rule(result, g, x, xp, period=None):
    d[result] = uninterp_steps(d[g] - g * interp_slope(x, xp, d[xp], period), x, xp, period)


@tangent(polyder_coefficients)
def polyder_coefficients_rule(result, p):
    d[result] = polyder_coefficients(d[p])


@tangent(unpolyval)
def unpolyval_rule(result, g, p, x, order=0):
    d[result] = unpolyval(d[g], p, x, order) + unpolyval(g * d[x], p, x, order + 1)


@tangent(untrapezoid)
def untrapezoid_rule(result, g, y, x=None, dx=1.0, axis=-1):
    """Linear in g, and in the weights (x, or dx without x)."""
    d[result] = untrapezoid(d[g], y, x, dx, axis) + untrapezoid(g, y, d[x], dx, axis) + \
        untrapezoid(g, y, None, d[dx], axis) * (x is None)


@tangent(untrapezoid_x)
def untrapezoid_x_rule(result, g, y, x, axis=-1):
    d[result] = untrapezoid_x(d[g], y, x, axis) + untrapezoid_x(g, d[y], x, axis)


@tangent(untrapezoid_dx)
def untrapezoid_dx_rule(result, g, y, x=None, axis=-1):
    d[result] = untrapezoid_dx(d[g], y, x, axis) + untrapezoid_dx(g, d[y], x, axis)


@tangent(unmeshgrid)
def unmeshgrid_rule(result, g, xi, indexing="xy"):
    d[result] = unmeshgrid(d[g], xi, indexing)
