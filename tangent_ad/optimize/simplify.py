"""Algebraic simplification of the derivative tree.

Rewrites, each keeping values, shapes and dtypes:

* constant folding of numeric operators (``2 - 1`` -> ``1``) and of
  equality tests of numbers (``2 - (2 != 0)`` -> ``1``, the form the
  power rules take for a literal exponent);
* ``e * 1``, ``1 * e``, ``e / 1``, ``e ** 1``, ``e + 0``-free forms, ``-(-e)``;
* ``a if <constant> else b`` -> the branch the constant picks;
* ``unbroadcast(e, x)`` -> ``e`` where ``e`` provably has ``x``'s shape
  (see `ShapeClasses`);
* ``unreduce(g, x, None, False)`` (or ``unreduce(g, x)``, its defaults
  left out) -> ``np.full_like(x, g)`` and the same
  for ``unreduce_mean`` (a full reduction spreads a scalar);
* calls that only read a shape (``np.full_like(t2, g)``) read it from the
  earliest name with that shape and dtype (``t`` when ``t2 = t * 2.0``),
  so that intermediate values the adjoint does not need can die.

``0 * x`` is never folded to ``0``: for an array that would change the
shape. The invariant needed is the differentiators' output; the one
established is that none of the patterns above remains. Each rewrite is
counted in ``ctx.rewrites`` (for the fixed point of ``fixed_point``), and
each node whose field it sets is reported to the passes'
``statement_names``.
"""
import copy
import operator

import gast
import numpy as np

from tangent_ad.analysis import statement_names
from tangent_ad.nodes import call_name, child_fields, children, statements, walk
from tangent_ad.analysis.shapes import ShapeClasses

# one run leaves none of the patterns above (the invariant established), so
# the fixed point need not run it again to learn that it changes nothing
IDEMPOTENT = True
# every node whose field it sets is reported (``statement_names``)
REPORTS_TOUCHED = True

_FOLD = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
         gast.Div: operator.truediv, gast.Pow: operator.pow}
_FOLD_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne}


# Calls that read only the shape (and dtype) of their first argument.
_SHAPE_READERS = {"np.full_like", "np.zeros_like", "np.ones_like", "np.size", "size_of",
                  "np.shape", "zeros_like"}


def run(tree, ctx):
    """Return `tree` with the rewrites above applied once everywhere."""
    inside = statements(tree)
    assigns = [n for n in inside if isinstance(n, gast.Assign)]
    shapes = ShapeClasses(tree, ctx, assigns, inside)
    names = statement_names.of_context(ctx)
    simplifier = _Simplifier(shapes, _shape_sources(tree, assigns, names),
                             derivative_names(ctx), names.touched)
    tree = simplifier.visit(tree)
    if ctx is not None:
        ctx.count_rewrites(simplifier.rewrites)
    return tree


def locally(expr, derivative_names, touched):
    """(`expr` with the rewrites that need no facts about the rest of the
    tree applied: all but dropping an ``unbroadcast`` and reading a shape
    from an earlier name; the number of rewrites), `derivative_names`
    those of `derivative_names` (floats for sure). Copy propagation
    calls it on the values it put constants in (``bg0 * t`` becomes
    ``bg0 * 1.0``), so that its run and this pass's next agree, and the
    fixed point can stop a round earlier."""
    simplifier = _Simplifier(_NO_SHAPES, {}, derivative_names, touched)
    return simplifier.visit(expr), simplifier.rewrites


def derivative_names(ctx):
    """The names of adjoints and tangents (floats for sure: see `_keeps_dtype`)."""
    derivative = ctx.namer.derivative_names() if ctx is not None and ctx.namer else set()
    return derivative | {"bresult"}


class _NoShapes:
    """Shape facts of nothing: no two expressions are known to share a shape."""

    @staticmethod
    def same(a, b):
        return False


_NO_SHAPES = _NoShapes()


