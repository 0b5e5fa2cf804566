"""Visitor and transformer bases for gast trees, faster than gast's own.

``gast.NodeVisitor`` and ``gast.NodeTransformer`` find each node's
method by building a string and looking it up, and visit every field,
including the names, flags and ``ctx`` markers (``Load()``, ``Store()``)
that hold nothing to visit: in the stages that walk the user's function
with them, a share of their time (1.4 % of a transformation of the
199-line function of ``benchmarks/long_function.py``). These bases do the
same work, with the same results and in the same order, but look each
method up once per class of node (per visitor), and skip the fields
`nodes.child_fields` leaves out. A subclass that needs a ``visit_Load``
(none does) must use gast's.
"""
import gast

from tangent_ad.nodes import child_fields

_AST = gast.AST


def _method(visitor, node_class):
    """The function ``visit_<node class>`` of `visitor`'s class, or None,
    remembered by the visitor (some classes of visitors are made per call,
    so the memory goes with the instance; functions, not bound methods, so
    that the instance is in no reference cycle: the collector is paused
    while code is written, and only reference counting frees it then)."""
    try:
        methods = visitor.__dict__["_visit_methods"]
    except KeyError:
        methods = visitor.__dict__["_visit_methods"] = {}
    try:
        return methods[node_class]
    except KeyError:
        found = methods[node_class] = getattr(type(visitor), "visit_" + node_class.__name__,
                                              None)
        return found


class _Dispatch:
    """``visit``: the node's ``visit_<class>`` method, else ``generic_visit``."""

    def visit(self, node):
        method = _method(self, node.__class__)
        if method is None:
            return self.generic_visit(node)
        return method(self, node)


class Visitor(_Dispatch, gast.NodeVisitor):
    """``gast.NodeVisitor``, with methods found once per class of node."""

    def generic_visit(self, node):
        values = node.__dict__
        for field in child_fields(node.__class__):
            value = values.get(field)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, _AST):
                        self.visit(item)
            elif isinstance(value, _AST):
                self.visit(value)


class Transformer(_Dispatch, gast.NodeTransformer):
    """``gast.NodeTransformer``, with methods found once per class of node,
    and a list rebuilt only when a visit replaced or removed one of its
    items (it stays the same list object either way, as with gast's)."""

    def generic_visit(self, node):
        values = node.__dict__
        for field in child_fields(node.__class__):
            old = values.get(field)
            if old.__class__ is list:
                new, changed = [], False
                for item in old:
                    if isinstance(item, _AST):
                        replaced = self.visit(item)
                        if replaced is not item:
                            changed = True
                            if replaced is None:
                                continue
                            if not isinstance(replaced, _AST):
                                new.extend(replaced)
                                continue
                        item = replaced
                    new.append(item)
                if changed:
                    old[:] = new
            elif isinstance(old, _AST):
                replaced = self.visit(old)
                if replaced is None:
                    delattr(node, field)
                else:
                    setattr(node, field, replaced)
        return node
