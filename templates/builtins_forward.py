"""Forward-mode rules for Python's ``math`` module and builtins on numbers.

The tangent of a Python float stays a float: the rules use arithmetic on
it, or a NumPy function of one float, whose NumPy float64 result is
itself a ``float``.
"""
import builtins
import math

import numpy as np

from tangent_ad.registry import broadcasting, tangent
from tangent_ad.runtime import converted_tangent

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- math ------------------------------------------------------------------

@tangent(math.acos)
def acos(result, x):
    d[result] = -d[x] / math.sqrt(1.0 - x * x)


@tangent(math.asin)
def asin(result, x):
    d[result] = d[x] / math.sqrt(1.0 - x * x)


@tangent(math.atan)
def atan(result, x):
    d[result] = d[x] / (1.0 + x * x)


@tangent(math.atan2)
def atan2(result, y, x):
    d[result] = (d[y] * x - y * d[x]) / (x * x + y * y)


@tangent(math.cos)
def cos(result, x):
    d[result] = -d[x] * math.sin(x)


@tangent(math.cosh)
def cosh(result, x):
    d[result] = d[x] * math.sinh(x)


@tangent(math.erf)
def erf(result, x):
    d[result] = d[x] * 1.1283791670955126 * math.exp(-x * x)


@tangent(math.exp)
def exp(result, x):
    d[result] = d[x] * result


@tangent(math.expm1)
def expm1(result, x):
    d[result] = d[x] * (result + 1.0)


@tangent(math.fabs)
def fabs(result, x):
    d[result] = d[x] * float(np.sign(x))


@tangent(math.hypot)
def hypot(result, x, y):
    d[result] = (d[x] * x + d[y] * y) / result


@tangent(math.log)
def log(result, x):
    d[result] = d[x] / x


@tangent(math.log10)
def log10(result, x):
    d[result] = d[x] / (x * 2.302585092994046)


@tangent(math.log1p)
def log1p(result, x):
    d[result] = d[x] / (1.0 + x)


@tangent(math.log2)
def log2(result, x):
    d[result] = d[x] / (x * 0.6931471805599453)


@tangent(math.pow)
def pow(result, x, y):
    d[result] = d[x] * y * x ** (y - (y != 0)) + d[y] * result * float(np.log(x + (x == 0)))


@tangent(math.sin)
def sin(result, x):
    d[result] = d[x] * math.cos(x)


@tangent(math.sinh)
def sinh(result, x):
    d[result] = d[x] * math.cosh(x)


@tangent(math.sqrt)
def sqrt(result, x):
    d[result] = d[x] * 0.5 / result


@tangent(math.tan)
def tan(result, x):
    d[result] = d[x] * (1.0 + result * result)


@tangent(math.tanh)
def tanh(result, x):
    d[result] = d[x] * (1.0 - result * result)


# ---- builtins --------------------------------------------------------------
# (named builtin_* so as not to hide the builtins the rules call)

@tangent(builtins.abs)
def builtin_abs(result, x):
    d[result] = np.real(d[x] * np.conj(np.sign(x)))  # Re(conj(z) dz) / |z| for complex z


@tangent(builtins.float)
def builtin_float(result, x):
    d[result] = float(d[x])


@tangent(builtins.max)
def builtin_max(result, a, b):
    d[result] = d[a] * (a >= b) + d[b] * (a < b)


@tangent(builtins.min)
def builtin_min(result, a, b):
    d[result] = d[a] * (a <= b) + d[b] * (a > b)


@tangent(builtins.pow)
def builtin_pow(result, base, exp):
    d[result] = d[base] * exp * base ** (exp - (exp != 0)) + \
        d[exp] * result * np.log(base + (base == 0))


@tangent(builtins.sum)
def builtin_sum(result, iterable, start=0):
    d[result] = sum(d[iterable]) + d[start]


# ---- sequences: the same items in another container ----------------------

@tangent(builtins.list)
def builtin_list(result, iterable):
    d[result] = converted_tangent(d[iterable], iterable, list)


@tangent(builtins.tuple)
def builtin_tuple(result, iterable):
    d[result] = converted_tangent(d[iterable], iterable, tuple)


broadcasting(builtins.max, builtins.min, builtins.pow, builtins.sum)
