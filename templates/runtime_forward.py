"""Forward-mode rules for the runtime helpers that reverse-mode code calls,
so that a generated gradient can itself be differentiated in forward
mode: ``tad.jvp(tad.grad(f))`` is a Hessian-vector product.

Almost every helper is linear in the adjoint it moves (``unbroadcast``
sums it, ``unreduce`` spreads it), and its other arguments matter only
through their shapes, or through a piecewise-constant choice (the share
of a max): the tangent is the same helper applied to the tangent. The
adjoint of an operand of a product is also linear in the other operand
(``grad_matmul_lhs(g, a, b)`` is ``g @ b.T``), which adds a term.
``zeros_like`` has a zero derivative, declared by a rule that reads no
tangent.

The others: the slopes ``dsinc`` and ``digamma`` have slopes of their own
(``d2sinc``, ``trigamma``, ``tetragamma``); the adjoints of a norm, an einsum, a solve and
the decompositions (Cholesky, eigh) have tangents written as runtime
helpers (``jvp_grad_norm``, ``jvp_grad_cholesky``, ...); helpers that
compute axes, counts or fractions do not vary.

The helpers of forward-mode code itself that are linear in the tangent
they carry (``broadcast_like``, ``jvp_mean``, ``tangent_array``) have
rules too, and ``zero_tangent`` a zero derivative like ``zeros_like``: forward mode over
forward-mode code is how third derivatives are made (``second_order.py``).

These rules have no reverse counterpart: reverse mode over generated
code uses derived rules instead (``tangent_ad/second_order.py``).
"""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    abs_slope, abs_slope_curvature, accumulate, broadcast_like, cast_like, conj_complex, d2sinc, digamma, dsinc, sigmoid,
    float_argument, grad_cholesky, grad_cholesky_triangle, grad_dot_lhs, grad_dot_rhs, grad_eigh_pair, grad_einsum, grad_kron_lhs,
    grad_kron_rhs, grad_matmul_lhs, grad_matmul_rhs, grad_norm, grad_solve_lhs, product_triangle,
    grad_solve_rhs, grad_tensordot_lhs, grad_tensordot_rhs, inverse_permutation,
    jvp_abs_slope, jvp_einsum, jvp_grad_cholesky, jvp_grad_eigh, jvp_grad_einsum, jvp_grad_norm,
    jvp_jvp_einsum,
    jvp_grad_solve_rhs, jvp_mean, linspace_fraction, matrix_transpose, segment_length,
    tangent_array, tetragamma, trigamma, unarray, unatleast, unblock_diag, uncumsum, unconcatenate, undiag,
    undiagonal, undiff, unconverted, unbuilt, built_tangent, unfield, unindex, unindex_container, accumulate_at,
    iterated_tangent,
    converted_tangent,
    uniterated, unpad, unreduce,
    unreduce_max, unaverage, unplus, unreduce_mean, unreduce_median, unreduce_var, unrepeat,
    untimes, unweights, weights_like, unrollaxis, unsort, unstack, unsum, untake,
    untake_along_axis, untile, untriangle, unbroadcast, zero_tangent, zeroed,
    zeros_like)

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- moving an adjoint: linear in it ---------------------------------------
# (named *_rule so as not to hide the helpers they call)

@tangent(conj_complex)
def conj_complex_rule(result, g):
    d[result] = conj_complex(d[g])


@tangent(abs_slope)
def abs_slope_rule(result, x):
    d[result] = jvp_abs_slope(d[x], x)


@tangent(jvp_abs_slope)
def jvp_abs_slope_rule(result, t, x):
    """Linear in t; in x, zero for a real x (third derivatives of abs)."""
    d[result] = jvp_abs_slope(d[t], x) + abs_slope_curvature(t, x, d[x])


@tangent(unbroadcast)
def unbroadcast_rule(result, g, x):
    d[result] = unbroadcast(d[g], x)


@tangent(unreduce)
def unreduce_rule(result, g, x, axis=None, keepdims=False):
    d[result] = unreduce(d[g], x, axis, keepdims)


@tangent(unreduce_mean)
def unreduce_mean_rule(result, g, x, axis=None, keepdims=False):
    d[result] = unreduce_mean(d[g], x, axis, keepdims)


