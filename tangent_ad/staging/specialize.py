"""Rewrites that the kinds of the arguments make valid (see ``kinds.py``).

Staging runs this pass, with the general passes, on a copy of a derivative
for the kinds of the arguments of an actual call. Each rewrite keeps
values, shapes and dtypes for those kinds:

* ``unbroadcast(g, x)`` -> ``g`` when `g` has `x`'s kind,
  -> ``float(np.sum(g, axis=(0,)))`` for an array `g` and a Python float `x`,
  -> ``g.sum(axis=0)`` when `x` is `g` without leading axes, and
  -> ``np.sum(g, axis=1, keepdims=True)`` when `x` has length 1 where `g`
  does not (``logits - np.max(logits, axis=1, keepdims=True)``);
* ``grad_matmul_lhs(g, a, b)`` -> ``g @ b.T`` and
  ``grad_matmul_rhs(g, a, b)`` -> ``a.T @ g`` for matrices (and their
  matrix-vector and outer-product forms for vectors, ``g[:, None] * b``);
  ``grad_dot_lhs`` and ``grad_dot_rhs`` likewise, and -> ``g * b`` and
  ``a * g`` for two float64 vectors and a real number g;
* ``undiag(g, v)`` -> ``np.diag(g)`` for a square matrix v (the adjoint
  of its diagonal);
* a gradient's entry ``x = float_argument(x)`` goes for an inexact `x`, and
  ``cast_like(g, x)`` -> ``g`` when `g` has the kind it gives (the boundary
  of ``ad/boundary.py``), -> ``float(g)`` for a real scalar `g` and a Python
  number `x`;
* ``np.size(x)`` -> its value; ``ensure_scalar(v)`` goes for a real scalar
  `v`, ``ensure_real(v)`` for a real `v`;
* ``abs_slope(x)`` -> ``np.sign(x)`` and ``np.conj(x)`` -> ``x`` for a real `x`, and a gradient's closing
  ``bx = conj_complex(bx)`` goes (with its comment) for a real `bx` or
  when every argument is real (the conjugate would change only the
  imaginary part of a real argument's adjoint, which has no meaning);
* ``unreduce(g, x, axis, keepdims)`` met by a value of x's kind in ``+``,
  ``-``, ``*`` or ``/`` -> ``g`` (keepdims) or ``np.expand_dims(g, axis)``:
  broadcasting spreads it; ``unreduce`` of a fill is a fill of `x`;
* a *fill* ``f = np.full_like(x, s)`` (a Python number `s` spread over an
  array) meets arithmetic: ``f * y`` -> ``y * s`` and ``f / y`` ->
  ``s / y`` for a `y` of `f`'s kind, ``f * c`` -> ``np.full_like(x, s * c)``
  and ``-f`` -> ``np.full_like(x, -s)``;
* ``np.sum(-x, ...)`` -> ``-np.sum(x, ...)`` for a float array `x` (the
  negation of the small result, not of x);
* ``accumulate(a, b)`` -> ``a + b`` for numbers and arrays (a known kind
  is never a container);
* ``zeros_like(x)`` -> ``0.0`` for a Python float, ``np.zeros((2, 3))``
  for an array;
* ``iterated(x)`` -> ``x`` and ``uniterated(g, x)`` -> ``g`` for an `x`
  of a known kind (a number or an array, never a dict);
* (a restore ``v = stack.pop()`` that nothing reads any more goes, with
  its pushes, in the dead-code elimination that follows: the save sites
  are declared on the copies, ``saves``);
* a call of a pullback that `unit.Unit` has specialized calls the copy.

The specialized code may use ndarray attributes (``.T``, ``.sum``): it only
ever runs on the NumPy arrays its guard checked.
"""
import copy

import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.naming import COMPLEX_NOTE
from tangent_ad.nodes import call, clone, const, is_comment, walk
from tangent_ad.staging import fills, pieces
from tangent_ad.staging.callees import for_function
from tangent_ad.staging.kinds import BOTTOM, Kind, Kinds, float_kind, is_python_float_like, is_real
from tangent_ad.visitors import Transformer


