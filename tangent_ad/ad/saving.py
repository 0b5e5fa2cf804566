"""The primal sweep of reverse mode: the user's code plus what it must save.

The adjoint sweep runs after the primal one, walking the statements
backwards; it needs each value as it was when its statement ran. This
module prepares the primal so that it can:

* before an assignment that may overwrite a value (any assignment in a
  loop, or to a name assigned more than once), the old value is pushed
  with ``stack.append(x)``; the adjoint restores it with
  ``x = stack.pop()`` after the statement's adjoint;
* at the end of each branch of an ``if``, ``stack.append(True)`` (or
  ``False``) records the branch taken, which the adjoint replays with
  ``if stack.pop():``;
* a ``while`` loop, or a ``for`` loop that may ``break``, counts its
  iterations so the adjoint loop can run as many times.

A name bound once, by arithmetic on names nothing in the function binds
(``t = -k`` in a loop, ``k`` a parameter), is not saved: each time the
loop assigns it again it gets the same value (`_invariant`). Nor is one
the adjoint can compute again from operands it restores anyway
(``t2 = b * x`` in a loop that saves ``x``; ``rematerialize``).

Every push is paired with its pop by a declared save site (``saves``);
dead-code elimination drops a pair when the restored value is never read,
so in the end only values that are overwritten *and* needed are saved.
"""
from dataclasses import dataclass, field

import gast

from tangent_ad import saves
from tangent_ad.ad import checkpointing, rematerialize
from tangent_ad.nodes import assign, call, const, name, walk, writes


@dataclass
class Plan:
    """What the primal sweep saved, for the adjoint sweep to restore."""

    saved: dict = field(default_factory=dict)      # core Assign -> [(name, push)]
    decisions: dict = field(default_factory=dict)  # core If -> the site of its True/False
    counters: dict = field(default_factory=dict)   # core loop -> counter name
    checkpointed: dict = field(default_factory=dict)  # core loop -> Segments
    undefined: set = field(default_factory=set)    # names pushed before any value
    recomputed: dict = field(default_factory=dict)  # core stmt -> [bindings to run again
    #                                                 just before its adjoint]


def prepare_loops(body, ctx):
    """Add iteration counters to loops that need them and hoist iterables
    that the loop body changes; modifies the core statements in place."""
    for stmt in list(_walk_statements(body)):
        if isinstance(stmt, gast.While) or (
                isinstance(stmt, gast.For) and _breaks(stmt.body)):
            counter = ctx.namer.fresh("iterations")
            stmt.body.insert(0, _origin(ctx, stmt, assign(
                counter, gast.BinOp(left=name(counter), op=gast.Add(), right=const(1)))))
            ctx.facts.setdefault("counters", {})[stmt] = counter
            _insert_before(body, stmt, _origin(ctx, stmt, assign(counter, const(0))))
        if isinstance(stmt, gast.For) and _reads_names(stmt.iter) & writes_in(stmt.body):
            held = ctx.namer.fresh("iterable")
            value = stmt.iter
            if isinstance(value, gast.Call) and ctx.resolved.get(value) is not range:
                value = call("list", value)
            _insert_before(body, stmt, _origin(ctx, stmt, assign(held, value)))
            stmt.iter = name(held)


def primal_sweep(body, ctx, params):
    """The primal statements with pushes inserted, and the Plan, for the
    core-form function body `body`; its final return, read only to know
    where values are used, is left out of the statements."""
    body, whole = body[:-1], body
    plan = Plan(counters=ctx.facts.get("counters", {}))
    counts = {}
    for stmt in _walk_statements(body):
        if isinstance(stmt, gast.Assign):
            for target in writes(stmt):
                counts[target] = counts.get(target, 0) + 1
    overwritten = {v for v, n in counts.items() if n > 1} | set(params)
    invariant = _invariant(body, counts)
    unsaved = set(invariant)
    for binding, anchors in rematerialize.plan(whole, ctx, params, invariant).items():
        for anchor in anchors:
            plan.recomputed.setdefault(anchor, []).append(binding)
        unsaved.add(binding.targets[0].id)
    sweep = _Sweep(ctx, plan, overwritten, params, unsaved)
    return sweep.block(body, depth=0), plan


_PURE = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.operator, gast.unaryop,
         gast.Load)


