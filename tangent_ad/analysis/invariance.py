"""Shift invariance: reductions whose value the function's output ignores.

Softmax and log-softmax are written with a shift, for numerical stability::

    m = np.max(x, axis=1, keepdims=True)
    s = x - m
    log_probs = s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))

``log_probs`` is the same for every ``m``: with ``m + c`` in place of
``m``, for any ``c`` of m's shape, ``s`` moves by ``-c`` and so does the
log-sum-exp. m's adjoint is zero in exact arithmetic, and the max's rule
(an equality mask, a count of ties, two more row sums) would compute
rounding noise at a cost. This analysis proves such invariances, so that
``activity`` can treat ``m`` as a constant, as if it were
``stop_gradient(m)``: no adjoint or tangent is computed for it, and the
derivative is that of the mathematical function, ties included.

The proof follows ``m -> m + c`` through the core form. Each value read
from ``m`` is *unchanged*, *shifted* (``v + a*c``) or *scaled*
(``v * exp(a*c)``), for an integer ``a``, with ``c`` broadcast as NumPy
broadcasts ``m``::

    m                                    shifted by 1
    u + v, u - v, -u                     shifted by a + b, a - b, -a
    u * v, u / v, -u                     scaled by a + b, a - b, a
    np.exp(shifted by a)                 scaled by a
    np.log(scaled by a)                  shifted by a
    np.sum(scaled), np.mean(either),     the same, where c is constant
    np.max or np.min(shifted)            along the reduced axes
    a coefficient of 0                   unchanged

(an unchanged operand counts as 0.) ``c`` is constant along the reduced
axes when ``m`` is a full reduction (``c`` is a scalar), or when ``m``
reduces axis ``k`` with ``keepdims=True`` and the reduction does too,
with the same literal ``k``; a non-negative ``k`` also needs the value to
have m's rank, known for values made from m, numbers and the array ``m``
reduces. When every read of a changed value is one of these rules and
no changed value is read anywhere else (returned, in a loop or a branch,
by a call, a hook, a save), the function cannot tell ``m`` from
``m + c``, and m's derivative is zero. A value bound more than once, a
reduction over another axis, without ``keepdims`` or with another
keyword, and anything else the rules do not cover keeps its derivative:
a missed case costs time, a wrong one a gradient.
"""
import collections
import heapq
import operator

import gast
import numpy as np

from tangent_ad.nodes import reads, walk

SHIFTED, SCALED = "shifted", "scaled"
# reductions a shift may start from: m = f(x, axis=k, keepdims=True), or f(x)
SHIFTS = {np.max, np.min, np.amax, np.amin, np.mean, np.median, np.nanmax, np.nanmin,
          np.sum}
# reductions that keep a change of each kind, where c is constant along their axes
REDUCTIONS = {np.sum: {SCALED}, np.mean: {SHIFTED, SCALED},
              np.max: {SHIFTED}, np.amax: {SHIFTED}, np.min: {SHIFTED}, np.amin: {SHIFTED}}
# (kind, sign of the second operand) of each binary operation
BINARY = {operator.add: (SHIFTED, 1), np.add: (SHIFTED, 1),
          operator.sub: (SHIFTED, -1), np.subtract: (SHIFTED, -1),
          operator.mul: (SCALED, 1), np.multiply: (SCALED, 1),
          operator.truediv: (SCALED, -1), np.divide: (SCALED, -1)}
NEGATIONS = {operator.neg, np.negative}
UNARY = NEGATIONS | {operator.pos, np.positive}
EXP_LOG = {np.exp: (SHIFTED, SCALED), np.log: (SCALED, SHIFTED)}  # the kind in, out

# How a value moves when m moves by c: v + a*c (SHIFTED) or v * exp(a*c)
# (SCALED); `rank`: v is known to have m's number of dimensions.
Change = collections.namedtuple("Change", "kind coefficient rank")
# Where c is constant: every axis (`axis` None), or axis `axis` of m, which
# reduced the array `operand` (its name, when it is known to keep its rank).
Layout = collections.namedtuple("Layout", "axis operand")


