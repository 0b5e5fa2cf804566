"""Nested tuples, lists and dicts of arrays as one vector, and back.

``flatten(value) == (vector, unflatten)``: the leaves in order (a dict's
by sorted key), each raveled, concatenated. Written as plain NumPy code,
which tangent_ad differentiates when a differentiated function calls it
(``flatten(params)`` in a loss, ``unflatten(x)`` in ``flatten_func``).
"""
import numpy as np


def _leaves(value):
    """The arrays of `value`, in flattening order, raveled. (Indexed loops:
    tangent_ad differentiates a loop over a range, not yet one over a
    differentiated list.)"""
    if isinstance(value, dict):
        keys = sorted(value)
        leaves = []
        for i in range(len(keys)):
            leaves = leaves + _leaves(value[keys[i]])
        return leaves
    if isinstance(value, (list, tuple)):
        leaves = []
        for i in range(len(value)):
            leaves = leaves + _leaves(value[i])
        return leaves
    return [np.ravel(value)]


def _layout(value, start):
    """(how to rebuild `value` from a vector, the position after it)."""
    if isinstance(value, dict):
        parts = []
        for key in sorted(value):
            part, start = _layout(value[key], start)
            parts.append((key, part))
        return ("dict", parts), start
    if isinstance(value, (list, tuple)):
        parts = []
        for item in value:
            part, start = _layout(item, start)
            parts.append(part)
        return (type(value).__name__, parts), start
    size = int(np.size(value))
    return ("leaf", (start, start + size, np.shape(value))), start + size


def _rebuild(layout, vector):
    kind, content = layout
    if kind == "leaf":
        start, stop, shape = content
        return np.reshape(vector[start:stop], shape)
    if kind == "dict":
        return {key: _rebuild(part, vector) for key, part in content}
    if kind == "tuple":
        return tuple([_rebuild(part, vector) for part in content])
    return [_rebuild(part, vector) for part in content]


def flatten(value):
    """`value`'s leaves as one 1-D array, and the function that undoes it."""
    leaves = _leaves(value)
    vector = np.concatenate(leaves) if leaves else np.zeros(0)
    layout, _ = _layout(value, 0)

    def unflatten(vector):
        return _rebuild(layout, vector)
    return vector, unflatten


def flatten_func(func, example):
    """``func`` of a structure like `example` as a function of one vector:
    ``(flat_func, unflatten, flat_example)``."""
    flat_example, unflatten = flatten(example)

    def flat_func(vector, *args):
        return flatten(func(unflatten(vector), *args))[0]
    return flat_func, unflatten, flat_example
