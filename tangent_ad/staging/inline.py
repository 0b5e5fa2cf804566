"""Single-use temporaries folded into the expression that reads them, in a
derivative specialized by ``specialize.py``.

``t = x @ W1; t2 = t + b1; h1 = np.tanh(t2)`` keeps ``t`` and ``t2``
alive to the end of the function. ``h1 = np.tanh(x @ W1 + b1)`` frees
each one as soon as it is read, so the allocator hands the next small
array a block it just got back. On small arrays that is worth several
percent: on the MLP with hidden size 8, the specialized gradient goes
from 1.04-1.06 times the hand-written one to 1.00.

A binding ``v = e`` of a temporary the transformation made up (``t2``,
``bt3``; the user's names and their adjoints stay, except a user variable
that happens to be named like a temporary, which is folded the same way)
is folded into the statement that reads `v` when: `v` is written once and
read once in the whole function; the reader, an assignment that needs
more than its shape, comes later in the same block; `e` has no effect (operators, indexing,
attributes, and calls of NumPy or of the runtime helpers); and every
statement in between is an assignment of such an expression, or a
comment, that writes nothing `e` reads, or a save (a push binds
nothing: ``t8 = x + dt * dx; stack.append(x); x = t8`` becomes
``stack.append(x); x = x + dt * dx``). The values computed do not
change, only when they are computed.
"""
import re

import gast
import numpy as np

from tangent_ad import runtime, saves
from tangent_ad.nodes import clone, is_comment, reads, walk, writes
from tangent_ad.staging.callees import RUNTIME_HELPERS, for_function

_SHAPE_READERS = frozenset({np.full_like, np.zeros_like, np.ones_like, runtime.zeros_like})
_TEMPORARY = re.compile(r"b?t\d*$")
_PURE_NODES = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare,
               gast.Attribute, gast.Subscript, gast.Slice, gast.Tuple, gast.List,
               gast.Load, gast.operator, gast.unaryop, gast.cmpop, gast.keyword,
               gast.Call)


def run(tree, namespace=None):
    """Return the FunctionDef `tree` with its single-use temporaries folded
    (its calls looked up in `namespace`, ``callees.py``)."""
    callees = for_function(tree, namespace)
    loads, stores = {}, {}
    for node in walk(tree):
        if isinstance(node, gast.Name):
            counts = loads if isinstance(node.ctx, gast.Load) else stores
            counts[node.id] = counts.get(node.id, 0) + 1
    once = {v for v, n in stores.items()
            if n == 1 and loads.get(v) == 1 and _TEMPORARY.match(v)}
    for body in blocks(tree):
        _fold(body, once, callees)
        body[:] = _without_empty_headers(body)
    return tree


def _without_empty_headers(body):
    """Drop a ``# Grad of: ...`` comment whose statements were all folded
    into a later one (it is followed by another such comment, or nothing)."""
    kept = []
    for k, stmt in enumerate(body):
        following = body[k + 1] if k + 1 < len(body) else None
        if _header(stmt) and (following is None or _header(following)):
            continue
        kept.append(stmt)
    return kept


def _header(stmt):
    return is_comment(stmt) and isinstance(stmt.value.args[0], gast.Constant) and \
        str(stmt.value.args[0].value).startswith("Grad of:")


def blocks(tree):
    """Every statement list in `tree`, the function's own body first."""
    yield tree.body
    for node in walk(tree):
        if node is tree:
            continue
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                yield block


def _fold(body, once, callees):
    i = len(body) - 1
    while i >= 0:  # from the end: a chain t -> t2 -> h folds in one sweep
        stmt = body[i]
        target = _single_target(stmt)
        if target in once and pure(stmt.value, callees):
            j = _reader(body, i, target, reads(stmt.value), callees)
            if j is not None:
                _substitute(body[j], target, stmt.value)
                del body[i]
        i -= 1


def _single_target(stmt):
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name):
        return stmt.targets[0].id
    return None


def _reader(body, i, target, needed, callees):
    """The index of the simple statement after `i` that reads `target`,
    if the statements before it let the binding move there."""
    for j in range(i + 1, len(body)):
        stmt = body[j]
        if is_comment(stmt):
            continue
        if not isinstance(stmt, (gast.Assign, gast.Expr)):
            return None
        if target in reads(stmt):
            return j if isinstance(stmt, gast.Assign) and \
                not _shape_read(stmt, target, callees) else None
        if saves.is_save(stmt):
            continue  # a push binds nothing: ``t = x + e; stack.append(x); x = t``
        if not (_single_target(stmt) and pure(stmt.value, callees)) or \
                writes(stmt) & needed:
            return None
    return None


def _shape_read(stmt, target, callees):
    """Whether `stmt` reads `target` for its shape only (``np.full_like(t,
    g)``): folding would write the whole computation into that argument."""
    return any(isinstance(node, gast.Call) and callees.of_call(node) in _SHAPE_READERS
               and node.args and isinstance(node.args[0], gast.Name)
               and node.args[0].id == target for node in walk(stmt))


def pure(value, callees):
    """Whether evaluating `value` can have no effect but its result."""
    for node in walk(value):
        if not isinstance(node, _PURE_NODES):
            return False
        if isinstance(node, gast.Call) and (not _pure_callee(node.func, callees) or any(
                k.arg == "out" for k in node.keywords)):
            return False
    return True


def _pure_callee(func, callees):
    """A runtime helper, a function of NumPy's own namespace, or an
    array's ``.sum`` (what specialize writes)."""
    if callees.of(func) in RUNTIME_HELPERS or callees.is_numpy_member(func):
        return True
    return isinstance(func, gast.Attribute) and func.attr == "sum"


def _substitute(stmt, target, value):
    """Replace the one read of `target` in `stmt` by `value`."""
    for node in walk(stmt):
        for field, child in gast.iter_fields(node):
            if isinstance(child, gast.Name) and child.id == target and \
                    isinstance(child.ctx, gast.Load):
                setattr(node, field, clone(value))
                return
            if isinstance(child, list):
                for k, item in enumerate(child):
                    if isinstance(item, gast.Name) and item.id == target and \
                            isinstance(item.ctx, gast.Load):
                        child[k] = clone(value)
                        return
