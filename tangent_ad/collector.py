"""Pausing Python's cyclic garbage collector while tangent_ad writes code.

A transformation, or the staging of a specialized copy, builds and drops
tens of thousands of tree nodes. Their count sets off full collections
that scan every object the process holds (about a tenth of the first
transformation of a 200-line function), to find garbage that reference
counting frees anyway: trees hold no cycles.
"""
import functools
import gc


def paused(function):
    """`function`, run with the cyclic collector off (and back on after,
    if it was on: a transformation inside another leaves it off)."""
    @functools.wraps(function)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()
    return paused
