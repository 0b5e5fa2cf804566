"""Reverse-mode rules for NumPy's elementwise functions, complex parts and
array constructors, and the functions with a zero derivative.

For complex arguments the rules follow JAX's convention: a holomorphic
function's adjoint is ``d[result] * f'(z)``, with no conjugate, so the
rules read the same for real and complex values. The non-holomorphic
ones (complex parts, ``np.abs``) are declared with ``nonholomorphic``;
a gradient that uses one conjugates its complex results at the end.

One rule per function, as short as the math. ``result`` is the value the
call returned, ``d[result]`` its adjoint; each ``d[x] = ...`` line gives
the contribution to the adjoint of argument ``x``. Parameter names and
defaults are NumPy's, so calls bind to templates the way they bind to
NumPy. Reductions are in ``numpy_reductions.py``, shape functions in
``numpy_shape.py``, linear algebra in ``numpy_linalg.py``.

Constants are written out (``0.6931471805599453`` for log 2) rather than
computed with NumPy: a NumPy float64 scalar would turn float32 arrays into
float64 ones, a Python float does not.
"""
import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic, zero_derivative
from tangent_ad.runtime import (
    abs_slope, cast_like, dsinc, linspace_fraction, unarray, unbroadcast)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- elementwise, one argument ---------------------------------------------

@adjoint(np.abs)
def abs(result, x):
    """For a complex z: conj(z) / abs(z).

    The result is real, so only the real part of its adjoint pairs with a
    change of it (JAX's convention)."""
    d[x] = np.real(d[result]) * abs_slope(x)











@adjoint(np.deg2rad)
@adjoint(np.radians)
def deg2rad(result, x):
    d[x] = d[result] * (np.pi / 180.0)










