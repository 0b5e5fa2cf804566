"""Reverse-mode rules for NumPy functions that compute with whole arrays:
``np.gradient`` (central differences, a linear map) and ``np.select``
(each choice's adjoint is the adjoint where it is taken). Their helpers
are in tangent_ad/runtime/arrays.py.
"""
import numpy as np

from tangent_ad.registry import adjoint
from tangent_ad.runtime import ungradient, unselect, unselect_default

d = None  # d[x] is the adjoint of x; templates are parsed, never run


@adjoint(np.gradient)
def gradient(result, f, axis=None, edge_order=1):
    """Unit spacing only."""
    d[f] = ungradient(d[result], f, axis, edge_order)


@adjoint(np.select)
def select(result, condlist, choicelist, default=0):
    d[choicelist] = unselect(d[result], condlist, choicelist)
    d[default] = unselect_default(d[result], condlist, default)