@tangent(unaverage)
def unaverage_rule(result, g, a, axis=None, weights=None, keepdims=False):
    """g w / S(w): linear in g; in w, g dw / S - g w S(dw) / S^2."""
    d[result] = unaverage(d[g], a, axis, weights, keepdims) + unreduce(
        g / np.sum(weights_like(weights, a, axis), axis, keepdims=keepdims), a, axis,
        keepdims) * weights_like(d[weights], a, axis) - unreduce(
        g * np.sum(weights_like(d[weights], a, axis), axis, keepdims=keepdims) /
        np.sum(weights_like(weights, a, axis), axis, keepdims=keepdims) ** 2, a, axis,
        keepdims) * weights_like(weights, a, axis)


@tangent(unweights)
def unweights_rule(result, s, weights, axis=None):
    d[result] = unweights(d[s], weights, axis)


@tangent(weights_like)
def weights_like_rule(result, weights, a, axis=None):
    d[result] = weights_like(d[weights], a, axis)


@tangent(unreduce_var)
def unreduce_var_rule(result, g, x, axis=None, ddof=0, keepdims=False):
    """Linear in g, and in x through x - mean(x)."""
    d[result] = unreduce_var(d[g], x, axis, ddof, keepdims) + \
        unreduce_var(g, d[x], axis, ddof, keepdims)


@tangent(uncumsum)
def uncumsum_rule(result, g, x, axis=None):
    d[result] = uncumsum(d[g], x, axis)


@tangent(undiff)
def undiff_rule(result, g, n=1, axis=-1):
    d[result] = undiff(d[g], n, axis)


@tangent(unindex)
def unindex_rule(result, g, x, index):
    d[result] = unindex(d[g], x, index)


@tangent(unconcatenate)
def unconcatenate_rule(result, g, arrays, axis=0):
    d[result] = unconcatenate(d[g], arrays, axis)


@tangent(unstack)
def unstack_rule(result, g, arrays, axis=0):
    d[result] = unstack(d[g], arrays, axis)


@tangent(cast_like)
def cast_like_rule(result, g, x):
    d[result] = cast_like(d[g], x)


@tangent(float_argument)
def float_argument_rule(result, x):
    d[result] = float_argument(d[x])


@tangent(zeroed)
def zeroed_rule(result, g, index, like=None):
    d[result] = zeroed(d[g], index, like)


@tangent(accumulate)
def accumulate_rule(result, a, b):
    d[result] = accumulate(d[a], d[b])


@tangent(accumulate_at)
def accumulate_at_rule(result, a, g, x, index):
    d[result] = accumulate_at(d[a], d[g], x, index)


@tangent(matrix_transpose)
def matrix_transpose_rule(result, x):
    d[result] = matrix_transpose(d[x])


@tangent(unreduce_max)
def unreduce_max_rule(result, g, extreme, x, axis=None, keepdims=False):
    """The share of each tie is piecewise constant."""
    d[result] = unreduce_max(d[g], extreme, x, axis, keepdims)


@tangent(unreduce_median)
def unreduce_median_rule(result, g, x, axis=None, keepdims=False):
    d[result] = unreduce_median(d[g], x, axis, keepdims)


@tangent(unplus)
def unplus_rule(result, g, a, b, side):
    d[result] = unplus(d[g], a, b, side)


@tangent(untimes)
def untimes_rule(result, g, x, other):
    """Linear in g; for a product, g * other varies with other too."""
    d[result] = untimes(d[g], x, other) + untimes(g, x, d[other])


@tangent(unindex_container)
def unindex_container_rule(result, g, x, index):
    d[result] = unindex_container(d[g], x, index)


@tangent(unconverted)
def unconverted_rule(result, g, items):
    d[result] = unconverted(d[g], items)


@tangent(unfield)
def unfield_rule(result, g, obj, name):
    d[result] = unfield(d[g], obj, name)


@tangent(unbuilt)
def unbuilt_rule(result, g, obj):
    d[result] = unbuilt(d[g], obj)


