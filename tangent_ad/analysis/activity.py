"""Activity analysis: which variables carry derivative information.

A variable is *varied* when its value depends, through differentiable
operations, on an argument in ``wrt``; it is *useful* when the returned
value depends on it. Only variables that are both (*active*) get adjoints,
so no derivative of a non-``wrt`` argument is ever computed.

Comparisons, branch and loop conditions, ``range`` loop counters and
functions registered with a zero derivative cut the dependence. The
analysis runs on the control-flow graph (``cfg``) with the generic solver
(``dataflow``); the result is stored as ``ctx.facts["active"]``, a set of
names. The tree is returned unchanged.
"""
import gast

from tangent_ad.analysis import cfg, dataflow
from tangent_ad.registry import REGISTRY


def run(tree, ctx):
    """Record the active names of the core-form FunctionDef `tree`."""
    graph = cfg.build(tree)

    def differentiable(node):
        stmt = node.stmt
        if isinstance(stmt, gast.Assign):
            return _differentiable(stmt.value, ctx)
        if isinstance(stmt, gast.For):
            return not _is_range(stmt.iter, ctx)
        return False

    ctx.facts["cfg"] = graph
    ctx.facts["active"] = dataflow.activity(graph, ctx.wrt, differentiable)
    return tree


def _differentiable(expr, ctx):
    if isinstance(expr, gast.Compare):
        return False
    if isinstance(expr, gast.Call):
        return not REGISTRY.is_zero(ctx.resolved.get(expr))
    return True


def _is_range(expr, ctx):
    return isinstance(expr, gast.Call) and ctx.resolved.get(expr) is range
