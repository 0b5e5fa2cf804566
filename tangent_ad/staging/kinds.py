"""The kinds of the values a derivative computes, given its arguments' kinds.

A *kind* is what NumPy's results depend on besides the values: a Python
``float``, ``int``, ``bool`` or ``complex``; or a NumPy array of a given
shape and dtype; or a NumPy scalar of a given dtype. Staging
(``staging.py``) takes the kinds of the arguments of an actual call and
asks this module for the kind of every name in the derivative, so that
``specialize.py`` can rewrite what those kinds make redundant.

The inference is flow-insensitive: a name's kind is the join of the kinds
of everything assigned to it, solved from the bottom up to a fixed point
(a parameter the boundary converts first, ``x = float_argument(x)``, has
the converted kind: nothing reads it before).
Two different kinds join to *unknown* (``None``), and so does anything the
rules below do not model: a global, a call of a user function, a slice,
an attribute. An unknown kind never enables a rewrite, so the analysis may
miss facts but never invents one. It reads shapes and dtypes only, never
values, which is why a guard on the arguments' kinds is enough to reuse
its result.

Two facts about generated code make the join sharper:

* ``v = stack.pop()`` restores a value that ``v`` held when it was pushed,
  so it adds nothing to ``v``'s kind;
* the ``v = None`` lines right after ``stack = []`` are placeholders for
  values pushed before they are first computed. Every operation that reads
  ``v`` as a number would raise on ``None``, so the placeholder is left
  out of the join; `is_placeholder` lets the rewrites that would *not*
  raise on ``None`` (``zeros_like``, ``np.size``) stay away from such names.
"""

import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.limits import rounds
from tangent_ad.nodes import walk
from tangent_ad.staging import factor_rules, list_items, sampled
from tangent_ad.staging.array_rules import ArrayRules
from tangent_ad.staging.bindings import (
    Part, bindings, dotted, entry_conversions, entry_copies, placeholders)
from tangent_ad.staging.callees import Callees, bound_names
from tangent_ad.staging.kind_values import (  # noqa: F401 (Kind, kind_of: this module's API too)
    _PYTHON_NUMBERS, BOTTOM, REAL, _REAL_SCALARS, Kind, _join, _result, float_kind,
    depends_on_real, is_python_float_like, is_real, kind_of)

class Outline:
    """What the kinds of a function's names follow, whatever the kinds of
    its parameters: its nodes, placeholders and bindings, and the names it
    binds. ``unit.solve`` asks for the kinds of one unchanged tree for
    several parameter kinds, and computes this once per tree."""

    def __init__(self, fdef, given=(), namespace=None):
        self.nodes = list(walk(fdef))
        self.bound = bound_names(self.nodes)
        self.callees = Callees(namespace, self.bound)
        self.placeholders = placeholders(fdef)
        self.assigned = bindings(fdef, self.placeholders, self.callees, given, self.nodes)
        self.converted = entry_conversions(fdef, self.callees, runtime.float_argument)


