"""A loop's branch decisions on a list of their own, replayed by iterating
it, in a derivative specialized by ``specialize.py``.

The primal sweep of ``for i in range(n): if x > 0.5: ...`` pushes the
branch each step took on the one stack (``saves``), and the adjoint
sweep pops it back, one call per step::

    for i in reversed(range(n)):
        if stack.pop():

When the loop pushes exactly one decision per step and the adjoint loop
replays it once per step, the decisions can go on a list of their own,
``taken = []``, and the adjoint loop can iterate over that list backwards
instead of counting and popping::

    for taken_step in reversed(taken):
        if taken_step:

That is the same sequence of decisions: a stack's pops, restricted to the
items of one site, come back in the reverse order of that site's pushes,
and so do a separate list's. The rest of the stack keeps its order. On a
ten-step scalar loop with a branch, a tenth of the gradient's time.

The rewrite needs: the function binds the stack once (``stack = []``) and
uses it only in declared pushes and pops, all in its own body (no
nested function, whose pushes and pops may pair across calls); both loops
are statements of the function's own body (each runs once), the primal
one over ``range(n)`` and the adjoint one over ``reversed(range(n))``
with the same `n`, a name the function never rebinds or a constant; the
branch is a statement of the primal loop's body and its replay one of the
adjoint loop's body, the site's only pushes and replay; neither loop has a
``break``, ``continue`` or ``return`` that could skip one; and the adjoint
loop's counter is read nowhere in its body.
"""
import gast

from tangent_ad import saves
from tangent_ad.nodes import STACK, call, walk
from tangent_ad.staging.callees import for_function

_EXITS = (gast.Break, gast.Continue, gast.Return, gast.Try, gast.FunctionDef,
          gast.AsyncFunctionDef, gast.Lambda, gast.Yield, gast.YieldFrom)


def run(tree, namespace=None):
    """Return the FunctionDef `tree` with the branch decisions of its loops
    on lists of their own where that is the same (module docstring);
    ``range`` and ``reversed`` looked up in `namespace` (``callees.py``)."""
    if not any(_call_of(s.iter, "reversed") and any(_replay(r) for r in s.body)
               for s in tree.body if isinstance(s, gast.For)):
        return tree  # (no adjoint loop that replays a branch: the cheap test first)
    callees = for_function(tree, namespace)
    if not _stack_used_only_by_sites(tree) or callees.of(_name("range", gast.Load())) \
            is not range or callees.of(_name("reversed", gast.Load())) is not reversed:
        return tree
    body = tree.body
    names, bindings = set(), {}  # every name; how often each is bound (not parameters)
    for node in walk(tree):
        if isinstance(node, gast.Name):
            names.add(node.id)
            if isinstance(node.ctx, (gast.Store, gast.Del)):
                bindings[node.id] = bindings.get(node.id, 0) + 1
    ranges = {s.targets[0].id for s in body if isinstance(s, gast.Assign)
              and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
              and bindings[s.targets[0].id] == 1 and _call_of(s.value, "range")}
    for back in [s for s in body if _counted_loop(s, True, ranges, bindings)]:
        count = back.iter.args[0]
        if _has_exit(back) or _reads(back.body, back.target.id):
            continue
        for replay in [s for s in back.body if _replay(s)]:
            site = saves.site_of(replay)
            pushes = [s for s in walk(tree) if saves.site_of(s) is site and s is not replay]
            forward = next((s for s in body[:body.index(back)]
                            if pushes and all(_inside(p, s) for p in pushes)), None)
            if forward is None or not _counted_loop(forward, False, ranges, bindings) or \
                    gast.dump(forward.iter) != gast.dump(count) or _has_exit(forward):
                continue
            branch = next((s for s in forward.body if isinstance(s, gast.If) and
                           all(_inside(p, s) for p in pushes)), None)
            if branch is None or not _one_per_step(branch, pushes):
                continue
            taken = _fresh("taken", names)
            step = _fresh(f"{taken}_step", names)
            for push in pushes:
                push.value.func.value = _name(taken, gast.Load())
                delattr(push, saves.ATTRIBUTE)
            body.insert(body.index(forward), gast.Assign(
                targets=[_name(taken, gast.Store())], value=gast.List(elts=[], ctx=gast.Load()),
                type_comment=None))
            back.target = _name(step, gast.Store())
            back.iter = call("reversed", _name(taken, gast.Load()))
            replay.test = _name(step, gast.Load())
            delattr(replay, saves.ATTRIBUTE)
            break  # the adjoint loop counts no more: one list per loop
    return tree


def _fresh(base, names):
    name = base
    while name in names:
        name += "_"
    names.add(name)
    return name


def _name(identifier, ctx):
    return gast.Name(id=identifier, ctx=ctx, annotation=None, type_comment=None)


def _stack_used_only_by_sites(tree):
    """The stack is bound once, in the function's body, and read only by
    declared pushes and pops of the function's own body."""
    bindings = [s for s in tree.body if isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id == STACK]
    if len(bindings) != 1:
        return False
    declared = {id(n) for s in walk(tree) if saves.site_of(s) is not None
                for n in walk(_stack_part(s)) if isinstance(n, gast.Name) and n.id == STACK}
    uses = [n for n in walk(tree) if isinstance(n, gast.Name) and n.id == STACK]
    nested = any(isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda))
                 for n in walk(tree) if n is not tree)
    return not nested and all(id(n) in declared or n is bindings[0].targets[0] for n in uses)


def _stack_part(stmt):
    """The part of a declared statement that names the stack: a replay's
    test (not the branches it runs), a restore's value, a push itself."""
    if isinstance(stmt, gast.If):
        return stmt.test
    return stmt.value if isinstance(stmt, gast.Assign) else stmt


def _counted_loop(stmt, reversed_, ranges, bindings):
    """``for i in range(n)`` (``reversed(range(n))`` when `reversed_`) with
    `n` a constant or a name the function never binds (`bindings`), or over
    a name of `ranges` (bound once to a ``range(...)``: ``iterable =
    range(n)``, one object both loops run over, so they count alike); a
    name as its counter and no ``else``."""
    if not (isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name)
            and not stmt.orelse):
        return False
    it = stmt.iter
    if reversed_:
        if not (_call_of(it, "reversed") and len(it.args) == 1):
            return False
        it = it.args[0]
    if isinstance(it, gast.Name):
        return it.id in ranges
    if not (_call_of(it, "range") and len(it.args) == 1):
        return False
    count = it.args[0]
    return isinstance(count, gast.Constant) and type(count.value) is int or \
        isinstance(count, gast.Name) and count.id not in bindings


def _call_of(node, name):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == name and not node.keywords


def _has_exit(loop):
    return any(isinstance(n, _EXITS) for n in walk(loop))


def _reads(stmts, name):
    return any(isinstance(n, gast.Name) and n.id == name
               for s in stmts for n in walk(s))


def _replay(stmt):
    site = saves.site_of(stmt)
    return site is not None and site.kind == "branch" and isinstance(stmt, gast.If)


def _inside(node, outer):
    return any(n is node for n in walk(outer))


def _one_per_step(branch, pushes):
    """Each way through the ``if`` `branch` pushes once: one push, a
    statement of the body's own and one of the ``else`` 's own (a branch
    decision is recorded on the ways out of the branches)."""
    body = [p for p in pushes if any(p is s for s in branch.body)]
    orelse = [p for p in pushes if any(p is s for s in branch.orelse)]
    return len(body) == len(orelse) == 1 and len(pushes) == 2
