"""NumPy forms the normalize stage rewrites or refuses: index tricks and
functions that write into their arguments.

``np.r_[a, b]`` and ``np.c_[a, b]`` are subscripts of objects, not calls,
so no rule would see them: the normalizer rewrites them into calls of
``r_concat((a, b))`` and ``c_concat((a, b))``, runtime functions that do
the same thing and whose rules split the adjoint like np.concatenate's.
A slice of ``np.r_`` (``np.r_[x, 1:10]``) is the range it stands for,
``np.arange`` (``np.linspace`` for an imaginary step), a constant;
directive strings (``np.r_['0,2', a]``) and slices of ``np.c_`` are
refused.

A function that writes into an argument (``np.put_along_axis(y, i, v,
0)``) returns None: its call is a statement, which the core form keeps
for its effect only, so the write would be invisible to the derivative.
Each such function and a ufunc's ``.at`` are refused with a hint to the
functional form (``out=`` is refused up front, by the validate stage).
"""
import gast
import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.runtime.shapes import c_concat, r_concat

INDEX_TRICKS = {id(np.r_): ("np.r_", r_concat), id(np.c_): ("np.c_", c_concat)}

_FUNCTIONAL = "build a new array instead: np.where(mask, values, y), np.concatenate, " \
    "or y = y + ... (item assignment y[i] = v is supported)"
IN_PLACE_WRITERS = {
    np.put: "np.put", np.put_along_axis: "np.put_along_axis", np.copyto: "np.copyto",
    np.place: "np.place", np.putmask: "np.putmask", np.fill_diagonal: "np.fill_diagonal",
    np.random.shuffle: "np.random.shuffle",
}


def index_trick(obj):
    """(its name, the runtime function standing for it) for np.r_ or np.c_,
    else None."""
    return INDEX_TRICKS.get(id(obj))


def index_items(node, label, ctx):
    """The item expressions of ``np.r_[...]``, a slice of ``np.r_`` as
    the range it stands for (`slice_range`); refuse directive strings,
    slices of ``np.c_`` and slices whose step may be complex (a count)."""
    items = node.slice.elts if type(node.slice).__name__ == "Tuple" else [node.slice]
    for item in items:
        kind = type(item).__name__
        if kind == "Slice" and label == "np.r_" and _plain_step(item.step):
            continue
        if kind == "Slice" or (kind == "Constant" and isinstance(item.value, str)):
            raise UnsupportedSyntaxError(
                f"{label}[...] with a slice or a directive string cannot be "
                "differentiated", hint="list arrays and numbers only, or use "
                "np.concatenate, np.column_stack and np.arange",
                **ctx.where(node))
    return items


def _plain_step(step):
    """A step np.r_ reads one way for sure: none, or a number written out
    (an imaginary one is a count of points, any other an increment)."""
    return step is None or type(step).__name__ == "Constant" and \
        type(step.value) in (int, float, complex)


def slice_range(item):
    """(the NumPy function, its argument expressions) that ``np.r_``
    makes of the slice `item`: ``a:b:s`` is ``np.arange(a, b, s)``, and
    ``a:b:nj`` (an imaginary step) ``np.linspace(a, b, n)``; a missing
    start is 0, a missing step 1 (and neither is written)."""
    start = item.lower if item.lower is not None else gast.Constant(value=0, kind=None)
    step = item.step.value if item.step is not None else 1
    if isinstance(step, complex):
        count = gast.Constant(value=int(abs(step)), kind=None)
        return np.linspace, [start, item.upper, count]
    if step != 1:
        return np.arange, [start, item.upper, item.step]
    if item.lower is None and item.upper is not None:
        return np.arange, [item.upper]  # (the shortest form that reads the same)
    return np.arange, [start, item.upper]


def refuse_in_place(node, obj, ctx):
    """Raise UnsupportedSyntaxError if the call `node`, resolved to `obj`,
    writes into one of its arguments."""
    label = None
    try:
        label = IN_PLACE_WRITERS.get(obj)
    except TypeError:  # an unhashable callable
        pass
    if label is None and isinstance(getattr(obj, "__self__", None), np.ufunc) and \
            getattr(obj, "__name__", "") == "at":
        label = f"np.{obj.__self__.__name__}.at"
    if label is not None:
        raise UnsupportedSyntaxError(
            f"{label} writes into its argument in place, which the derivative "
            "cannot follow", hint=_FUNCTIONAL, **ctx.where(node))
