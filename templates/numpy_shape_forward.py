"""Forward-mode rules for NumPy functions that move, copy or select elements.

These functions are linear, so the tangent of the result is the same
function applied to the tangent of the array: ``np.flip(d[m], axis)``.
The rest of the arguments (axes, shapes, indices) are passed unchanged.
A sort or partition moves each tangent with its element.
"""
import numpy as np

from tangent_ad.registry import tangent
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


@tangent(np.broadcast_to)
def broadcast_to(result, array, shape):
    d[result] = np.broadcast_to(d[array], shape)


@tangent(np.expand_dims)
def expand_dims(result, a, axis):
    d[result] = np.expand_dims(d[a], axis)


@tangent(np.ravel)
def ravel(result, a, order="C"):
    d[result] = np.ravel(d[a], order)


@tangent(np.reshape)
def reshape(result, a, shape, order="C"):
    d[result] = np.reshape(d[a], np.shape(result), order=order)


@tangent(np.squeeze)
def squeeze(result, a, axis=None):
    d[result] = np.reshape(d[a], np.shape(result))


# ---- permuting axes and elements -------------------------------------------

@tangent(np.flip)
def flip(result, m, axis=None):
    d[result] = np.flip(d[m], axis)


@tangent(np.fliplr)
def fliplr(result, m):
    d[result] = np.fliplr(d[m])


@tangent(np.flipud)
def flipud(result, m):
    d[result] = np.flipud(d[m])


@tangent(np.moveaxis)
def moveaxis(result, a, source, destination):
    d[result] = np.moveaxis(d[a], source, destination)


@tangent(np.partition)
def partition(result, a, kth, axis=-1, kind="introselect"):
    """The k-th smallest element of the result gets the tangent of the
    k-th smallest element of `a` (``unsort`` with the roles swapped)."""
    d[result] = unsort(d[a], result, a, axis)


@tangent(np.roll)
def roll(result, a, shift, axis=None):
    d[result] = np.roll(d[a], shift, axis)


@tangent(np.rollaxis)
def rollaxis(result, a, axis, start=0):
    d[result] = np.rollaxis(d[a], axis, start)


@tangent(np.rot90)
def rot90(result, m, k=1, axes=(0, 1)):
    d[result] = np.rot90(d[m], k, axes)


@tangent(np.sort)
def sort(result, a, axis=-1, kind=None):
    d[result] = np.take_along_axis(d[a], np.argsort(a, axis, kind), axis)


@tangent(np.swapaxes)
def swapaxes(result, a, axis1, axis2):
    d[result] = np.swapaxes(d[a], axis1, axis2)


@tangent(np.transpose)
def transpose(result, a, axes=None):
    d[result] = np.transpose(d[a], axes)


# ---- joining and splitting -------------------------------------------------

@tangent(np.array_split)
def array_split(result, ary, indices_or_sections, axis=0):
    d[result] = np.array_split(d[ary], indices_or_sections, axis)


@tangent(np.split)
def split(result, ary, indices_or_sections, axis=0):
    d[result] = np.split(d[ary], indices_or_sections, axis)


@tangent(np.dsplit)
def dsplit(result, ary, indices_or_sections):
    d[result] = np.dsplit(d[ary], indices_or_sections)


@tangent(np.hsplit)
def hsplit(result, ary, indices_or_sections):
    d[result] = np.hsplit(d[ary], indices_or_sections)


@tangent(np.vsplit)
def vsplit(result, ary, indices_or_sections):
    d[result] = np.vsplit(d[ary], indices_or_sections)


@tangent(np.column_stack)
def column_stack(result, tup):
    d[result] = np.column_stack(d[tup])


@tangent(np.concatenate)
def concatenate(result, arrays, axis=0):
    d[result] = np.concatenate(d[arrays], axis)


@tangent(r_concat)
def r_concat_rule(result, items):  # named so as not to hide r_concat
    d[result] = r_concat(d[items])


@tangent(c_concat)
def c_concat_rule(result, items):
    d[result] = c_concat(d[items])


@tangent(np.dstack)
def dstack(result, tup):
    d[result] = np.dstack(d[tup])


@tangent(np.hstack)
def hstack(result, tup):
    d[result] = np.hstack(d[tup])


@tangent(np.stack)
def stack(result, arrays, axis=0):
    d[result] = np.stack(d[arrays], axis)


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


@tangent(np.repeat)
def repeat(result, a, repeats, axis=None):
    d[result] = np.repeat(d[a], repeats, axis)


@tangent(np.tile)
def tile(result, A, reps):
    d[result] = np.tile(d[A], reps)


# ---- selecting -------------------------------------------------------------

@tangent(np.diag)
def diag(result, v, k=0):
    d[result] = np.diag(d[v], k)


@tangent(np.diagonal)
def diagonal(result, a, offset=0, axis1=0, axis2=1):
    d[result] = np.diagonal(d[a], offset, axis1, axis2)


@tangent(np.take)
def take(result, a, indices, axis=None, mode="raise"):
    d[result] = np.take(d[a], indices, axis, mode=mode)


@tangent(np.take_along_axis)
def take_along_axis(result, arr, indices, axis=-1):
    d[result] = np.take_along_axis(d[arr], indices, axis)


@tangent(np.trace)
def trace(result, a, offset=0, axis1=0, axis2=1):
    d[result] = np.trace(d[a], offset, axis1, axis2)


@tangent(np.tril)
def tril(result, m, k=0):
    d[result] = np.tril(d[m], k)


@tangent(np.triu)
def triu(result, m, k=0):
    d[result] = np.triu(d[m], k)
