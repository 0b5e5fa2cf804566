"""Forward-mode rules for the runtime helpers of the linear-algebra rules:
the adjoints of the operands of products (linear in the adjoint and in
the other operand, so two terms) and of the decompositions (Cholesky,
eigh), whose tangents are runtime helpers of their own
(``jvp_grad_cholesky``, ...). The rest of the runtime helpers' forward
rules, and why they exist (``tad.jvp(tad.grad(f))``), are in
``runtime_forward.py``.
"""
from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    grad_cholesky, grad_cholesky_triangle, grad_dot_lhs, grad_dot_rhs, grad_eigh_pair,
    grad_einsum, grad_kron_lhs, grad_kron_rhs, grad_matmul_lhs, grad_matmul_rhs,
    grad_solve_lhs, grad_solve_rhs, grad_tensordot_lhs, grad_tensordot_rhs, jvp_einsum,
    jvp_grad_cholesky, jvp_grad_eigh, jvp_grad_einsum, jvp_grad_solve_rhs, jvp_jvp_einsum,
    product_triangle, untriangle)

d = None  # d[x] is the tangent of x; templates are parsed, never run


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