class Kinds(ArrayRules):
    """The kinds of the names of one function, for its parameters' kinds.

    `params` maps parameter names to a Kind (or None: unknown); `given`
    names parameters of nested functions among them (a pullback's
    ``back(bresult)``). `unit` (``unit.Unit``) knows the kinds of the
    results of the pullbacks the function calls, and the namespace the
    calls are looked up in (``callees.py``); without a unit, `namespace`.
    """

    def __init__(self, fdef, params, unit=None, given=(), outline=None, namespace=None):
        self.unit = unit
        if namespace is None and unit is not None:
            namespace = unit.namespace
        outline = outline or Outline(fdef, given, namespace)
        self.nodes, self.placeholders = outline.nodes, outline.placeholders
        self.callees = outline.callees
        assigned = outline.assigned
        self.backs = {}  # name of a pullback's back function -> the call binding it
        for name, value in assigned:
            if isinstance(value, Part) and value.index == 1 and value.count == 2 and \
                    unit is not None and unit.is_pullback(dotted(value.call.func)):
                self.backs[name] = value.call if name not in self.backs else None
        self.names = {name: BOTTOM for name, _ in assigned}
        self.assigned = assigned
        self._values = None  # name -> the values bound to it, made by `pieces`
        # the expression of each name bound once (``t = 1.0, 0.0``, what
        # ``x, v = 1.0, 0.0`` normalizes to; ``t2 = np.shape(xs)``), which
        # the rules for tuple items and shape entries look through
        counts = {}
        for name, value in assigned:
            counts[name] = counts.get(name, 0) + 1
        self.single = {name: value for name, value in assigned
                       if counts[name] == 1 and name not in params and
                       isinstance(value, gast.expr)}
        self.names.update(params)
        self.names.update({x: params.get(x) and float_kind(params[x]) for x in outline.converted})
        # ``x_arg = x`` before anything binds x (the boundary's copy of an
        # argument, ``ad/boundary.py``): the parameter's kind, whatever x
        # is bound to later
        copies = entry_copies(fdef, params, counts)
        self.names.update({name: params[copies[name]] for name in copies})
        assigned = [(name, value) for name, value in assigned if name not in copies]
        for name in copies:
            self.single.pop(name, None)
        # the module's data globals (``DT = 0.05``), whose kinds the staged
        # copy's guard checks on every call; a name bound anywhere in the
        # function (a nested function's parameter too) is not the global
        self.globals = {k: v for k, v in (unit.global_kinds if unit is not None else {}).items()
                        if k not in outline.bound and k not in self.names}
        # each name only rises, BOTTOM -> a kind -> None: at most two
        # changes per name before nothing changes
        self.settled = False
        for _ in rounds("the kinds analysis (staging)", 2 * len(assigned) + 2):
            changed = False
            for name, value in assigned:
                new = _join(self.names[name], self.of(value))
                if new != self.names[name]:
                    self.names[name], changed = new, True
            if not changed:
                break
        # the kinds are final: now the unit checks what each back receives
        # (a drop decided on a loop's first, passing kinds would stick)
        self.settled = True
        if self.backs:
            for name, value in assigned:
                self.of(value)
        self.names = {k: (None if v == BOTTOM else v) for k, v in self.names.items()}

    def is_placeholder(self, node):
        return isinstance(node, gast.Name) and node.id in self.placeholders

    def callee(self, node):
        """The object the call `node` calls (``callees.Callees``), or None."""
        return self.callees.of_call(node)

    def of(self, node):
        """The Kind of expression `node`, None if unknown (or BOTTOM)."""
        if isinstance(node, gast.Name):
            if node.id in self.names:
                return self.names[node.id]
            return self.globals.get(node.id)
        if isinstance(node, Part):
            return self.unit.part(self, node) if self.unit is not None else None
        if isinstance(node, gast.Constant):
            return Kind(_PYTHON_NUMBERS[type(node.value)]) \
                if type(node.value) in _PYTHON_NUMBERS else None
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._apply(lambda x: -x, [node.operand])
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, gast.MatMult):
                return self._matmul(node.left, node.right)
            op = _BINARY.get(type(node.op))
            return self._apply(op, [node.left, node.right]) if op else None
        if isinstance(node, gast.Subscript):
            return self._row(node)
        if isinstance(node, gast.Attribute):
            return self._transpose(node.value) if node.attr == "T" else self._constant(node)
        if isinstance(node, gast.Call):
            return self._of_call(node, self.callee(node))
        return None

    def _of_call(self, node, func):
        """The Kind of the call `node` of `func` (its object, or None)."""
        if func is None and isinstance(node.func, gast.Attribute) and node.func.attr == "sum":
            return self._sum(node)  # an array's own sum (what specialize writes)
        rule = factor_rules.rule(func)
        if rule is not None:
            return rule(self, node)
        if not node.keywords:
            found = self._call(node, func)
            return sampled.kind(self, node, func) if found is None else found
        if func in _FULL_REDUCTIONS and len(node.args) == 1:
            return self._reduce_along(func, node.args[0], node.keywords)
        return sampled.kind(self, node, func)

    def _operands(self, nodes):
        kinds = [self.of(n) for n in nodes]
        if BOTTOM in kinds:
            return BOTTOM
        return None if None in kinds else kinds

    def _apply(self, func, nodes):
        """The kind of `func` (elementwise, broadcasting) applied to `nodes`:
        NumPy itself computes it on samples of the operands' kinds."""
        kinds = self._operands(nodes)
        if not isinstance(kinds, list):
            return kinds
        # a constant is its own sample: ``n ** -1`` is a float for an int n
        samples = [n.value if isinstance(n, gast.Constant) else k.sample()
                   for n, k in zip(nodes, kinds)]
        if func is _BINARY[gast.Pow] and kinds[1].box in ("int", "bool") and \
                not isinstance(nodes[1], gast.Constant) and float_kind(kinds[0]) is not kinds[0]:
            return None  # the sign of a Python int exponent decides an int's type
        try:
            shape = np.broadcast_shapes(*[k.shape for k in kinds])
            with np.errstate(all="ignore"):
                out = func(*samples)
        except Exception:  # noqa: BLE001 - whatever NumPy refuses is unknown
            return None
        out = _result(out, shape)
        if REAL not in kinds:
            return out
        if out in _REAL_SCALARS:
            return REAL  # a Python float or an np.float64, as the operand was
        real = [k == REAL and not isinstance(n, gast.Constant) for n, k in zip(nodes, kinds)]
        return None if depends_on_real(func, samples, real, shape, out) else out

    def _row(self, node):
        """``xs[i]`` for an array `xs` and a Python int `i`; ``t[i]`` for a
        tuple literal `t` and a constant `i`: the kind of its item."""
        if self._shape_entry(node) is not None:
            return Kind("int")
        if isinstance(node.slice, gast.Slice) or isinstance(node.slice, gast.Tuple) and \
                any(isinstance(e, gast.Slice) for e in node.slice.elts):
            return sampled.sliced(self, node)
        literal = self._through(node.value)
        if isinstance(literal, (gast.Tuple, gast.List)):  # bound once: never changed
            index = node.slice
            if isinstance(index, gast.Constant) and type(index.value) is int and \
                    -len(literal.elts) <= index.value < len(literal.elts) and \
                    not isinstance(literal.elts[index.value], gast.Starred):
                return self.of(literal.elts[index.value])
            return None
        if isinstance(literal, gast.Call) and self.callee(literal) is runtime.unstack:
            return list_items.unstacked(self, literal, node.slice)  # a stacked list's piece
        if isinstance(literal, gast.Call) and isinstance(node.slice, gast.Constant) and \
                type(node.slice.value) is int:  # ``np.split(z, [n])[0]``, ``slogdet(a)[1]``
            found = factor_rules.item(self, literal, node.slice.value, self._through)
            return sampled.item(self, literal, node.slice.value) if found is None else found
        kinds = self._operands([node.value, node.slice])
        if not isinstance(kinds, list):
            return kinds
        array, index = kinds
        if array.box != "array" or not array.shape or index.box != "int":
            return None
        if len(array.shape) == 1:
            return Kind("scalar", (), array.dtype)
        return Kind("array", array.shape[1:], array.dtype)

    def _call(self, node, func):
        args = node.args
        name = dotted(node.func)  # the unit's functions are known by name
        if self.unit is not None and name is not None and \
                (self.unit.is_pullback(name) or name in self.backs):
            return self.unit.part(self, Part(node, None, 1))
        if func is None:
            return None
        if isinstance(func, np.ufunc):
            if func.nout == 1 and len(args) == func.nin:
                return self._apply(func, args)
            return None
        if func in _FULL_REDUCTIONS and len(args) == 1:
            return self._reduce(func, args[0])
        if func is np.zeros and 1 <= len(args) <= 2:
            return self._zeros([self._through(args[0])] + args[1:])
        if func is np.expand_dims and len(args) == 2:
            return self._expand_dims(*args)
        if func is np.outer and len(args) == 2:
            return self._outer(args)
        if func is float and len(args) == 1 and is_real(self.of(args[0])) and \
                self.of(args[0]).size == 1 and self.of(args[0]).box != "array":
            return Kind("float")
        if func in _SIZES and len(args) == 1:
            return Kind("int")
        if func in _ARRAY_LIKE_ARGUMENT and len(args) == 3 + (func is runtime.unslide):
            kind = self.of(args[_ARRAY_LIKE_ARGUMENT[func]])  # a copy, written into
            return kind if kind == BOTTOM or kind is not None and kind.box == "array" else None
        if func in _SHAPE_OF_FIRST and len(args) == _SHAPE_OF_FIRST[func]:
            return self._like_first(func, args)
        if func in _ADJOINT_HELPERS:
            return self._adjoint_helper(func, args)
        if func is runtime.unreduce and 2 <= len(args) <= 4:  # g spread to x's shape
            return self._adjoint_helper(runtime.unbroadcast, args[:2])
        if func is runtime.unreduce_max and 3 <= len(args) <= 5:  # g routed to x's maxima
            return self._adjoint_helper(runtime.unbroadcast, [args[0], args[2]])
        if func is runtime.conj_complex and len(args) == 1:
            return self.of(args[0])
        if func is runtime.iterated and len(args) == 1:  # a known kind is never a dict
            return self.of(args[0])
        if func is runtime.uniterated and len(args) == 2 and self.of(args[1]) is not None:
            return self.of(args[0])
        if func is runtime.float_argument and len(args) == 1 or \
                func is runtime.cast_like and len(args) == 2:
            kind = self.of(args[-1])  # the boundary helpers: a float kind of x's
            return kind if kind in (None, BOTTOM) else float_kind(kind)
        if func is runtime.accumulate_at and len(args) == 4:  # a + g placed in an array x
            a, x = self.of(args[0]), self.of(args[2])
            return BOTTOM if BOTTOM in (a, x) else \
                x if a == x and x is not None and x.box == "array" else None
        if func is runtime.accumulate and len(args) == 2:  # a number or an array: a sum
            return self._apply(_BINARY[gast.Add], args)
        if func is runtime.sigmoid and len(args) == 1:  # np.where(x >= 0, 1.0, e) / (1.0 + e)
            return self._apply(np.exp, args)
        if func is runtime.abs_slope and len(args) == 1:
            return self._apply(np.sign, args)  # conj(sign) for complex: the same kind
        return None

    def pieces(self, node):
        """The kinds of the items of the list of arrays the name `node` holds
        when it is the adjoint of a split's pieces, a tuple: built by
        ``unindex(g, t, i)`` and ``accumulate_at(a, g, t, i)`` from the pieces
        ``t`` of ``np.split``, each g of its piece's kind. None otherwise;
        BOTTOM while a kind is not found yet."""
        if self._values is None:
            self._values = {}
            for name, value in self.assigned:
                self._values.setdefault(name, []).append(value)
        if not isinstance(node, gast.Name) or node.id not in self._values:
            return None
        items = None
        for value in self._values[node.id]:
            func = self.callee(value)
            where = _PIECE_ADJOINTS.get(func)  # the positions of g, t, i
            adds = func is runtime.accumulate_at
            if where is None or len(value.args) != len(where) + adds or value.keywords:
                return None
            g, parts, index = (value.args[i] for i in where)
            if adds and not (isinstance(value.args[0], gast.Name) and
                             value.args[0].id == node.id):
                return None
            split = self._through(parts)
            if isinstance(split, (gast.List, gast.Tuple)):  # a split written as slices
                found = tuple(self.of(e) for e in split.elts)
                found = BOTTOM if BOTTOM in found else found
            else:
                found = sampled.split_pieces(self, split) if isinstance(split, gast.Call) \
                    else None
            if found == BOTTOM or not isinstance(found, tuple) or None in found:
                return found if found == BOTTOM else None
            position = self._static_int(index)
            if items not in (None, found) or position is None or \
                    not -len(found) <= position < len(found):
                return None
            kind = self.of(g)
            if kind == BOTTOM:
                return BOTTOM
            if kind != found[position]:
                return None
            items = found
        return items

    def _shape_entry(self, node):
        """The int ``np.shape(x)[i]`` (or ``x.shape[i]``) is, for an array
        `x` of a known kind and a constant `i`; None otherwise."""
        if not (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant)
                and type(node.slice.value) is int):
            return None
        value = self._through(node.value)
        if self.callee(value) is np.shape and len(value.args) == 1 and not value.keywords:
            kind = self.of(value.args[0])
        elif isinstance(value, gast.Attribute) and value.attr == "shape":
            kind = self.of(value.value)
        else:
            return None
        if kind in (None, BOTTOM) or kind.box != "array" or \
                not -len(kind.shape) <= node.slice.value < len(kind.shape):
            return None
        return kind.shape[node.slice.value]

    def _static_int(self, node):
        """The value of an int that the kinds fix: a constant, or an entry
        of a known array's shape (`_shape_entry`) or its length; None otherwise."""
        node = self._through(node)
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            value = self._static_int(node.operand)
            return None if value is None else -value
        if isinstance(node, gast.BinOp) and type(node.op) in _INT_ARITHMETIC:
            left, right = self._static_int(node.left), self._static_int(node.right)
            if left is None or right is None or \
                    isinstance(node.op, gast.FloorDiv) and right == 0:
                return None
            return _INT_ARITHMETIC[type(node.op)](left, right)
        if self.callee(node) is len and len(node.args) == 1:  # an array's first axis
            kind = self.of(node.args[0])
            return kind.shape[0] if kind not in (None, BOTTOM) and kind.box == "array" \
                and kind.shape else None
        return self._shape_entry(node)

    def _through(self, node, depth=8):
        """`node`, or, for a name bound once, the expression it is bound to
        (followed through names bound once to names)."""
        while depth and isinstance(node, gast.Name) and node.id in self.single:
            node, depth = self.single[node.id], depth - 1
        return node