def run(tree, params, unit=None, given=(), ctx=None):
    """Return `tree` (a FunctionDef) rewritten for parameter kinds `params`
    (`unit` and `given` as for `Kinds`); calls of pullbacks that `unit`
    has specialized call the copies. The rewrites are counted in `ctx`
    (``ctx.count_rewrites``), for the fixed point that runs this pass."""
    length = len(tree.body)
    params = _entry(tree, params, for_function(tree, unit.namespace if unit else None))
    kinds = Kinds(tree, params, unit, given)
    counts = fills.binding_counts(tree)  # pieces only drops bindings: still an upper bound
    known = fills.find(tree, kinds, counts)
    real = bool(params) and all(is_real(k) for k in params.values())
    rewrites = pieces.run(tree, kinds, counts)
    rewriter = _Rewriter(kinds, known, unit, real, counts)
    tree = rewriter.visit(tree)
    tree.body = [s for s in tree.body if not _scalar_check(s, kinds)]
    _drop_real_conversions(tree, kinds)
    if ctx is not None:  # (the statements dropped here only ever go: a count by length)
        ctx.count_rewrites(rewrites + rewriter.rewrites + (len(tree.body) != length))
    return tree


def _entry(tree, params, callees):
    """Drop the leading ``x = float_argument(x)`` of a parameter `x` whose
    kind it keeps (a float, an inexact array); for an integer kind, the
    rest of the body sees the converted kind: the parameters' kinds."""
    params, kept = dict(params), []
    for i, stmt in enumerate(tree.body):
        if not (isinstance(stmt, gast.Assign) and
                callees.of_call(stmt.value) is runtime.float_argument
                and len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], gast.Name)
                and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id == stmt.value.args[0].id in params):
            tree.body[:i] = kept
            return params
        kind = params[stmt.targets[0].id]
        new = float_kind(kind) if kind is not None else None
        if new is None or new != kind:
            params[stmt.targets[0].id] = new
            kept.append(stmt)
    tree.body[:len(tree.body)] = kept
    return params


