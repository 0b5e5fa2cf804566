"""Sums of whole products, in a derivative specialized by ``specialize.py``.

The adjoint of a number that scales an array is a sum over a product:
in a Gaussian process, ``K = sf2 * Kse + sn2 * I`` gives ``bsf2 =
float(np.sum(bK * Kse, axis=(0, 1)))``, and the length scale's adjoint
is ``np.sum(-(bK * sf2 * t13) * t12 / t11)``. NumPy computes each
product as a new array as large as the operands, then reads it again to
add it up. Here, for a sum over every axis of real arrays of one shape:

* the numbers in the product are taken out of the sum (``np.sum(a * s /
  c)`` -> ``np.sum(a) * s / c``), and so is a minus sign;
* two float64 arrays are added up by their dot product, ``np.vdot(a,
  b)``: one pass over both, no temporary (``np.vdot(a * b, c)`` for
  three).

A number is a name or constant holding a Python int or float, or a
NumPy scalar of the arrays' dtype (a float64 scalar only with float64 arrays, where it cannot change
the dtype). Every array in the product must have the sum's own shape and
dtype (no broadcasting). The result keeps its dtype; the sum is added
in another order (BLAS, or a scaling after the sum), so it can differ
in the last bits. float32 arrays keep ``np.sum`` (pairwise), whose error
does not grow with the length as a float32 dot product's does. Runs
after ``inline.py``, which puts the factors into one expression.
"""
import gast
import numpy as np

from tangent_ad.nodes import call, child_fields, walk
from tangent_ad.staging.callees import for_function
from tangent_ad.staging.kinds import Kinds

_REAL_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def run(tree, params, unit=None, given=()):
    """Return the FunctionDef `tree` with its full sums of products
    rewritten (`params`, `unit` and `given` as for `kinds.Kinds`)."""
    kinds, callees = None, for_function(tree, unit.namespace if unit is not None else None)
    for node in list(walk(tree)):
        for field in child_fields(node.__class__):
            value = getattr(node, field, None)
            for i, item in enumerate(value if isinstance(value, list) else [value]):
                if not _of_a_product(item) or callees.of_call(item) is not np.sum:
                    continue
                kinds = kinds or Kinds(tree, params, unit, given)  # only when needed
                new = _rewritten(item, kinds)
                if new is None:
                    continue
                if isinstance(value, list):
                    value[i] = new
                else:
                    setattr(node, field, new)
    return tree


def _of_a_product(node):
    """Whether `node` is a call of one operation's result, the shape of
    ``np.sum(a * b)`` (what it calls is looked up after)."""
    return isinstance(node, gast.Call) and len(node.args) == 1 and \
        isinstance(node.args[0], (gast.BinOp, gast.UnaryOp))


def _rewritten(node, kinds):
    """The rewrite of the call ``np.sum(product, ...)`` `node` (see the
    module docstring), or None."""
    total = kinds.of(node.args[0])
    if total is None or total.box != "array" or not total.shape or \
            total.dtype not in _REAL_FLOATS or not _over_every_axis(node.keywords, total):
        return None
    found = _factors(node.args[0], kinds, total)
    if found is None:
        return None
    negative, numbers, arrays = found
    dot = total.dtype == np.float64 and len(arrays) > 1
    if not (numbers or dot or negative and len(arrays) > 1):
        return None
    if dot:
        value = call("np.vdot", _product(arrays[:-1]), arrays[-1])
    else:
        value = node
        node.args = [_product(arrays)]
    if negative:
        value = gast.UnaryOp(op=gast.USub(), operand=value)
    for number, divides in numbers:
        value = gast.BinOp(left=value, op=gast.Div() if divides else gast.Mult(), right=number)
    return value


def _over_every_axis(keywords, total):
    """Whether the keywords of ``np.sum`` are none or ``axis=`` every axis."""
    if not keywords:
        return True
    if len(keywords) != 1 or keywords[0].arg != "axis":
        return False
    axis = keywords[0].value
    if isinstance(axis, gast.Constant):
        return axis.value is None or len(total.shape) == 1 and axis.value in (0, -1)
    if not isinstance(axis, gast.Tuple) or not all(
            isinstance(a, gast.Constant) and type(a.value) is int for a in axis.elts):
        return False
    rank = len(total.shape)
    return sorted(a.value % rank for a in axis.elts if -rank <= a.value < rank) == \
        list(range(rank))


def _factors(expr, kinds, total):
    """(negated, [(number, divides)], [array]) of the product `expr`, or
    None when a factor is neither a number nor an array of `total`'s kind."""
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
        found = _factors(expr.operand, kinds, total)
        return found and (not found[0], found[1], found[2])
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Mult, gast.Div)):
        divides = isinstance(expr.op, gast.Div)
        if divides and not _number(expr.right, kinds, total):
            return _factors_of_one(expr, kinds, total)
        left = _factors(expr.left, kinds, total)
        right = (False, [(expr.right, True)], []) if divides else \
            _factors(expr.right, kinds, total)
        if left is None or right is None:
            return None
        return left[0] != right[0], left[1] + right[1], left[2] + right[2]
    return _factors_of_one(expr, kinds, total)


def _factors_of_one(expr, kinds, total):
    if _number(expr, kinds, total):
        return False, [(expr, False)], []
    return (False, [], [expr]) if kinds.of(expr) == total else None


def _number(expr, kinds, total):
    """Whether `expr` is a name or constant that is a number scaling an
    array of `total`'s kind without changing its dtype (only those move:
    nothing else is evaluated out of its order)."""
    if not isinstance(expr, (gast.Name, gast.Constant)):
        return False
    kind = kinds.of(expr)
    if kind is None:
        return False
    if kind.box in ("float", "int"):
        return True
    return kind.box in ("scalar", "real") and kind.dtype == total.dtype and \
        (kind.box == "scalar" or total.dtype == np.float64)


def _product(arrays):
    product = arrays[0]
    for array in arrays[1:]:
        product = gast.BinOp(left=product, op=gast.Mult(), right=array)
    return product
