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

These rules have no reverse counterpart yet (differentiating generated
code in reverse mode, ``grad(grad(f))``, needs them).
"""
from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    accumulate, cast_like, grad_dot_lhs, grad_dot_rhs, grad_matmul_lhs,
    grad_matmul_rhs, grad_tensordot_lhs, grad_tensordot_rhs, matrix_transpose,
    uncumsum, unconcatenate, undiff, unindex, unreduce, unreduce_mean,
    unreduce_var, unstack, unbroadcast, zeroed, zeros_like)

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- moving an adjoint: linear in it ---------------------------------------
# (named *_rule so as not to hide the helpers they call)

@tangent(unbroadcast)
def unbroadcast_rule(result, g, x):
    d[result] = unbroadcast(d[g], x)


@tangent(unreduce)
def unreduce_rule(result, g, x, axis=None, keepdims=False):
    d[result] = unreduce(d[g], x, axis, keepdims)


@tangent(unreduce_mean)
def unreduce_mean_rule(result, g, x, axis=None, keepdims=False):
    d[result] = unreduce_mean(d[g], x, axis, keepdims)


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


@tangent(zeroed)
def zeroed_rule(result, g, index):
    d[result] = zeroed(d[g], index)


@tangent(accumulate)
def accumulate_rule(result, a, b):
    d[result] = accumulate(d[a], d[b])


@tangent(matrix_transpose)
def matrix_transpose_rule(result, x):
    d[result] = matrix_transpose(d[x])


@tangent(zeros_like)
def zeros_like_rule(result, x):
    d[result] = 0.0


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
