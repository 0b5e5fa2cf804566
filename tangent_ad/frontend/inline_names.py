"""The names of a function written out in its caller (``inline.py``):
which names it binds and which it reads free, its variables renamed
apart from the caller's, and its nodes given the call's location.
"""
import copy

import gast

from tangent_ad.frontend import closures
from tangent_ad.nodes import walk
from tangent_ad.visitors import Transformer


def local_names(tree):
    """The names `tree` binds: its parameters, its assignments and its
    nested defs (not inside them)."""
    names = {a.id for a in tree.args.args}
    for node in closures._walk_outside_functions(tree.body):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names.add(node.id)
        elif isinstance(node, gast.FunctionDef):
            names.add(node.name)
    return names


def free_names(stmts, bound):
    """The names read in `stmts` that neither `bound` nor a nested def,
    lambda or comprehension around the read binds."""
    free = set()
    todo = [(node, frozenset(bound)) for node in stmts]
    while todo:
        node, names = todo.pop()
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load) and node.id not in names:
                free.add(node.id)
            continue
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            own = {a.id for a in node.args.args}
            body = node.body if isinstance(node.body, list) else [node.body]
            own |= {n.id for b in body for n in closures._walk_outside_functions([b])
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            todo.extend((d, names) for d in node.args.defaults)
            todo.extend((b, names | own) for b in body)
            continue
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            names = names | {n.id for g in node.generators for n in walk(g.target)
                             if isinstance(n, gast.Name)}
        todo.extend((child, names) for child in gast.iter_child_nodes(node))
    return free


class Rename(Transformer):
    """Rename the callee's variables; a nested def or lambda keeps the
    names it binds itself."""

    def __init__(self, renames):
        self.renames = renames

    def visit_Name(self, node):
        new = self.renames.get(node.id)
        if isinstance(new, gast.expr):  # a known function passed in, a global of the callee's
            return gast.copy_location(copy.deepcopy(new), node)
        if new is not None:
            node.id = new
        return node

    def _inner(self, node, params):
        own = {p.id for p in params}
        if isinstance(node, gast.FunctionDef):
            own |= {n.id for n in closures._walk_outside_functions(node.body)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        return Rename({k: v for k, v in self.renames.items() if k not in own})

    def visit_FunctionDef(self, node):
        node.name = self.renames.get(node.name, node.name)
        inner = self._inner(node, node.args.args)
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.body = [inner.visit(s) for s in node.body]
        return node

    def visit_Lambda(self, node):
        inner = self._inner(node, node.args.args)
        node.body = inner.visit(node.body)
        return node


def relocate(node, where):
    """Give every node of the callee's tree the call's location: the
    callee's own line numbers are of another function's source."""
    for sub in walk(node):
        if hasattr(sub, "lineno") or isinstance(sub, (gast.expr, gast.stmt)):
            gast.copy_location(sub, where)
            sub.end_lineno = getattr(where, "end_lineno", None)
            sub.end_col_offset = getattr(where, "end_col_offset", None)
    return node


def relocate_new(stmt, where):
    """Locate the new assignment at the call (its value keeps its own)."""
    gast.copy_location(stmt, where)
    stmt.end_lineno = getattr(where, "end_lineno", None)
    stmt.end_col_offset = getattr(where, "end_col_offset", None)
    for target in getattr(stmt, "targets", ()):
        gast.copy_location(target, where)
    return stmt


def store(identifier):
    """A Name that `identifier` is bound to."""
    return gast.Name(id=identifier, ctx=gast.Store(), annotation=None, type_comment=None)