_BINARY = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
           gast.Mult: lambda a, b: a * b, gast.Div: lambda a, b: a / b,
           gast.Pow: lambda a, b: a ** b, gast.FloorDiv: lambda a, b: a // b,
           gast.Mod: lambda a, b: a % b}
_INT_ARITHMETIC = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
                   gast.Mult: lambda a, b: a * b, gast.FloorDiv: lambda a, b: a // b}
_FULL_REDUCTIONS = frozenset({np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin})
_SIZES = frozenset({len, np.size, runtime.size_of, np.ndim})
_SHAPE_OF_FIRST = {np.full_like: 2, np.zeros_like: 1, runtime.zeros_like: 1}
_ADJOINT_HELPERS = frozenset({runtime.unbroadcast, runtime.grad_matmul_lhs,
                              runtime.grad_matmul_rhs})
# updated(x, i, v), zeroed(g, i, x), unindex(g, x, i), unslide(g, x, w, axis):
# an array of the kind of the argument they copy or make zeros like
_ARRAY_LIKE_ARGUMENT = {runtime.updated: 0, runtime.zeroed: 0, runtime.unindex: 1,
                        runtime.unslide: 1}
# unindex(g, t, i) and accumulate_at(a, g, t, i): where their g, t and i are
_PIECE_ADJOINTS = {runtime.unindex: (0, 1, 2), runtime.accumulate_at: (1, 2, 3)}