@tangent(built_tangent)
def built_tangent_rule(result, tangents, obj):
    d[result] = built_tangent(d[tangents], obj)


@tangent(uniterated)
def uniterated_rule(result, g, items):
    d[result] = uniterated(d[g], items)


@tangent(iterated_tangent)
def iterated_tangent_rule(result, t, items):
    d[result] = iterated_tangent(d[t], items)


@tangent(converted_tangent)
def converted_tangent_rule(result, t, items, kind):
    d[result] = converted_tangent(d[t], items, kind)


@tangent(untile)
def untile_rule(result, g, x, reps):
    d[result] = untile(d[g], x, reps)


@tangent(unrepeat)
def unrepeat_rule(result, g, x, repeats, axis=None):
    d[result] = unrepeat(d[g], x, repeats, axis)


@tangent(unpad)
def unpad_rule(result, g, pad_width, mode="constant"):
    d[result] = unpad(d[g], pad_width, mode)


@tangent(undiagonal)
def undiagonal_rule(result, g, x, offset=0, axis1=0, axis2=1):
    d[result] = undiagonal(d[g], x, offset, axis1, axis2)


@tangent(undiag)
def undiag_rule(result, g, v, k=0):
    d[result] = undiag(d[g], v, k)


@tangent(untake)
def untake_rule(result, g, a, indices, axis=None, mode="raise"):
    d[result] = untake(d[g], a, indices, axis, mode)


@tangent(untake_along_axis)
def untake_along_axis_rule(result, g, arr, indices, axis=-1):
    d[result] = untake_along_axis(d[g], arr, indices, axis)


@tangent(unarray)
def unarray_rule(result, g, x, value):
    d[result] = unarray(d[g], x, value)


@tangent(unsort)
def unsort_rule(result, g, x, ordered, axis=-1):
    """The order is piecewise constant."""
    d[result] = unsort(d[g], x, ordered, axis)


@tangent(unrollaxis)
def unrollaxis_rule(result, g, x, axis, start=0):
    d[result] = unrollaxis(d[g], x, axis, start)


@tangent(unatleast)
def unatleast_rule(result, g, arys):
    d[result] = unatleast(d[g], arys)


@tangent(unblock_diag)
def unblock_diag_rule(result, g, arrs):
    d[result] = unblock_diag(d[g], arrs)


@tangent(zeros_like)
@tangent(zero_tangent)
def zeros_like_rule(result, x):
    d[result] = 0.0


# ---- values that do not vary: axes, counts, fractions -------------------------

@tangent(inverse_permutation)
def inverse_permutation_rule(result, axes):
    d[result] = 0.0


@tangent(linspace_fraction)
def linspace_fraction_rule(result, samples, num, endpoint=True, axis=0):
    d[result] = 0.0


@tangent(segment_length)
def segment_length_rule(result, n):
    d[result] = 0.0


# ---- slopes: their own derivatives ---------------------------------------------

@tangent(dsinc)
def dsinc_rule(result, x):
    d[result] = d[x] * d2sinc(x)


@tangent(sigmoid)
def sigmoid_rule(result, x):
    d[result] = d[x] * (result * (1.0 - result))


@tangent(digamma)
def digamma_rule(result, x):
    d[result] = d[x] * trigamma(x)


@tangent(trigamma)
def trigamma_rule(result, x):
    d[result] = d[x] * tetragamma(x)


@tangent(grad_norm)
def grad_norm_rule(result, g, norm, x, ord=None, axis=None, keepdims=False):
    """g times the slope of the norm, which depends on x and the norm."""
    d[result] = jvp_grad_norm(d[g], d[norm], d[x], g, norm, x, ord, axis, keepdims)


# ---- adjoints of the operands of products: linear in the other operand -----

@tangent(grad_matmul_lhs)
def grad_matmul_lhs_rule(result, g, a, b):
    d[result] = grad_matmul_lhs(d[g], a, b) + grad_matmul_lhs(g, a, d[b])


@tangent(grad_matmul_rhs)
def grad_matmul_rhs_rule(result, g, a, b):
    d[result] = grad_matmul_rhs(d[g], a, b) + grad_matmul_rhs(g, d[a], b)