class _Unproven(Exception):
    """A read of a changed value that the rules do not cover."""


def constant_shifts(tree, ctx):
    """The names bound to a reduction, once, at the top level of the
    core-form FunctionDef `tree`, that its output does not depend on (see
    the module docstring): ``m`` in ``s = x - m`` of a log-softmax."""
    seeds = [(i, stmt) for i, stmt in enumerate(tree.body)
             if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)
             and _function(ctx, stmt.value) in SHIFTS]
    if not seeds:
        return frozenset()
    names = _Occurrences(tree)
    constants = set()
    for i, stmt in seeds:
        layout = _layout(stmt, ctx, names)
        if layout is None or names.stores[stmt.targets[0].id] != 1:
            continue
        try:
            _Follow(tree.body, ctx, layout, names).run(stmt.targets[0].id, i)
        except _Unproven:
            continue
        constants.add(stmt.targets[0].id)
    return frozenset(constants)


class _Occurrences:
    """Per name: how often it is read (`loads`), by which top-level
    statements (`readers`, their positions in order), how often it is bound
    (`stores`: parameters, targets, ``del``, ``def``), and the names whose
    attributes are assigned (`reshaped`: ``x.shape = ...`` may change an
    array's rank in place)."""

    def __init__(self, tree):
        self.loads, self.stores = collections.Counter(), collections.Counter()
        self.readers = collections.defaultdict(list)
        self.reshaped = set()
        self.count(tree.args, None)
        for i, stmt in enumerate(tree.body):
            self.count(stmt, i)

    def count(self, top, position):
        for node in walk(top):
            if type(node) is gast.Name:
                if not isinstance(node.ctx, gast.Load):
                    self.stores[node.id] += 1
                    continue
                self.loads[node.id] += 1
                readers = self.readers[node.id]
                if not readers or readers[-1] != position:
                    readers.append(position)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
                self.stores[node.name] += 1
            elif isinstance(node, gast.Attribute) and not isinstance(node.ctx, gast.Load) \
                    and isinstance(node.value, gast.Name):
                self.reshaped.add(node.value.id)


def _layout(stmt, ctx, names):
    """The Layout of ``m = f(x, ...)`` (f in SHIFTS) bound to one name,
    or None when its shape is not known well enough."""
    value = stmt.value
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Name) \
            or len(value.args) != 1:
        return None
    keywords = _literal_keywords(value, {"axis", "keepdims"})
    if keywords is None:
        return None
    axis, keepdims = keywords.get("axis"), keywords.get("keepdims", False)
    if axis is None:
        return Layout(None, None)  # a scalar, or ones in every axis: c is constant
    if type(axis) is not int or keepdims is not True:
        return None
    x = value.args[0]
    steady = isinstance(x, gast.Name) and names.stores[x.id] == 1 \
        and x.id not in names.reshaped
    return Layout(axis, x.id if steady else None)


def _literal_keywords(call, allowed):
    """{name: constant} of the keywords of `call`, or None when one is not
    among `allowed` or not a constant."""
    found = {}
    for keyword in call.keywords:
        if keyword.arg not in allowed or not isinstance(keyword.value, gast.Constant):
            return None
        found[keyword.arg] = keyword.value.value
    return found


