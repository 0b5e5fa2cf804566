"""Large arrays released after their last read, in a derivative specialized
by ``specialize.py``.

A name keeps its array alive to the end of the function: in the gradient
of a Gaussian process's likelihood, ``sqdist`` and ``K`` (128 x 128, 128
KiB each) stay allocated through the whole backward pass, which therefore
needs more memory at once than it uses. The C library gives freed memory
back to the system once enough of it sits at the top of the heap (glibc
above 128 KiB), which happens at the end of every call, so the next call
faults those pages in again: 32 page faults per 128 KiB, measured at 1-3
microseconds each. ``del K`` after the last read of ``K`` frees it there,
and the next array reuses its memory.

A name `v` is released when its kind is an array of at least `MIN_BYTES`
(smaller ones cost little to keep, and a ``del`` for each would clutter
the copy); it is not a parameter; every statement that names it is a
simple statement of the function's own body (no loop, branch, nested
function, lambda or comprehension binds or reads it), the first of them
binds it and the last reads it. ``del v`` goes right after that last
read, unless only the closing ``return`` follows (which frees it anyway).
The values computed do not change, only when memory is given back.
"""
import gast
import numpy as np

from tangent_ad.nodes import is_comment, walk
from tangent_ad.staging.kinds import Kinds

MIN_BYTES = 1 << 16
_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.GeneratorExp,
           gast.ListComp, gast.SetComp, gast.DictComp)


def run(tree, params, unit=None, given=()):
    """Return the FunctionDef `tree` with ``del`` statements after the last
    reads of its large arrays (`params`, `unit` and `given` as for
    `kinds.Kinds`)."""
    kinds = Kinds(tree, params, unit, given)
    last_reads = {}  # statement index -> names it reads last
    for v, index in _last_reads(tree, kinds).items():
        last_reads.setdefault(index, []).append(v)
    body = []
    for index, stmt in enumerate(tree.body):
        body.append(stmt)
        if index in last_reads and not _only_return_follows(tree.body, index):
            body.append(gast.Delete(targets=[gast.Name(id=v, ctx=gast.Del(), annotation=None,
                                                       type_comment=None)
                                             for v in last_reads[index]]))
    tree.body = body
    return tree


def _last_reads(tree, kinds):
    """{name: index of the statement of `tree.body` that reads it last}
    for the names that may be released, in the order they are first bound."""
    uses = {}  # name -> [(statement index, stores it, loads it)]
    excluded = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    excluded |= {a.arg for a in (tree.args.vararg, tree.args.kwarg) if a is not None}
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, _SIMPLE) and not is_comment(stmt):
            stores, loads = _names(stmt, excluded)
            for v in stores | loads:
                uses.setdefault(v, []).append((index, v in stores, v in loads))
        else:  # a compound statement, a del, a global declaration
            excluded |= {n.id for n in walk(stmt) if isinstance(n, gast.Name)}
            excluded |= {v for n in walk(stmt) if isinstance(n, (gast.Global, gast.Nonlocal))
                         for v in n.names}
    found = {}
    for v, seen in uses.items():
        (_, first_stores, _), (last, last_stores, last_loads) = seen[0], seen[-1]
        if v not in excluded and first_stores and last_loads and not last_stores and \
                _large_array(kinds.names.get(v)):
            found[v] = last
    return found


def _names(stmt, excluded):
    """The names `stmt` stores and loads; names inside a nested scope go
    into `excluded` (a closure may read them later)."""
    stores, loads = set(), set()
    for node in walk(stmt):
        if isinstance(node, _SCOPES):
            excluded |= {n.id for n in walk(node) if isinstance(n, gast.Name)}
        elif isinstance(node, gast.Name):
            (loads if isinstance(node.ctx, gast.Load) else stores).add(node.id)
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        loads.add(stmt.target.id)
    return stores, loads


def _large_array(kind):
    return kind is not None and kind.box == "array" and \
        kind.size * np.dtype(kind.dtype).itemsize >= MIN_BYTES


def _only_return_follows(body, index):
    rest = [s for s in body[index + 1:] if not is_comment(s)]
    return not rest or len(rest) == 1 and isinstance(rest[0], gast.Return)