@adjoint(np.nan_to_num)
def nan_to_num(result, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[x] = d[result] * np.isfinite(x)




@adjoint(np.rad2deg)
@adjoint(np.degrees)
def rad2deg(result, x):
    d[x] = d[result] * (180.0 / np.pi)



@adjoint(np.sign)
def sign(result, x):
    """Zero for real x; x / abs(x) turns with a complex x.

    Exactly zero for real x (|sign| = 1 and sign * sign = 1) and at 0. For
    complex x the adjoint is (g - Re(g sign) conj(sign)) / |x|. Written in
    NumPy, so that every higher order follows from the rules."""
    d[x] = (d[result] * np.abs(result) - np.real(d[result] * result) * np.conj(result)) / \
        (np.abs(x) + (x == 0))









# ---- elementwise, two arguments --------------------------------------------

@adjoint(np.add)
def add(result, x1, x2):
    d[x1] = unbroadcast(d[result], x1)
    d[x2] = unbroadcast(d[result], x2)


@adjoint(np.arctan2)
def arctan2(result, x1, x2):
    d[x1] = unbroadcast(d[result] * x2 / (x1 * x1 + x2 * x2), x1)
    d[x2] = unbroadcast(-d[result] * x1 / (x1 * x1 + x2 * x2), x2)


@adjoint(np.divide)
def divide(result, x1, x2):
    d[x1] = unbroadcast(d[result] / x2, x1)
    d[x2] = unbroadcast(-d[result] * result / x2, x2)


@adjoint(np.float_power)
def float_power(result, x1, x2):
    """No slope for a zero exponent, nor in the exponent for a zero base.

    See operator.pow in syntax.py."""
    d[x1] = unbroadcast(d[result] * x2 * np.float_power(x1, x2 - (x2 != 0)), x1)
    d[x2] = unbroadcast(d[result] * result * np.log(x1 + (x1 == 0)), x2)


@adjoint(np.fmax)
def fmax(result, x1, x2):
    """Half each at a tie, as np.maximum; a NaN's other argument gets all."""
    d[x1] = unbroadcast(d[result] * ((x1 > x2) | np.isnan(x2)) + d[result] * (x1 == x2) * 0.5, x1)
    d[x2] = unbroadcast(d[result] * ((x1 < x2) | np.isnan(x1)) + d[result] * (x1 == x2) * 0.5, x2)


@adjoint(np.fmin)
def fmin(result, x1, x2):
    """Half each at a tie, as np.minimum; a NaN's other argument gets all."""
    d[x1] = unbroadcast(d[result] * ((x1 < x2) | np.isnan(x2)) + d[result] * (x1 == x2) * 0.5, x1)
    d[x2] = unbroadcast(d[result] * ((x1 > x2) | np.isnan(x1)) + d[result] * (x1 == x2) * 0.5, x2)


@adjoint(np.fmod)
def fmod(result, x1, x2):
    d[x1] = unbroadcast(d[result], x1)
    d[x2] = unbroadcast(-d[result] * np.trunc(x1 / x2), x2)


@adjoint(np.hypot)
def hypot(result, x1, x2):
    d[x1] = unbroadcast(d[result] * x1 / result, x1)
    d[x2] = unbroadcast(d[result] * x2 / result, x2)




@adjoint(np.maximum)
def maximum(result, x1, x2):
    """Half each at a tie: the mean of the slopes on either side.

    Central differences see that mean; autograd, JAX and PyTorch give it,
    and so does np.max to its tied entries."""
    d[x1] = unbroadcast(d[result] * (x1 > x2) + d[result] * (x1 == x2) * 0.5, x1)
    d[x2] = unbroadcast(d[result] * (x1 < x2) + d[result] * (x1 == x2) * 0.5, x2)


@adjoint(np.minimum)
def minimum(result, x1, x2):
    """Half each at a tie, as np.maximum."""
    d[x1] = unbroadcast(d[result] * (x1 < x2) + d[result] * (x1 == x2) * 0.5, x1)
    d[x2] = unbroadcast(d[result] * (x1 > x2) + d[result] * (x1 == x2) * 0.5, x2)


@adjoint(np.mod)
def mod(result, x1, x2):
    d[x1] = unbroadcast(d[result], x1)
    d[x2] = unbroadcast(-d[result] * np.floor_divide(x1, x2), x2)


@adjoint(np.multiply)
def multiply(result, x1, x2):
    d[x1] = unbroadcast(d[result] * x2, x1)
    d[x2] = unbroadcast(d[result] * x1, x2)


@adjoint(np.power)
def power(result, x1, x2):
    """No slope for a zero exponent, nor in the exponent for a zero base.

    See operator.pow in syntax.py."""
    d[x1] = unbroadcast(d[result] * x2 * x1 ** (x2 - (x2 != 0)), x1)
    d[x2] = unbroadcast(d[result] * result * np.log(x1 + (x1 == 0)), x2)


@adjoint(np.subtract)
def subtract(result, x1, x2):
    d[x1] = unbroadcast(d[result], x1)
    d[x2] = unbroadcast(-d[result], x2)


# ---- clipping and selection ------------------------------------------------

@adjoint(np.clip)
def clip(result, a, a_min=None, a_max=None, min=None, max=None):
    d[a] = unbroadcast(d[result] * (result == a), a)
    d[a_min] = unbroadcast(d[result] * (a < a_min), a_min)
    d[a_max] = unbroadcast(d[result] * (a > a_max), a_max)
    d[min] = unbroadcast(d[result] * (a < min), min)
    d[max] = unbroadcast(d[result] * (a > max), max)


@adjoint(np.where)
def where(result, condition, x, y):
    d[x] = unbroadcast(np.where(condition, d[result], 0.0), x)
    d[y] = unbroadcast(np.where(condition, 0.0, d[result]), y)


# ---- complex numbers -------------------------------------------------------
# JAX's convention: the adjoint g of z stands for the change Re(g * dz).

@adjoint(np.angle)
def angle(result, z):
    d[z] = cast_like(-1j * np.real(d[result]) / z, z)


@adjoint(np.conj)
def conj(result, x):
    d[x] = np.conj(d[result])


@adjoint(np.imag)
def imag(result, val):
    d[val] = cast_like(-1j * np.real(d[result]), val)


@adjoint(np.real)
def real(result, val):
    d[val] = cast_like(np.real(d[result]), val)


nonholomorphic(np.abs, np.angle, np.conj, np.imag, np.real, np.sign)


# ---- array construction ----------------------------------------------------

@adjoint(np.array)
def array(result, object, dtype=None, copy=True, order="K", ndmin=0):
    d[object] = unarray(d[result], object, result)


@adjoint(np.asarray)
def asarray(result, a, dtype=None, order=None):
    d[a] = unarray(d[result], a, result)


if hasattr(np, "astype"):  # NumPy >= 2.1

    @adjoint(np.astype)
    def astype(result, x, dtype, copy=True):
        d[x] = unarray(d[result], x, result)


@adjoint(np.full)
def full(result, shape, fill_value):
    d[fill_value] = unbroadcast(d[result], fill_value)


@adjoint(np.full_like)
def full_like(result, a, fill_value):
    d[fill_value] = unbroadcast(d[result], fill_value)


@adjoint(np.linspace)
def linspace(result, start, stop, num=50, endpoint=True, axis=0):
    t = linspace_fraction(result, num, endpoint, axis)
    d[start] = unbroadcast(np.sum(d[result] * (1.0 - t), axis), start)
    d[stop] = unbroadcast(np.sum(d[result] * t, axis), stop)


# ---- zero derivative -------------------------------------------------------
# Piecewise-constant functions, predicates, index-valued functions and
# constructors from shapes: their results are constants for differentiation.

zero_derivative(
    # piecewise constant
    np.ceil, np.fix, np.floor, np.floor_divide, np.rint, np.round, np.around,
    np.trunc,  # not np.sign: x / |x| varies for complex x
    # comparisons and predicates
    np.all, np.allclose, np.any, np.array_equal, np.array_equiv, np.equal,
    np.greater, np.greater_equal, np.iscomplex, np.iscomplexobj, np.isclose,
    np.isfinite, np.isinf, np.isnan, np.isneginf, np.isposinf, np.isreal,
    np.isscalar, np.less, np.less_equal, np.logical_and, np.logical_not,
    np.logical_or, np.logical_xor, np.not_equal, np.signbit,
    # indices and counts
    np.argmax, np.argmin, np.argpartition, np.argsort, np.argwhere, np.nanargmax, np.nanargmin,
    np.count_nonzero, np.flatnonzero, np.nonzero, np.searchsorted,
    # shapes, types, and arrays made from shapes
    np.empty, np.empty_like, np.eye, np.identity, np.ndim, np.ones,
    np.ones_like, np.result_type, np.shape, np.size, np.tri, np.zeros,
    np.zeros_like, np.arange,
    # casts to integer and bool scalar types: np.int64(x[:, -1]) as indices
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.intp, np.bool_,
)