class _Rewriter(Transformer):
    def __init__(self, kinds, known_fills, unit, real_arguments=False, bindings=({}, set())):
        self.rewrites = 0  # nodes replaced, and the few changed in place
        self.kinds = kinds
        self.counts, self.in_loops = bindings
        self.fills = known_fills
        self.unit = unit
        self.real_arguments = real_arguments

    def visit(self, node):
        new = super().visit(node)
        self.rewrites += new is not node
        return new

    def fill(self, node):
        """Fresh copies of (x, s) when `node` is a fill, by name or written out."""
        parts = self.fills.get(node.id) if isinstance(node, gast.Name) else \
            fills.fill_parts(node, self.kinds)
        return copy.deepcopy(parts) if parts else None

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        fill = self.fill(node.operand)
        if isinstance(node.op, gast.USub) and fill:
            x, s = fill
            return call("np.full_like", x, gast.UnaryOp(op=gast.USub(), operand=s))
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):
            for side, other in (("left", "right"), ("right", "left")):
                spread = self._spread(getattr(node, side), getattr(node, other))
                if spread is not None:
                    setattr(node, side, spread)
                    self.rewrites += 1
        kind = self.kinds.of(node)
        if isinstance(node.op, gast.Sub) and isinstance(node.right, gast.Constant) and \
                type(node.right.value) in (int, float) and node.right.value == 0 and \
                kind is not None and self.kinds.of(node.left) == kind:
            self.rewrites += 1  # x - 0.0 is x, signed zeros too, when it keeps x's kind
            return node.left
        if not isinstance(node.op, (gast.Mult, gast.Div)):
            return node
        left, right = self.fill(node.left), self.fill(node.right)
        if left and kind == self.kinds.of(left[0]):
            x, s = left
            if self._scales(kind, node.right, node.op):  # f * c, f / c
                return call("np.full_like", x, gast.BinOp(left=s, op=node.op, right=node.right))
            if self.kinds.of(node.right) == kind:  # f * y -> s * y, f / y -> s / y
                return gast.BinOp(left=s, op=node.op, right=node.right)
        if right and kind == self.kinds.of(right[0]):
            x, s = right
            if isinstance(node.op, gast.Mult) and self._scales(kind, node.left, node.op):
                return call("np.full_like", x, gast.BinOp(left=node.left, op=node.op, right=s))
            if self.kinds.of(node.left) == kind:  # y * f -> y * s, y / f -> y / s
                return gast.BinOp(left=node.left, op=node.op, right=s)
        return node

    def _spread(self, operand, other):
        """``unreduce(g, x, axis, keepdims)`` met by an `other` of x's kind
        in an elementwise operation: broadcasting spreads g itself, so it
        is ``g`` with keepdims and ``np.expand_dims(g, axis)`` without;
        None for any other `operand`."""
        if isinstance(operand, gast.Name) and self.counts.get(operand.id) == 1 and \
                operand.id not in self.in_loops:  # bound once, outside loops: its call
            bound = self.kinds.single.get(operand.id)
            if self.kinds.callee(bound) is runtime.unreduce and \
                    fills.bound_once(bound.args[0], self.counts, self.in_loops):
                operand = copy.deepcopy(bound)
        if self.kinds.callee(operand) is not runtime.unreduce or operand.keywords or \
                not 3 <= len(operand.args) <= 4:
            return None
        g, x, axis = operand.args[:3]
        if self.fill(g):
            return None  # a fill spread is a fill (`_unreduce`), which goes further
        keep = operand.args[3] if len(operand.args) == 4 else const(False)
        kg, kx = self.kinds.of(g), self.kinds.of(x)
        if not (isinstance(axis, gast.Constant) and type(axis.value) is int and
                isinstance(keep, gast.Constant) and type(keep.value) is bool) or \
                kg is None or kx is None or kx.box != "array" or kg.box != "array" or \
                kg.dtype != kx.dtype or self.kinds.of(other) != kx or \
                not -len(kx.shape) <= axis.value < len(kx.shape):
            return None
        at = axis.value % len(kx.shape)
        if keep.value and kg.shape == kx.shape[:at] + (1,) + kx.shape[at + 1:]:
            return g
        if not keep.value and kg.shape == kx.shape[:at] + kx.shape[at + 1:]:
            return call("np.expand_dims", g, const(at))
        return None

    def _unreduce(self, node, g, x):
        """``unreduce(np.full_like(a, s), x, ...)`` -> ``np.full_like(x, s)``:
        a fill spread over x is a fill of x."""
        kx, fill = self.kinds.of(x), self.fill(g)
        if fill is None or kx is None or kx.box != "array" or self.kinds.is_placeholder(x) \
                or self.kinds.of(fill[0]).dtype != kx.dtype:
            return node
        return call("np.full_like", x, fill[1])

    def _scales(self, kind, c, op):
        """Whether ``full_like(x, s) op c`` is ``full_like(x, s op c)``: `c`
        a Python number (a nonzero constant for a division: Python raises
        where NumPy divides by zero) that scales exactly (fills.exact_scaling)."""
        kc = self.kinds.of(c)
        if kc is None or kc.box not in ("float", "int"):
            return False
        if isinstance(op, gast.Div) and not (isinstance(c, gast.Constant) and c.value):
            return False
        return fills.exact_scaling(kind, c)

    def visit_Call(self, node):
        self.generic_visit(node)
        func, args = self.kinds.callee(node), node.args
        if func is np.sum and len(args) == 1 and isinstance(args[0], gast.UnaryOp) and \
                isinstance(args[0].op, gast.USub) and _inexact_array(self.kinds.of(args[0].operand)):
            node.args = [args[0].operand]  # the sum of negations is the negated sum, exactly
            return gast.UnaryOp(op=gast.USub(), operand=node)
        if node.keywords:
            return node
        if func is runtime.unbroadcast and len(args) == 2:
            return self._unbroadcast(node, *args)
        if func is runtime.unreduce and 2 <= len(args) <= 4:
            return self._unreduce(node, args[0], args[1])
        if func is runtime.unreduce_max and len(args) == 5:
            return self._unreduce_max(node, *args)
        if func in (runtime.grad_matmul_lhs, runtime.grad_matmul_rhs) and len(args) == 3:
            return self._matmul(node, func is runtime.grad_matmul_lhs, *args)
        if func in (runtime.grad_dot_lhs, runtime.grad_dot_rhs) and len(args) == 3:
            return self._dot(node, func is runtime.grad_dot_lhs, *args)
        if func is runtime.undiag and len(args) == 2:
            return self._undiag(node, *args)
        if self.unit is not None and isinstance(node.func, gast.Name) and \
                self.unit.is_pullback(node.func.id):
            key = self.unit.key(self.kinds, node)
            spec = self.unit.copy(key) if key not in (BOTTOM, None) else None
            if spec is not None:
                node.func.id = spec.name
            return node
        if func is runtime.zeros_like and len(args) == 1:
            return self._zeros(node, args[0])
        if func in (runtime.iterated, runtime.uniterated) and \
                len(args) == 1 + (func is runtime.uniterated) and \
                self.kinds.of(args[-1]) is not None:
            return args[0]  # an array or a number is not a dict: iterated as it is
        if func is runtime.cast_like and len(args) == 2:
            kg, kx = self.kinds.of(args[0]), self.kinds.of(args[1])
            if kg is not None and kx is not None and kg == float_kind(kx) and kx.box != "real":
                return args[0]  # the value already has the kind of its argument
            if kx is not None and kx.box in ("float", "int") and kg is not None and \
                    (kg.box == "real" or kg.box == "scalar" and kg.dtype == np.float64):
                return call("float", args[0])  # what cast_like gives a Python number
            return node
        if func is runtime.accumulate and len(args) == 2 and None not in map(self.kinds.of, args):
            return gast.BinOp(left=args[0], op=gast.Add(), right=args[1])  # no container
        if func is runtime.abs_slope and len(args) == 1 and is_real(self.kinds.of(args[0])):
            node.func = gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                                       type_comment=None),
                                       attr="sign", ctx=gast.Load())
            self.rewrites += 1
            return node
        if func in (np.conj, runtime.conj_complex, np.real) and len(args) == 1 and (
                is_real(self.kinds.of(args[0])) or
                func is runtime.conj_complex and self.real_arguments):
            return args[0]
        if func in (np.size, runtime.size_of) and len(args) == 1 and not self.kinds.is_placeholder(args[0]):
            kind = self.kinds.of(args[0])
            if kind is not None:
                return const(kind.size)
        return node

    def _unreduce_max(self, node, g, extreme, x, axis, keepdims):
        """``unreduce_max(g, m, x, axis, True)`` of float64 arrays, `m` the
        max along a constant `axis` kept as length 1 and `g` of m's kind ->
        ``(x == m) * (g / np.sum(x == m, axis=axis, keepdims=True))``: the
        helper's routing to the maxima, shared between ties, written out."""
        kg, km, kx = (self.kinds.of(n) for n in (g, extreme, x))
        if not (isinstance(keepdims, gast.Constant) and keepdims.value is True and
                isinstance(axis, gast.Constant) and type(axis.value) is int and
                isinstance(x, gast.Name) and isinstance(extreme, gast.Name) and
                not self.kinds.is_placeholder(x) and not self.kinds.is_placeholder(extreme)):
            return node
        if kx is None or kx == BOTTOM or kx.box != "array" or kx.dtype != np.float64 or \
                not -len(kx.shape) <= axis.value < len(kx.shape):
            return node
        kept = list(kx.shape)
        kept[axis.value] = 1
        if km != Kind("array", tuple(kept), kx.dtype) or kg != km:
            return node

        def hits():
            return gast.Compare(left=clone(x), ops=[gast.Eq()], comparators=[clone(extreme)])

        count = call("np.sum", hits())
        count.keywords = [gast.keyword(arg="axis", value=const(axis.value)),
                          gast.keyword(arg="keepdims", value=const(True))]
        # the share g / count on the kept-axis array, then spread by the mask
        return gast.BinOp(left=hits(), op=gast.Mult(),
                          right=gast.BinOp(left=g, op=gast.Div(), right=count))

    def _zeros(self, node, x):
        """``zeros_like(x)`` -> ``0.0`` or ``np.zeros((2, 3))`` (a constant
        shape, and the dtype unless it is float64)."""
        kind = self.kinds.of(node)
        if kind is None:
            return node
        if kind.box == "float":
            return const(0.0)
        if kind.box != "array" or not kind.dtype.isnative:
            return node
        shape = gast.Tuple(elts=[const(n) for n in kind.shape], ctx=gast.Load())
        if kind.dtype == np.float64:
            return call("np.zeros", shape)
        return call("np.zeros", shape, call(f"np.{kind.dtype.name}").func)

    def _unbroadcast(self, node, g, x):
        kg, kx = self.kinds.of(g), self.kinds.of(x)
        if kg is None or kx is None:
            return node
        if kg.box == "float" and (is_python_float_like(kx) or kx.box == "scalar") or \
                kg == kx and not kg.python and not is_python_float_like(kx):
            return g  # see kinds.Kinds._adjoint_helper
        if is_python_float_like(kx) and kg.box in ("real", "scalar") and kg.dtype == np.float64:
            return call("float", g)  # what unbroadcast gives, without its checks
        if is_python_float_like(kx) and kg.box == "array" and kg.shape and kg.dtype.kind == "f":
            total = call("np.sum", g)  # summed over every axis, as unbroadcast does
            total.keywords = [gast.keyword(arg="axis", value=gast.Tuple(
                elts=[const(i) for i in range(len(kg.shape))], ctx=gast.Load()))]
            return call("float", total)
        if kg.box == kx.box == "array" and kg.dtype == kx.dtype and kx.shape:
            lead = len(kg.shape) - len(kx.shape)
            if lead > 0 and kg.shape[lead:] == kx.shape:
                axis = const(0) if lead == 1 else \
                    gast.Tuple(elts=[const(i) for i in range(lead)], ctx=gast.Load())
                return gast.Call(func=gast.Attribute(value=g, attr="sum", ctx=gast.Load()),
                                 args=[], keywords=[gast.keyword(arg="axis", value=axis)])
            kept = [i for i, (n, m) in enumerate(zip(kg.shape, kx.shape)) if n != m]
            if lead == 0 and kept and all(kx.shape[i] == 1 for i in kept):
                # x broadcast along its axes of length 1: sum g over them, keeping them
                axis = const(kept[0]) if len(kept) == 1 else \
                    gast.Tuple(elts=[const(i) for i in kept], ctx=gast.Load())
                found = call("np.sum", g)
                found.keywords = [gast.keyword(arg="axis", value=axis),
                                  gast.keyword(arg="keepdims", value=const(True))]
                return found
        return node

    def _dot(self, node, lhs, g, a, b):
        """``np.dot(a, b)`` of two float64 vectors and a real number `g`:
        the adjoints ``g * b`` and ``a * g``; of matrices and vectors,
        np.dot is ``a @ b``, whose adjoints `_matmul` writes."""
        kg, ka, kb = (self.kinds.of(n) for n in (g, a, b))
        if ka is not None and ka == kb and ka.box == "array" and len(ka.shape) == 1 and \
                ka.dtype == np.float64 and kg is not None and \
                (kg.box == "float" or kg.box in ("scalar", "real") and kg.dtype == np.float64):
            return gast.BinOp(left=g, op=gast.Mult(), right=b) if lhs else \
                gast.BinOp(left=a, op=gast.Mult(), right=g)
        return self._matmul(node, lhs, g, a, b)

    def _undiag(self, node, g, v):
        """``undiag(g, v)``, the adjoint of ``np.diag(v)`` for a square
        matrix `v` and a vector `g` of its dtype: ``np.diag(g)``, the matrix
        with g on its diagonal."""
        kg, kv = self.kinds.of(g), self.kinds.of(v)
        if _inexact_array(kv) and len(kv.shape) == 2 and kv.shape[0] == kv.shape[1] and \
                kg == Kind("array", kv.shape[:1], kv.dtype):
            return call("np.diag", g)
        return node

    def _matmul(self, node, lhs, g, a, b):
        kinds = [self.kinds.of(n) for n in (g, a, b)]
        if None in kinds or any(k.box != "array" or k.dtype.kind not in "fc" for k in kinds) \
                or len({k.dtype for k in kinds}) != 1:
            return node
        kg, ka, kb = kinds
        ranks = (len(ka.shape), len(kb.shape))
        if ranks not in ((2, 2), (2, 1), (1, 2)) or ka.shape[-1] != kb.shape[0] or \
                kg.shape != ka.shape[:-1] + kb.shape[1:]:
            return node
        if ranks == (2, 2):
            return _matmul(g, _transpose(b)) if lhs else _matmul(_transpose(a), g)
        if ranks == (2, 1):
            return _outer(g, b) if lhs else _matmul(g, a)
        return _matmul(b, g) if lhs else _outer(a, g)


