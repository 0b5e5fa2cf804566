"""pyplot of the matplotlib stand-in: every function is a no-op, except
``imread``, which decodes PNG files as matplotlib does (floats in [0, 1])."""
from matplotlib import STUB, cm
from matplotlib.image import imread


def subplots(*args, **kwargs):
    return STUB, STUB


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return STUB
