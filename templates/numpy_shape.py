"""Reverse-mode rules for NumPy functions that move, copy or select elements.

Each adjoint puts the elements of ``d[result]`` back where they came from:
the inverse reshape, the inverse permutation of axes, the pieces of a
concatenation, the sum over the copies of a tile or a repeat, or a
scatter-add for a take. The helpers are in ``tangent_ad.runtime``.
"""
import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic, structured
from tangent_ad.runtime import (
    c_concat, r_concat,
    cast_like, inverse_permutation, unatleast, unbroadcast, unconcatenate, undiag,
    undiagonal, unpad, unrepeat, unrollaxis, unslide, unsort, unstack, untake,
    untake_along_axis, untile)

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- reshaping -------------------------------------------------------------

@adjoint(np.atleast_1d)
@adjoint(np.atleast_2d)
@adjoint(np.atleast_3d)
def atleast_nd(result, arys):
    d[arys] = unatleast(d[result], arys)


@adjoint(np.broadcast_to)
def broadcast_to(result, array, shape):
    d[array] = unbroadcast(d[result], array)


@adjoint(np.expand_dims)
def expand_dims(result, a, axis):
    d[a] = np.reshape(d[result], np.shape(a))


@adjoint(np.ravel)
def ravel(result, a, order="C"):
    d[a] = np.reshape(d[result], np.shape(a), order=order)


@adjoint(np.reshape)
def reshape(result, a, shape, order="C"):
    d[a] = np.reshape(d[result], np.shape(a), order=order)


@adjoint(np.squeeze)
def squeeze(result, a, axis=None):
    d[a] = np.reshape(d[result], np.shape(a))


# ---- permuting axes and elements -------------------------------------------

@adjoint(np.flip)
def flip(result, m, axis=None):
    d[m] = np.flip(d[result], axis)


@adjoint(np.fliplr)
def fliplr(result, m):
    d[m] = np.fliplr(d[result])


@adjoint(np.flipud)
def flipud(result, m):
    d[m] = np.flipud(d[result])


@adjoint(np.moveaxis)
def moveaxis(result, a, source, destination):
    d[a] = np.moveaxis(d[result], destination, source)


@adjoint(np.partition)
def partition(result, a, kth, axis=-1, kind="introselect"):
    d[a] = unsort(d[result], a, result, axis)


@adjoint(np.roll)
def roll(result, a, shift, axis=None):
    d[a] = np.roll(d[result], np.negative(shift), axis)


@adjoint(np.rollaxis)
def rollaxis(result, a, axis, start=0):
    d[a] = unrollaxis(d[result], a, axis, start)


@adjoint(np.rot90)
def rot90(result, m, k=1, axes=(0, 1)):
    d[m] = np.rot90(d[result], -k, axes)


@adjoint(np.sort)
def sort(result, a, axis=-1, kind=None):
    d[a] = untake_along_axis(d[result], a, np.argsort(a, axis, kind), axis)


@adjoint(np.swapaxes)
def swapaxes(result, a, axis1, axis2):
    d[a] = np.swapaxes(d[result], axis1, axis2)


@adjoint(np.transpose)
def transpose(result, a, axes=None):
    d[a] = np.transpose(d[result], inverse_permutation(axes))


# ---- joining and splitting -------------------------------------------------

@adjoint(np.array_split)
@adjoint(np.split)
def split(result, ary, indices_or_sections, axis=0):
    d[ary] = np.concatenate(d[result], axis)


@adjoint(np.dsplit)
def dsplit(result, ary, indices_or_sections):
    d[ary] = np.concatenate(d[result], 2)


@adjoint(np.hsplit)
def hsplit(result, ary, indices_or_sections):
    d[ary] = np.concatenate(d[result], 0 if np.ndim(ary) == 1 else 1)


@adjoint(np.vsplit)
def vsplit(result, ary, indices_or_sections):
    d[ary] = np.concatenate(d[result], 0)


@adjoint(np.column_stack)
def column_stack(result, tup):
    d[tup] = unconcatenate(d[result], tup, 1)


