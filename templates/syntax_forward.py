"""Forward-mode rules for Python's operators.

``d[result]`` is the tangent of the operator's value, written with the
tangents ``d[a]``, ``d[b]`` of its operands: a sum of one term per
operand. An operand without a tangent (a constant, a value that does not
vary) is a symbolic zero and its term is left out (see
``tangent_ad.templating.templates``), so ``x * 2.0`` gets ``dx * 2.0``. Reading
``x[i]`` is written as indexing in the generated code, ``dx[i]``.
"""
import operator

import numpy as np

from tangent_ad.registry import broadcasting, tangent
from tangent_ad.runtime import (appended, built, built_tangent, concatenated, field, field_tangent, iterated,
                                iterated_tangent, repeated, updated, updated_tangent)

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- arithmetic ------------------------------------------------------------

@tangent(operator.add)
def add(result, a, b):
    d[result] = d[a] + d[b]


@tangent(operator.sub)
def sub(result, a, b):
    d[result] = d[a] - d[b]


@tangent(operator.mul)
def mul(result, a, b):
    d[result] = d[a] * b + a * d[b]


@tangent(operator.truediv)
def truediv(result, a, b):
    d[result] = d[a] / b - d[b] * result / b


@tangent(operator.pow)
def pow(result, a, b):
    """At a zero exponent or base: see the reverse rule."""
    d[result] = d[a] * b * a ** (b - (b != 0)) + d[b] * result * np.log(a + (a == 0))


@tangent(operator.mod)
def mod(result, a, b):
    d[result] = d[a] - d[b] * np.floor_divide(a, b)


@tangent(operator.matmul)
def matmul(result, a, b):
    d[result] = d[a] @ b + a @ d[b]


broadcasting(operator.add, operator.sub, operator.mul, operator.truediv,
             operator.pow, operator.mod)


# ---- + and * where an operand may be a tuple or list (containers.py) ------------
# A zero tangent is written out here, so a concatenation keeps its length.

@tangent(concatenated)
def concatenated_rule(result, a, b):
    d[result] = concatenated(d[a], d[b])


@tangent(repeated)
def repeated_rule(result, a, b):
    d[result] = repeated(d[a], b) + repeated(a, d[b])


# ---- indexing ------------------------------------------------------------------

@tangent(operator.getitem)
def getitem(result, a, b):
    d[result] = d[a][b]


# (named so as not to hide the helpers they call)
@tangent(field)
def field_read(result, obj, name):
    d[result] = field_tangent(d[obj], obj, name)


@tangent(built)
def record_made(result, cls, values):
    d[result] = built_tangent(d[values], result)


@tangent(appended)
def appended_item(result, items, value):
    d[result] = appended(d[items], d[value])


@tangent(iterated)
def iterated_items(result, items):
    d[result] = iterated_tangent(d[items], items)


@tangent(updated)
def updated_item(result, array, index, value):
    d[result] = updated_tangent(d[array], array, index, d[value])


@tangent(updated_tangent)
def updated_tangent_item(result, t, array, index, value):
    """Linear in `t` and `value` (`array` only gives the dtype)."""
    d[result] = updated_tangent(d[t], array, index, d[value])


# ---- unary -----------------------------------------------------------------

@tangent(operator.neg)
def neg(result, a):
    d[result] = -d[a]


@tangent(operator.pos)
def pos(result, a):
    d[result] = d[a]
