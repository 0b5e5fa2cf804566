"""Reverse-mode rules for Python's ``math`` module and builtins on numbers.

The adjoint of a Python float stays a Python float: the rules use only
arithmetic on it, or a NumPy function of one float, whose NumPy float64
result is itself a ``float``.
"""
import builtins
import math

import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic, zero_derivative
from tangent_ad.runtime import (
    abs_slope, extreme_index, formatted, reversed_indices, sort_order, unbroadcast, unconverted,
    unsum)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- math ------------------------------------------------------------------

@adjoint(math.acos)
def acos(result, x):
    d[x] = -d[result] / np.sqrt(1.0 - x * x)


@adjoint(math.asin)
def asin(result, x):
    d[x] = d[result] / np.sqrt(1.0 - x * x)


@adjoint(math.atan)
def atan(result, x):
    d[x] = d[result] / (1.0 + x * x)


@adjoint(math.atan2)
def atan2(result, y, x):
    d[y] = d[result] * x / (x * x + y * y)
    d[x] = -d[result] * y / (x * x + y * y)


@adjoint(math.cos)
def cos(result, x):
    d[x] = -d[result] * np.sin(x)


@adjoint(math.cosh)
def cosh(result, x):
    d[x] = d[result] * np.sinh(x)


@adjoint(math.erf)
def erf(result, x):
    d[x] = d[result] * 1.1283791670955126 * np.exp(-x * x)


@adjoint(math.exp)
def exp(result, x):
    d[x] = d[result] * result


@adjoint(math.expm1)
def expm1(result, x):
    d[x] = d[result] * (result + 1.0)


@adjoint(math.fabs)
def fabs(result, x):
    d[x] = d[result] * np.sign(x)


@adjoint(math.hypot)
def hypot(result, x, y):
    d[x] = d[result] * x / result
    d[y] = d[result] * y / result


@adjoint(math.log)
def log(result, x):
    d[x] = d[result] / x


@adjoint(math.log10)
def log10(result, x):
    d[x] = d[result] / (x * 2.302585092994046)


@adjoint(math.log1p)
def log1p(result, x):
    d[x] = d[result] / (1.0 + x)


@adjoint(math.log2)
def log2(result, x):
    d[x] = d[result] / (x * 0.6931471805599453)


@adjoint(math.pow)
def pow(result, x, y):
    d[x] = d[result] * y * x ** (y - (y != 0))
    d[y] = d[result] * result * np.log(x + (x == 0))


@adjoint(math.sin)
def sin(result, x):
    d[x] = d[result] * np.cos(x)


@adjoint(math.sinh)
def sinh(result, x):
    d[x] = d[result] * np.cosh(x)


@adjoint(math.sqrt)
def sqrt(result, x):
    d[x] = d[result] * 0.5 / result


@adjoint(math.tan)
def tan(result, x):
    d[x] = d[result] * (1.0 + result * result)


@adjoint(math.tanh)
def tanh(result, x):
    d[x] = d[result] * (1.0 - result * result)


# ---- builtins --------------------------------------------------------------

@adjoint(builtins.abs)
def builtin_abs(result, x):
    d[x] = np.real(d[result]) * abs_slope(x)


nonholomorphic(builtins.abs)  # |z| of a complex z


@adjoint(builtins.float)
def builtin_float(result, x):
    d[x] = d[result]


@adjoint(builtins.max)
def builtin_max(result, a, b):
    d[a] = d[result] * (a >= b)
    d[b] = d[result] * (a < b)


@adjoint(builtins.min)
def builtin_min(result, a, b):
    d[a] = d[result] * (a <= b)
    d[b] = d[result] * (a > b)


@adjoint(builtins.pow)
def builtin_pow(result, base, exp):
    d[base] = unbroadcast(d[result] * exp * base ** (exp - (exp != 0)), base)
    d[exp] = unbroadcast(d[result] * result * np.log(base + (base == 0)), exp)


@adjoint(builtins.sum)
def builtin_sum(result, iterable, start=0):
    d[iterable] = unsum(d[result], iterable)
    d[start] = unbroadcast(d[result], start)


# ---- sequences: the same items in another container ----------------------

@adjoint(builtins.list)
def builtin_list(result, iterable):
    d[iterable] = unconverted(d[result], iterable)


@adjoint(builtins.tuple)
def builtin_tuple(result, iterable):
    d[iterable] = unconverted(d[result], iterable)


# ---- zero derivative -------------------------------------------------------

zero_derivative(math.ceil, math.floor, math.trunc, math.isfinite, math.isinf,
                math.isnan)
zero_derivative(extreme_index, reversed_indices, sort_order)  # positions, for indexing
zero_derivative(formatted, builtins.set)  # an f-string's text; a set (of indices, keys)
