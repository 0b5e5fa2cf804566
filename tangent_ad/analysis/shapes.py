"""Which variables provably have the same shape: a small union-find.

Used by the simplifier to drop ``unbroadcast`` where it cannot change
anything. Two names are in one class when one is computed from the other
by an elementwise operation with only Python scalars besides it, or when
one is the adjoint of the other (an adjoint always has its primal's
shape). Anything not provable stays apart: the analysis may miss
equalities but never invents one.
"""
import gast

import numpy as np

from tangent_ad.nodes import name_nodes, statements

SCALAR = "<scalar>"


class ShapeClasses:
    """Shape-equality facts about the names of one function."""

    def __init__(self, tree, ctx, assigns=None, inside=None):
        """`inside`: the statements of `tree` (``nodes.statements``), and
        `assigns` its assignments, when the caller has them already."""
        self.parent = {}
        pairs = ctx.namer.adjoint_pairs() if ctx is not None and ctx.namer else []
        if inside is None:
            inside = statements(tree)
        if assigns is None:
            assigns = [n for n in inside if isinstance(n, gast.Assign)]
        # ``t = p + p`` or ``t = p * 2`` of a tuple or list is no
        # elementwise operation: a name the reverse pass saw may hold a
        # container (``containers.py``) joins no class through + or *
        maybe = ctx.facts.get("may_hold_containers", ()) if ctx is not None else ()
        simple = [n for n in assigns if len(n.targets) == 1
                  and isinstance(n.targets[0], gast.Name)
                  and not (n.targets[0].id in maybe and isinstance(n.value, gast.BinOp)
                           and isinstance(n.value.op, (gast.Add, gast.Mult)))]
        # A primal name defined more than once (a loop-carried value, a
        # reassignment, a parameter assigned) may change shape between its
        # definitions, e.g. ``a = np.sum(y)`` then ``a = a + x``: the
        # analysis is not flow-sensitive, so such a name and its adjoint
        # are in no class unless every definition provably has the name's
        # class. That is decided on the primal assignments alone, without
        # the definitions of names defined more than once: ``x = t4`` (or,
        # through the adjoints, ``bt4 = bx`` and the pairs (x, bx), (t4,
        # bt4)) would prove itself, for an x that a helper's result
        # rebinds to another shape in a loop.
        adjoints = {adjoint for _, adjoint in pairs}
        defs = _definitions(tree, adjoints, inside)
        multiple = {name for name, values in defs.items() if len(values) > 1}
        self.unstable = set()
        # a primal name bound once, to a Python number (``total = 0.0``),
        # is that number wherever it is read: a scalar, as the constant
        # copy propagation puts in its place would be
        self.scalars = {name for name, values in defs.items() if len(values) == 1
                        and _python_number(values[0])}
        leave_out = adjoints | multiple
        self._build([n for n in simple if n.targets[0].id not in leave_out
                     and not adjoints.intersection(r.id for r in name_nodes(n.value))], (), set())
        unstable = {name for name in multiple if any(
            v is None or self.of(v) != self._find(name) for v in defs[name])}
        unstable |= {adjoint for primal, adjoint in pairs if primal in unstable}
        self._build(simple, pairs, unstable)
        self.unstable = unstable  # such a name's shape is its own, at each point

    def _build(self, assigns, pairs, unstable):
        """The classes of the simple assignments `assigns` and adjoint
        `pairs`, leaving out the names in `unstable`."""
        self.parent, self.joined = {}, set()
        for primal, adjoint in pairs:
            if primal not in unstable:
                self._union(primal, adjoint)
        pending = assigns
        for _ in range(2):  # a second round catches names defined out of order
            unknown = []
            for node in pending:
                if node.targets[0].id in unstable:
                    continue
                cls = self.of(node.value)
                if cls is None:
                    unknown.append(node)
                elif cls != SCALAR:
                    self._union(node.targets[0].id, cls)
            # (a class found once stays the target's: only the unknown may change)
            pending = unknown

    def _find(self, name):
        while self.parent.get(name, name) != name:
            name = self.parent[name]
        return name

    def _union(self, a, b):
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)
            self.joined.update((a, b, ra, rb))

    def of(self, expr):
        """The class of `expr`'s shape, SCALAR for a Python number, or None."""
        if isinstance(expr, gast.Name):
            if expr.id in self.scalars:
                return SCALAR
            return None if expr.id in self.unstable else self._find(expr.id)
        if isinstance(expr, gast.Constant):
            return SCALAR if isinstance(expr.value, (int, float)) else None
        if isinstance(expr, gast.UnaryOp):
            return self.of(expr.operand)
        if isinstance(expr, (gast.BinOp, gast.Compare)):
            if isinstance(expr, gast.BinOp) and isinstance(expr.op, gast.MatMult):
                return None
            parts = [expr.left, expr.right] if isinstance(expr, gast.BinOp) \
                else [expr.left] + list(expr.comparators)
            return self._combine(parts)
        if isinstance(expr, gast.Call) and _is_numpy_ufunc(expr.func) and not expr.keywords:
            cls = self._combine(expr.args)
            # a NumPy function of Python numbers is a NumPy scalar, which is
            # not weakly typed: it could change a float32 array's dtype
            return None if cls == SCALAR else cls
        return None

    def _combine(self, parts):
        classes = {self.of(p) for p in parts}
        if None in classes:
            return None
        classes.discard(SCALAR)
        if not classes:
            return SCALAR
        return classes.pop() if len(classes) == 1 else None

    def same(self, a, b):
        """True when expressions `a` and `b` provably have the same shape."""
        ca, cb = self.of(a), self.of(b)
        return ca is not None and ca == cb and ca != SCALAR


def _python_number(value):
    return isinstance(value, gast.Constant) and type(value.value) in (int, float)


def _is_numpy_ufunc(func):
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
        and func.value.id == "np" and isinstance(getattr(np, func.attr, None), np.ufunc)


def _definitions(tree, adjoints, inside):
    """{primal name: [value of each definition, None when not a plain
    ``name = value``]}, parameters included, leaving out restores (``x = stack.pop()``) and
    ``x = None`` placeholders, which bring back or precede a definition.
    `inside`: the statements of `tree` (``nodes.statements``)."""
    defs = {}

    def add(target, value):
        _add_definition(defs, adjoints, target, value)

    for node in [tree, *inside]:  # a parameter is defined on entry, as itself
        if isinstance(node, gast.FunctionDef):
            for arg in node.args.args:
                add(arg, gast.Name(id=arg.id, ctx=gast.Load(), annotation=None,
                                   type_comment=None))
    for node in inside:
        if isinstance(node, gast.Assign):
            value = node.value
            if isinstance(value, gast.Constant) and value.value is None:
                continue
            if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                    and value.func.attr == "pop":
                continue
            for target in node.targets:
                add(target, value if len(node.targets) == 1 else None)
        elif isinstance(node, gast.AugAssign):
            add(node.target, None)
        elif isinstance(node, (gast.For, gast.AsyncFor)):
            add(node.target, None)
    return defs


def _add_definition(defs, adjoints, target, value):
    """Record in `defs` that the assignment target `target` binds `value`
    (None for each part of an unpacked target). A module function: a
    closure that calls itself is a reference cycle (``collector``)."""
    if isinstance(target, gast.Name):
        if target.id not in adjoints:
            defs.setdefault(target.id, []).append(value)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for elt in target.elts:
            _add_definition(defs, adjoints, elt, None)
    elif isinstance(target, gast.Starred):
        _add_definition(defs, adjoints, target.value, None)
