"""Kinds of the items of a list built by appending, and of the pieces of
its stack's adjoint.

``outs = []`` and ``outs = appended(outs, h)`` in a loop (``outs.append(h)``
in the user's code), then ``H = np.stack(outs)``: the adjoint of the stack
is ``bouts = unstack(bH, outs)``, one piece per item, each taken ``_like``
its item (``runtime.shapes.unstack``). When every value appended has one
kind, an inexact array, each piece has that kind too, whatever its index
and however many items the loop appended: the adjoint loop's
``bh = bh + bouts[k]`` then has a kind, and so does everything after it.
"""
import gast

from tangent_ad import runtime
from tangent_ad.staging.kind_values import BOTTOM, _join


def unstacked(kinds, call, index):
    """The kind of ``unstack(g, items)[index]`` for an int `index`, or None;
    BOTTOM while a kind is not found yet."""
    if call.keywords or len(call.args) not in (2, 3) or len(call.args) == 3 and not (
            isinstance(call.args[2], gast.Constant) and type(call.args[2].value) is int):
        return None
    at = kinds.of(index)
    if at in (None, BOTTOM) or at.box != "int":
        return at if at == BOTTOM else None
    item = item_kind(kinds, call.args[1])
    if item in (None, BOTTOM) or item.box != "array" or item.dtype.kind not in "fc":
        return item if item == BOTTOM else None
    return item


def item_kind(kinds, node):
    """The one kind of the items of the list the name `node` holds, when it
    is bound only to ``[]`` and by ``node = appended(node, v)``: the join
    of the kinds of the values appended. None otherwise."""
    if not isinstance(node, gast.Name):
        return None
    found, appends = BOTTOM, 0
    for name, value in kinds.assigned:
        if name != node.id:
            continue
        value = kinds._through(value)  # ``t7 = appended(outs, h); outs = t7``
        if isinstance(value, gast.List) and not value.elts:
            continue
        if not (isinstance(value, gast.Call) and kinds.callee(value) is runtime.appended and
                len(value.args) == 2 and not value.keywords and
                isinstance(value.args[0], gast.Name) and value.args[0].id == node.id):
            return None
        found, appends = _join(found, kinds.of(value.args[1])), appends + 1
    return found if appends else None
