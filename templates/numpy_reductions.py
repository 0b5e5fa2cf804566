"""Reverse-mode rules for NumPy's reductions and scans.

A reduction's adjoint is spread back over the reduced axes
(``unreduce``, which also undoes ``keepdims=False``) and weighted by the
slope of the reduction: 1 for a sum, 1/n for a mean, 2 (x - mean) / (n -
ddof) for a variance, the indicator of the extreme elements for a max.
"""
import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic
from tangent_ad.runtime import (
    grad_norm, unaverage, uncumsum, undiff, unreduce, unreduce_max, unreduce_mean,
    unreduce_median, unreduce_nanvar, unreduce_var, unweights, unquantile, unquantile_q,
    weights_like)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- reductions ------------------------------------------------------------

@adjoint(np.average)
def average(result, a, axis=None, weights=None, keepdims=False):
    """With weights: w / sum(w) for a, (a - average) / sum(w) for w."""
    d[a] = unaverage(d[result], a, axis, weights, keepdims)
    d[weights] = unweights(unreduce(d[result] / np.sum(
        weights_like(weights, a, axis), axis, keepdims=keepdims), a, axis, keepdims) *
        (a - unreduce(result, a, axis, keepdims)), weights, axis)


@adjoint(np.cumprod)
def cumprod(result, a, axis=None):
    """Divides by the input: undefined where an element is zero."""
    d[a] = uncumsum(d[result] * result, a, axis) / a


@adjoint(np.cumsum)
def cumsum(result, a, axis=None):
    d[a] = uncumsum(d[result], a, axis)


@adjoint(np.diff)
def diff(result, a, n=1, axis=-1):
    d[a] = undiff(d[result], n, axis)


@adjoint(np.linalg.norm)
def norm(result, x, ord=None, axis=None, keepdims=False):
    """Vector norms of any order, matrix norms 'fro', 'nuc', 1, 2, inf."""
    d[x] = grad_norm(np.real(d[result]), result, x, ord, axis, keepdims)


nonholomorphic(np.linalg.norm)  # |z| of complex entries


@adjoint(np.max)
@adjoint(np.amax)
@adjoint(np.min)
@adjoint(np.amin)
@adjoint(np.nanmax)
@adjoint(np.nanmin)
def max(result, a, axis=None, keepdims=False):
    """Ties share the adjoint equally (NaN elements equal no result)."""
    d[a] = unreduce_max(d[result], result, a, axis, keepdims)


@adjoint(np.mean)
def mean(result, a, axis=None, keepdims=False):
    d[a] = unreduce_mean(d[result], a, axis, keepdims)


@adjoint(np.median)
def median(result, a, axis=None, keepdims=False):
    """The middle element, or the two middle ones, gets the adjoint."""
    d[a] = unreduce_median(d[result], a, axis, keepdims)


@adjoint(np.quantile)
def quantile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """Method 'linear' only; at ties, argsort's order (JAX's convention).

    Where q falls on a sorted value the interval above it is taken."""
    d[a] = unquantile(d[result], a, q, axis, keepdims, method, 1.0, False, overwrite_input)
    d[q] = unquantile_q(d[result], a, a, q, axis, keepdims, method, 1.0, False, overwrite_input)


@adjoint(np.percentile)
def percentile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """np.quantile of q / 100."""
    d[a] = unquantile(d[result], a, q, axis, keepdims, method, 100.0, False, overwrite_input)
    d[q] = unquantile_q(d[result], a, a, q, axis, keepdims, method, 100.0, False,
                        overwrite_input)


@adjoint(np.nanquantile)
def nanquantile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    """np.quantile of the elements that are not NaN (they get a zero adjoint)."""
    d[a] = unquantile(d[result], a, q, axis, keepdims, method, 1.0, True, overwrite_input)
    d[q] = unquantile_q(d[result], a, a, q, axis, keepdims, method, 1.0, True, overwrite_input)


