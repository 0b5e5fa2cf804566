"""Forward-mode rules for NumPy's reductions and scans.

A linear reduction reduces the tangent the same way (``np.sum(d[a],
axis)``). The others weigh the tangent by the slope of the reduction and
reduce the product with a sum: the indicator of the extreme elements for
a max (ties share), 2 (x - mean) / (n - ddof) for a variance. The slopes
come from the same runtime helpers as the reverse rules of
``numpy_reductions.py``, applied to ones.
"""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import (
    grad_norm, jvp_mean, quantile_of, quantile_step, unquantile, unquantile_q, unquantile_step,
    unreduce, unreduce_max, unreduce_median, unreduce_nanvar, unreduce_var, weights_like)

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- reductions ------------------------------------------------------------

@tangent(np.average)
def average(result, a, axis=None, weights=None, keepdims=False):
    """With weights: the average of the tangent, plus sum(dw (a - average)) / sum(w)."""
    d[result] = np.average(d[a], axis, weights, keepdims=keepdims) + np.sum(
        weights_like(d[weights], a, axis) * (a - unreduce(result, a, axis, keepdims)),
        axis, keepdims=keepdims) / np.sum(weights_like(weights, a, axis), axis,
                                          keepdims=keepdims)


@tangent(np.cumprod)
def cumprod(result, a, axis=None):
    """Divides by the input: undefined where an element is zero."""
    d[result] = result * np.cumsum(d[a] / a, axis)


@tangent(np.cumsum)
def cumsum(result, a, axis=None):
    d[result] = np.cumsum(d[a], axis)


@tangent(np.diff)
def diff(result, a, n=1, axis=-1):
    d[result] = np.diff(d[a], n, axis)


@tangent(np.linalg.norm)
def norm(result, x, ord=None, axis=None, keepdims=False):
    """Vector norms of any order, matrix norms 'fro', 'nuc', 1, 2, inf."""
    slope = grad_norm(np.ones_like(result), result, x, ord, axis, keepdims)
    d[result] = np.real(np.sum(slope * d[x], axis, keepdims=keepdims))  # a real norm


@tangent(np.max)
@tangent(np.amax)
@tangent(np.min)
@tangent(np.amin)
@tangent(np.nanmax)
@tangent(np.nanmin)
def max(result, a, axis=None, keepdims=False):
    """Ties share the tangent equally (NaN elements equal no result)."""
    share = unreduce_max(np.ones_like(result), result, a, axis, keepdims)
    d[result] = np.sum(share * d[a], axis, keepdims=keepdims)


@tangent(np.mean)
def mean(result, a, axis=None, keepdims=False):
    d[result] = jvp_mean(d[a], axis, keepdims)


@tangent(np.median)
def median(result, a, axis=None, keepdims=False):
    """The middle element, or the mean of the two middle ones."""
    share = unreduce_median(np.ones_like(result), a, axis, keepdims)
    d[result] = np.sum(share * d[a], axis, keepdims=keepdims)


@tangent(np.quantile)
def quantile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """Method 'linear' only; at ties, the order argsort gives (JAX's)."""
    d[result] = quantile_of(d[a], a, q, axis, keepdims, method, 1.0, False, overwrite_input) + \
        quantile_step(a, a, q, d[q], axis, keepdims, method, 1.0, False, overwrite_input)


@tangent(np.percentile)
def percentile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    d[result] = quantile_of(d[a], a, q, axis, keepdims, method, 100.0, False,
                            overwrite_input) + \
        quantile_step(a, a, q, d[q], axis, keepdims, method, 100.0, False, overwrite_input)


@tangent(np.nanquantile)
def nanquantile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    d[result] = quantile_of(d[a], a, q, axis, keepdims, method, 1.0, True, overwrite_input) + \
        quantile_step(a, a, q, d[q], axis, keepdims, method, 1.0, True, overwrite_input)


