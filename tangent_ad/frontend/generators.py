"""Generators stage: a called generator function as the list of what it yields.

A loop over a generator, ``for W, b in unpack_layers(weights)``, reads
each item the generator yields. The caller's loop is indexed
(``desugar.indexed_loop``: ``t = list(unpack_layers(weights))``), so the
generator's derivative is that of a function that returns those items
as a list::

    def unpack_layers(weights):          def unpack_layers(weights):
        for m, n in shapes:                  items = []
            yield weights[:m * n], ...  ->   for m, n in shapes:
                                                 items.append((weights[:m * n], ...))
                                             return items

The caller indexes a generator only in a loop without ``break`` (it is
read to the end, as the list is built to the end). The list is built
before the loop body runs, where Python interleaves the two: the same
items unless the loop body changes what the generator reads (a global,
or an argument it is given). ``yield`` as an expression (``x = yield``),
``yield from`` and ``return value`` are refused. The requested function
itself is never a generator (validation refuses ``yield`` there).
"""
import inspect

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.nodes import fix_locations

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def run(tree, ctx):
    """Return the FunctionDef `tree`, a called generator's written as a
    list builder (see the module docstring); any other unchanged."""
    if not ctx.callee or not inspect.isgeneratorfunction(ctx.func):
        return tree
    taken = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    items = next(c for c in ("items", *(f"items{i}" for i in range(2, 10 ** 6)))
                 if c not in taken)
    tree.body = [_assign_empty(items)] + _block(tree.body, items, ctx) + [_return(items)]
    return fix_locations(tree)


def _block(stmts, items, ctx):
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Yield):
            value = stmt.value.value or gast.Constant(value=None, kind=None)
            out.append(gast.copy_location(gast.Expr(value=gast.Call(
                func=gast.Attribute(value=_name(items), attr="append", ctx=gast.Load()),
                args=[value], keywords=[])), stmt))
            continue
        if isinstance(stmt, gast.Return):
            if stmt.value is not None:
                _refuse(stmt, ctx, "a generator's 'return <value>' is not supported")
            out.append(gast.copy_location(_return(items), stmt))
            continue
        if not isinstance(stmt, _NESTED):
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, _block(getattr(stmt, field), items, ctx))
            _check_no_yield(stmt, ctx)
        out.append(stmt)
    return out


def _check_no_yield(stmt, ctx):
    """A ``yield`` left in `stmt`'s own expressions (not in its blocks,
    already rewritten, nor in a nested function) is one used as a value."""
    pending = [child for field, child in gast.iter_fields(stmt)
               if field not in ("body", "orelse", "finalbody")]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, (gast.Yield, gast.YieldFrom)):
            _refuse(node, ctx, "a 'yield' used as a value, or 'yield from', is not "
                    "supported in a generator the derivative reads")
        elif isinstance(node, gast.AST) and not isinstance(node, _NESTED):
            pending.extend(child for _, child in gast.iter_fields(node))


def _refuse(node, ctx, message):
    raise UnsupportedSyntaxError(message, hint="yield each item as a statement "
                                 "('yield x'), or return a list of the items",
                                 **ctx.where(node))


def _name(identifier, store=False):
    return gast.Name(id=identifier, ctx=gast.Store() if store else gast.Load(),
                     annotation=None, type_comment=None)


def _assign_empty(items):
    return gast.Assign(targets=[_name(items, store=True)],
                       value=gast.List(elts=[], ctx=gast.Load()), type_comment=None)


def _return(items):
    return gast.Return(value=_name(items))