def _inexact_array(kind):
    return kind not in (None, BOTTOM) and kind.box == "array" and kind.dtype.kind in "fc"


def _outer(column, row):
    """``column[:, None] * row``: np.outer of two vectors, without its
    conversions (a fifth of a small tree network's gradient)."""
    index = gast.Tuple(elts=[gast.Slice(lower=None, upper=None, step=None), const(None)],
                       ctx=gast.Load())
    return gast.BinOp(left=gast.Subscript(value=column, slice=index, ctx=gast.Load()),
                      op=gast.Mult(), right=row)


def _matmul(left, right):
    return gast.BinOp(left=left, op=gast.MatMult(), right=right)


def _transpose(node):
    return gast.Attribute(value=node, attr="T", ctx=gast.Load())


def _scalar_check(stmt, kinds):
    """``ensure_scalar(v)`` for a `v` of a real, not bool, kind with one
    entry; ``ensure_real(v)`` for a real `v`."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and
            len(stmt.value.args) == 1 and
            kinds.callee(stmt.value) in (runtime.ensure_scalar, runtime.ensure_real)):
        return False
    kind = kinds.of(stmt.value.args[0])
    if kinds.callee(stmt.value) is runtime.ensure_real:
        return is_real(kind)
    return is_real(kind) and kind.size == 1 and kind.box != "bool" and \
        (kind.python or kind.dtype.kind != "b")


def _drop_real_conversions(fdef, kinds):
    """Drop ``bx = bx`` (a ``conj_complex`` the rewriter removed) and the
    comment of the conversion when no ``conj_complex`` is left."""
    fdef.body = [s for s in fdef.body if not (
        isinstance(s, gast.Assign) and isinstance(s.value, gast.Name) and
        isinstance(s.targets[0], gast.Name) and s.targets[0].id == s.value.id)]
    if not any(kinds.callee(n) is runtime.conj_complex for n in walk(fdef)
               if isinstance(n, gast.Call)):
        fdef.body = [s for s in fdef.body if not (
            is_comment(s) and s.value.args[0].value == COMPLEX_NOTE)]
