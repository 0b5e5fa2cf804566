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
compute axes, counts or fractions do not vary. The rules of the
linear-algebra helpers (products' and decompositions' adjoints) are in
``runtime_linalg_forward.py``.

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
    abs_slope, abs_slope_curvature, accumulate, accumulate_at, broadcast_like, built_tangent,
    cast_like, conj_complex, converted_tangent, d2sinc, digamma, dsinc, float_argument,
    grad_norm, inverse_permutation, iterated_tangent, jvp_abs_slope, jvp_grad_norm, jvp_mean,
    linspace_fraction, matrix_transpose, segment_length, sigmoid, tangent_array, tetragamma,
    trigamma, unarray, unatleast, unaverage, unblock_diag, unbroadcast, unbuilt, unconcatenate,
    unconverted, uncumsum, undiag, undiagonal, undiff, unfield, unindex, unindex_container,
    uniterated, unpad, unplus, unreduce, unreduce_max, unreduce_mean, unreduce_median,
    unreduce_var, unrepeat, unrollaxis, unslide, unsort, unstack, unsum, untake, untake_along_axis,
    untile, untimes, unweights, weights_like, zero_tangent, zeroed, zeros_like)

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


@tangent(unslide)
def unslide_rule(result, g, x, window_shape, axis=None):
    d[result] = unslide(d[g], x, window_shape, axis)


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