@tangent(np.nanpercentile)
def nanpercentile(result, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    d[result] = quantile_of(d[a], a, q, axis, keepdims, method, 100.0, True,
                            overwrite_input) + \
        quantile_step(a, a, q, d[q], axis, keepdims, method, 100.0, True, overwrite_input)


@tangent(np.nanmedian)
def nanmedian(result, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[result] = quantile_of(d[a], a, 0.5, axis, keepdims, "linear", 1.0, True, overwrite_input)


@tangent(np.nanstd)
def nanstd(result, a, axis=None, ddof=0, keepdims=False):
    slope = unreduce_nanvar(0.5 / (result + (result == 0)), a, axis, ddof, keepdims)
    d[result] = np.real(np.sum(slope * d[a], axis, keepdims=keepdims))


@tangent(np.nanvar)
def nanvar(result, a, axis=None, ddof=0, keepdims=False):
    slope = unreduce_nanvar(np.ones_like(result), a, axis, ddof, keepdims)
    d[result] = np.real(np.sum(slope * d[a], axis, keepdims=keepdims))


@tangent(np.nancumsum)
def nancumsum(result, a, axis=None):
    d[result] = np.cumsum(np.where(np.isnan(a), 0.0, d[a]), axis)


@tangent(np.nancumprod)
def nancumprod(result, a, axis=None):
    d[result] = result * np.cumsum(np.where(np.isnan(a), 0.0, d[a] / np.where(np.isnan(a), 1.0, a)),
                                   axis)


@tangent(np.nanmean)
def nanmean(result, a, axis=None, keepdims=False):
    """NaN elements do not count."""
    d[result] = np.nanmean(np.where(np.isnan(a), np.nan, d[a]), axis, keepdims=keepdims)


@tangent(np.nansum)
def nansum(result, a, axis=None, keepdims=False):
    """NaN elements do not count."""
    d[result] = np.sum(np.where(np.isnan(a), 0.0, d[a]), axis, keepdims=keepdims)


@tangent(np.nanprod)
def nanprod(result, a, axis=None, keepdims=False):
    """Undefined where an element is zero."""
    d[result] = result * np.nansum(d[a] / a, axis, keepdims=keepdims)


@tangent(np.prod)
def prod(result, a, axis=None, keepdims=False):
    """Divides by the input: undefined where an element is zero."""
    d[result] = result * np.sum(d[a] / a, axis, keepdims=keepdims)


@tangent(np.ptp)
def ptp(result, a, axis=None, keepdims=False):
    top = unreduce_max(np.ones_like(result), np.max(a, axis, keepdims=keepdims), a,
                       axis, keepdims)
    bottom = unreduce_max(np.ones_like(result), np.min(a, axis, keepdims=keepdims), a,
                          axis, keepdims)
    d[result] = np.sum((top - bottom) * d[a], axis, keepdims=keepdims)


@tangent(np.std)
def std(result, a, axis=None, ddof=0, keepdims=False):
    """Zero where the deviation is zero, as the reverse rule; real for
    complex entries, whose slope unreduce_var conjugates."""
    slope = unreduce_var(0.5 / (result + (result == 0)), a, axis, ddof, keepdims)
    d[result] = np.real(np.sum(slope * d[a], axis, keepdims=keepdims))


@tangent(np.sum)
def sum(result, a, axis=None, keepdims=False):
    d[result] = np.sum(d[a], axis, keepdims=keepdims)


@tangent(np.var)
def var(result, a, axis=None, ddof=0, keepdims=False):
    """Real for complex entries, whose slope unreduce_var conjugates."""
    slope = unreduce_var(np.ones_like(result), a, axis, ddof, keepdims)
    d[result] = np.real(np.sum(slope * d[a], axis, keepdims=keepdims))


# ---- the quantiles' helpers: linear in what they move -------------------------
# (gamma, the place of q between two sorted values, is linear in q)

@tangent(quantile_of)
def quantile_of_rule(result, t, a, q, axis=None, keepdims=False, method="linear", per=1.0,
                     nan=False, overwrite_input=False):
    d[result] = quantile_of(d[t], a, q, axis, keepdims, method, per, nan, overwrite_input) + \
        quantile_step(t, a, q, d[q], axis, keepdims, method, per, nan, overwrite_input)


@tangent(quantile_step)
def quantile_step_rule(result, t, a, q, dq, axis=None, keepdims=False, method="linear",
                       per=1.0, nan=False, overwrite_input=False):
    d[result] = quantile_step(d[t], a, q, dq, axis, keepdims, method, per, nan,
                              overwrite_input) + \
        quantile_step(t, a, q, d[dq], axis, keepdims, method, per, nan, overwrite_input)


@tangent(unquantile)
def unquantile_rule(result, g, a, q, axis=None, keepdims=False, method="linear", per=1.0,
                    nan=False, overwrite_input=False):
    d[result] = unquantile(d[g], a, q, axis, keepdims, method, per, nan, overwrite_input) + \
        unquantile_step(g, a, q, d[q], axis, keepdims, method, per, nan, overwrite_input)


@tangent(unquantile_step)
def unquantile_step_rule(result, g, a, q, dq, axis=None, keepdims=False, method="linear",
                         per=1.0, nan=False, overwrite_input=False):
    d[result] = unquantile_step(d[g], a, q, dq, axis, keepdims, method, per, nan,
                                overwrite_input) + \
        unquantile_step(g, a, q, d[dq], axis, keepdims, method, per, nan, overwrite_input)


@tangent(unquantile_q)
def unquantile_q_rule(result, g, t, a, q, axis=None, keepdims=False, method="linear", per=1.0,
                      nan=False, overwrite_input=False):
    d[result] = unquantile_q(d[g], t, a, q, axis, keepdims, method, per, nan,
                             overwrite_input) + \
        unquantile_q(g, d[t], a, q, axis, keepdims, method, per, nan, overwrite_input)


@tangent(unreduce_nanvar)
def unreduce_nanvar_rule(result, g, x, axis=None, ddof=0, keepdims=False, valid_from=None):
    """Linear in g and in x; which elements count does not vary."""
    d[result] = unreduce_nanvar(d[g], x, axis, ddof, keepdims, valid_from) + \
        unreduce_nanvar(g, d[x], axis, ddof, keepdims, x if valid_from is None else valid_from)
