"""A strict stand-in for arrays of another library (CuPy, Dask): NumPy's
functions and ufuncs dispatch to it, and every implicit conversion to a
NumPy array fails, as it does for arrays on a GPU."""
import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin


class ImplicitConversion(TypeError):
    pass


def unwrap(x):
    if isinstance(x, StrictArray):
        return x.data
    if isinstance(x, (list, tuple)):
        return type(x)(unwrap(v) for v in x)
    if isinstance(x, dict):
        return {k: unwrap(v) for k, v in x.items()}
    return x


def wrap(x):
    if isinstance(x, np.ndarray):
        return StrictArray(x)
    if isinstance(x, np.generic):  # CuPy and Dask reductions give 0-d arrays
        return StrictArray(np.asarray(x))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(wrap(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(wrap(v) for v in x)
    return x


class StrictArray(NDArrayOperatorsMixin):
    __slots__ = ("data",)

    def __init__(self, data):
        assert isinstance(data, np.ndarray)
        self.data = data

    def __array__(self, dtype=None, copy=None):
        raise ImplicitConversion("implicit conversion of a StrictArray to a NumPy array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = unwrap(kwargs["out"])
        return wrap(getattr(ufunc, method)(*unwrap(inputs), **unwrap(kwargs)))

    def __array_function__(self, func, types, args, kwargs):
        return wrap(func(*unwrap(args), **unwrap(kwargs)))

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)
    size = property(lambda self: self.data.size)
    T = property(lambda self: StrictArray(self.data.T))
    real = property(lambda self: StrictArray(np.asarray(self.data.real)))
    imag = property(lambda self: StrictArray(np.asarray(self.data.imag)))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return wrap(self.data[unwrap(index)])

    def __setitem__(self, index, value):
        self.data[unwrap(index)] = unwrap(value)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __float__(self):
        return float(self.data)

    def __bool__(self):
        return bool(self.data)

    def __index__(self):
        return self.data.__index__()

    def __repr__(self):
        return f"StrictArray({self.data!r})"

    def __getattr__(self, name):
        # methods: x.sum(), x.reshape(...), x.astype(...), x.copy(), ...;
        # never NumPy's own protocols (__array_interface__ would convert)
        if name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(self.data, name)
        if callable(attr):
            return lambda *a, **k: wrap(attr(*unwrap(a), **unwrap(k)))
        return wrap(attr)
