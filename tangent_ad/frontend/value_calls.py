"""Calls of function values known only when the code runs, as the resolver writes them.

``h(x, y)``, ``make(c)(x)``, ``fs[i](x)`` or ``rs.randn(3)`` of a local
value: the function called is a value the transformer cannot see, so the
call becomes ``call_value(h, (x, y))`` (keywords: ``call_value(h, (x,
0), ("axis",))``; ``h(*xs, k=v)``: ``call_value(h, tuple(xs) + (v,),
("k",))``), whose rules make the value's vjp or jvp when the
derivative runs (``runtime/function_values.py``, templates/function_values.py).

A function defined in the differentiated function that reads its
variables is lifted (its captures become parameters), so it cannot be
called as a value; `holding_local_functions` finds the names that may
hold one, and such a call is refused at its line.
"""
import functools

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import closures
from tangent_ad.nodes import name, walk
from tangent_ad.runtime.function_values import call_value


def rewrite(node, ctx, held):
    """Write the Call `node` as ``call_value(func, (args...), (names...))``,
    resolved; refuse it when its function may be a lifted one (`held`)."""
    if _mentions(node.func, held):
        raise UnsupportedSyntaxError(
            "calling a function value made from a function defined in this "
            "function (a lambda or a nested def) is not supported",
            hint="call the nested function by its name, or define it at module level "
                 "and pass what it reads as arguments",
            **ctx.where(node))
    starred = [a for a in node.args if isinstance(a, gast.Starred)]
    if any(k.arg is None for k in node.keywords) or starred and len(node.args) > 1:
        raise UnsupportedSyntaxError(
            "a function known only when the code runs takes its arguments one by "
            "one here (or as one *tuple alone)",
            hint="pass the arguments by position or by keyword, or call the "
                 "function by its name", **ctx.where(node))
    callee = node.func
    values = gast.Tuple(elts=node.args + [k.value for k in node.keywords], ctx=gast.Load())
    if starred:  # h(*shape): the tuple as it is, then the keywords' values
        values = gast.Call(func=gast.Name(id="tuple", ctx=gast.Load(), annotation=None,
                                          type_comment=None),
                           args=[starred[0].value], keywords=[])
        ctx.namespace["tuple"] = tuple
        ctx.resolved[values] = ctx.resolved[values.func] = tuple
        if node.keywords:
            values = gast.BinOp(left=values, op=gast.Add(), right=gast.Tuple(
                elts=[k.value for k in node.keywords], ctx=gast.Load()))
    names = [gast.Constant(value=k.arg, kind=None) for k in node.keywords]
    node.func = gast.Name(id="call_value", ctx=gast.Load(), annotation=None,
                          type_comment=None)
    node.args = [callee, values] + ([gast.Tuple(elts=names, ctx=gast.Load())] if names else [])
    node.keywords = []
    ctx.namespace["call_value"] = call_value
    ctx.resolved[node.func] = ctx.resolved[node] = call_value


def holding_local_functions(tree, local_functions):
    """The names (and Lambda nodes) that may hold a function defined in
    `tree` that reads variables of it (a nested def or lambda, or a value
    made from one: ``h = tad.grad(lambda a: a * x)``). Such a function is
    lifted (its captures become parameters), so it can only be called by
    its name, never as a value; one that reads none is a value like any."""
    held = {n for n, lifted in local_functions.items() if isinstance(n, str) and lifted.free}
    held |= {n for n, lifted in local_functions.items() if isinstance(n, gast.Lambda) and lifted.free}
    assigns = [n for n in closures._walk_outside_functions(tree.body) if isinstance(n, gast.Assign)]
    changed = True
    while changed:
        changed = False
        for stmt in assigns:
            if _mentions(stmt.value, held):
                for target in stmt.targets:
                    for node in walk(target):
                        if isinstance(node, gast.Name) and node.id not in held:
                            held.add(node.id)
                            changed = True
    return held


def _mentions(expr, held):
    """Whether `expr` reads a name in `held` or holds a Lambda node in it."""
    return any(n in held if isinstance(n, gast.Lambda) else
               isinstance(n, gast.Name) and n.id in held for n in walk(expr))


def pass_local_functions(node, ctx):
    """Arguments of the Call `node`, to a function not differentiated from
    its source (one with a rule, NumPy's, a function value), that name a
    nested function reading variables of this one: the callee calls it as
    written, without the parameters lifting added for what it reads. One
    that reads only functions the caller bound (``ctx.static_args``) is
    passed with them bound, ``functools.partial(step, f=f)``; one that
    reads other variables is refused, as a derivative through them would
    be lost where the callee calls it. Returns the partials written (resolved
    already)."""
    node.args = [_passed(a, node, ctx) for a in node.args]
    for k in node.keywords:
        k.value = _passed(k.value, node, ctx)
    return [a for a in node.args + [k.value for k in node.keywords]
            if ctx.resolved.get(a) is functools.partial]


def _passed(arg, call, ctx):
    """`arg` as `call` passes it (see `pass_local_functions`)."""
    functions = ctx.facts.get("local_functions", {})
    lifted = functions.get(arg.id) if isinstance(arg, gast.Name) else \
        functions.get(arg) if isinstance(arg, gast.Lambda) else None
    if lifted is None or not lifted.free:
        return arg
    read = [v for v in lifted.free if v not in ctx.static_args]
    if read:
        what = f"nested function {arg.id}" if isinstance(arg, gast.Name) else "lambda"
        raise UnsupportedSyntaxError(
            f"the {what} reads {', '.join(read)} of this function and "
            "is passed to a function that calls it where tangent_ad cannot follow: "
            "the derivative through what it reads would be lost",
            hint=f"define the function at module level with {', '.join(read)} among "
                 f"its parameters, and pass {'it' if len(read) == 1 else 'them'} "
                 "(for scipy.integrate.odeint: args=(...))",
            **ctx.where(call))
    bound = gast.copy_location(gast.Call(
        func=gast.Attribute(value=name("functools"), attr="partial", ctx=gast.Load()),
        args=[arg], keywords=[gast.keyword(arg=v, value=name(v)) for v in lifted.free]), arg)
    ctx.namespace["functools"] = functools
    ctx.resolved[bound] = ctx.resolved[bound.func] = functools.partial
    return bound
