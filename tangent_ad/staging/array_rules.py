"""The kinds of array operations, for ``kinds.Kinds``: reductions along
constant axes, transposes, products, ``np.expand_dims``, ``np.outer``,
``np.zeros`` and the adjoint helpers (``unbroadcast``, ``grad_matmul_lhs``...),
each from the kinds of its operands. A mixin: `Kinds` gives ``of``,
``_static_int`` and ``callees``.
"""
import types

import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.staging.kind_values import (
    BOTTOM, REAL, Kind, _result, is_python_float_like, same_for_any_real)


class ArrayRules:
    """Rules that read operands' kinds through ``self.of``."""

    def _constant(self, node):
        """``np.pi``, ``np.e``, ``np.inf``: a module's float constant (the
        module found by identity, ``callees.py``) is a Python float."""
        owner = self.callees.of(node.value)
        value = getattr(owner, node.attr, None) if isinstance(owner, types.ModuleType) else None
        return Kind("float") if type(value) is float else None

    def _reduce_along(self, func, arg, keywords):
        """``np.sum(x, axis=1, keepdims=True)`` and the other reductions
        `func` with constant ``axis`` and ``keepdims`` keywords."""
        options = {"axis": (None,), "keepdims": (False,)}
        for k in keywords:
            options[k.arg] = _constant_axis(k.value) if k.arg in options else None
        if None in options.values():
            return None
        kind = self.of(arg)
        if kind in (None, BOTTOM) or kind.box != "array":
            return None if kind != BOTTOM else kind
        (axis,), (keepdims,) = options["axis"], options["keepdims"]
        if type(keepdims) is not bool:
            return None
        rank = len(kind.shape)
        axes = range(rank) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        if not all(type(a) is int and -rank <= a < rank for a in axes):
            return None
        axes = {a % rank for a in axes}
        shape = tuple(1 if i in axes else n for i, n in enumerate(kind.shape) if keepdims or
                      i not in axes)
        with np.errstate(all="ignore"):
            out = func(kind.sample(), axis=None if axis is None else tuple(axes),
                       keepdims=keepdims)
        return _result(out, shape)

    def _transpose(self, node):
        """``x.T`` for an array `x` (what specialize writes)."""
        kind = self.of(node)
        if kind in (None, BOTTOM) or kind.box != "array":
            return None if kind != BOTTOM else kind
        return Kind("array", kind.shape[::-1], kind.dtype)

    def _sum(self, node):
        """``g.sum(axis=...)`` over constant leading axes of an inexact
        array `g` (what specialize writes for ``unbroadcast``)."""
        kind = self.of(node.func.value)
        if kind == BOTTOM:
            return kind
        if kind is None or kind.box != "array" or kind.dtype.kind not in "fc" or \
                node.args or [k.arg for k in node.keywords] != ["axis"]:
            return None
        axis = node.keywords[0].value
        axes = axis.elts if isinstance(axis, gast.Tuple) else [axis]
        if not all(isinstance(a, gast.Constant) and type(a.value) is int for a in axes):
            return None
        lead = len(axes)
        if [a.value for a in axes] != list(range(lead)) or lead >= len(kind.shape):
            return None
        return Kind("array", kind.shape[lead:], kind.dtype)

    def _matmul(self, left, right):
        kinds = self._operands([left, right])
        if not isinstance(kinds, list):
            return kinds
        a, b = kinds
        if a.box != "array" or b.box != "array" or not (1 <= len(a.shape) <= 2) \
                or not (1 <= len(b.shape) <= 2) or a.shape[-1] != b.shape[0]:
            return None
        shape = a.shape[:-1] + b.shape[1:]
        out = np.matmul(np.ones((1,) * len(a.shape), a.dtype),
                        np.ones((1,) * len(b.shape), b.dtype))
        return _result(out, shape)

    def _reduce(self, func, arg):
        """``np.sum(x)`` and other reductions `func` of all of `x` to a NumPy scalar."""
        kind = self.of(arg)
        if kind in (None, BOTTOM):
            return kind
        with np.errstate(all="ignore"):
            out = _result(func(kind.sample()), ())
        if kind == REAL and not same_for_any_real(lambda value: _result(func(value), ()), out):
            return None  # np.sum of a Python int is an np.int64
        return out

    def _expand_dims(self, x, axis):
        """``np.expand_dims(x, i)`` of an array or number `x` and a constant
        `i` or tuple of them (an array either way: a number's dtype is
        the one NumPy gives it)."""
        kind = self.of(x)
        at = _constant_axis(axis)  # an int or a tuple of them
        if kind in (None, BOTTOM) or kind.box not in ("array", "scalar", "float", "int") \
                or at is None or type(at[0]) not in (int, tuple):
            return None if kind != BOTTOM else kind
        dtype = kind.dtype if kind.dtype is not None else np.asarray(kind.sample()).dtype
        try:
            shape = np.expand_dims(np.empty(kind.shape, dtype), at[0]).shape
        except (ValueError, np.exceptions.AxisError):
            return None
        return Kind("array", shape, dtype)

    def _outer(self, args):
        kinds = self._operands(args)
        if not isinstance(kinds, list):
            return kinds
        a, b = kinds
        if a.box != "array" or b.box != "array" or len(a.shape) != 1 or len(b.shape) != 1:
            return None
        return _result(np.outer(a.sample(), b.sample()), a.shape + b.shape)

    def _zeros(self, args):
        """``np.zeros((2, 3))``, ``np.zeros((2, 3), np.float32)``, or with
        entries of known shapes: ``np.zeros((np.shape(xs)[1], 32))``."""
        shape, dtype = args[0], (args[1] if len(args) == 2 else None)
        if not isinstance(shape, gast.Tuple):
            return None
        sizes = tuple(self._static_int(e) for e in shape.elts)
        if None in sizes:
            return None
        if dtype is None:
            return Kind("array", sizes, np.dtype(np.float64))
        scalar_type = self.callees.of(dtype)
        if not (isinstance(scalar_type, type) and issubclass(scalar_type, np.generic)):
            return None
        return Kind("array", sizes, np.dtype(scalar_type))

    def _like_first(self, func, args):
        """``np.full_like(x, s)``, ``np.zeros_like(x)``, ``zeros_like(x)``."""
        if self.is_placeholder(args[0]):
            return None
        kinds = self._operands(args)
        if not isinstance(kinds, list):
            return kinds
        x = kinds[0]
        if func is np.full_like and not kinds[1].python and kinds[1].box != "scalar":
            return None
        if x.box == "array":
            return x
        if func is runtime.zeros_like and is_python_float_like(x):
            return Kind("float")
        return None

    def _adjoint_helper(self, func, args):
        """The runtime helpers give an adjoint its operand's kind, through
        ``core._like``: a Python float for a Python number or an
        np.float64 (a subclass of float), else the operand's shape and
        (inexact) dtype. Any other case is left unknown."""
        unbroadcast = func is runtime.unbroadcast
        if len(args) != (2 if unbroadcast else 3):
            return None
        kinds = self._operands(args)
        if not isinstance(kinds, list):
            return kinds
        g, a, b = kinds if len(kinds) == 3 else kinds + [None]
        target = b if func is runtime.grad_matmul_rhs else a
        if unbroadcast and is_python_float_like(target) and \
                (g.box in ("float", "int") or (not g.python and g.dtype.kind in "fiu")):
            return Kind("float")
        if unbroadcast and target.box == "scalar" and g in (target, Kind("float")):
            return g
        if target.box == "array" and target.shape and target.dtype.kind in "fc" and \
                (g.box in ("float", "int") or not g.python and g.dtype.kind in "fc"):
            return target  # (a Python number g takes the array's dtype)
        return None


def _constant_axis(node):
    """``(value,)`` of a constant ``axis``/``keepdims`` keyword (an int, a
    tuple of ints, None or a bool), else None.

    >>> _constant_axis(gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=1, kind=None)))
    (-1,)
    """
    if isinstance(node, gast.Constant) and (node.value is None or type(node.value) in (int, bool)):
        return (node.value,)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return (-node.operand.value,)
    if isinstance(node, gast.Tuple):
        items = [_constant_axis(e) for e in node.elts]
        if all(i is not None and type(i[0]) is int for i in items):
            return (tuple(i[0] for i in items),)
    return None