@adjoint(np.nanpercentile)
def nanpercentile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    """np.nanquantile of q / 100."""
    d[a] = unquantile(d[result], a, q, axis, keepdims, method, 100.0, True, overwrite_input)
    d[q] = unquantile_q(d[result], a, a, q, axis, keepdims, method, 100.0, True,
                        overwrite_input)


@adjoint(np.nanmedian)
def nanmedian(result, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.nanquantile(a, 0.5): the middle one or two of the elements that are not NaN."""
    d[a] = unquantile(d[result], a, 0.5, axis, keepdims, "linear", 1.0, True, overwrite_input)


@adjoint(np.nanmean)
def nanmean(result, a, axis=None, keepdims=False):
    """NaN elements get a zero adjoint."""
    d[a] = unreduce(d[result] / np.sum(~np.isnan(a), axis, keepdims=keepdims), a, axis,
                    keepdims) * ~np.isnan(a)


@adjoint(np.nanprod)
def nanprod(result, a, axis=None, keepdims=False):
    """NaN elements get a zero adjoint; undefined where an element is zero."""
    d[a] = np.where(np.isnan(a), 0.0, unreduce(d[result] * result, a, axis, keepdims) / a)


@adjoint(np.nansum)
def nansum(result, a, axis=None, keepdims=False):
    """NaN elements get a zero adjoint."""
    d[a] = unreduce(d[result], a, axis, keepdims) * ~np.isnan(a)


@adjoint(np.prod)
def prod(result, a, axis=None, keepdims=False):
    """Divides by the input: undefined where an element is zero."""
    d[a] = unreduce(d[result] * result, a, axis, keepdims) / a


@adjoint(np.ptp)
def ptp(result, a, axis=None, keepdims=False):
    top = np.max(a, axis, keepdims=keepdims)
    bottom = np.min(a, axis, keepdims=keepdims)
    d[a] = unreduce_max(d[result], top, a, axis, keepdims) - \
        unreduce_max(d[result], bottom, a, axis, keepdims)


@adjoint(np.std)
def std(result, a, axis=None, ddof=0, keepdims=False):
    """Zero where the deviation is zero (one element, or all equal).

    The formula reads 0.5 / 0 times a zero slope there; the gradient of
    the std of one element is 0, as autograd and JAX give."""
    d[a] = unreduce_var(np.real(d[result]) * 0.5 / (result + (result == 0)), a, axis, ddof,
                        keepdims)


@adjoint(np.sum)
def sum(result, a, axis=None, keepdims=False):
    d[a] = unreduce(d[result], a, axis, keepdims)


@adjoint(np.var)
def var(result, a, axis=None, ddof=0, keepdims=False):
    d[a] = unreduce_var(np.real(d[result]), a, axis, ddof, keepdims)


@adjoint(np.nanstd)
def nanstd(result, a, axis=None, ddof=0, keepdims=False):
    """np.std of the elements that are not NaN (0 where the deviation is 0)."""
    d[a] = unreduce_nanvar(np.real(d[result]) * 0.5 / (result + (result == 0)), a, axis, ddof,
                           keepdims)


@adjoint(np.nanvar)
def nanvar(result, a, axis=None, ddof=0, keepdims=False):
    """np.var of the elements that are not NaN (they get a zero adjoint)."""
    d[a] = unreduce_nanvar(np.real(d[result]), a, axis, ddof, keepdims)


@adjoint(np.nancumsum)
def nancumsum(result, a, axis=None):
    """np.cumsum with NaNs read as 0 (they get a zero adjoint)."""
    d[a] = uncumsum(d[result], a, axis) * ~np.isnan(a)


@adjoint(np.nancumprod)
def nancumprod(result, a, axis=None):
    """np.cumprod with NaNs read as 1; divides by the input, as np.cumprod."""
    d[a] = uncumsum(d[result] * result, a, axis) / np.where(np.isnan(a), 1.0, a) * ~np.isnan(a)


nonholomorphic(np.std, np.var, np.nanstd, np.nanvar)  # |x - mean|^2 of complex entries
