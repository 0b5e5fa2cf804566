"""Kinds of factorizations, triangular solves and the adjoint helpers of
linear algebra, for ``kinds.Kinds``: rules a stand-in cannot give
(``sampled.py`` would call ``np.linalg.cholesky`` on a matrix of ones,
which it refuses).

* ``np.linalg.cholesky(a)``, ``np.linalg.inv(a)``, ``matrix_transpose(a)``,
  ``untriangle(s)``:
  the kind of their (stack of) square, inexact matrices, transposed for
  ``matrix_transpose`` (of any matrices);
* SciPy's ``solve_triangular(a, b, ...)`` (keywords but ``trans``, ``lower``,
  ``unit_diagonal`` and ``check_finite`` unknown) and ``np.linalg.solve(a,
  b)``: `b`'s kind, for a square `a` of `b`'s inexact dtype;
* ``product_triangle(a, b, lower, like)``: the (n, m) matrix of n x k and m x k
  matrices `a` and `b` of one inexact dtype;
* the adjoint of an operand (``undiag``, ``grad_dot_lhs``, ``grad_dot_rhs``,
  ``grad_cholesky``, ``grad_cholesky_triangle``, ``grad_solve_lhs``,
  ``grad_solve_rhs``): that operand's kind,
  when every array argument has its inexact dtype (and any other is a real
  scalar, for a float64 operand).

SciPy is never imported here: its function is recognised only when the
code that calls it has imported ``scipy.linalg``.
"""
import sys

import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.staging.kind_values import BOTTOM, Kind, is_python_float_like

_SOLVE_OPTIONS = frozenset({"trans", "lower", "unit_diagonal", "check_finite"})
# helper -> (position of the operand whose adjoint it returns, argument count)
_OPERAND_ADJOINTS = {runtime.undiag: (1, 2), runtime.grad_dot_lhs: (1, 3),
                     runtime.grad_dot_rhs: (2, 3), runtime.grad_cholesky: (1, 2),
                     runtime.grad_cholesky_triangle: (1, 2), runtime.grad_solve_lhs: (1, 3),
                     runtime.grad_solve_rhs: (2, 3)}


def rule(func):
    """The rule for calls of `func` (an object), or None."""
    if func in _SQUARE:
        return _square
    if func is runtime.matrix_transpose:
        return _transposed
    if func in _OPERAND_ADJOINTS:
        return _operand_adjoint
    if func is runtime.product_triangle:
        return _product_triangle
    if func is np.linalg.solve:
        return _solve_triangular  # the same kinds: b's, for a square a of its dtype
    scipy_linalg = sys.modules.get("scipy.linalg")
    if scipy_linalg is not None and func is getattr(scipy_linalg, "solve_triangular", None):
        return _solve_triangular
    return None


def item(kinds, call, index, through):
    """The Kind of item `index` of what `call` returns, for the tuple of
    ``np.linalg.slogdet(a)`` (sign and log of the determinant: scalars, or
    arrays of a stack's shape; the log is real) and for ``unindex(g, t,
    i)[i]`` of such a tuple `t` (or a tuple literal), which is `g` itself;
    None for other calls. `through(name)` is the expression a name is
    bound to once (``Kinds._through``)."""
    func = kinds.callee(call)
    if func is np.linalg.slogdet and len(call.args) == 1 and not call.keywords and \
            index in (0, 1, -1, -2):
        a = kinds.of(call.args[0])
        if a == BOTTOM or not _square_inexact(a):
            return a if a == BOTTOM else None
        dtype = a.dtype if index in (0, -2) else np.empty(0, a.dtype).real.dtype
        return Kind("scalar", (), dtype) if len(a.shape) == 2 else \
            Kind("array", a.shape[:-2], dtype)
    if func is runtime.unindex and len(call.args) == 3 and not call.keywords:
        at, container = call.args[2], through(call.args[1])
        tuple_valued = isinstance(container, gast.Tuple) or \
            isinstance(container, gast.Call) and kinds.callee(container) is np.linalg.slogdet
        if tuple_valued and isinstance(at, gast.Constant) and at.value == index and \
                type(index) is int:
            return kinds.of(call.args[0])  # unindex_container puts g itself there
    return None


def _square(kinds, node):
    if len(node.args) != 1 or node.keywords:
        return None
    kind = kinds.of(node.args[0])
    return kind if kind == BOTTOM or _square_inexact(kind) else None


def _transposed(kinds, node):
    if len(node.args) != 1 or node.keywords:
        return None
    kind = kinds.of(node.args[0])
    if kind in (None, BOTTOM) or kind.box != "array" or len(kind.shape) < 2:
        return kind if kind == BOTTOM else None
    return Kind("array", kind.shape[:-2] + kind.shape[:-3:-1], kind.dtype)


def _solve_triangular(kinds, node):
    if len(node.args) != 2 or any(k.arg not in _SOLVE_OPTIONS for k in node.keywords):
        return None
    a, b = kinds.of(node.args[0]), kinds.of(node.args[1])
    if BOTTOM in (a, b):
        return BOTTOM
    if not _square_inexact(a) or len(a.shape) != 2 or b is None or b.box != "array" or \
            b.dtype != a.dtype or not 1 <= len(b.shape) <= 2 or b.shape[0] != a.shape[0]:
        return None
    return b


def _product_triangle(kinds, node):
    if not 2 <= len(node.args) <= 4 or node.keywords:
        return None
    a, b = kinds.of(node.args[0]), kinds.of(node.args[1])
    if BOTTOM in (a, b):
        return BOTTOM
    if any(k is None or k.box != "array" or len(k.shape) != 2 or k.dtype.kind not in "fc"
           for k in (a, b)) or a.dtype != b.dtype or a.shape[1] != b.shape[1]:
        return None
    return Kind("array", (a.shape[0], b.shape[0]), a.dtype)


def _operand_adjoint(kinds, node):
    position, count = _OPERAND_ADJOINTS[kinds.callee(node)]
    if len(node.args) != count or node.keywords:
        return None
    found = [kinds.of(a) for a in node.args]
    if BOTTOM in found:
        return BOTTOM
    operand = found[position]
    if None in found or operand.box != "array" or not operand.shape or \
            operand.dtype.kind not in "fc":
        return None
    for k in found:  # arrays of its dtype; a real scalar g of a float64 operand
        if k.dtype != operand.dtype if k.box == "array" else \
                not (is_python_float_like(k) and operand.dtype == np.float64):
            return None
    return operand


def _square_inexact(kind):
    return kind is not None and kind.box == "array" and len(kind.shape) >= 2 and \
        kind.shape[-1] == kind.shape[-2] and kind.dtype.kind in "fc"


_SQUARE = frozenset({np.linalg.cholesky, np.linalg.inv, runtime.untriangle})
