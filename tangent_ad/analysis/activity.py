"""Activity analysis: which variables carry derivative information.

A variable is *varied* when its value depends, through differentiable
operations, on an argument in ``wrt``; it is *useful* when the returned
value depends on it. Only variables that are both (*active*) get adjoints,
so no derivative of a non-``wrt`` argument is ever computed.

Comparisons, branch and loop conditions, ``range`` loop counters and
functions registered with a zero derivative cut the dependence; so does
a shift the output is invariant to (``invariance``: the row maximum a
log-softmax subtracts), whose derivative is zero in exact arithmetic. The
analysis runs on the control-flow graph (``cfg``) with the generic solver
(``dataflow``); the result is stored as ``ctx.facts["active"]``, a set of
names. The tree is returned unchanged. In generated code read back as
input (``frontend.generated``), ``stack.append(v)`` counts as an
assignment to ``stack`` from ``stack`` and ``v``, and ``v = stack.pop()``
reads ``stack``, so a value restored from the stack varies (and a pushed
one is useful) when the stack does.
"""
import gast

from tangent_ad.analysis import cfg, dataflow, invariance
from tangent_ad.frontend.generated import returns_closure
from tangent_ad.nodes import STACK, is_push, walk
from tangent_ad.registry import REGISTRY


def run(tree, ctx):
    """Record the active names of the core-form FunctionDef `tree`."""
    ctx.facts["active"] = active_names(tree, ctx, ctx.wrt, record=True)
    return tree


def active_names(tree, ctx, wrt, record=False):
    """The active names of the FunctionDef `tree` for the varied names
    `wrt` (a nested closure of generated code is analysed on its own,
    with the names it reads from the enclosing function among `wrt`)."""
    graph = cfg.build(tree)
    constants = invariance.constant_shifts(tree, ctx) if record else frozenset()
    for node in graph.nodes:
        if is_push(node.stmt):  # generated code's stack.append(v): stack = f(stack, v)
            node.defs = frozenset({STACK})
        if node.sources & constants:  # nothing flows back through the shift
            node.sources = node.sources - constants
    generated = ctx.facts.get("generated")
    values = set()
    if generated and ctx.mode == "forward":
        # A closure (a pullback's `back`, or a pullback's result that holds
        # one) varies whatever it closes over: the argument it is called
        # with may vary, and its tangent is the function that says how.
        values = _function_values(tree)
        for node in graph.nodes:
            if isinstance(node.stmt, gast.FunctionDef) and node.stmt.name in values or (
                    isinstance(node.stmt, gast.Assign) and isinstance(node.stmt.value, gast.Call)
                    and returns_closure(ctx.resolved.get(node.stmt.value))):
                node.sources = node.sources | {_CLOSURE}
        wrt = tuple(wrt) + (_CLOSURE,)

    def differentiable(node):
        stmt = node.stmt
        if isinstance(stmt, gast.Assign):
            return _differentiable(stmt.value, ctx)
        if isinstance(stmt, gast.For):
            return not _is_range(stmt.iter, ctx) and not _is_positions(stmt.iter, ctx)
        # a generated closure varies with the values it closes over
        return is_push(stmt) or (generated and isinstance(stmt, gast.FunctionDef)
                                 and stmt.name in values)

    if record:
        ctx.facts["cfg"] = graph
    return dataflow.activity(graph, wrt, differentiable)


_CLOSURE = "<closure>"  # a pseudo-variable that every generated closure reads


def _function_values(tree):
    """The nested defs of generated code used as values (``result, back``):
    its closures. A def whose name is only called, or passed to a call (a
    copy of the user's nested function, given to a specialized pullback
    that calls its own pullback instead), is not one."""
    defs = {n.name for n in walk(tree) if isinstance(n, gast.FunctionDef) and n is not tree}
    passed = set()
    for node in walk(tree):
        if isinstance(node, gast.Call):
            passed.update(id(a) for a in [node.func] + list(node.args))
    return {n.id for n in walk(tree) if isinstance(n, gast.Name) and n.id in defs
            and isinstance(n.ctx, gast.Load) and id(n) not in passed}


def _differentiable(expr, ctx):
    if isinstance(expr, gast.Compare):
        return False
    if isinstance(expr, gast.Call):
        return not REGISTRY.is_zero(ctx.resolved.get(expr))
    return True


def _is_positions(expr, ctx):
    """A call with a zero derivative (``sort_order(xs)``: positions), or
    ``reversed(list(...))`` of one (as adjoint loops run)."""
    while isinstance(expr, gast.Call) and ctx.resolved.get(expr) in (reversed, list) \
            and len(expr.args) == 1:
        expr = expr.args[0]
    return isinstance(expr, gast.Call) and REGISTRY.is_zero(ctx.resolved.get(expr))


def _is_range(expr, ctx):
    """``range(...)``, or ``reversed(range(...))`` (as adjoint loops run)."""
    if isinstance(expr, gast.Call) and ctx.resolved.get(expr) is reversed \
            and len(expr.args) == 1:
        expr = expr.args[0]
    return isinstance(expr, gast.Call) and ctx.resolved.get(expr) is range
