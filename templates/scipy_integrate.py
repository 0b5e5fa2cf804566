"""``scipy.integrate.odeint``: its adjoint is an ODE solved backwards and
its tangent the sensitivity ODE solved forwards (tangent_ad/runtime/odes.py),
both with odeint and the vjp and jvp of the user's `func`. With respect to
``y0`` and ``args``; the times ``t`` and ``func`` itself are refused.
Second derivatives are forward mode over the adjoint: ``unodeint``'s
tangent solves its backward ODE again with a tangent alongside."""
from tangent_ad.registry import REGISTRY, adjoint, structured, tangent

try:
    from scipy import integrate
except ImportError:  # no SciPy: no rules
    integrate = None

from tangent_ad.runtime import odeint_tangent, unodeint, unodeint_tangent

d = None  # d[x] is the adjoint (reverse) or tangent (forward) of x; never run


if integrate is not None:
    @adjoint(integrate.odeint)
    def odeint(result, func, y0, t, args=(), rtol=None, atol=None):
        """The adjoint ODE, solved backwards (in y0 and args; not in t)."""
        adjoints = unodeint(d[result], result, func, y0, t, args, rtol, atol)
        d[y0] = adjoints[0]
        d[args] = adjoints[1]

    @tangent(integrate.odeint)
    def odeint_forward(result, func, y0, t, args=(), rtol=None, atol=None):
        d[result] = odeint_tangent(d[y0], d[args], result, func, y0, t, args, rtol, atol)

    @tangent(unodeint)
    def unodeint_forward(result, g, ys, func, y0, t, args=(), rtol=None, atol=None):
        """Forward over the adjoint: Hessian-vector products of odeint."""
        d[result] = unodeint_tangent(d[g], d[ys], d[args], g, ys, func, y0, t, args, rtol, atol)

    structured(integrate.odeint)
    structured(unodeint)
    REGISTRY.register_refused_arguments(integrate.odeint, ["func", "t"])
