"""Forward-mode templates: expand ``d[result] = ...`` with symbolic zeros.

A forward template's right-hand side is linear in the tangents ``d[x]``
it reads. The tangent of an argument that has none is a symbolic zero:
it is never written out, the terms of a sum that hold only zeros are left
out, and an operation whose tangents are all zero is zero. Only where an
operation mixes a zero with a real tangent is the zero written out
(``zero_value``). See ``templates`` for parsing and binding, which both
modes share.
"""
import copy

import gast

from tangent_ad.nodes import walk
from tangent_ad.templating.templates import (  # noqa: F401 (zero_value: forward.py reads it here)
    _is_d, _substitute, drop_defaults, mark_defaults, parse, zero_value)
from tangent_ad.visitors import Transformer


def expand_tangent(template, bound, result, tangent_of, fresh, omitted=()):
    """Instantiate the forward-mode `template` for one call.

    `bound`, `result` and `fresh` are as for `expand`; `tangent_of(atom)`
    gives the tangent name of an atom that has one, None otherwise.
    `omitted` names the parameters the call left at their defaults: the
    calls in the template leave them out too where they can (trailing
    positional arguments and keywords), so ``np.sum(d[a], axis,
    keepdims=keepdims)`` reads ``np.sum(dt)`` when the call was
    ``np.sum(t)``; the template's functions must then have the same
    defaults for those positions.
    Returns ``(temporaries, tangent, dropped)``: the ``(name, expression)``
    temporaries the tangent reads, the expression of ``d[result]`` (None
    when all its tangents are zero), and whether a zero tangent was left
    out or written out, in which case the tangent may have a smaller
    (broadcastable) shape than the result.
    """
    _, _, body = parse(template)
    env, defaults = mark_defaults(dict(bound, result=result), omitted)
    linear = _Linear(env, tangent_of)
    temporaries, tangent = [], _ZERO
    for stmt in body:
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
            continue  # the template's docstring
        target = stmt.targets[0]
        value = linear.visit(stmt.value)
        if _is_d(target):  # a rule that reads no tangent declares a zero one
            tangent = value if linear.has_tangent(stmt.value) else _ZERO
        elif value is _ZERO:
            linear.zero_temps[target.id] = stmt.value
        else:
            if linear.has_tangent(stmt.value):
                linear.carrying.add(target.id)
            linear.renames[target.id] = fresh(target.id)
            temporaries.append((linear.renames[target.id], value))
    namespace = getattr(template, "__globals__", {})
    temporaries = [(n, drop_defaults(e, defaults, namespace)) for n, e in temporaries]
    tangent = None if tangent is _ZERO else drop_defaults(tangent, defaults, namespace)
    return temporaries, tangent, linear.dropped


_ZERO = object()  # a symbolic zero tangent


class _Linear:
    """Expands the right-hand side of a forward template, zeros symbolic."""

    def __init__(self, env, tangent_of):
        self.env = env
        self.tangent_of = tangent_of
        self.renames = {}      # template temporary -> its fresh name
        self.carrying = set()  # temporaries whose values hold tangents
        self.zero_temps = {}   # temporaries that are zero -> their expression
        self.dropped = False

    def has_tangent(self, node):
        return any(_is_d(n) or (isinstance(n, gast.Name) and (
            n.id in self.carrying or n.id in self.zero_temps)) for n in walk(node))

    def visit(self, node):
        """`node` expanded, or _ZERO."""
        if not self.has_tangent(node):
            return _substitute(node, self.env, self.renames, None)
        if _is_d(node):
            tangent = self.tangent_of(self.env[node.slice.id])
            return _ZERO if tangent is None else gast.Name(
                id=tangent, ctx=gast.Load(), annotation=None, type_comment=None)
        if isinstance(node, gast.Name):
            if node.id in self.zero_temps:
                return _ZERO
            return gast.Name(id=self.renames[node.id], ctx=gast.Load(),
                             annotation=None, type_comment=None)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)) \
                and self.has_tangent(node.left) and self.has_tangent(node.right):
            left, right = self.visit(node.left), self.visit(node.right)
            if left is _ZERO or right is _ZERO:
                self.dropped = self.dropped or left is not right
                if right is not _ZERO and isinstance(node.op, gast.Sub):
                    return gast.UnaryOp(op=gast.USub(), operand=right)
                return right if left is _ZERO else left
            return gast.BinOp(left=left, op=node.op, right=right)
        return self.operation(node)

    def operation(self, node):
        """Any other node holding tangents: zero when all of them are."""
        fields, zeros, live = {}, [], False
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            new = []
            for item in items:
                if isinstance(item, gast.AST) and self.has_tangent(item):
                    expanded = self.visit(item)
                    if expanded is _ZERO:
                        zeros.append((field, len(new)))
                        expanded = self.zeros(item)
                    else:
                        live = True
                    new.append(expanded)
                elif isinstance(item, gast.AST):
                    new.append(_substitute(item, self.env, self.renames, None))
                else:
                    new.append(item)
            fields[field] = new if isinstance(value, list) else new[0]
        if not live:
            return _ZERO
        self.dropped = self.dropped or bool(zeros)
        return type(node)(**fields)

    def zeros(self, node):
        """`node` with each zero tangent written out as a zero value."""
        linear = self

        class Zeros(Transformer):
            def visit_Subscript(self, sub):
                if _is_d(sub):
                    return zero_value(linear.env[sub.slice.id])
                return self.generic_visit(sub)

            def visit_Name(self, ref):
                if ref.id in linear.zero_temps:
                    return linear.zeros(linear.zero_temps[ref.id])
                if ref.id in linear.renames:
                    return gast.Name(id=linear.renames[ref.id], ctx=gast.Load(),
                                     annotation=None, type_comment=None)
                if ref.id in linear.env:
                    return copy.deepcopy(linear.env[ref.id])
                return ref

        return Zeros().visit(copy.deepcopy(node))