def _shape_sources(tree, assigns, names=statement_names.FRESH):
    """name -> an earlier name with the same shape and dtype, for names
    assigned once from an elementwise operation on that name and Python
    numbers (``t2 = t * 2.0``, ``t = np.tanh(x)``). Reading the shape from
    the earlier name lets the later one die when nothing else needs it.

    Both names must be bound exactly once in the whole tree (a parameter,
    a loop target or a restore from the stack counts as a binding): a
    rebound source may have another shape where the read is, and a
    parameter rebound from its own temporary (``t = np.tanh(v)`` then
    ``v = 1.5 + t``) would make the two names each other's source.
    (`names`: see `_bindings`.)"""
    counts = _bindings(tree, names)
    defs = {}
    for node in assigns:
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            defs[node.targets[0].id] = node.value
    sources = {}
    for name, value in defs.items():
        if counts.get(name, 0) != 1:
            continue
        operands = None
        if isinstance(value, gast.BinOp) and not isinstance(value.op, gast.MatMult):
            operands = [value.left, value.right]
        elif isinstance(value, gast.UnaryOp):
            operands = [value.operand]
        elif isinstance(value, gast.Call) and _float_preserving_ufunc(value.func) \
                and len(value.args) == 1 and not value.keywords:
            operands = list(value.args)
        if operands is None:
            continue
        names = [o for o in operands if isinstance(o, gast.Name)]
        if len(names) == 1 and all(o is names[0] or _number(o) for o in operands) \
                and counts.get(names[0].id, 0) <= 1:
            sources[name] = names[0].id
    return sources


def _bindings(tree, names=statement_names.FRESH):
    """{name: how many times it is bound} over `tree`, nested functions
    included (their names may be the enclosing function's, nonlocal). An
    assignment, expression statement or return tells its bindings through
    `names` (``statement_names``: kept from one run to the next); the rest
    of the tree is walked."""
    counts = {}
    get = counts.get
    todo = [tree]
    while todo:
        node = todo.pop()
        cls = node.__class__
        if cls in _SIMPLE_STATEMENTS:
            for identifier in names.of(node).bound:
                counts[identifier] = get(identifier, 0) + 1
        elif cls is gast.Name:
            if isinstance(node.ctx, (gast.Store, gast.Param)):
                counts[node.id] = get(node.id, 0) + 1
        else:
            todo.extend(children(node))
    return counts


_SIMPLE_STATEMENTS = frozenset((gast.Assign, gast.Expr, gast.Return))


def folded(node):
    """The number the BinOp `node` of two numbers (or bools) computes, as a
    Constant; None when it is no such operation, raises or is not finite.
    Copy propagation folds with it too, so that a chain of constants
    settles in one of its runs."""
    left, right = node.left, node.right
    if not (_foldable(left) and _foldable(right) and type(node.op) in _FOLD):
        return None
    try:
        value = _FOLD[type(node.op)](left.value, right.value)
    except (ZeroDivisionError, OverflowError):
        return None
    if isinstance(value, (int, float)) and np.isfinite(value):
        return gast.Constant(value=value, kind=None)
    return None


def _float_preserving_ufunc(func):
    if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id == "np"):
        return False
    ufunc = getattr(np, func.attr, None)
    return isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and "f->f" in ufunc.types


def _number(node):
    return isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
        and not isinstance(node.value, bool)


def _foldable(node):
    """A number, or a bool folded from a comparison of numbers."""
    return _number(node) or isinstance(node, gast.Constant) and type(node.value) is bool


def _is(node, value):
    return _number(node) and node.value == value


