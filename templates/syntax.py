"""Reverse-mode rules for Python's operators.

The transformer looks up ``a + b`` under ``operator.add``, ``-a`` under
``operator.neg`` and so on. Binary rules reduce each adjoint to its
operand's shape with ``unbroadcast``; the optimizer drops that call where
the shapes provably agree.
"""
import operator

import numpy as np

from tangent_ad.hooks import checkpointed, stop_gradient
from tangent_ad.registry import adjoint, structured, zero_derivative
from tangent_ad.runtime import (
    appended, built, concatenated, field, grad_matmul_lhs, grad_matmul_rhs, iterated, repeated,
    size_of, unbroadcast, unbuilt, unfield, unindex, uniterated, unplus, untimes, updated,
    updated_tangent, zeroed)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- arithmetic ------------------------------------------------------------

@adjoint(operator.add)
def add(result, a, b):
    d[a] = unbroadcast(d[result], a)
    d[b] = unbroadcast(d[result], b)


@adjoint(operator.sub)
def sub(result, a, b):
    d[a] = unbroadcast(d[result], a)
    d[b] = unbroadcast(-d[result], b)


@adjoint(operator.mul)
def mul(result, a, b):
    d[a] = unbroadcast(d[result] * b, a)
    d[b] = unbroadcast(d[result] * a, b)


@adjoint(operator.truediv)
def truediv(result, a, b):
    d[a] = unbroadcast(d[result] / b, a)
    d[b] = unbroadcast(-d[result] * result / b, b)


@adjoint(operator.pow)
def pow(result, a, b):
    """No slope for a zero exponent, nor in the exponent for a zero base.

    Where the formula reads 0 * inf the math is 0: d/dx x**0 = 0, also at
    x = 0, and d/dy 0**y = 0 for y > 0 (log 0 is read as log 1), as
    autograd and JAX have it."""
    d[a] = unbroadcast(d[result] * b * a ** (b - (b != 0)), a)
    d[b] = unbroadcast(d[result] * result * np.log(a + (a == 0)), b)


@adjoint(operator.mod)
def mod(result, a, b):
    d[a] = unbroadcast(d[result], a)
    d[b] = unbroadcast(-d[result] * np.floor_divide(a, b), b)


@adjoint(operator.matmul)
def matmul(result, a, b):
    d[a] = grad_matmul_lhs(d[result], a, b)
    d[b] = grad_matmul_rhs(d[result], a, b)


# ---- + and * where an operand may be a tuple or list (containers.py) ------------

@adjoint(concatenated)
def concatenated_rule(result, a, b):
    d[a] = unplus(d[result], a, b, 0)
    d[b] = unplus(d[result], a, b, 1)


@adjoint(repeated)
def repeated_rule(result, a, b):
    d[a] = untimes(d[result], a, b)
    d[b] = untimes(d[result], b, a)


# ---- indexing ------------------------------------------------------------------

@adjoint(operator.getitem)
def getitem(result, a, b):
    d[a] = unindex(d[result], a, b)


@adjoint(field)
def field(result, obj, name):
    d[obj] = unfield(d[result], obj, name)


@adjoint(built)
def built(result, cls, values):
    d[values] = unbuilt(d[result], result)


structured(built)


@adjoint(appended)
def appended(result, items, value):
    d[items] = d[result][:-1]
    d[value] = d[result][-1]


@adjoint(iterated)
def iterated(result, items):
    d[items] = uniterated(d[result], items)


@adjoint(updated)
def updated(result, array, index, value):
    d[array] = zeroed(d[result], index, array)
    d[value] = unbroadcast(d[result][index], value)


@adjoint(updated_tangent)
def updated_tangent(result, t, array, index, value):
    """The tangent of an item write (forward mode's), itself an item write
    into `t` made complex like `array`: a real `t` gets the real part."""
    d[t] = unbroadcast(zeroed(d[result], index, t), t)
    d[value] = unbroadcast(d[result][index], value)


# ---- unary -----------------------------------------------------------------

@adjoint(operator.neg)
def neg(result, a):
    d[a] = -d[result]


@adjoint(operator.pos)
def pos(result, a):
    d[a] = d[result]


# ---- builtins whose results carry no derivative ------------------------------

zero_derivative(len, range, int, bool, round, isinstance, type, operator.floordiv,
                stop_gradient, checkpointed, size_of)
