"""Rematerialization: values the adjoint sweep computes again instead of
restoring them from the stack.

A value saved before each overwrite costs a push in the primal sweep and a
pop in the adjoint one. For ``t2 = b * x`` in a loop, with ``b`` never
rebound and ``x`` saved and restored anyway, the adjoint can as well run
``t2 = b * x`` again just before the first of its statements that reads
``t2``, as a hand-written gradient does (it keeps the states and
recomputes the products): one push and one pop fewer per iteration.

Why the recompute is right: the adjoint sweep keeps the invariant that,
when it reaches the adjoint of a statement S, each variable holds the
value it had just after S ran (a restore ``x = stack.pop()`` follows the
adjoint of each overwrite of ``x``). In a block ``B, ..., U`` where B binds
t and U is the last statement of the block that reads it, a recompute of
B placed just before the adjoint of U reads each operand as it was just
after U, that is, as it was at B if nothing between B and U rebinds it.

`plan` keeps saving (and recomputes nothing) unless all of this holds:

* B is ``t = e``, e arithmetic (unary and binary operators but ``@``,
  whose cost would exceed a save) on names and constants;
* B is the only binding of t, t is not a parameter, and not `invariant`
  (such a name is never saved in the first place);
* B is in a loop (outside one nothing saves a name bound once); no loop
  around it is checkpointed or has a ``break`` or ``continue``;
* every read of t is in a statement after B in B's own block (a loop
  body or a branch), outside nested functions: t is neither carried to
  the next iteration nor read after the loop, and every adjoint that
  reads it comes between the recompute and the adjoint of B;
* no operand is t; each is bound nowhere in the function, or only by
  plain assignments (then it is saved before each overwrite, or bound
  once and constant afterwards: either way the invariant above holds
  for it); none is rebound, nor the object of a method call or of a
  statement run for its effect, between B and U;
* an operand recomputed itself is bound in the same block, and its
  recompute moves up to t's, which is right if its own operands keep
  their values that far; a temporary (bound once in the same loop, not
  a parameter, so not carried from one iteration to the next) that is
  saved is refused: t's save would only become its save, plus an
  operation.

When U is an ``if`` that rebinds an operand after reading t, the
recompute goes into each branch instead (`_in_branches`).

A missed recompute costs a save; a wrong one would cost a wrong gradient.
"""
from collections import Counter

import gast

from tangent_ad.ad import checkpointing
from tangent_ad.nodes import assign, children, copy_tree, find_all, name_nodes, walk, writes

_ARITHMETIC = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.operator,
               gast.unaryop, gast.Load)
_FUNCTIONS = (gast.FunctionDef, gast.Lambda)


