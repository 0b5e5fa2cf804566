"""Reverse-mode rules for NumPy functions that compute with whole arrays:
``np.gradient`` (central differences, a linear map), ``np.select``
(each choice's adjoint is the adjoint where it is taken) and
``np.convolve`` (bilinear: each operand's adjoint is the full adjoint
convolved with the other operand reversed). Their helpers
are in tangent_ad/runtime/array_ops.py.
"""
import numpy as np

from tangent_ad.registry import adjoint
from tangent_ad.runtime import convolution_full, ungradient, unselect, unselect_default

d = None  # d[x] is the adjoint of x; templates are parsed, never run


@adjoint(np.gradient)
def gradient(result, f, axis=None, edge_order=1):
    """Unit spacing only."""
    d[f] = ungradient(d[result], f, axis, edge_order)


@adjoint(np.select)
def select(result, condlist, choicelist, default=0):
    d[choicelist] = unselect(d[result], condlist, choicelist)
    d[default] = unselect_default(d[result], condlist, default)


@adjoint(np.convolve)
def convolve(result, a, v, mode="full"):
    d[a] = np.convolve(convolution_full(d[result], a, v, mode), np.flip(v), "valid")
    d[v] = np.convolve(convolution_full(d[result], a, v, mode), np.flip(a), "valid")
