"""Forward-mode rules for ``np.gradient`` and ``np.select``, and for the
runtime helpers of their reverse rules and of ``np.cross``'s (for forward
mode over a gradient). All are linear in the array they move: the
tangent is the same call on the tangent (the cross helpers are linear in
each operand: two terms)."""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    convolution_full, grad_cross_lhs, grad_cross_rhs, real_matrix, ungradient, unselect,
    unselect_default)

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
