"""Pullbacks that return no back on a way whose adjoint is zero.

A recursion ends in a base case: ``node`` returns a leaf, which does not
depend on the weights. Its pullback's ``back`` would set the weights'
adjoints to zeros, and every caller would add those zeros to its own:
three arrays allocated and three added per leaf of a tree, in a closure
made only for that. Instead the pullback returns ``(result, None)`` on that
way, and its callers skip a back that is None, as a hand-written gradient
skips an empty record:

    def pullback_node_dW(W, leaves, lo, hi):
        if hi - lo == 1:
            result = leaves[lo]
            return result, None
        ...
        def back(bresult):
            ...
            if back_left is not None:
                g_W = back_left(bleft)
                bW = bW + g_W
            return bW
        return result, back

Reverse mode writes every pullback call's contributions under the guard
``if back is not None:`` (``reverse.py``, ``calls.guarded``), with the zeros
of the adjoints they would define first on the other way. This pass runs
on a unit's reverse-mode trees before they are optimized. A pullback
returns no back on a way when its last statement is an ``if`` whose
decision its back replays first, with the other statements of back only
binding the seed, and the replayed branch of that way sets each adjoint
back returns to zeros (restoring saved values, which nothing reads after
it, aside). Such a pullback returns early there when every call of it in
the unit is guarded; every other guard is written out as its body, so the
code of a pullback that always returns its back is as before.
"""
import collections

import gast

from tangent_ad import saves
from tangent_ad.nodes import const, copy_tree, find_all, is_comment

GUARD = "zero_guard"  # the attribute naming the pullback whose back a guard calls
GUARDS = "zero_guards"  # the fact listing the guards reverse mode wrote for a function
CALLED = "pullbacks_called"  # the fact listing the pullbacks its calls call, once per call
ZERO = "zero_adjoint"  # the attribute reverse mode declares its zeros with
_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.FunctionDef)


def run(trees, contexts):
    """`trees`, the reverse-mode trees of one unit (`contexts` their
    contexts), with the guards of pullbacks that may return no back kept
    and those pullbacks returning early; others' guards written out."""
    if not any(c.facts.get(GUARDS) for c in contexts):
        return trees  # (a loop's adjoint may be written twice: the trees say which guards stay)
    guarded = collections.Counter(getattr(g, GUARD) for tree, c in zip(trees, contexts)
                                  if c.facts.get(GUARDS) for g in _guards(tree.body))
    called = collections.Counter(name for c in contexts for name in c.facts.get(CALLED, ()))
    early = set()
    for tree, ctx in zip(trees, contexts):
        if ctx.kind != "pullback" or guarded[tree.name] != called[tree.name] or \
                ctx.facts.get("inline_calls"):  # compiled: its tapes take every back
            continue
        way = _zero_way(tree)
        if way is not None:
            _return_early(tree, *way)
            early.add(tree.name)
    for tree, ctx in zip(trees, contexts):
        if ctx.facts.get(GUARDS):
            _write_out(tree, early)
    return trees


def _zero_way(tree):
    """(decision, replay, index of the branch with the zero adjoint) of a
    pullback, or None when it has no such way."""
    body = tree.body
    if len(body) < 3 or not isinstance(body[-2], gast.FunctionDef):
        return None
    decision, back, ret = body[-3], body[-2], body[-1]
    if not (isinstance(ret, gast.Return) and isinstance(ret.value, gast.Tuple)
            and len(ret.value.elts) == 2 and isinstance(ret.value.elts[1], gast.Name)
            and ret.value.elts[1].id == back.name):
        return None
    site = _decision_site(decision)
    replay, returned = _replay(back, site)
    if replay is None:
        return None
    for index, branch in enumerate((replay.body, replay.orelse)):
        if _all_zeros(branch, returned):
            return decision, back, replay, index
    return None


def _decision_site(stmt):
    """The branch site whose decision the `if` `stmt` records last on
    each of its ways, or None."""
    if not isinstance(stmt, gast.If) or not stmt.body or not stmt.orelse:
        return None
    sites = {saves.site_of(branch[-1]) for branch in (stmt.body, stmt.orelse)}
    site = sites.pop() if len(sites) == 1 else None
    return site if site is not None and site.kind == "branch" else None


def _replay(back, site):
    """(the replay of `site`, the names `back` returns) when `back` replays
    it first, after binding the seed only, and returns names after it."""
    if site is None or len(back.body) < 2:
        return None, None
    *first, replay, ret = back.body
    if saves.site_of(replay) is not site or not isinstance(ret, gast.Return):
        return None, None
    if not all(isinstance(s, gast.Nonlocal) or is_comment(s) or _binds_name(s) for s in first):
        return None, None
    value = ret.value
    elts = value.elts if isinstance(value, gast.Tuple) else [value]
    if not all(isinstance(e, gast.Name) for e in elts):
        return None, None
    return replay, {e.id for e in elts}


def _binds_name(stmt):
    return isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Name)


def _all_zeros(branch, returned):
    """Whether `branch` only sets each name in `returned` to zeros (besides
    comments and restores of saved values)."""
    zeroed = set()
    for stmt in branch:
        if getattr(stmt, ZERO, False):
            zeroed.add(stmt.targets[0].id)
        elif not (is_comment(stmt) or saves.site_of(stmt) is not None
                  and not saves.is_save(stmt)):
            return False
    return zeroed == returned


def _return_early(tree, decision, back, replay, index):
    """Return ``(result, None)`` where the pullback records the way
    `index` of `decision`, and let back run the other way's adjoint only."""
    result = tree.body[-1].value.elts[0]
    ways = (decision.body, decision.orelse)
    ways[index][-1] = gast.Return(value=gast.Tuple(
        elts=[copy_tree(result), const(None)], ctx=gast.Load()))
    gast.copy_location(ways[index][-1], decision)
    other = ways[1 - index]
    other.pop()
    if not other:
        other.append(gast.Pass())
    dropped = (replay.body, replay.orelse)[index]
    kept = (replay.body, replay.orelse)[1 - index]
    at = back.body.index(replay)
    back.body[at:at + 1] = kept
    _drop_saves(tree, {saves.site_of(s) for s in dropped} - {None})


def _drop_saves(tree, sites):
    """Remove the saves of `sites`, whose restores went with the back's
    way that no longer runs, unless a restore of theirs is left."""
    sites -= {saves.site_of(take) for take in saves.pairs(tree)}
    blocks = [tree] + [n for cls in _COMPOUND for n in find_all(tree, cls)]
    for node in blocks:
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None) or []
            if any(saves.site_of(s) in sites for s in stmts):
                setattr(node, field, [s for s in stmts if saves.site_of(s) not in sites]
                        or [gast.Pass()])


def _guards(stmts):
    """The guards among `stmts` and the statements inside them."""
    for stmt in stmts:
        if hasattr(stmt, GUARD):
            yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from _guards(getattr(stmt, field, None) or [])


def _write_out(tree, early):
    """Replace each guard of a pullback not in `early` with its body."""
    tree.body = _written_out(tree.body, early)


def _written_out(stmts, early):
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if inner:
                setattr(stmt, field, _written_out(inner, early))
        if hasattr(stmt, GUARD) and getattr(stmt, GUARD) not in early:
            out.extend(stmt.body)
        else:
            out.append(stmt)
    return out
