"""Forward-mode rules for NumPy functions that move, copy or select elements.

These functions are linear, so the tangent of the result is the same
function applied to the tangent of the array: ``np.flip(d[m], axis)``.
The rest of the arguments (axes, shapes, indices) are passed unchanged.
Most are one line each at the end (``linear``, from
``tangent_ad.rule_table``); the templates are the rules that are not the
function itself: a sort or partition moves each tangent with its
element.
"""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.rule_table import linear
from tangent_ad.runtime import c_concat, cast_like, r_concat, unsort

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- reshaping -------------------------------------------------------------

@tangent(np.atleast_1d)
def atleast_1d(result, arys):
    d[result] = np.atleast_1d(*d[arys])


@tangent(np.atleast_2d)
def atleast_2d(result, arys):
    d[result] = np.atleast_2d(*d[arys])


@tangent(np.atleast_3d)
def atleast_3d(result, arys):
    d[result] = np.atleast_3d(*d[arys])


@tangent(np.reshape)
def reshape(result, a, shape, order="C"):
    d[result] = np.reshape(d[a], np.shape(result), order=order)


@tangent(np.squeeze)
def squeeze(result, a, axis=None):
    d[result] = np.reshape(d[a], np.shape(result))


# ---- permuting axes and elements -------------------------------------------


@tangent(np.partition)
def partition(result, a, kth, axis=-1, kind="introselect"):
    """The k-th smallest element of the result gets the tangent of the
    k-th smallest element of `a` (``unsort`` with the roles swapped)."""
    d[result] = unsort(d[a], result, a, axis)


@tangent(np.rot90)
def rot90(result, m, k=1, axes=(0, 1)):
    d[result] = np.rot90(d[m], k, axes)


@tangent(np.sort)
def sort(result, a, axis=-1, kind=None):
    d[result] = np.take_along_axis(d[a], np.argsort(a, axis, kind), axis)


# ---- joining and splitting -------------------------------------------------


@tangent(r_concat)
def r_concat_rule(result, items):  # named so as not to hide r_concat
    d[result] = r_concat(d[items])


@tangent(c_concat)
def c_concat_rule(result, items):
    d[result] = c_concat(d[items])


@tangent(np.vstack)
@tangent(np.row_stack)
def vstack(result, tup):
    d[result] = np.vstack(d[tup])


# ---- copying ---------------------------------------------------------------

@tangent(np.append)
def append(result, arr, values, axis=None):
    d[result] = np.append(d[arr], d[values], axis)


@tangent(np.copy)
def copy(result, a, order="K"):
    d[result] = d[a]


@tangent(np.pad)
def pad(result, array, pad_width, mode="constant", constant_values=0):
    d[result] = np.pad(d[array], pad_width, mode) + \
        np.pad(np.zeros_like(array), pad_width, mode, constant_values=d[constant_values])


@tangent(np.real_if_close)
def real_if_close(result, a, tol=100):
    d[result] = cast_like(d[a], result)


# ---- selecting -------------------------------------------------------------


@tangent(np.take)
def take(result, a, indices, axis=None, mode="raise"):
    d[result] = np.take(d[a], indices, axis, mode=mode)


@tangent(np.take_along_axis)
def take_along_axis(result, arr, indices, axis=-1):
    d[result] = np.take_along_axis(d[arr], indices, axis)


@tangent(np.trace)
def trace(result, a, offset=0, axis1=0, axis2=1):
    d[result] = np.trace(d[a], offset, axis1, axis2)


# ---- linear functions: the tangent is the function of the tangent ----------

linear(
    globals(),
    "np.flip(m, axis=None)",
    "np.fliplr(m)",
    "np.flipud(m)",
    "np.moveaxis(a, source, destination)",
    "np.roll(a, shift, axis=None)",
    "np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None)",
    "np.rollaxis(a, axis, start=0)",
    "np.swapaxes(a, axis1, axis2)",
    "np.transpose(a, axes=None)",
    "np.expand_dims(a, axis)",
    "np.broadcast_to(array, shape)",
    'np.ravel(a, order="C")',
    "np.array_split(ary, indices_or_sections, axis=0)",
    "np.split(ary, indices_or_sections, axis=0)",
    "np.dsplit(ary, indices_or_sections)",
    "np.hsplit(ary, indices_or_sections)",
    "np.vsplit(ary, indices_or_sections)",
    "np.column_stack(tup)",
    "np.concatenate(arrays, axis=0)",
    "np.dstack(tup)",
    "np.hstack(tup)",
    "np.stack(arrays, axis=0)",
    "np.repeat(a, repeats, axis=None)",
    "np.tile(A, reps)",
    "np.diag(v, k=0)",
    "np.diagonal(a, offset=0, axis1=0, axis2=1)",
    "np.tril(m, k=0)",
    "np.triu(m, k=0)",
)
