"""Dead-code elimination by liveness.

Walks each statement list backwards, keeping the set of names whose
values are still needed; an assignment to names none of which is needed
is dropped, unless evaluating it has an effect (a stack push or pop, or a
call made for its check). Branches and loops are handled structurally:
a loop's body is re-examined until its live set stops growing. Finally a
``# Grad of:`` comment left with no statement under it is removed.

Invariant needed: the tree is the output of a differentiator (calls in
assignments have no side effects other than the ones listed above).
Invariant established: every remaining assignment is read later.
"""
import gast

from tangent_ad.naming import COMMENT_MARKER

_EFFECTFUL_METHODS = {"append", "pop"}


def run(tree, ctx=None):
    """Return `tree` (a FunctionDef) without its dead statements."""
    tree.body, _ = _block(tree.body, set())
    return tree


def reads(node):
    """Names read anywhere inside `node`."""
    return {n.id for n in gast.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def writes(node):
    """Names assigned by the targets of `node`."""
    return {n.id for n in gast.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _has_effect(node):
    for sub in gast.walk(node):
        if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Attribute) \
                and sub.func.attr in _EFFECTFUL_METHODS:
            return True
    return False


def _block(stmts, live):
    """(kept statements, names live before them) given `live` after them."""
    kept = []
    live = set(live)
    for stmt in reversed(stmts):
        stmt, live = _statement(stmt, live)
        if stmt is not None:
            kept.append(stmt)
    kept.reverse()
    return _drop_orphan_comments(kept), live


def _statement(stmt, live):
    if isinstance(stmt, gast.Assign):
        targets = set().union(*(writes(t) for t in stmt.targets))
        if not targets & live and not _has_effect(stmt.value):
            return None, live
        return stmt, (live - targets) | reads(stmt.value) | \
            set().union(*(reads(t) for t in stmt.targets))
    if isinstance(stmt, gast.Return):
        return stmt, reads(stmt.value) if stmt.value is not None else set()
    if isinstance(stmt, gast.If):
        stmt.body, live_body = _block(stmt.body, live)
        stmt.orelse, live_else = _block(stmt.orelse, live)
        if not stmt.body and not stmt.orelse and not _has_effect(stmt.test):
            return None, live
        if not stmt.body:
            stmt.body = [gast.Pass()]
        return stmt, live_body | live_else | reads(stmt.test)
    if isinstance(stmt, (gast.For, gast.While)):
        header = reads(stmt.iter if isinstance(stmt, gast.For) else stmt.test)
        loop_live = set(live) | header
        while True:
            body, live_body = _block(list(stmt.body), loop_live)
            grown = loop_live | live_body
            if grown == loop_live:
                break
            loop_live = grown
        stmt.body = body or [gast.Pass()]
        return stmt, loop_live | live
    # expression statements (comments, checks) and anything else are kept
    return stmt, live | reads(stmt)


def _is_comment(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Name) \
        and stmt.value.func.id == COMMENT_MARKER


def _drop_orphan_comments(stmts):
    kept = []
    for i, stmt in enumerate(stmts):
        if _is_comment(stmt):
            following = stmts[i + 1] if i + 1 < len(stmts) else None
            if following is None or _is_comment(following):
                continue
        kept.append(stmt)
    return kept
