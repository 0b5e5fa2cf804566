"""ndarray methods and attributes, and the NumPy functions they stand for.

The transformer cannot know the type of a local value, so a method call
on one (``x.sum(axis=0)``) is read as the ndarray method and rewritten to
the NumPy function (``np.sum(x, axis=0)``), whose derivative template it
then uses. The generated code therefore calls ``np.*`` functions only, as
DESIGN.md asks, so that array libraries implementing NumPy's protocols
can run it.
"""
import numpy as np

from tangent_ad.runtime.arrays import size_of

METHODS = {
    "all": np.all, "any": np.any, "argmax": np.argmax, "argmin": np.argmin,
    "argsort": np.argsort, "clip": np.clip, "conj": np.conj,
    "conjugate": np.conjugate, "copy": np.copy, "cumprod": np.cumprod,
    "cumsum": np.cumsum, "diagonal": np.diagonal, "dot": np.dot,
    "flatten": np.ravel, "max": np.max, "mean": np.mean, "min": np.min,
    "nonzero": np.nonzero, "prod": np.prod, "ptp": np.ptp, "ravel": np.ravel,
    "repeat": np.repeat, "reshape": np.reshape, "round": np.round,
    "squeeze": np.squeeze, "std": np.std, "sum": np.sum,
    "swapaxes": np.swapaxes, "take": np.take, "trace": np.trace,
    "transpose": np.transpose, "var": np.var,
}
if hasattr(np, "astype"):  # NumPy 2.1 and later
    METHODS["astype"] = np.astype

# Methods whose shape may be given as separate arguments: x.reshape(2, 3).
PACKED_ARGUMENTS = {"reshape", "transpose"}

ATTRIBUTES = {
    "T": np.transpose, "real": np.real, "imag": np.imag, "shape": np.shape,
    "ndim": np.ndim, "size": size_of,
}


def numpy_path(func):
    """The dotted name under which `func` is reached from ``np``."""
    for attr in dir(np):
        if getattr(np, attr, None) is func and not attr.startswith("_"):
            return f"np.{attr}"
    raise KeyError(func)
