"""``fixed_point(f, a, x0, distance, tol)``: iterate ``x = f(a)(x)`` from
`x0` until two iterates are within `tol`, with autograd's derivative in
`a`: by the implicit function theorem, the adjoint ``w`` of the fixed
point solves ``w = g + (df(a)/dx)^T w`` (iterated from zero to the same
tolerance), and the adjoint of `a` is ``(df(a)/da)^T w``. The vjps are
the shim's, on tangent_ad."""
import numpy as np

from autograd import make_vjp
from autograd._convert import unary
from autograd.extend import defvjp


def _iterate(step, x0, distance, tol):
    x, previous = step(x0), x0
    while distance(x, previous) > tol:
        x, previous = step(x), x
    return x


def fixed_point(f, a, x0, distance, tol):
    return _iterate(f(a), x0, distance, tol)


def _step_at(a, x, f):
    return f(a)(x)


def _fixed_point_vjp(ans, f, a, x0, distance, tol):
    def vjp(g):
        # (unary: the other arguments, f among them, are constants of a def,
        # so that tangent_ad knows which function f is)
        step_vjp, _ = make_vjp(unary(_step_at, (a, ans, f), {}, 1))(ans)
        w = _iterate(lambda w: step_vjp(w) + g, np.zeros_like(ans), distance, tol)
        a_vjp, _ = make_vjp(unary(_step_at, (a, ans, f), {}, 0))(a)
        return a_vjp(w)
    return vjp


defvjp(fixed_point, None, _fixed_point_vjp, None, None, None)
