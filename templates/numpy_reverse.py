"""Reverse-mode rules for NumPy functions, grouped by family.

One rule per function, as short as the math. ``result`` is the value the
call returned, ``d[result]`` its adjoint; each ``d[x] = ...`` line gives
the contribution to the adjoint of argument ``x``. Parameter names and
defaults are NumPy's, so calls bind to templates the way they bind to
NumPy.
"""
import numpy as np

from tangent_ad.registry import adjoint, zero_derivative
from tangent_ad.runtime import (
    grad_matmul_lhs, grad_matmul_rhs, inverse_permutation, unbroadcast,
    unreduce, unreduce_mean)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- elementwise, one argument ---------------------------------------------

@adjoint(np.abs)
def abs(result, x):
    d[x] = d[result] * np.sign(x)


@adjoint(np.cos)
def cos(result, x):
    d[x] = -d[result] * np.sin(x)


@adjoint(np.exp)
def exp(result, x):
    d[x] = d[result] * result


@adjoint(np.expm1)
def expm1(result, x):
    d[x] = d[result] * (result + 1.0)


@adjoint(np.log)
def log(result, x):
    d[x] = d[result] / x


@adjoint(np.log1p)
def log1p(result, x):
    d[x] = d[result] / (1.0 + x)


@adjoint(np.negative)
def negative(result, x):
    d[x] = -d[result]


@adjoint(np.sin)
def sin(result, x):
    d[x] = d[result] * np.cos(x)


@adjoint(np.sqrt)
def sqrt(result, x):
    d[x] = d[result] * 0.5 / result


@adjoint(np.square)
def square(result, x):
    d[x] = d[result] * 2.0 * x


@adjoint(np.tan)
def tan(result, x):
    d[x] = d[result] * (1.0 + result * result)


@adjoint(np.tanh)
def tanh(result, x):
    d[x] = d[result] * (1.0 - result * result)


# ---- elementwise, two or more arguments -------------------------------------

@adjoint(np.add)
def add(result, x1, x2):
    d[x1] = unbroadcast(d[result], x1)
    d[x2] = unbroadcast(d[result], x2)


@adjoint(np.subtract)
def subtract(result, x1, x2):
    d[x1] = unbroadcast(d[result], x1)
    d[x2] = unbroadcast(-d[result], x2)


@adjoint(np.multiply)
def multiply(result, x1, x2):
    d[x1] = unbroadcast(d[result] * x2, x1)
    d[x2] = unbroadcast(d[result] * x1, x2)


@adjoint(np.divide)
def divide(result, x1, x2):
    d[x1] = unbroadcast(d[result] / x2, x1)
    d[x2] = unbroadcast(-d[result] * result / x2, x2)


@adjoint(np.power)
def power(result, x1, x2):
    d[x1] = unbroadcast(d[result] * x2 * x1 ** (x2 - 1), x1)
    d[x2] = unbroadcast(d[result] * result * np.log(x1), x2)


@adjoint(np.maximum)
def maximum(result, x1, x2):
    d[x1] = unbroadcast(d[result] * (x1 >= x2), x1)
    d[x2] = unbroadcast(d[result] * (x1 < x2), x2)


@adjoint(np.minimum)
def minimum(result, x1, x2):
    d[x1] = unbroadcast(d[result] * (x1 <= x2), x1)
    d[x2] = unbroadcast(d[result] * (x1 > x2), x2)


@adjoint(np.clip)
def clip(result, a, a_min=None, a_max=None):
    d[a] = d[result] * (result == a)
    d[a_min] = unbroadcast(d[result] * (a < a_min), a_min)
    d[a_max] = unbroadcast(d[result] * (a > a_max), a_max)


@adjoint(np.where)
def where(result, condition, x, y):
    d[x] = unbroadcast(np.where(condition, d[result], 0.0), x)
    d[y] = unbroadcast(np.where(condition, 0.0, d[result]), y)


# ---- reductions ------------------------------------------------------------

@adjoint(np.sum)
def sum(result, a, axis=None, keepdims=False):
    d[a] = unreduce(d[result], a, axis, keepdims)


@adjoint(np.mean)
def mean(result, a, axis=None, keepdims=False):
    d[a] = unreduce_mean(d[result], a, axis, keepdims)


# ---- shape -----------------------------------------------------------------

@adjoint(np.reshape)
def reshape(result, a, shape):
    d[a] = np.reshape(d[result], np.shape(a))


@adjoint(np.transpose)
def transpose(result, a, axes=None):
    d[a] = np.transpose(d[result], inverse_permutation(axes))


# ---- linear algebra --------------------------------------------------------

@adjoint(np.dot)
def dot(result, a, b):
    d[a] = grad_matmul_lhs(d[result], a, b)
    d[b] = grad_matmul_rhs(d[result], a, b)


@adjoint(np.matmul)
def matmul(result, x1, x2):
    d[x1] = grad_matmul_lhs(d[result], x1, x2)
    d[x2] = grad_matmul_rhs(d[result], x1, x2)


# ---- zero derivative -------------------------------------------------------

zero_derivative(
    np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc,
    np.shape, np.ndim, np.size, np.zeros_like, np.ones_like,
    np.equal, np.not_equal, np.less, np.less_equal, np.greater,
    np.greater_equal,
)
