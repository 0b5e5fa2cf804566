"""Forward-mode rules for NumPy's elementwise functions, complex parts and
array constructors.

One rule per function, as short as the math: ``d[result]``, the tangent
of the call's value, from the tangents ``d[x]`` of its arguments, one
term per argument; the term of an argument without a tangent is left
out (see ``tangent_ad.templating.templates``). Parameter names and defaults are
NumPy's, as in ``numpy_reverse.py``, whose functions these mirror
one for one; functions with a zero derivative need no forward rule.
Reductions are in ``numpy_reductions_forward.py``, shape functions in
``numpy_shape_forward.py``, linear algebra in ``numpy_linalg_forward.py``.
"""
import numpy as np

from tangent_ad.registry import broadcasting, tangent
from tangent_ad.runtime import dsinc
from tangent_ad.runtime.tangents import tangent_array

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- elementwise, one argument ---------------------------------------------

@tangent(np.abs)
def abs(result, x):
    d[result] = np.real(d[x] * np.conj(np.sign(x)))  # Re(conj(z) dz) / |z| for complex z











@tangent(np.deg2rad)
@tangent(np.radians)
def deg2rad(result, x):
    d[result] = d[x] * (np.pi / 180.0)










@tangent(np.nan_to_num)
def nan_to_num(result, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[result] = d[x] * np.isfinite(x)




@tangent(np.rad2deg)
@tangent(np.degrees)
def rad2deg(result, x):
    d[result] = d[x] * (180.0 / np.pi)



@tangent(np.sign)
def sign(result, x):
    """Zero for real x and at 0; (dx - sign Re(conj(sign) dx)) / |x| for
    complex x (see the reverse rule)."""
    d[result] = (d[x] * np.abs(result) - result * np.real(np.conj(result) * d[x])) / \
        (np.abs(x) + (x == 0))









# ---- elementwise, two arguments --------------------------------------------

@tangent(np.add)
def add(result, x1, x2):
    d[result] = d[x1] + d[x2]


@tangent(np.arctan2)
def arctan2(result, x1, x2):
    d[result] = (d[x1] * x2 - x1 * d[x2]) / (x1 * x1 + x2 * x2)


@tangent(np.divide)
def divide(result, x1, x2):
    d[result] = d[x1] / x2 - d[x2] * result / x2


@tangent(np.float_power)
def float_power(result, x1, x2):
    """At a zero exponent or base: see operator.pow in syntax.py."""
    d[result] = d[x1] * x2 * np.float_power(x1, x2 - (x2 != 0)) + \
        d[x2] * result * np.log(x1 + (x1 == 0))


@tangent(np.fmax)
def fmax(result, x1, x2):
    """The mean of the two tangents at a tie, as np.maximum."""
    d[result] = np.where((x1 > x2) | np.isnan(x2), d[x1],
                         np.where(x1 == x2, (d[x1] + d[x2]) * 0.5, d[x2]))


@tangent(np.fmin)
def fmin(result, x1, x2):
    """The mean of the two tangents at a tie, as np.minimum."""
    d[result] = np.where((x1 < x2) | np.isnan(x2), d[x1],
                         np.where(x1 == x2, (d[x1] + d[x2]) * 0.5, d[x2]))


@tangent(np.fmod)
def fmod(result, x1, x2):
    d[result] = d[x1] - d[x2] * np.trunc(x1 / x2)


@tangent(np.hypot)
def hypot(result, x1, x2):
    d[result] = (d[x1] * x1 + d[x2] * x2) / result




@tangent(np.maximum)
def maximum(result, x1, x2):
    """The mean of the two tangents at a tie (see the adjoint)."""
    d[result] = np.where(x1 > x2, d[x1], np.where(x1 == x2, (d[x1] + d[x2]) * 0.5, d[x2]))


@tangent(np.minimum)
def minimum(result, x1, x2):
    """The mean of the two tangents at a tie (see np.maximum's adjoint)."""
    d[result] = np.where(x1 < x2, d[x1], np.where(x1 == x2, (d[x1] + d[x2]) * 0.5, d[x2]))


@tangent(np.mod)
def mod(result, x1, x2):
    d[result] = d[x1] - d[x2] * np.floor_divide(x1, x2)


@tangent(np.multiply)
def multiply(result, x1, x2):
    d[result] = d[x1] * x2 + x1 * d[x2]


@tangent(np.power)
def power(result, x1, x2):
    """At a zero exponent or base: see operator.pow in syntax.py."""
    d[result] = d[x1] * x2 * x1 ** (x2 - (x2 != 0)) + d[x2] * result * np.log(x1 + (x1 == 0))


@tangent(np.subtract)
def subtract(result, x1, x2):
    d[result] = d[x1] - d[x2]


# ---- clipping and selection ------------------------------------------------

@tangent(np.clip)
def clip(result, a, a_min=None, a_max=None, min=None, max=None):
    d[result] = d[a] * (result == a) + d[a_min] * (a < a_min) + \
        d[a_max] * (a > a_max) + d[min] * (a < min) + d[max] * (a > max)


@tangent(np.where)
def where(result, condition, x, y):
    d[result] = np.where(condition, d[x], d[y])


broadcasting(
    np.add, np.arctan2, np.divide, np.float_power, np.fmax, np.fmin, np.fmod,
    np.hypot, np.maximum, np.minimum, np.mod,
    np.multiply, np.power, np.subtract, np.clip, np.where,
)


# ---- complex numbers -------------------------------------------------------

@tangent(np.angle)
def angle(result, z):
    d[result] = np.imag(d[z] / z)


@tangent(np.conj)
def conj(result, x):
    d[result] = np.conj(d[x])


@tangent(np.imag)
def imag(result, val):
    d[result] = np.imag(d[val])


@tangent(np.real)
def real(result, val):
    d[result] = np.real(d[val])


# ---- array construction ----------------------------------------------------

@tangent(np.array)
def array(result, object, dtype=None, copy=True, order="K", ndmin=0):
    d[result] = tangent_array(d[object], result)


@tangent(np.asarray)
def asarray(result, a, dtype=None, order=None):
    d[result] = tangent_array(d[a], result)


if hasattr(np, "astype"):  # NumPy >= 2.1

    @tangent(np.astype)
    def astype(result, x, dtype, copy=True):
        d[result] = tangent_array(d[x], result)


@tangent(np.full)
def full(result, shape, fill_value):
    d[result] = np.full_like(result, d[fill_value])


@tangent(np.full_like)
def full_like(result, a, fill_value):
    d[result] = np.full_like(result, d[fill_value])


@tangent(np.linspace)
def linspace(result, start, stop, num=50, endpoint=True, axis=0):
    d[result] = np.linspace(d[start], d[stop], num, endpoint, axis=axis)
