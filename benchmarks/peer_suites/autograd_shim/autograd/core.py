"""The parts of autograd.core that tests import by name: its unary
``make_vjp(fun, x)`` and ``make_jvp(fun, x)``, on the shim's transforms.
autograd's tracing internals (``primitive_vjps``, vspaces) have no
counterpart in a source transformer."""
import autograd
from autograd.extend import primitive

primitive_vjps = {}


def make_vjp(fun, x):
    return autograd.make_vjp(fun)(x)


def make_jvp(fun, x):
    return autograd.make_jvp(fun)(x)


def vspace(value):
    raise NotImplementedError("autograd vspaces are autograd internals: not in the tangent_ad shim")
