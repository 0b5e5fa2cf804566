"""Loops over a list of objects of several classes, for the function values stage.

``for layer in layer_specs: h = layer.forward_pass(h, W)`` over a global or
captured list whose items are of different classes (autograd's convnet:
conv, pooling and dense layers) calls a different method on each item, so
the loop cannot stay a loop. `mixed_objects` gives the items to unroll it
over (``layer_specs[0]``, ``layer_specs[1]``, ...) and an assert, run first
in the derivative, that the list still has that length and those classes:

    assert len(layer_specs) == 3 and type(layer_specs[0]) == ConvLayer and ...

The classes module (``classes.py``) then resolves each item's method.
"""
import copy

import gast

from tangent_ad.nodes import located
from tangent_ad.runtime import objects

MAX_UNROLLED = 64  # items of a loop over objects of several classes


def mixed_objects(iterable, scope, ctx):
    """``(items, check)`` for a loop over `iterable`, a global or captured
    list or tuple of objects of more than one class; None for anything
    else. Classes that no name of the function denotes are bound in
    ``ctx.facts["helpers"]``."""
    if not isinstance(iterable, gast.Name) or scope.is_local(iterable.id):
        return None
    value = scope.value(iterable)
    if not isinstance(value, (list, tuple)) or not 1 < len(value) <= MAX_UNROLLED or \
            not all(objects.is_object(v) for v in value) or \
            len({type(v) for v in value}) < 2 or \
            not all(scope.is_builtin(_name(b), f) for b, f in (("len", len), ("type", type))):
        return None
    helpers = ctx.facts.setdefault("helpers", {})
    parts = [gast.Compare(left=_call("len", iterable), ops=[gast.Eq()],
                          comparators=[gast.Constant(value=len(value), kind=None)])]
    for i, item in enumerate(value):
        cls = type(item)
        label = cls.__name__
        if scope.value(_name(label)) is not cls:
            label = next((k for k, v in helpers.items() if v is cls), None) or scope.fresh(label)
            helpers[label] = cls
        parts.append(gast.Compare(left=_call("type", _indexed(iterable, i)), ops=[gast.Eq()],
                                  comparators=[_name(label)]))
    message = (f"the derivative unrolled the loop over {iterable.id} for its "
               f"{len(value)} items of these classes: transform the function again")
    check = located(gast.Assert(test=gast.BoolOp(op=gast.And(), values=parts),
                                msg=gast.Constant(value=message, kind=None)), iterable)
    return [_indexed(iterable, i) for i in range(len(value))], check


def _name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def _call(builtin, node):
    return gast.Call(func=_name(builtin), args=[copy.deepcopy(node)], keywords=[])


def _indexed(node, i):
    return gast.Subscript(value=copy.deepcopy(node), slice=gast.Constant(value=i, kind=None),
                          ctx=gast.Load())