class _Simplifier:
    """Rewrites the tree in place, children before parents. A plain walk
    over the fields rather than a gast.NodeTransformer: only three node
    types are rewritten, and the generic visitor's dispatch and field
    iteration made up most of the pass's time."""

    def __init__(self, shapes, shape_sources, derivative_names=(),
                 touched=statement_names.FRESH.touched):
        self.shapes = shapes
        self.shape_sources = shape_sources
        self.derivative_names = derivative_names
        self.touched = touched  # called with each node whose field is set
        self.rewrites = 0

    def visit(self, node):
        """`node` with its subtrees simplified, or the node replacing it."""
        values = node.__dict__
        for field in child_fields(node.__class__):
            value = values.get(field)
            if value.__class__ is list:
                for i, item in enumerate(value):
                    if item.__class__ not in _LEAVES and isinstance(item, gast.AST):
                        new = self.visit(item)
                        if new is not item:
                            value[i] = new
                            self.touched(node)
            elif value.__class__ not in _LEAVES and isinstance(value, gast.AST):
                new = self.visit(value)
                if new is not value:
                    values[field] = new
                    self.touched(node)
        rewrite = _REWRITES.get(node.__class__)
        return node if rewrite is None else self._rewritten(node, rewrite(self, node))

    def _ifexp(self, node):
        """``a if 1 else b`` -> ``a``: a template's choice by a constant
        option (``trans``, ``lower`` of solve_triangular)."""
        if isinstance(node.test, gast.Constant) and \
                isinstance(node.test.value, (bool, int, float, str, type(None))):
            return node.body if node.test.value else node.orelse
        return node

    def _rewritten(self, old, new):
        if new is not old:
            self.rewrites += 1
        return new

    def _shape_source(self, node):
        seen = set()
        while isinstance(node, gast.Name) and node.id in self.shape_sources \
                and node.id not in seen:
            seen.add(node.id)
            node = gast.Name(id=self.shape_sources[node.id], ctx=gast.Load(),
                             annotation=None, type_comment=None)
        return node

    def _binop(self, node):
        left, right, op = node.left, node.right, node.op
        if _foldable(left) and _foldable(right) and type(op) in _FOLD:
            return folded(node) or node
        if isinstance(op, gast.Mult):
            if _is(right, 1) and self._keeps_dtype(left, right):
                return left
            if _is(left, 1) and self._keeps_dtype(right, left):
                return right
        if isinstance(op, (gast.Div, gast.Pow)) and _is(right, 1) and \
                self._keeps_dtype(left, right):
            return left
        if isinstance(op, (gast.Add, gast.Sub)) and _is(right, 0) and \
                self._keeps_dtype(left, right):
            return left
        return node

    def _keeps_dtype(self, expr, constant):
        """Whether ``expr <op> constant`` has expr's dtype: always for an
        int constant; for ``1.0`` or ``0.0`` only when `expr` is a float for
        sure, an adjoint or tangent (``x0 * 1.0`` of an integer x0 is a float
        array, and the copy a write into it needs)."""
        if type(constant.value) is int:
            return True
        return any(isinstance(n, gast.Name) and n.id in self.derivative_names
                   for n in walk(expr))

    def _compare(self, node):
        if len(node.ops) == 1 and type(node.ops[0]) in _FOLD_COMPARE and \
                _number(node.left) and _number(node.comparators[0]):
            value = _FOLD_COMPARE[type(node.ops[0])](node.left.value,
                                                    node.comparators[0].value)
            return gast.Constant(value=bool(value), kind=None)
        return node

    def _unaryop(self, node):
        inner = node.operand
        if isinstance(node.op, gast.USub):
            if isinstance(inner, gast.UnaryOp) and isinstance(inner.op, gast.USub):
                return inner.operand
            if _number(inner):
                return gast.Constant(value=-inner.value, kind=None)
        return node

    def _call(self, node):
        name = call_name(node)
        args = node.args
        if name in _SHAPE_READERS and args:
            source = self._shape_source(args[0])
            if source is not args[0]:
                args[0] = self._rewritten(args[0], source)
                self.touched(node)
        if name == "unbroadcast" and len(args) == 2 and \
                self.shapes.same(args[0], args[1]):
            return args[0]
        if name in ("unreduce", "unreduce_mean") and not node.keywords and (len(args) == 2 or (
                len(args) == 4 and
                isinstance(args[2], gast.Constant) and args[2].value is None and
                isinstance(args[3], gast.Constant) and args[3].value is False)):
            fill, like = args[0], self._shape_source(args[1])
            if name == "unreduce_mean":
                fill = gast.BinOp(left=fill, op=gast.Div(), right=gast.Call(
                    func=gast.Name(id="size_of", ctx=gast.Load(), annotation=None,
                                   type_comment=None),
                    args=[copy.deepcopy(like)], keywords=[]))
            return gast.Call(func=_np("full_like"), args=[like, fill], keywords=[])
        if name == "accumulate" and len(args) == 2 and not node.keywords and \
                isinstance(args[1], gast.Call) and call_name(args[1]) == "unindex" and \
                len(args[1].args) == 3 and not args[1].keywords:
            # the adjoint of one more item of a container: added at its
            # index, without zeros for the others (an array's as before)
            g, x, index = args[1].args
            self.rewrites += 1
            return gast.Call(func=gast.Name(id="accumulate_at", ctx=gast.Load(), annotation=None,
                                            type_comment=None),
                             args=[args[0], g, x, index], keywords=[])
        return node


# node class -> the rewrite of such a node: functions, not bound methods,
# which would put each simplifier in a reference cycle (``collector``)
_REWRITES = {gast.BinOp: _Simplifier._binop, gast.UnaryOp: _Simplifier._unaryop,
             gast.Call: _Simplifier._call, gast.Compare: _Simplifier._compare,
             gast.IfExp: _Simplifier._ifexp}

# nodes with nothing inside to simplify, and no rewrite of their own
_LEAVES = frozenset((gast.Name, gast.Constant))


def _np(attr):
    return gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                          type_comment=None),
                          attr=attr, ctx=gast.Load())