@tangent(grad_dot_lhs)
def grad_dot_lhs_rule(result, g, a, b):
    d[result] = grad_dot_lhs(d[g], a, b) + grad_dot_lhs(g, a, d[b])


@tangent(grad_dot_rhs)
def grad_dot_rhs_rule(result, g, a, b):
    d[result] = grad_dot_rhs(d[g], a, b) + grad_dot_rhs(g, d[a], b)


@tangent(grad_tensordot_lhs)
def grad_tensordot_lhs_rule(result, g, a, b, axes=2):
    d[result] = grad_tensordot_lhs(d[g], a, b, axes) + grad_tensordot_lhs(g, a, d[b], axes)


@tangent(grad_tensordot_rhs)
def grad_tensordot_rhs_rule(result, g, a, b, axes=2):
    d[result] = grad_tensordot_rhs(d[g], a, b, axes) + grad_tensordot_rhs(g, d[a], b, axes)


@tangent(grad_kron_lhs)
def grad_kron_lhs_rule(result, g, a, b):
    d[result] = grad_kron_lhs(d[g], a, b) + grad_kron_lhs(g, a, d[b])


@tangent(grad_kron_rhs)
def grad_kron_rhs_rule(result, g, a, b):
    d[result] = grad_kron_rhs(d[g], a, b) + grad_kron_rhs(g, d[a], b)


@tangent(grad_einsum)
def grad_einsum_rule(result, g, operands):
    d[result] = jvp_grad_einsum(d[g], d[operands], g, operands)


@tangent(jvp_einsum)
def jvp_einsum_rule(result, tangents, operands):
    d[result] = jvp_jvp_einsum(d[tangents], d[operands], tangents, operands)


@tangent(grad_solve_rhs)
def grad_solve_rhs_rule(result, g, a, x):
    """result solves a^T result = g."""
    d[result] = jvp_grad_solve_rhs(d[g], d[a], result, a, x)


@tangent(grad_solve_lhs)
def grad_solve_lhs_rule(result, gb, a, x):
    """-gb x^T: linear in gb and in x."""
    d[result] = grad_solve_lhs(d[gb], a, x) + grad_solve_lhs(gb, a, d[x])


@tangent(product_triangle)
def product_triangle_rule(result, a, b, lower=True, like=None):
    """tril(a b^T): linear in a and in b (`like` sets the memory order only)."""
    d[result] = product_triangle(d[a], b, lower, like) + product_triangle(a, d[b], lower, like)


# ---- adjoints of the decompositions ----------------------------------------------

@tangent(grad_cholesky)
def grad_cholesky_rule(result, g, lower, upper=False):
    """Linear in g; the factor enters through L^T g and through L^-1."""
    d[result] = jvp_grad_cholesky(d[g], d[lower], result, g, lower, upper)


@tangent(grad_cholesky_triangle)
def grad_cholesky_triangle_rule(result, g, lower, upper=False):
    """untriangle(grad_cholesky(g, lower, upper), upper); untriangle is linear."""
    d[result] = untriangle(jvp_grad_cholesky(d[g], d[lower], grad_cholesky(g, lower, upper), g,
                                             lower, upper), upper)


@tangent(grad_eigh_pair)
def grad_eigh_pair_rule(result, g, eigen):
    """Linear in g; the eigenvalues enter through 1 / (w_j - w_i), the
    eigenvectors through V (...) V^T."""
    d[result] = jvp_grad_eigh(d[g], d[eigen], g, eigen)


@tangent(untriangle)
def untriangle_rule(result, s, upper=False):
    d[result] = untriangle(d[s], upper)


# ---- forward-mode helpers: linear in the tangent they carry ----------------

@tangent(unsum)
def unsum_rule(result, g, items):
    d[result] = unsum(d[g], items)


@tangent(broadcast_like)
def broadcast_like_rule(result, t, x):
    d[result] = broadcast_like(d[t], x)


@tangent(jvp_mean)
def jvp_mean_rule(result, t, axis=None, keepdims=False):
    d[result] = jvp_mean(d[t], axis, keepdims)


@tangent(tangent_array)
def tangent_array_rule(result, t, value):
    d[result] = tangent_array(d[t], value)
