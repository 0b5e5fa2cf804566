"""The classes of values, for the methods and properties ``classes.py`` rewrites.

`spec_of` describes a value by its class and, through its attributes, the
classes of the objects, lists of objects and functions it holds (a `Spec`);
a derivative is generated for such descriptions of its arguments, on a copy
of the function that carries them (`specialized`). `library_class` tells a
class of the standard library or an installed package, whose methods are
called through their rules, never differentiated from their source.
"""
import dataclasses
import os
import sys
import sysconfig
import types

import numpy as np

from tangent_ad.runtime.objects import is_object

SPECS = "__tad_param_specs__"  # on a specialized copy: ((parameter, spec), ...)
MAX_DEPTH = 6
_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, np.ufunc)


@dataclasses.dataclass(frozen=True)
class Spec:
    """The class of an object and what its attributes hold: for each
    attribute, ``(name, "object", Spec)``, ``(name, "items", Spec)`` (a
    list or tuple of objects of one class) or ``(name, "function", f)``."""

    cls: type
    attrs: tuple

    @property
    def __name__(self):  # generated names of specialized pullbacks
        return self.cls.__name__

    def attr(self, name):
        for entry in self.attrs:
            if entry[0] == name:
                return entry[1:]
        return None


def spec_of(value, depth=0):
    """``("object", Spec)`` for an object, ``("items", Spec)`` for a list
    or tuple of objects of one class, ``("seq", (Spec, ...))`` for one of
    objects of several classes (indexed by a constant: ``layers[1](x)``);
    None for anything else."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields") and value:
        specs = tuple(_object_spec(v, depth) for v in value)
        if None in specs:
            return None
        return ("items", specs[0]) if len(set(specs)) == 1 else ("seq", specs)
    spec = _object_spec(value, depth)
    return None if spec is None else ("object", spec)


def _object_spec(value, depth):
    if not is_object(value) or isinstance(value, tuple) or \
            type(value).__module__.startswith("tangent_ad.") or \
            library_class(type(value)):  # tad.checkpoint(f), scipy.stats.norm
        return None
    attrs = []
    for name, item in sorted(_attributes(value).items()):
        if isinstance(item, _FUNCTIONS):
            attrs.append((name, "function", item))
            continue
        inner = spec_of(item, depth + 1)
        if inner is not None:
            attrs.append((name,) + inner)
    return Spec(type(value), tuple(attrs))


_LIBRARY_ROOTS = tuple(sorted({os.path.realpath(sysconfig.get_paths()[key]) + os.sep
                               for key in ("stdlib", "platstdlib", "purelib", "platlib")}))


def library_class(cls):
    """Whether `cls` comes from the standard library or an installed package
    (``scipy.stats.norm``'s class): its methods are called through their
    rules, never differentiated from their source."""
    path = getattr(sys.modules.get(cls.__module__), "__file__", None)
    return path is not None and os.path.realpath(path).startswith(_LIBRARY_ROOTS)


def _attributes(value):
    try:
        return dict(vars(value))
    except TypeError:
        return {}


_COPIES = {}


def specialized(func, specs):
    """A copy of the function `func` that is transformed for the classes
    `specs` (``((parameter, spec), ...)``) of its arguments; one per pair.
    A method's copy is named after its class (``Dense_call`` for
    ``Dense.__call__``), which names its derivatives."""
    key = (func, specs)
    found = _COPIES.get(key)
    if found is None:
        found = types.FunctionType(func.__code__, func.__globals__, _label(func),
                                   func.__defaults__, func.__closure__)
        found.__dict__.update(func.__dict__)
        found.__kwdefaults__ = func.__kwdefaults__
        found.__qualname__, found.__module__ = func.__qualname__, func.__module__
        found.__doc__ = func.__doc__
        setattr(found, SPECS, specs)
        _COPIES[key] = found
    return found


def _label(func):
    parts = func.__qualname__.split(".")
    if len(parts) >= 2 and parts[-2] != "<locals>":
        return f"{parts[-2]}_{parts[-1].strip('_')}"
    return func.__name__
