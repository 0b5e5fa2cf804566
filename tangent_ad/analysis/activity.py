"""Activity analysis: which variables carry derivative information.

A variable is *varied* when its value depends, through differentiable
operations, on an argument in ``wrt``; it is *useful* when the returned
value depends on it. Only variables that are both (*active*) get adjoints,
so no derivative of a non-``wrt`` argument is ever computed.

Comparisons and functions registered with a zero derivative cut the
dependence. The result is stored as ``ctx.facts["active"]``, a set of
names; the tree is returned unchanged.
"""
import gast

from tangent_ad.registry import REGISTRY


def run(tree, ctx):
    """Record the active names of the core-form FunctionDef `tree`."""
    stmts = [s for s in tree.body if isinstance(s, gast.Assign)]
    returned = tree.body[-1].value
    varied = set(ctx.wrt)
    for stmt in stmts:
        if _differentiable(stmt.value, ctx) and _reads(stmt.value) & varied:
            varied.add(stmt.targets[0].id)
    useful = _reads(returned)
    for stmt in reversed(stmts):
        if stmt.targets[0].id in useful and _differentiable(stmt.value, ctx):
            useful |= _reads(stmt.value)
    ctx.facts["active"] = varied & useful
    return tree


def _reads(expr):
    """Local names read by a core-form operation (globals are resolved
    nodes and never active, so they may be included harmlessly)."""
    return {n.id for n in gast.walk(expr)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _differentiable(expr, ctx):
    if isinstance(expr, gast.Compare):
        return False
    if isinstance(expr, gast.Call):
        return not REGISTRY.is_zero(ctx.resolved.get(expr))
    return True