@adjoint(np.concatenate)
def concatenate(result, arrays, axis=0):
    d[arrays] = unconcatenate(d[result], arrays, axis)


@adjoint(r_concat)
def r_concat_rule(result, items):  # named so as not to hide r_concat
    """np.r_[a, b]: each item's elements are a run along the first axis."""
    d[items] = unconcatenate(d[result], items, 0)


@adjoint(c_concat)
def c_concat_rule(result, items):
    """np.c_[a, b]: each item's elements are a run along the last axis."""
    d[items] = unconcatenate(d[result], items, -1)


@adjoint(np.dstack)
def dstack(result, tup):
    d[tup] = unconcatenate(d[result], tup, 2)


@adjoint(np.hstack)
def hstack(result, tup):
    d[tup] = unconcatenate(d[result], tup, 0 if np.ndim(result) == 1 else 1)


@adjoint(np.stack)
def stack(result, arrays, axis=0):
    d[arrays] = unstack(d[result], arrays, axis)


@adjoint(np.vstack)
@adjoint(np.row_stack)
def vstack(result, tup):
    d[tup] = unconcatenate(d[result], tup, 0)


# ---- copying ---------------------------------------------------------------

@adjoint(np.append)
def append(result, arr, values, axis=None):
    d[arr] = unconcatenate(d[result], (arr, values), axis or 0)[0]
    d[values] = unconcatenate(d[result], (arr, values), axis or 0)[1]


@adjoint(np.copy)
def copy(result, a, order="K"):
    d[a] = d[result]


@adjoint(np.pad)
def pad(result, array, pad_width, mode="constant", constant_values=0):
    """Modes 'constant', 'edge', 'reflect', 'symmetric' and 'wrap'."""
    d[array] = unpad(d[result], pad_width, mode)
    d[constant_values] = unbroadcast(
        np.sum(d[result]) - np.sum(unpad(d[result], pad_width, mode)), constant_values)


@adjoint(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(result, x, window_shape, axis=None):
    """Each window's adjoint added back where the window read `x`."""
    d[x] = unslide(d[result], x, window_shape, axis)


@adjoint(np.real_if_close)
def real_if_close(result, a, tol=100):
    d[a] = cast_like(d[result], a)


nonholomorphic(np.real_if_close)  # np.real, when it drops the imaginary part


@adjoint(np.repeat)
def repeat(result, a, repeats, axis=None):
    d[a] = unrepeat(d[result], a, repeats, axis)


@adjoint(np.tile)
def tile(result, A, reps):
    d[A] = untile(d[result], A, reps)


# ---- selecting -------------------------------------------------------------

@adjoint(np.diag)
def diag(result, v, k=0):
    d[v] = undiag(d[result], v, k)


@adjoint(np.diagonal)
def diagonal(result, a, offset=0, axis1=0, axis2=1):
    d[a] = undiagonal(d[result], a, offset, axis1, axis2)


@adjoint(np.take)
def take(result, a, indices, axis=None, mode="raise"):
    d[a] = untake(d[result], a, indices, axis, mode)


@adjoint(np.take_along_axis)
def take_along_axis(result, arr, indices, axis=-1):
    d[arr] = untake_along_axis(d[result], arr, indices, axis)


@adjoint(np.trace)
def trace(result, a, offset=0, axis1=0, axis2=1):
    d[a] = undiagonal(np.expand_dims(d[result], -1), a, offset, axis1, axis2)


@adjoint(np.tril)
def tril(result, m, k=0):
    d[m] = np.tril(d[result], k)


@adjoint(np.triu)
def triu(result, m, k=0):
    d[m] = np.triu(d[result], k)


# ---- functions of lists of arrays ----------------------------------------------

structured(
    np.array, np.array_split, np.asarray, np.atleast_1d, np.atleast_2d,
    np.atleast_3d, np.column_stack, np.concatenate, np.dsplit, np.dstack,
    np.hsplit, np.hstack, np.split, np.stack, np.vsplit, np.vstack,
    np.linalg.eigh, np.linalg.slogdet, r_concat, c_concat,
)
