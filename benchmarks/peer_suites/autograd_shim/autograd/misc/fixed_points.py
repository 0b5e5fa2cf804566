"""``fixed_point(f, a, x0, distance, tol)``: iterate ``x = f(a)(x)`` from
`x0` until two iterates are within `tol`, with autograd's derivative in
`a`: by the implicit function theorem, the adjoint ``w`` of the fixed
point solves ``w = g + (df(a)/dx)^T w`` (iterated to the same
tolerance), and the adjoint of `a` is ``(df(a)/da)^T w``."""
import numpy as np

import tangent_ad as tad
from autograd.extend import defvjp


def _iterate(step, x0, distance, tol):
    x, previous = step(x0), x0
    while distance(x, previous) > tol:
        x, previous = step(x), x
    return x


def fixed_point(f, a, x0, distance, tol):
    return _iterate(f(a), x0, distance, tol)


def _fixed_point_vjp(ans, f, a, x0, distance, tol):
    return lambda g: _adjoint_of_a(g, ans, f, a, distance, tol)


def _adjoint_of_a(g, ans, f, a, distance, tol):
    """``(df(a)/da)^T w`` for the ``w = g + (df(a)/dx)^T w`` at the fixed
    point `ans`, iterated from `g` to `tol`. The vjps are gradients of
    lambdas, made by tangent_ad where the code runs; as plain code, this
    is differentiated again for grad(grad(f))."""
    w, previous = g + tad.grad(lambda x: np.sum(f(a)(x) * g))(ans), g
    while distance(w, previous) > tol:
        w, previous = g + tad.grad(lambda x: np.sum(f(a)(x) * w))(ans), w
    return tad.grad(lambda b: np.sum(f(b)(ans) * w))(a)


defvjp(fixed_point, None, _fixed_point_vjp, None, None, None)
