"""Positions that ``sorted``, ``min``, ``max`` and ``reversed`` pick, for code that indexes.

The front end writes ``sorted(xs, key=k)`` as ``[xs[i] for i in
sort_order(xs, k)]``: the order is computed on the values and carries no
derivative (it is piecewise constant), and each item read is an indexing
whose adjoint flows back into ``xs``. A dict is refused: these builtins
read its keys, which indexing it would not.
"""

from tangent_ad.errors import UnsupportedSyntaxError

__all__ = ["extreme_index", "reversed_indices", "sort_order"]


def _positions(items, what):
    if isinstance(items, dict):
        raise UnsupportedSyntaxError(
            f"{what}() of a dict reads its keys, which the derivative would read "
            "as positions", hint=f"write {what}(list(d)), a list of the keys")
    return range(len(items))


def sort_order(items, key=None, reverse=False):
    """The positions of `items` in the order ``sorted(items, key=key,
    reverse=reverse)`` puts them (stable, as sorted is).

    >>> sort_order([3.0, 1.0, 2.0])
    [1, 2, 0]
    """
    order = (lambda i: items[i]) if key is None else (lambda i: key(items[i]))
    return sorted(_positions(items, "sorted"), key=order, reverse=reverse)


def extreme_index(items, largest, key=None):
    """The position of the item ``max(items, key=key)`` (`largest`) or
    ``min(...)`` returns: the first of the equal extremes, as they do.

    >>> extreme_index([1.0, 3.0, 3.0], True)
    1
    """
    positions = _positions(items, "max" if largest else "min")
    if not positions:
        raise ValueError(f"{'max' if largest else 'min'}() arg is an empty sequence")
    value = (lambda i: items[i]) if key is None else (lambda i: key(items[i]))
    return (max if largest else min)(positions, key=value)


def reversed_indices(items):
    """The positions of `items` from the last to the first.

    >>> list(reversed_indices([5.0, 6.0]))
    [1, 0]
    """
    return range(len(_positions(items, "reversed")) - 1, -1, -1)
