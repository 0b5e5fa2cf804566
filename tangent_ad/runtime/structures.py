"""Runtime helpers for adjoints of tuples, lists and dicts.

The adjoint of a container is a container of the same structure whose
entries are the adjoints of the entries: a tuple of arrays for a tuple of
arrays, a dict with the same keys for a dict. Entries that nothing
influenced hold zeros, so a gradient always has its argument's structure.
Generated code reaches these through ``tangent_ad.runtime``.
"""
import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.runtime.objects import (
    _refuse_computed, _refuse_opaque, fields, is_object, map_fields, replaced)

__all__ = ["unfield", "field_tangent", "accumulate", "appended", "concatenated", "converted_tangent", "iterated", "formatted",
           "iterated_tangent", "rebuild", "unconverted",
           "repeated", "unindex_container", "uniterated", "updated", "updated_tangent", "zeroed", "zeros_like"]


def _is_container(x):
    return isinstance(x, (tuple, list, dict))


def zeros_like(x):
    """A zero adjoint for `x`: 0.0 for a Python number, zeros of the same
    shape and dtype for an array, the same structure for a container.

    >>> zeros_like({"w": np.ones(2), "b": 1.0})
    {'w': array([0., 0.]), 'b': 0.0}
    """
    if type(x) is np.ndarray:  # the common case first
        return np.zeros_like(x)
    if isinstance(x, dict):
        return {k: zeros_like(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return rebuild(x, [zeros_like(v) for v in x])
    if isinstance(x, (float, int)) or x is None:
        return 0.0
    if is_object(x):
        return map_fields(zeros_like, x)
    return np.zeros_like(x)


def accumulate(a, b):
    """``a + b`` for adjoints: entry by entry for containers.

    >>> accumulate((1.0, np.ones(2)), (2.0, np.ones(2)))
    (3.0, array([2., 2.]))
    """
    if type(a) is np.ndarray and type(b) is np.ndarray:  # the common case first
        return a + b
    if isinstance(a, dict):
        return {k: accumulate(a.get(k), b.get(k)) for k in {**a, **b}}
    if isinstance(a, (tuple, list)):
        return rebuild(a, [accumulate(x, y) for x, y in zip(a, b)])
    if a is None:
        return b
    if b is None:
        return a
    if is_object(a):
        return map_fields(accumulate, a, b)
    return a + b


def concatenated(a, b):
    """``a + b``: the operation whose rule the reverse pass uses for a ``+``
    that may concatenate tuples or lists (see ``unconcat``)."""
    return a + b


def repeated(a, b):
    """``a * b``: the operation whose rule the reverse pass uses for a ``*``
    that may repeat a tuple or list (see ``unrepeat``)."""
    return a * b


def rebuild(like, items):
    """`items` as a tuple, list or named tuple (``eigh``'s result) of
    `like`'s type."""
    if hasattr(like, "_fields"):
        return type(like)(*items)
    return type(like)(items)


def unindex_container(g, x, index):
    """The adjoint of `x[index]` for a tuple, list or dict `x`: zeros in
    `x`'s structure with `g` at `index`."""
    z = zeros_like(x)
    if isinstance(z, tuple):
        z = list(z)
        z[index] = g
        return tuple(z)
    z[index] = g
    return z


def iterated(items):
    """What ``for x in items`` goes through, as a sequence to index: the
    keys of a dict or the items of a set (as a list), or `items` itself (an array's rows, a
    list's or tuple's items).

    >>> iterated({"w": 1.0, "b": 2.0})
    ['w', 'b']
    """
    return list(items) if isinstance(items, (dict, set, frozenset)) else items


def uniterated(g, items):
    """The adjoint of `items` from the adjoint `g` of ``iterated(items)``:
    `g` itself, or zeros for a dict, whose keys carry no derivative.

    >>> uniterated(['w'], {"w": np.ones(2)})
    {'w': array([0., 0.])}
    """
    return zeros_like(items) if isinstance(items, dict) else g


def iterated_tangent(t, items):
    """The tangent of ``iterated(items)`` from the tangent `t` of `items`:
    `t` itself, or a zero for each key of a dict.

    >>> iterated_tangent({"w": np.ones(2)}, {"w": np.ones(2)})
    [0.0]
    """
    return [0.0] * len(items) if isinstance(items, dict) else t


def unconverted(g, items):
    """The adjoint of `items` from the adjoint `g` of ``list(items)`` or
    ``tuple(items)``: the same items in `items`' own type (an array's rows
    stacked back), or zeros for a dict, whose keys carry no derivative.

    >>> unconverted([1.0, 2.0], (0.5, 0.5))
    (1.0, 2.0)
    """
    if isinstance(items, dict):
        return zeros_like(items)
    if isinstance(items, (list, tuple)):
        return type(items)(g)
    if isinstance(items, np.ndarray):
        return np.reshape(np.stack(list(g)), items.shape) if len(g) else np.zeros_like(items)
    return g


def converted_tangent(t, items, kind):
    """The tangent of ``kind(items)`` (`kind` is list or tuple) from the
    tangent `t` of `items`.

    >>> converted_tangent([1.0, 2.0], [0.5, 0.5], tuple)
    (1.0, 2.0)
    """
    return kind(iterated_tangent(t, items))


def appended(items, value):
    """``items + [value]``: a list append that leaves `items` unchanged, so
    the value before the append can still be restored.

    >>> appended([1.0], 2.0)
    [1.0, 2.0]
    """
    return [*items, value]  # one copy (list(items) + [value] made two)


def updated(array, index, value):
    """A copy of `array` with ``array[index] = value`` (arrays, lists and
    dicts). The original is left unchanged, so it can still be restored.

    >>> updated(np.zeros(3), 1, 5.0)
    array([0., 5., 0.])
    """
    if isinstance(array, dict):
        copy = dict(array)
    elif isinstance(array, tuple):
        raise TypeError("'tuple' object does not support item assignment")
    else:
        copy = array.copy()
        if _truncates(copy, value):
            raise UnsupportedSyntaxError(
                f"a {np.result_type(value)} value is written into an array of "
                f"{copy.dtype}, which NumPy truncates: the derivative through it "
                "is not defined",
                hint="make the array a float one before writing, e.g. "
                     "np.copy(x).astype(float) or x * 1.0")
    copy[index] = value
    return copy


def updated_tangent(t, array, index, value):
    """The tangent of ``updated(array, index, v)`` from the tangent `t` of
    `array` and the tangent `value` of `v`. `t` is made complex first when
    `array` is: ``x + 0j`` has the real tangent of `x`, and writing a
    complex tangent into it would drop the imaginary part.

    >>> updated_tangent(np.zeros(2), np.zeros(2, complex), 0, 1j)
    array([0.+1.j, 0.+0.j])
    """
    if isinstance(array, np.ndarray) and array.dtype.kind == "c" and \
            not np.iscomplexobj(t):
        t = t + np.zeros_like(array)
    return updated(t, index, value)


def _truncates(array, value):
    """Whether ``array[i] = value`` drops a fraction: an integer or bool
    array given floats or complex numbers."""
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "iub":
        return False
    try:
        return np.result_type(value).kind in "fc"
    except TypeError:
        return False


def zeroed(g, index, like=None):
    """A copy of the adjoint `g` with zeros at `index`: the entries that
    an assignment ``array[index] = value`` overwrote get no gradient. For a
    dict `like` (the value before the assignment) without that key, the key
    goes: it was added by the assignment.

    >>> zeroed({"a": 1.0, "b": 2.0}, "b", {"a": 0.0})
    {'a': 1.0}
    """
    copy = dict(g) if isinstance(g, dict) else g.copy()
    if isinstance(like, dict) and index not in like:
        del copy[index]
        return copy
    if isinstance(copy, (dict, list)):
        copy[index] = zeros_like(copy[index])
    else:
        copy[index] = 0
    return copy


def unfield(g, obj, name):
    """The adjoint of ``field(obj, name)``: `obj`'s zero derivative with `g`
    at `name`. A read of a class attribute (a constant) gives `obj` no
    derivative; a property or other computed attribute is refused: its
    derivative would need the getter's."""
    _refuse_opaque(obj, name)
    z = zeros_like(obj)
    if isinstance(obj, tuple):  # a named tuple
        items = list(z)
        items[obj._fields.index(name)] = g
        return type(obj)(*items)
    if name in fields(obj) and name in vars(obj):
        return replaced(z, {name: g})
    _refuse_computed(obj, name)
    return z


def field_tangent(t, obj, name):
    """The tangent of ``field(obj, name)`` from the tangent `t` of `obj`."""
    _refuse_opaque(obj, name)
    if isinstance(obj, tuple) or name in fields(obj) and name in vars(obj):
        return getattr(t, name)
    _refuse_computed(obj, name)
    return zeros_like(getattr(obj, name))


def formatted(template, values):
    """``template.format(*values)``: an f-string of the user's code (the
    front end writes ``f"{a:.2f}"`` as ``formatted("{:.2f}", (a,))``). A
    string carries no derivative.

    >>> formatted("{:.2f} and {!r}", (0.5, "b"))
    "0.50 and 'b'"
    """
    return template.format(*values)
