"""Kinds themselves: what staging knows of a value, and how two join.

A *kind* is what NumPy's results depend on besides the values (see
``kinds.py``, which infers the kind of every name of a derivative):
a Python number, or a NumPy array or scalar of a dtype (and shape).
"""
from dataclasses import dataclass

import numpy as np

_PYTHON_NUMBERS = {float: "float", int: "int", bool: "bool", complex: "complex"}
_SAMPLE = {"float": 0.5, "int": 2, "bool": True, "complex": 0.5 + 0.5j}
BOTTOM = "bottom"  # not assigned yet, while solving


@dataclass(frozen=True)
class Kind:
    """`box` is 'float', 'int', 'bool', 'complex' (Python numbers), 'array'
    (np.ndarray), 'scalar' (a NumPy scalar) or 'real' (a real scalar that
    is a Python int or float at some point and an np.float64 at another: a
    loop's state after ``np.cos``, a sum started at ``0``); arrays, NumPy
    scalars and real scalars carry a `dtype`, arrays a `shape`."""

    box: str
    shape: tuple = ()
    dtype: object = None

    def __hash__(self):  # cached: a dispatch hashes the arguments' kinds
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.box, self.shape, self.dtype))
            object.__setattr__(self, "_hash", cached)
        return cached

    @property
    def python(self):
        return self.box in _SAMPLE

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.box == "array" else 1

    def sample(self):
        """A value of this kind with as few entries as its rank allows."""
        if self.python:
            return _SAMPLE[self.box]
        if self.box in ("scalar", "real"):
            return self.dtype.type(_SAMPLE["float"] if self.dtype.kind in "fc" else 1)
        return np.ones((1,) * len(self.shape), self.dtype)


def kind_of(value):
    """The Kind of a runtime value, or None for anything else.

    >>> kind_of(np.zeros((2, 3), np.float32))
    Kind(box='array', shape=(2, 3), dtype=dtype('float32'))
    >>> kind_of(1.5), kind_of([1.0])
    (Kind(box='float', shape=(), dtype=None), None)
    """
    kind = _NUMBER_KINDS.get(type(value))
    if kind is not None:
        return kind
    if type(value) is np.ndarray:
        key = (value.shape, value.dtype)
    elif isinstance(value, np.generic):
        key = ((), value.dtype, "scalar")
    else:
        return None
    kind = _KNOWN.get(key)  # one object per kind: dispatch hashes the same ones
    if kind is None and key[1].kind in "biufc":
        kind = Kind("array" if len(key) == 2 else "scalar", key[0], key[1])
        if len(_KNOWN) > 1024:
            _KNOWN.clear()
        _KNOWN[key] = kind
    return kind


_NUMBER_KINDS = {t: Kind(box) for t, box in _PYTHON_NUMBERS.items()}
_KNOWN = {}
REAL = Kind("real", (), np.dtype(np.float64))
_REAL_SCALARS = (Kind("float"), Kind("scalar", (), np.dtype(np.float64)), REAL)
# a sum that starts at ``0`` and adds floats (``total = 0``, then ``total +=``
# in a loop) holds a Python int first: REAL too, since every rewrite REAL
# allows treats a Python int as a Python float (``core._like``)
_REAL_OR_INT = _REAL_SCALARS + (Kind("int"),)


# What a real scalar may be when the code runs besides its kind's sample,
# an np.float64: a Python float or int, which NumPy 2 types weakly
# (``float32 array * 0.5`` stays float32, ``* np.float64(0.5)`` does not)
REAL_STAND_INS = (0.5, 2)


def same_for_any_real(run, kind):
    """Whether ``kind_of``-like `kind` is what ``run(value)`` gives for each
    value a real scalar may be (`REAL_STAND_INS`); `run` returns a Kind."""
    for value in REAL_STAND_INS:
        try:
            with np.errstate(all="ignore"):
                if run(value) != kind:
                    return False
        except Exception:  # noqa: BLE001 - refused for one of them: no kind
            return False
    return True


def depends_on_real(func, samples, real, shape, kind):
    """Whether ``func(*samples)`` of broadcast `shape` has a Kind other
    than `kind` when a real scalar at the positions flagged in `real` is
    a Python float or int rather than its sample, an np.float64."""
    return not same_for_any_real(lambda value: _result(func(*[
        value if r else s for r, s in zip(real, samples)]), shape), kind)


def _join(a, b):
    if a == BOTTOM:
        return b
    if b == BOTTOM:
        return a
    if a == b:
        return a
    return REAL if a in _REAL_OR_INT and b in _REAL_OR_INT else None


def float_kind(kind):
    """The kind of ``float_argument(x)`` and ``cast_like(g, x)`` for an `x`
    of `kind` (``runtime/boundary.py``): inexact kinds are their own, an
    int becomes a float, an integer dtype float64; None for bools."""
    if kind.box in ("float", "complex") or not kind.python and kind.dtype.kind in "fc":
        return kind
    if kind.box == "int":
        return Kind("float")
    if kind.python or kind.dtype.kind not in "iu":
        return None
    return Kind(kind.box, kind.shape, np.dtype(np.float64))


def is_real(kind):
    """A kind whose values are never complex (a known kind only)."""
    return kind is not None and kind != BOTTOM and kind.box != "complex" and \
        (kind.python or kind.dtype.kind != "c")


def is_python_float_like(kind):
    """A Python float or int, or an np.float64 (which subclasses float):
    ``unbroadcast`` gives a Python float for these."""
    return kind.box in ("float", "int", "real") or (
        kind.box == "scalar" and kind.dtype == np.float64)


def _result(out, shape):
    """The Kind of an operation whose result on samples is `out`."""
    box = _PYTHON_NUMBERS.get(type(out))
    if box is not None:
        return Kind(box)
    if isinstance(out, np.ndarray):
        return Kind("array", tuple(shape), out.dtype)
    if isinstance(out, np.generic) and not shape:
        return Kind("scalar", (), out.dtype)
    return None
