"""Rules of ``call_value(function, args)``, a call of a function value
known only when the code runs (tangent_ad/runtime/function_values.py).

The adjoint of the arguments is the vjp of the value, and the tangent of
the result its jvp, both made when the derivative first runs. Each is
itself a call of a function value, so these two rules also give every
higher derivative. The function must not depend on the differentiated
arguments: a derivative in it is refused where the call is.
"""
from tangent_ad.registry import REGISTRY, adjoint, structured, tangent, zero_derivative
from tangent_ad.runtime import call_value, jvp_function, vjp_function

d = None  # d[x] is the adjoint (reverse) or tangent (forward) of x; never run


@adjoint(call_value)
def call_value_adjoint(result, function, args, names=()):
    d[args] = call_value(vjp_function(function, args, names), (d[result], args))


@tangent(call_value)
def call_value_tangent(result, function, args, names=()):
    d[result] = call_value(jvp_function(function, args, names), (args, d[args]))


structured(call_value)
zero_derivative(vjp_function, jvp_function)
REGISTRY.register_refused_arguments(call_value, ["function"])
