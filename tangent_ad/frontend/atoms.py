"""Expressions reduced to atoms: the half of the normalizer that takes
``a * b + c`` apart into ``t = a * b`` and ``t2 = t + c``.

`Atoms` is a mixin of ``normalize.Normalizer`` (as ``Desugar`` and
``CallArguments`` are): `atom` reduces an expression to a name, a constant
or a global attribute, emitting a temporary for each operation inside it;
`operation` reduces it to one operation on atoms (a NumPy call for an
array attribute such as ``x.T``, ``field`` for an object's attribute).
"""
import operator

import gast
import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend.methods import ATTRIBUTES, PACKED_ARGUMENTS, numpy_path
from tangent_ad.frontend.numpy_forms import index_items, index_trick, refuse_in_place, slice_range
from tangent_ad.nodes import assign, call, const, name
from tangent_ad.runtime.objects import field


class Atoms:
    """Reduction of expressions to atoms (see the module docstring)."""

    def numpy_call(self, func, args):
        """``np.<func>(*args)``, resolved to `func` (a runtime helper such as
        ``size_of`` by its own name)."""
        if func.__module__.startswith("tangent_ad.runtime"):
            return self._resolved(call(func.__name__, *args), func)
        self.ctx.namespace.setdefault("np", np)
        return self._resolved(call(numpy_path(func), *args), func)

    def index(self, node):
        """An index with every expression in it reduced to an atom."""
        if isinstance(node, gast.Slice):
            return gast.Slice(**{part: None if getattr(node, part) is None
                                 else self.atom(getattr(node, part))
                                 for part in ("lower", "upper", "step")})
        if isinstance(node, (gast.Tuple, gast.List)):
            return type(node)(elts=[self.index(e) for e in node.elts], ctx=gast.Load())
        return self.atom(node)

    def _range(self, item):
        """The range a slice of ``np.r_`` stands for (``slice_range``)."""
        func, args = slice_range(item)
        return self.numpy_call(func, [self.atom(a) for a in args])

    def _resolved(self, node, obj):
        self.ctx.resolved[node] = obj
        return node

    def is_atom(self, node):
        return isinstance(node, (gast.Name, gast.Constant)) or \
            (isinstance(node, gast.Attribute) and node in self.ctx.resolved)

    def atom(self, node):
        """Reduce `node` to an atom, emitting temporaries as needed."""
        if isinstance(node, gast.Name):
            if node in self.ctx.resolved:  # a global
                return node
            if node.id not in self.version:
                raise UnsupportedSyntaxError(
                    f"'{node.id}' is used before it is assigned",
                    **self.ctx.where(node))
            return name(self.version[node.id])
        if isinstance(node, gast.Constant) or self.is_atom(node):
            return node
        if isinstance(node, gast.Tuple) and _constant(node):
            return node  # a shape such as (2, 3) stays inline
        if isinstance(node, gast.UnaryOp) and _folded(node) is not None:
            return _folded(node)
        if isinstance(node, gast.IfExp):
            temp = self.ctx.namer.fresh("t")
            self.assign_to(temp, node)
            return name(temp)
        if isinstance(node, (gast.ListComp, gast.DictComp)):
            return self.comprehension(node)
        if isinstance(node, gast.Lambda):
            functions = self.ctx.facts.get("local_functions", {})
            if node not in functions and self.keeps_lambdas:
                # a lambda of a user's nested def that generated code keeps
                # as written (the calls go to its pullback): it stays as it is
                return self.verbatim([gast.Expr(value=node)])[0].value
            return self.local_function(functions[node])
        value = self.operation(node)
        temp = self.ctx.namer.fresh("t")
        self.emit(assign(temp, value))
        return name(temp)

    def operation(self, node):
        """Reduce `node` to one operation on atoms."""
        resolved = self.ctx.resolved
        if isinstance(node, gast.BinOp):
            new = gast.BinOp(left=self.atom(node.left), op=node.op,
                             right=self.atom(node.right))
        elif isinstance(node, gast.UnaryOp):
            if _folded(node) is not None:
                return _folded(node)
            new = gast.UnaryOp(op=node.op, operand=self.atom(node.operand))
        elif isinstance(node, gast.Call) and node in self.ctx.facts.get("methods", ()):
            args = [self.atom(a) for a in node.args]
            if node.func.attr in PACKED_ARGUMENTS and len(args) > 1:
                args = [gast.Tuple(elts=args, ctx=gast.Load())]
            new = self.numpy_call(resolved[node], [self.atom(node.func.value)] + args)
            new.keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value))
                            for k in node.keywords]
            return new
        elif isinstance(node, gast.Call):
            refuse_in_place(node, resolved.get(node), self.ctx)
            captured = getattr(resolved.get(node), "free", ())
            new = gast.Call(
                func=node.func, args=self.call_arguments(node) +
                [self.atom(name(v)) for v in captured],
                keywords=[gast.keyword(arg=k.arg, value=self.atom(k.value))
                          for k in node.keywords])
        elif isinstance(node, gast.Attribute) and node in self.ctx.facts.get("fields", ()):
            # `p.W` of a named tuple, dataclass or object (runtime.objects)
            return self._resolved(call("field", self.atom(node.value), const(node.attr)),
                                  field)
        elif isinstance(node, gast.Attribute) and node not in resolved:
            # `x.T`, `x.shape`, ...: attributes of arrays, as NumPy calls
            return self.numpy_call(ATTRIBUTES[node.attr], [self.atom(node.value)])
        elif isinstance(node, gast.Subscript) and index_trick(resolved.get(node.value)):
            label, func = index_trick(resolved[node.value])
            items = [self._range(item) if isinstance(item, gast.Slice) else item
                     for item in index_items(node, label, self.ctx)]
            items = self.atom(gast.Tuple(elts=items, ctx=gast.Load()))
            return self._resolved(call(func.__name__, items), func)
        elif isinstance(node, gast.Subscript):
            new = gast.Subscript(value=self.atom(node.value), slice=self.index(node.slice),
                                 ctx=gast.Load())
        elif isinstance(node, (gast.Tuple, gast.List)) and not _constant(node):
            return type(node)(elts=[self.atom(e) for e in node.elts], ctx=gast.Load())
        elif isinstance(node, gast.Dict):
            return gast.Dict(keys=node.keys, values=[self.atom(v) for v in node.values])
        elif isinstance(node, gast.Compare):
            new = gast.Compare(left=self.atom(node.left), ops=node.ops,
                               comparators=[self.atom(c) for c in node.comparators])
        elif isinstance(node, gast.IfExp):
            return self.atom(node)
        elif isinstance(node, gast.BoolOp):  # `axis or 0` in generated code
            return self.header(node)
        else:
            return self.atom(node)
        if node in resolved:
            resolved[new] = resolved[node]
        return new


_UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Invert: operator.invert,
          gast.Not: operator.not_}


def _folded(node):
    """``-2.0``, ``+0.5``, ``~3``, ``not 0``: the UnaryOp `node` of a number
    or bool constant as one constant; None for anything else (``~1.5`` is
    left for Python to refuse when it runs)."""
    operand = node.operand
    if not isinstance(operand, gast.Constant) or \
            type(operand.value) not in (bool, int, float, complex):
        return None
    try:
        return gast.Constant(value=_UNARY[type(node.op)](operand.value), kind=None)
    except TypeError:
        return None


def _constant(node):
    """True for a constant or a (nested) tuple of constants."""
    if isinstance(node, gast.Constant):
        return True
    return isinstance(node, gast.Tuple) and all(_constant(e) for e in node.elts)
