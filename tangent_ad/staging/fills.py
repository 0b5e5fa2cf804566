"""Fills: names bound once to ``np.full_like(x, s)``, which staging's
rewrites follow through arithmetic (``specialize``), and the binding counts
that tell when following them is sound."""
import gast
import numpy as np

from tangent_ad.nodes import walk


def find(tree, kinds, bindings):
    """{name: (x, s)} for the names bound once to ``np.full_like(x, s)``
    where `x` is bound once and `s` reads only names bound once outside
    any loop: wherever the name is read, ``s`` has the same value and `x`
    the same kind (it may be a later value of a loop variable).
    `bindings`: ``binding_counts(tree)``."""
    counts, in_loops = bindings
    found = {}
    for node in walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            target, fill = node.targets[0].id, fill_parts(node.value, kinds)
            if fill and counts.get(target) == 1 and bound_once(fill[0], counts) and \
                    bound_once(fill[1], counts, in_loops):
                found[target] = fill
    return found


def binding_counts(tree):
    """({name: how many times it is bound}, {names bound inside a loop})."""
    counts, in_loops = {}, set()
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Param)):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, (gast.For, gast.While)):
            in_loops |= {n.id for stmt in node.body + node.orelse for n in walk(stmt)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return counts, in_loops


def bound_once(expr, counts, in_loops=()):
    return all(counts.get(n.id, 0) <= 1 and n.id not in in_loops
               for n in walk(expr) if isinstance(n, gast.Name))


def fill_parts(node, kinds):
    """(x, s) if `node` is ``np.full_like(x, s)`` with an inexact array
    `x` and a Python float `s`."""
    if kinds.callee(node) is not np.full_like or len(node.args) != 2 or node.keywords:
        return None
    x, s = node.args
    kx, ks = kinds.of(x), kinds.of(s)
    if kx is None or kx.box != "array" or kx.dtype.kind not in "fc" or \
            ks is None or ks.box != "float" or kinds.is_placeholder(x):
        return None
    return x, s


def exact_scaling(kind, c):
    """Whether ``D(s) * c == D(s * c)`` for every Python float s, where D
    is `kind`'s dtype: always in float64; for narrower dtypes only when c
    is a power of two (c * s is then exact)."""
    if kind.dtype == np.float64:
        return True
    if not (isinstance(c, gast.Constant) and type(c.value) in (int, float)) or c.value == 0:
        return False
    mantissa, _ = np.frexp(abs(c.value))
    return mantissa == 0.5
