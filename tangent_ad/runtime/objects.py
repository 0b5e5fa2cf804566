"""Runtime helpers for attributes of objects: dataclasses and user classes.

An object is a pytree node, as in JAX: its *fields* (a dataclass's fields,
another object's instance attributes) are its children. The derivative of
an object is an object of the same type whose differentiable fields
(numbers, float arrays, and tuples, lists, dicts and objects holding them)
hold derivatives; its other fields (ints, strings, None, functions...)
keep their value. A dataclass's derivative is made with
``dataclasses.replace``, another object's is a shallow copy with those
fields replaced. Named tuples are tuples (``structures.py``).

``p.W`` on a local value reads ``field(p, "W")``; its adjoint,
``unfield``, is `p`'s zero derivative with the adjoint at ``W``. A named
tuple or plain dataclass made in the code, ``Params(W=w, b=c)``, is
``built(Params, (w, c))``; its adjoint gives the fields' adjoints back
(``unbuilt``).
"""
import copy
import dataclasses
import functools
import numbers
import types

import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError

__all__ = ["field", "built", "unbuilt", "built_tangent"]

_NOT_OBJECTS = (numbers.Number, str, bytes, type(None), np.ndarray, np.generic, tuple, list,
                dict, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                types.ModuleType, functools.partial)


def is_object(x):
    """True for a dataclass instance or an instance of a user class with
    attributes: a node whose fields hold the derivatives."""
    if isinstance(x, _NOT_OBJECTS) or dataclasses.is_dataclass(x) and isinstance(x, type) \
            or hasattr(x, "__array_function__"):  # an array of another library (Dask)
        return False
    return dataclasses.is_dataclass(x) or hasattr(x, "__dict__") and \
        type(x).__module__ not in ("builtins", "numpy")


def fields(x):
    """The names of `x`'s fields, in order."""
    if dataclasses.is_dataclass(x):
        return [f.name for f in dataclasses.fields(x)]
    return list(vars(x))


def differentiable(v, _seen=None):
    """Whether the value `v` of a field carries a derivative. An object
    met again inside itself (a back reference, ``layer.parent``) carries
    none there: its derivative is where it was first met."""
    if isinstance(v, bool) or isinstance(v, np.bool_):
        return False
    if isinstance(v, (float, complex)):
        return True
    if isinstance(v, (np.ndarray, np.generic)):
        return v.dtype.kind in "fc"
    seen = set() if _seen is None else _seen
    if id(v) in seen:
        return False
    seen.add(id(v))
    try:
        if isinstance(v, dict):
            return any(differentiable(i, seen) for i in v.values())
        if isinstance(v, (tuple, list)):
            return any(differentiable(i, seen) for i in v)
        return is_object(v) and any(differentiable(getattr(v, k), seen) for k in fields(v))
    finally:
        seen.discard(id(v))


def replaced(x, values):
    """`x` with the fields in the dict `values` replaced: by
    ``dataclasses.replace`` for a dataclass (fields that ``__init__`` does
    not take are set on the copy), a shallow copy otherwise."""
    if dataclasses.is_dataclass(x):
        init = {f.name for f in dataclasses.fields(x) if f.init}
        new = dataclasses.replace(x, **{k: v for k, v in values.items() if k in init})
        rest = {k: v for k, v in values.items() if k not in init}
    else:
        new, rest = copy.copy(x), values
    for k, v in rest.items():
        object.__setattr__(new, k, v)
    return new


_PATH = []  # the objects map_fields is inside of, outermost first


def map_fields(fn, x, *others):
    """`x` with each differentiable field ``k`` replaced by
    ``fn(x.k, other.k...)`` (an `other` that is None gives None)."""
    if any(a is x for a in _PATH):  # a back reference: its derivative is elsewhere
        return x
    _PATH.append(x)
    try:
        return replaced(x, {k: fn(getattr(x, k), *(getattr(o, k, None) if o is not None
                                                   else None for o in others))
                            for k in fields(x) if differentiable(getattr(x, k))
                            and not any(a is getattr(x, k) for a in _PATH)})
    finally:
        _PATH.pop()


def field(obj, name):
    """``obj.name``: an attribute read that the derivative follows.

    >>> from collections import namedtuple
    >>> field(namedtuple("P", "W b")(1.0, 2.0), "b")
    2.0
    """
    if isinstance(obj, (np.ndarray, np.generic, numbers.Number)):
        raise UnsupportedSyntaxError(
            f"the attribute '.{name}' of a {type(obj).__name__} is read in the "
            "differentiated function, and tangent_ad has no derivative for it",
            hint="use a NumPy function instead (np.shape(x), np.real(x), ...)")
    return getattr(obj, name)


def _refuse_opaque(obj, name):
    """An object whose fields are not known (``__slots__``, a C type): its
    derivative cannot be built."""
    if not (isinstance(obj, tuple) and hasattr(obj, "_fields")) and not is_object(obj):
        raise UnsupportedSyntaxError(
            f"'{name}' is read from a {type(obj).__name__} object being differentiated, "
            "whose fields tangent_ad cannot list (it has no __dict__: __slots__ or a "
            "type written in C)",
            hint="give the class a __dict__ (no __slots__), make it a dataclass, or "
                 "pass the arrays it holds as arguments")


def _refuse_computed(obj, name):
    for klass in type(obj).__mro__:
        if name in vars(klass):
            attr = vars(klass)[name]
            if hasattr(attr, "__get__") and not callable(attr):
                raise UnsupportedSyntaxError(
                    f"'{name}' of the {type(obj).__name__} object being differentiated "
                    "is a property (or another computed attribute): its derivative "
                    "through the getter is not followed",
                    hint=f"read the fields it is computed from in the differentiated "
                         f"function, or differentiate with respect to those fields")
            return


def is_record_class(cls):
    """A named tuple class, or a dataclass whose generated ``__init__``
    takes every field and does nothing more (no ``__post_init__``): a
    call of it is the object of its fields, the values given."""
    if not isinstance(cls, type):
        return False
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return True
    code = getattr(getattr(cls, "__init__", None), "__code__", None)
    return dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and \
        all(f.init for f in dataclasses.fields(cls)) and \
        getattr(code, "co_filename", None) == "<string>"  # the __init__ dataclasses wrote


def built(cls, values):
    """``cls(*values)``: a named tuple or dataclass made of its fields'
    values, in their order (the front end writes ``Params(W=w, b=c)`` as
    ``built(Params, (w, c))``).

    >>> import collections
    >>> built(collections.namedtuple("P", "w b"), (1.0, 2.0))
    P(w=1.0, b=2.0)
    """
    return cls(*values)


def unbuilt(g, obj):
    """The adjoint of the values of ``built``: the fields of the adjoint
    `g` (an object like `obj`), in order."""
    return tuple(g) if isinstance(obj, tuple) else tuple(getattr(g, n) for n in fields(obj))


def built_tangent(tangents, obj):
    """The tangent of ``built(type(obj), values)``: `obj` with each field
    that carries a derivative holding its tangent."""
    names = list(obj._fields) if isinstance(obj, tuple) else fields(obj)
    values = [t if differentiable(getattr(obj, n)) or hasattr(getattr(obj, n), "__array_function__")
              else getattr(obj, n) for n, t in zip(names, tangents)]  # (Dask's, CuPy's arrays too)
    return type(obj)(*values) if isinstance(obj, tuple) else \
        replaced(obj, dict(zip(names, values)))