def _invariant(body, counts):
    """The names bound once, by arithmetic on names that nothing in `body`
    binds (``t = -k`` inside a loop, `k` a parameter never assigned): each
    time that assignment runs again it gives the same value, so the old
    value need not be saved for the adjoint sweep, however often a loop
    overwrites it."""
    written = set()
    for stmt in _walk_statements(body):
        written |= writes(stmt)
    found = set()
    for stmt in _walk_statements(body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and counts.get(stmt.targets[0].id) == 1 \
                and all(isinstance(n, _PURE) for n in walk(stmt.value)) and \
                not _reads_names(stmt.value) & written:
            found.add(stmt.targets[0].id)
    return found


class _Sweep:
    def __init__(self, ctx, plan, overwritten, params, unsaved):
        self.ctx = ctx
        self.plan = plan
        self.overwritten = overwritten
        self.unsaved = unsaved  # names never saved (`_invariant`, `rematerialize`)
        self.params = params
        self.defined = set(params)  # names surely assigned so far, at the top level

    def block(self, stmts, depth):
        out = []
        for stmt in stmts:
            if not isinstance(stmt, gast.Pass):
                out.extend(self.statement(stmt, depth))
                if depth == 0 and isinstance(stmt, gast.Assign):
                    self.defined |= writes(stmt)
        return out

    def statement(self, stmt, depth):
        if isinstance(stmt, gast.Assign):
            targets = [t for t in _target_names(stmt)
                       if (depth > 0 or t in self.overwritten) and t not in self.unsaved]
            if not targets:
                return [stmt]
            pushes = [(t, saves.save(name(t), saves.value_site(t))) for t in targets]
            self.plan.saved[stmt] = pushes
            self.plan.undefined.update(t for t in targets if t not in self.params)
            return [s for _, s in pushes] + [stmt]
        if isinstance(stmt, gast.If):
            site = saves.branch_site()
            body = _record_branch(self.block(stmt.body, depth), True, site)
            orelse = _record_branch(self.block(stmt.orelse, depth), False, site)
            self.plan.decisions[stmt] = site
            return [gast.If(test=stmt.test, body=body, orelse=orelse)]
        if checkpointing.is_checkpointed(stmt, self.ctx):
            return checkpointing.forward(stmt, self, depth, self.defined)
        # (a body of `pass` or `continue` alone saves nothing: keep a `pass`)
        if isinstance(stmt, gast.For):
            return [gast.For(target=stmt.target, iter=stmt.iter,
                             body=self.block(stmt.body, depth + 1) or [gast.Pass()],
                             orelse=[], type_comment=None)]
        if isinstance(stmt, gast.While):
            return [gast.While(test=stmt.test, body=self.block(stmt.body, depth + 1)
                               or [gast.Pass()], orelse=[])]
        if isinstance(stmt, gast.With):
            return []  # an insert_grad_code block runs in the adjoint sweep only
        return [stmt]


def _target_names(stmt):
    """The names an assignment binds, in the order they are written."""
    return [n.id for n in walk(stmt.targets[0])
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]


def _record_branch(block, taken, site):
    """`block` (a branch of an ``if``) recording that it ran: a push of
    `taken` on every way out of it, at its end and before each ``break``
    or ``continue`` nested in its own ``if`` statements, since such an exit skips
    the end (the push of an inner ``if`` comes first, so the adjoint pops
    the outer decision first), each a push of the branch site `site`."""
    block = _record_before_exits(block, taken, site)
    if block and isinstance(block[-1], (gast.Break, gast.Continue)):
        return block
    return block + [saves.record(taken, site)]


def _record_before_exits(stmts, taken, site):
    """`stmts` with the push of `_record_branch` before each ``break`` or
    ``continue``, nested ``if`` statements included (a module function: a
    closure that calls itself is a reference cycle, see ``collector``)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, (gast.Break, gast.Continue)):
            out.append(saves.record(taken, site))
        elif isinstance(stmt, gast.If):
            stmt.body = _record_before_exits(stmt.body, taken, site)
            stmt.orelse = _record_before_exits(stmt.orelse, taken, site)
        out.append(stmt)
    return out


def _walk_statements(body):
    for stmt in body:
        yield stmt
        if isinstance(stmt, (gast.FunctionDef, gast.With)):
            continue  # a nested function's (or a hook's) statements are its own
        for field_name in ("body", "orelse"):
            yield from _walk_statements(getattr(stmt, field_name, []) or [])


def _breaks(body):
    """True when `body` has a `break` for this loop (not a nested one)."""
    for stmt in body:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (_breaks(stmt.body) or _breaks(stmt.orelse)):
            return True
    return False


def writes_in(body):
    return set().union(*(writes(s) for s in body)) if body else set()


def _reads_names(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)}


def _insert_before(body, target, new):
    """Insert `new` just before `target`, wherever it is nested in `body`."""
    for i, stmt in enumerate(body):
        if stmt is target:
            body.insert(i, new)
            return True
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if inner and _insert_before(inner, target, new):
                return True
    return False


def _origin(ctx, loop, stmt):
    ctx.origin[stmt] = ctx.origin.get(loop)
    return stmt
