"""Accumulation in place, in a derivative specialized by ``specialize.py``.

``bW = bW + e`` allocates a new array for every contribution to an
adjoint; ``bW += e`` adds into the one ``bW`` holds. The two give the same
values when the sum has ``bW``'s kind (shape and dtype), and nothing else
can see the array: every binding of ``bW`` makes a new array (an
operator, or a call in `FRESH_CALLS`, or ``.sum(...)``, or ``undiag`` of a
matrix, ``np.diag`` of a vector) or is such an accumulation, and ``bW`` is read only by its
accumulations, by ``return``, and by statements after its last binding
when every binding is a statement of the function's own body (no loop or
branch): nothing changes the array once they run. Liveness does not see
that ``+=`` reads its target, so this pass runs once, after the others
reached their fixed point.
"""
import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.nodes import walk
from tangent_ad.staging.kinds import Kinds
from tangent_ad.visitors import Transformer

FRESH_CALLS = frozenset({np.zeros, np.zeros_like, np.ones_like, np.full_like, np.outer,
                         runtime.zeros_like, runtime.grad_matmul_lhs, runtime.grad_matmul_rhs})

# a new matrix with a vector on its diagonal: (position of the argument, its rank)
_FROM_A_VECTOR = {runtime.undiag: (1, 2), np.diag: (0, 1)}


def run(tree, params, unit=None, given=()):
    """Return `tree` with the accumulations above made in place (`params`,
    `unit` and `given` as for `kinds.Kinds`)."""
    kinds = Kinds(tree, params, unit, given)
    candidates, rejected, simple = set(), set(params), set()
    for node in walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            rejected.update(a.id for a in node.args.args)
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            simple.add(id(node.targets[0]))
            v = node.targets[0].id
            if _accumulates(node, kinds) or _fresh(node.value, kinds):
                candidates.add(v)
            else:
                rejected.add(v)
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                id(node) not in simple:
            rejected.add(node.id)  # a tuple target, a loop variable
    allowed = {id(n) for node in walk(tree) for n in _allowed_reads(node, kinds)}
    allowed |= _final_reads(tree)
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                id(node) not in allowed:
            rejected.add(node.id)
    names = candidates - rejected
    if names:
        _InPlace(names, kinds).visit(tree)
    return tree


def _accumulates(stmt, kinds):
    """``v = v + e``, with `e` not reading `v` and the sum of `v`'s array
    kind; or ``v = accumulate_at(v, g, x, i)`` (see `_item_added`)."""
    v, value = stmt.targets[0].id, stmt.value
    if _item_added(stmt, kinds):
        return True
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
            and isinstance(value.left, gast.Name) and value.left.id == v):
        return False
    if any(isinstance(n, gast.Name) and n.id == v for n in walk(value.right)):
        return False
    kind = kinds.of(value.left)
    return kind is not None and kind.box == "array" and kinds.of(value) == kind


def _item_added(stmt, kinds):
    """``v = accumulate_at(v, g, x, i)``: the adjoint g of a row ``x[i]`` (an
    int i) added to v, of x's array kind; g, which does not read v, a row of
    x's dtype (a float64 number for a vector's item), as ``unindex`` would
    have placed it: in place, that is ``v[i] += g``, one row's work."""
    v, value = stmt.targets[0].id, stmt.value
    if not (isinstance(value, gast.Call) and kinds.callee(value) is runtime.accumulate_at
            and len(value.args) == 4 and not value.keywords):
        return False
    a, g, x, index = value.args
    if not (isinstance(a, gast.Name) and a.id == v) or \
            any(isinstance(n, gast.Name) and n.id == v for arg in (g, x, index) for n in walk(arg)):
        return False
    if kinds.is_placeholder(index):  # (Numba types a saved index as an optional int)
        return False
    kind, row, at = kinds.of(x), kinds.of(g), kinds.of(index)
    if kind is None or kind.box != "array" or not kind.shape or kinds.of(a) != kind or \
            at is None or at.box != "int" or row is None:
        return False
    if row.box == "array":
        return row.shape == kind.shape[1:] and row.dtype == kind.dtype
    if len(kind.shape) != 1:
        return False  # a number for a row: broadcast, not this rewrite's case
    if row.box in ("float", "real"):
        return kind.dtype == np.float64
    return row.box == "scalar" and row.dtype == kind.dtype


def _fresh(value, kinds):
    """Whether `value` always makes a new array (or a new number)."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    if isinstance(value, gast.Call):
        func = kinds.callee(value)
        if func in _FROM_A_VECTOR and len(value.args) == 2 - (func is np.diag) and \
                not value.keywords:  # zeros, then a vector on the diagonal
            position, rank = _FROM_A_VECTOR[func]
            kind = kinds.of(value.args[position])
            return kind is not None and kind.box == "array" and len(kind.shape) == rank
        if func is not None:
            return func in FRESH_CALLS
        return isinstance(value.func, gast.Attribute) and value.func.attr == "sum"
    return False


def _allowed_reads(node, kinds):
    """The reads in `node` that `run` permits: the `v` of ``v + e`` in an
    accumulation, and names returned as they are."""
    if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], gast.Name) and _accumulates(node, kinds):
        return [node.value.args[0] if isinstance(node.value, gast.Call) else node.value.left]
    if isinstance(node, gast.Return) and node.value is not None:
        elts = node.value.elts if isinstance(node.value, gast.Tuple) else [node.value]
        return [e for e in elts if isinstance(e, gast.Name)]
    return []


def _final_reads(tree):
    """The reads (ids of Name nodes) in statements of the function's own
    body that come after every binding of their name, when all of them
    are simple statements of that body."""
    last, nested = {}, set()
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, gast.Delete):
            continue  # ``del v`` (release.py): nothing reads v after it
        simple = isinstance(stmt, (gast.Assign, gast.AugAssign))
        for node in walk(stmt):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
                if simple:
                    last[node.id] = index
                else:
                    nested.add(node.id)
            elif simple and isinstance(node, (gast.Lambda, gast.comprehension)):
                nested.update(n.id for n in walk(node) if isinstance(n, gast.Name))
    return {id(node) for index, stmt in enumerate(tree.body) for node in walk(stmt)
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and
            node.id in last and node.id not in nested and index > last[node.id]}


class _InPlace(Transformer):
    def __init__(self, names, kinds):
        self.names = names
        self.kinds = kinds

    def visit_Assign(self, node):
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, gast.Name) and target.id in self.names and \
                _accumulates(node, self.kinds):
            if isinstance(node.value, gast.Call):  # accumulate_at(v, g, x, i): v[i] += g
                _, g, _, index = node.value.args
                item = gast.Subscript(value=gast.Name(id=target.id, ctx=gast.Load(),
                                                      annotation=None, type_comment=None),
                                      slice=index, ctx=gast.Store())
                return gast.AugAssign(target=item, op=gast.Add(), value=g)
            return gast.AugAssign(target=target, op=gast.Add(), value=node.value.right)
        return node
