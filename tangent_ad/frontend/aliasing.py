"""What a value may share with a name: the part of ``mutation.py``'s
analysis that reads expressions (which calls make new objects, which
keep references to their arguments).

`Values` is mixed into ``mutation._Scope``, which provides ``local`` (the
function's own names), ``scope`` (its globals and closure cells) and the
two questions about the user's other functions, ``is_helper`` and
``returns_an_argument``.
"""
import builtins

import gast
import numpy as np

from tangent_ad.frontend.introspection import _MISSING, lookup

MUTATING_METHODS = {"append", "extend", "insert", "remove", "pop", "clear",
                    "sort", "reverse", "fill", "resize", "put", "itemset",
                    "partition", "setfield", "update", "setdefault", "popitem",
                    "__setitem__", "__delitem__", "__iadd__", "__imul__"}
# NumPy functions and array methods whose result may share memory with an argument
VIEW_FUNCTIONS = {getattr(np, n) for n in (
    "reshape", "ravel", "transpose", "squeeze", "expand_dims", "asarray",
    "asanyarray", "ascontiguousarray", "asfortranarray", "atleast_1d",
    "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays", "diagonal",
    "diag", "moveaxis", "swapaxes", "rollaxis", "flip", "fliplr", "flipud",
    "rot90", "real", "imag", "split", "array_split", "hsplit", "vsplit",
    "dsplit", "require", "matrix_transpose", "permute_dims", "unstack")
    if hasattr(np, n)}
VIEW_METHODS = {"reshape", "ravel", "transpose", "squeeze", "view", "swapaxes",
                "diagonal", "get", "values", "items", "keys", "__getitem__"}
FRESH_BUILTINS = {builtins.len, builtins.range, builtins.float, builtins.int,
                  builtins.complex, builtins.abs, builtins.round, builtins.list,
                  builtins.dict, builtins.tuple, builtins.sorted, builtins.bool,
                  builtins.str, builtins.sum, builtins.pow, builtins.divmod}
METADATA = {"shape", "ndim", "size", "dtype"}


class Values:
    """Questions about the expressions of one function (a mixin)."""

    def _fresh(self, value):
        """`value` is a new object that nothing else refers to."""
        if value is None:  # unpacked from a container, or a loop variable
            return False
        if isinstance(value, (gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare,
                              gast.BoolOp, gast.List, gast.Tuple, gast.Dict, gast.Set,
                              gast.ListComp, gast.DictComp, gast.SetComp, gast.Lambda,
                              gast.JoinedStr)):
            return True
        if isinstance(value, gast.IfExp):
            return self._fresh(value.body) and self._fresh(value.orelse)
        if isinstance(value, gast.Call):
            return self._fresh_call(value)
        return False

    def _fresh_call(self, call):
        func = call.func
        obj = lookup(func, self.local, self.scope)
        if obj is _MISSING:  # a method of a local value
            return isinstance(func, gast.Attribute) and func.attr not in VIEW_METHODS \
                and func.attr not in MUTATING_METHODS
        if obj is np.array:
            return not any(k.arg == "copy" and not (isinstance(k.value, gast.Constant)
                                                    and k.value.value is True)
                           for k in call.keywords)
        if isinstance(obj, np.ufunc):
            return True
        if hashable(obj) and obj in FRESH_BUILTINS:
            return True
        module = getattr(obj, "__module__", None) or ""
        return (module == "numpy" or module.startswith("numpy.")) and \
            hashable(obj) and obj not in VIEW_FUNCTIONS

    def _shares(self, expr, name):
        """The value of `expr` may hold a reference to `name`'s object."""
        if expr is None:
            return False
        if isinstance(expr, gast.Name):
            return expr.id == name
        if isinstance(expr, gast.Attribute):
            return expr.attr not in METADATA and self._shares(expr.value, name)
        if isinstance(expr, (gast.Subscript, gast.Starred)):
            return self._shares(expr.value, name)
        if isinstance(expr, (gast.Tuple, gast.List, gast.Set)):
            return any(self._shares(e, name) for e in expr.elts)
        if isinstance(expr, gast.Dict):
            return any(self._shares(e, name) for e in expr.values)
        if isinstance(expr, gast.IfExp):
            return self._shares(expr.body, name) or self._shares(expr.orelse, name)
        if isinstance(expr, gast.BinOp):  # (y,) + t, [y] + xs keep y
            return any(isinstance(e, (gast.Tuple, gast.List)) and self._shares(e, name)
                       for e in (expr.left, expr.right))
        if isinstance(expr, gast.Call):
            if self._fresh_call(expr):
                return False
            helper = lookup(expr.func, self.local, self.scope)
            if self.is_helper(helper) and not self.returns_an_argument(helper):
                return False  # a new value, or a global's (not a local's)
            parts = expr.args + [k.value for k in expr.keywords]
            if isinstance(expr.func, gast.Attribute):
                parts.append(expr.func.value)
            return any(self._shares(e, name) for e in parts)
        if isinstance(expr, (gast.ListComp, gast.DictComp, gast.Lambda)):
            return any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(expr))
        return False


def hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return False
    return True