class _Follow:
    """The changes ``m -> m + c`` makes, statement by statement."""

    def __init__(self, body, ctx, layout, names):
        self.body = body
        self.ctx = ctx
        self.layout = layout
        self.names = names

    def run(self, seed, position):
        """Raise _Unproven unless every value that `seed` (bound at
        `position` of the body) changes is read only by the rules, and the
        values those rules make from it are unchanged."""
        self.changes = {seed: Change(SHIFTED, 1, True)}
        self.reads = collections.Counter()
        pending, done = [], {position}
        self.read_after(seed, position, pending)
        while pending:
            position = heapq.heappop(pending)
            if position in done:
                continue
            done.add(position)
            stmt = self.body[position]
            if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1 \
                    or not isinstance(stmt.targets[0], gast.Name):
                raise _Unproven
            change = self.change(stmt.value)
            target = stmt.targets[0].id
            if change is not None:
                if self.names.stores[target] != 1:
                    raise _Unproven
                self.changes[target] = change
                self.read_after(target, position, pending)
        for var in self.changes:  # every read was one of the rules'
            if self.reads[var] != self.names.loads[var]:
                raise _Unproven

    def read_after(self, var, position, pending):
        """Queue the top-level statements after `position` that read `var`
        (a read before it, or in a parameter's default, is not one of the
        rules': the count of reads catches it)."""
        for reader in self.names.readers[var]:
            if reader is not None and reader > position:
                heapq.heappush(pending, reader)

    def operand(self, atom):
        """(change, rank known) of an operand; (None, ...) when unchanged."""
        if isinstance(atom, gast.Name):
            if atom.id in self.changes:
                self.reads[atom.id] += 1
                return self.changes[atom.id], self.changes[atom.id].rank
            return None, atom.id == self.layout.operand
        if isinstance(atom, gast.Constant) and type(atom.value) in (bool, int, float):
            return None, True  # a number: no dimensions
        if reads(atom).intersection(self.changes):
            raise _Unproven
        return None, False

    def changed(self, atom):
        """The change of an operand that must have one (else the statement
        reads a changed value where no rule looks)."""
        change, _ = self.operand(atom)
        if change is None:
            raise _Unproven
        return change

    def change(self, value):
        """The change of `value` (one operation on atoms), None if none."""
        func = _function(self.ctx, value)
        if isinstance(value, gast.Name):
            return self.operand(value)[0]  # a copy
        if isinstance(value, gast.BinOp) and func in BINARY:
            return self.binary(func, value.left, value.right)
        if isinstance(value, gast.UnaryOp) and func in UNARY:
            return self.unary(func, value.operand)
        if not isinstance(value, gast.Call) or func is None:
            raise _Unproven
        if func in REDUCTIONS and len(value.args) == 1:
            return self.reduction(func, value)
        if value.keywords:
            raise _Unproven
        if func in BINARY and len(value.args) == 2:
            return self.binary(func, *value.args)
        if func in UNARY and len(value.args) == 1:
            return self.unary(func, value.args[0])
        if func in EXP_LOG and len(value.args) == 1:
            change = self.changed(value.args[0])
            before, after = EXP_LOG[func]
            if change.kind != before:
                raise _Unproven
            return change._replace(kind=after)
        raise _Unproven

    def binary(self, func, left, right):
        kind, sign = BINARY[func]
        (a, left_rank), (b, right_rank) = self.operand(left), self.operand(right)
        if any(c is not None and c.kind != kind for c in (a, b)):
            raise _Unproven
        coefficient = (0 if a is None else a.coefficient) + \
            sign * (0 if b is None else b.coefficient)
        return _change(kind, coefficient, left_rank and right_rank)

    def unary(self, func, atom):
        change = self.changed(atom)
        if func in NEGATIONS and change.kind == SHIFTED:
            return change._replace(coefficient=-change.coefficient)
        return change  # -(v * exp(a*c)) is (-v) * exp(a*c)

    def reduction(self, func, call):
        change = self.changed(call.args[0])
        keywords = _literal_keywords(call, {"axis", "keepdims"})
        if keywords is None or change.kind not in REDUCTIONS[func]:
            raise _Unproven
        if self.layout.axis is None:
            return change._replace(rank=False)  # c is the same number everywhere
        axis = keywords.get("axis")
        if type(axis) is not int or axis != self.layout.axis \
                or keywords.get("keepdims") is not True or axis >= 0 and not change.rank:
            raise _Unproven
        return change


def _function(ctx, node):
    """The function `node` calls, or its operator; None for a global
    array and the like (an object that cannot be a key)."""
    func = ctx.resolved.get(node)
    try:
        hash(func)
    except TypeError:
        return None
    return func


def _change(kind, coefficient, rank):
    return None if coefficient == 0 else Change(kind, coefficient, rank)
