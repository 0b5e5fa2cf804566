"""``tree_map``: one update for every array of a pytree, as JAX's ``tree_map``.

A gradient has its argument's structure (dicts, lists, tuples, named
tuples, dataclasses and objects, nested), so a step of gradient descent
is one call whatever the model:

    params = tad.tree_map(lambda p, g: p - lr * g, params, grads)
"""
import numpy as np

from tangent_ad.runtime import objects


def tree_map(fn, tree, *rest):
    """`tree` with each differentiable leaf ``x`` (a float, a complex, a
    float array) replaced by ``fn(x, *others)``, where `others` are the
    leaves at the same place in `rest` (trees of the same structure, such
    as gradients). Other leaves (ints, strings, None, functions) keep
    `tree`'s value; each container, named tuple, dataclass and object is
    rebuilt with its own type (dataclasses with ``dataclasses.replace``,
    objects as shallow copies), so `tree` itself is not changed.

    >>> tree_map(lambda p, g: p - 0.5 * g, {"w": np.ones(2), "n": 3},
    ...          {"w": np.ones(2), "n": 0.0})
    {'w': array([0.5, 0.5]), 'n': 3}
    """
    if isinstance(tree, dict):
        return type(tree)((k, tree_map(fn, v, *(r[k] for r in rest))) for k, v in tree.items())
    if isinstance(tree, (tuple, list)):
        items = [tree_map(fn, v, *(r[i] for r in rest)) for i, v in enumerate(tree)]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if objects.is_object(tree):
        return objects.map_fields(lambda v, *others: tree_map(fn, v, *others), tree, *rest)
    if _leaf(tree):
        return fn(tree, *rest)
    return tree


def _leaf(x):
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (float, complex)):
        return True
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "fc"