def plan(body, ctx, params, invariant):
    """{binding: [anchor, ...]} for the assignments of `body` (the
    core-form function body, its return included) to recompute rather
    than save: the adjoint runs a copy of ``binding`` (`recompute`) just
    before the adjoint of each anchor. An anchor is a statement of the
    binding's block no earlier than the last that reads its target (the
    binding itself if none does), or, when that last reader is an ``if``
    that rebinds an operand, the last reader in each of its branches
    (`_in_branches`). Bindings sharing an anchor come in the order they
    run."""
    loads, stores = Counter(), Counter()
    for node in name_nodes(body):
        (loads if isinstance(node.ctx, gast.Load) else stores)[node.id] += 1
    assigned, loop_of = Counter(), {}  # loop_of: name -> the loop around its binding
    for block, around in _blocks(body):
        for stmt in block:
            if isinstance(stmt, gast.Assign):
                bound = {n.id for target in stmt.targets for n in walk(target)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
                assigned.update(bound)
                loop_of.update(dict.fromkeys(bound, _innermost_loop(around)))
    placed, home, loops_ok = {}, {}, {}  # home: recomputed name -> (block, index)
    split = set()  # recomputed inside the branches of the `if` that reads them last
    for block, around in _blocks(body):
        facts = None
        for j, stmt in enumerate(block):
            target = _candidate(stmt, around, stores, params, invariant)
            if target is None or not _plain_loops(around, ctx, loops_ok):
                continue
            facts = facts or [_Facts(s) for s in block]
            if sum(f.loads[target] for f in facts[j + 1:]) != loads[target]:
                continue  # read before B, after the block, or by a closure
            anchor = max((k for k in range(j + 1, len(block)) if facts[k].loads[target]),
                         default=j)
            operands = _operands(stmt)
            if target in operands or any(stores[o] != assigned[o] for o in operands):
                continue  # a loop variable, a hook's alias, a closure's name
            loop = _innermost_loop(around)
            if any(assigned[o] == 1 and loop_of[o] is loop and o not in home
                   and o not in invariant and o not in params for o in operands):
                continue  # it would be saved in t's place: one more operation, no less traffic
            chain = _chain(operands, home, block, split)
            if chain is None:
                continue
            if all(_unchanged(_operands(block[k]), facts[k + 1:anchor + 1])
                   for k in chain + [j]):
                for k in chain:
                    placed[block[k]] = max(placed[block[k]], anchor)
                placed[stmt] = anchor
            elif not chain and isinstance(block[anchor], gast.If) and \
                    _unchanged(operands, facts[j + 1:anchor]):
                sites = _in_branches(block[anchor], operands, target)
                if sites is None:
                    continue
                placed[stmt] = sites
                split.add(target)
            else:
                continue
            home[target] = (block, j)
    return {binding: [home[binding.targets[0].id][0][where]] if isinstance(where, int)
            else where for binding, where in placed.items()}


def _innermost_loop(around):
    loops = [s for s in around if isinstance(s, (gast.For, gast.While))]
    return loops[-1] if loops else None


def _in_branches(stmt, operands, target):
    """Where in the branches of the ``if`` `stmt`, which reads `target` and
    rebinds one of `operands`, the recompute can go: before the adjoint of
    the last reader in each branch, when no operand changes in that branch
    up to it (looking into an ``if`` that does, the same way). None when
    some branch offers no such place, or does not read `target`: where
    only one branch gives `target` an adjoint, the other one's adjoint
    ends with ``zeros_like(target)``, which needs its value too."""
    sites = []
    for branch in (stmt.body, stmt.orelse):
        facts = [_Facts(s) for s in branch]
        last = max((k for k, f in enumerate(facts) if f.loads[target]), default=None)
        if last is None:
            return None
        if _unchanged(operands, facts[:last + 1]):
            sites.append(branch[last])
        elif isinstance(branch[last], gast.If) and _unchanged(operands, facts[:last]):
            inner = _in_branches(branch[last], operands, target)
            if inner is None:
                return None
            sites += inner
        else:
            return None
    return sites


def _chain(operands, home, block, split):
    """The indices in `block` of the recomputed bindings `operands` read,
    directly or through one another: their recomputes must come first,
    so their operands too must keep their values up to the new anchor.
    None if one is in another block, or recomputed in branches (`split`)."""
    found, pending = set(), [o for o in operands if o in home]
    while pending:
        member = pending.pop()
        where, k = home[member]
        if where is not block or member in split:
            return None
        if k not in found:
            found.add(k)
            pending.extend(o for o in _operands(block[k]) if o in home)
    return sorted(found)


def _operands(binding):
    return {n.id for n in name_nodes(binding.value)}


def _unchanged(names, facts):
    """True when no statement of `facts` rebinds one of `names` or may
    change it in place."""
    return not any(names & (f.writes | f.touched) for f in facts)


def recompute(binding):
    """The statement the adjoint runs in place of a restore of `binding`'s
    target: the binding again, on a copy of its expression."""
    return assign(binding.targets[0].id, copy_tree(binding.value))


def _candidate(stmt, around, stores, params, invariant):
    """The name `stmt` binds if it is a lone arithmetic assignment inside
    a loop to a name bound nowhere else; else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)):
        return None
    target = stmt.targets[0].id
    if stores[target] != 1 or target in params or target in invariant:
        return None
    if not any(isinstance(s, (gast.For, gast.While)) for s in around):
        return None
    nodes = walk(stmt.value)
    if not isinstance(stmt.value, (gast.BinOp, gast.UnaryOp)) or any(
            not isinstance(n, _ARITHMETIC) or isinstance(n, gast.MatMult) for n in nodes):
        return None
    return target


def _plain_loops(around, ctx, known):
    """True when no loop in `around` is checkpointed or leaves an
    iteration early (``break``, ``continue``); `known` caches per loop."""
    for stmt in around:
        if isinstance(stmt, (gast.For, gast.While)):
            if stmt not in known:
                known[stmt] = not checkpointing.is_checkpointed(stmt, ctx) and not any(
                    isinstance(n, (gast.Break, gast.Continue)) for n in walk(stmt))
            if not known[stmt]:
                return False
    return True


class _Facts:
    """What one statement (with everything nested in it) does to names:
    `loads` counts its reads outside nested functions, `writes` holds what
    it binds anywhere, `touched` the names its effects may change in place
    (objects of method calls, and whatever a statement run only for its
    effect reads)."""

    def __init__(self, stmt):
        self.loads = Counter()
        self.writes = writes(stmt)
        self.touched = set()
        for node in find_all(stmt, gast.Expr):
            self.touched.update(n.id for n in name_nodes(node))
        for node in find_all(stmt, gast.Call):
            if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name):
                self.touched.add(node.func.value.id)
        pending = [stmt]
        while pending:
            node = pending.pop()
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                self.loads[node.id] += 1
            elif not isinstance(node, _FUNCTIONS):
                pending.extend(children(node))


def _blocks(body, around=()):
    """(block, the compound statements around it) for `body` and each
    branch and loop body in it; a nested function's or a hook's
    statements are their own."""
    yield body, around
    for stmt in body:
        if isinstance(stmt, (gast.FunctionDef, gast.With)):
            continue
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if inner:
                yield from _blocks(inner, around + (stmt,))
