"""``fixed_point(f, a, x0, distance, tol)``: iterate ``x = f(a)(x)`` from
`x0` until two iterates are within `tol`, with autograd's derivatives in
`a`, by the implicit function theorem.

The adjoint ``w`` of the fixed point ``x*`` is itself a fixed point, of
``w = g + J^T w`` with ``J = df(a)/dx`` at ``x*``, found from zero to `tol`
(`adjoint_at_fixed_point`); the adjoint of `a` is ``(df(a)/da)^T w``.
Both have forward rules (the tangent of a fixed point is the fixed point
of its linearization, from zero to `tol`), so that tangent_ad's second
derivatives, forward over this adjoint, are implicit again, as
autograd's reverse over reverse is."""
import numpy as np

import tangent_ad as tad
from autograd.extend import defvjp

d = None  # the rule notation's d[x]; never run


def fixed_point(f, a, x0, distance, tol):
    step = f(a)
    x, previous = step(x0), x0
    while distance(x, previous) > tol:
        x, previous = step(x), x
    return x


def _iterated(step, start, distance, tol):
    x, previous = step(start), start
    while distance(x, previous) > tol:
        x, previous = step(x), x
    return x


def _fixed_point_vjp(ans, f, a, x0, distance, tol):
    return lambda g: _adjoint_of_a(g, ans, f, a, distance, tol)


def _adjoint_of_a(g, ans, f, a, distance, tol):
    w = adjoint_at_fixed_point(g, ans, f, a, distance, tol)
    return tad.grad(lambda b: np.sum(f(b)(ans) * w))(a)


def _vjp_in_x(b, x, w, f):
    """``(df(b)/dx)^T w`` at `x`."""
    return tad.grad(lambda y: np.sum(f(b)(y) * w))(x)


def adjoint_at_fixed_point(g, ans, f, a, distance, tol):
    """The ``w = g + J^T w`` at the fixed point `ans`, from zero."""
    return _iterated(lambda w: g + _vjp_in_x(a, ans, w, f), np.zeros_like(g), distance, tol)


def _fixed_point_tangent(da, ans, f, a, distance, tol):
    """``t = J t + (df(a)/da) da``, from zero."""
    if da is None:
        return np.zeros_like(ans)
    step = f(a)
    pushed = tad.jvp(lambda b: f(b)(ans))(a, da)[1]
    return _iterated(lambda t: tad.jvp(step)(ans, t)[1] + pushed, np.zeros_like(ans),
                     distance, tol)


def _adjoint_tangent(dg, dans, da, w, g, ans, f, a, distance, tol):
    """``t = J^T t + dg + (the change of J^T w along da, dans)``, from zero."""
    zero = np.zeros_like(w)
    moved = tad.jvp(lambda b, x: _vjp_in_x(b, x, w, f), wrt=(0, 1))(
        a, ans, 0.0 * a if da is None else da, zero if dans is None else dans)[1]
    moved = moved + (zero if dg is None else dg)
    return _iterated(lambda t: _vjp_in_x(a, ans, t, f) + moved, zero, distance, tol)


defvjp(fixed_point, None, _fixed_point_vjp, None, None, None)


@tad.tangent(fixed_point)
def _(result, f, a, x0, distance, tol):
    d[result] = _fixed_point_tangent(d[a], result, f, a, distance, tol)


@tad.tangent(adjoint_at_fixed_point)
def _(result, g, ans, f, a, distance, tol):
    d[result] = _adjoint_tangent(d[g], d[ans], d[a], result, g, ans, f, a, distance, tol)
