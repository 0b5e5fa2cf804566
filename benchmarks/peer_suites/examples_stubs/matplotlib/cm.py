"""Colour maps of the matplotlib stand-in: no-op objects."""
from matplotlib import STUB


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return STUB
