"""Aux stage: for ``has_aux=True``, differentiate the first of two outputs.

A function given to ``grad(f, has_aux=True)`` returns ``(loss, aux)``; the
gradient is that of `loss`, and `aux` (any value: numbers, arrays, strings,
a dict of them) is passed through. After ``exits`` the function ends with
one ``return v``; this pass makes it

    output = v
    loss = output[0]
    return loss

and records ``output`` in ``ctx.facts["aux_output"]``: the reverse pass
seeds ``loss`` and returns ``output``, the whole pair, as the value.
Only the requested function is rewritten (a function it calls returns
what it returns).
"""
import operator

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.nodes import assign, const, name, fix_locations


def run(tree, ctx):
    if not ctx.facts.get("has_aux") or ctx.callee:
        return tree
    ret = tree.body[-1]
    value = ret.value
    if isinstance(value, gast.Tuple) and len(value.elts) != 2 or \
            isinstance(value, gast.Constant):
        raise UnsupportedSyntaxError(
            "with has_aux=True the function must return a pair (loss, aux)",
            hint="return loss, aux; or use has_aux=False",
            **ctx.where(ctx.origin.get(ret)))
    output = ctx.namer.fresh("output")
    loss = ctx.namer.fresh("loss")
    first = gast.Subscript(value=name(output), slice=const(0), ctx=gast.Load())
    ctx.resolved[first] = operator.getitem
    stmts = [assign(output, value), assign(loss, first)]
    for stmt in stmts:
        ctx.origin[stmt] = ctx.origin.get(ret)
    ret.value = name(loss)
    tree.body[-1:] = stmts + [ret]
    ctx.facts["aux_output"] = output
    return fix_locations(tree)
