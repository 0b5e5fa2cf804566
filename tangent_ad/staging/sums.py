"""A scalar adjoint's contributions added in one statement, in a
derivative specialized by ``specialize.py``.

A scalar loop's adjoint is mostly statements such as ``by = by + bt6 *
c`` and, a few statements later, ``by = by + bdy * t4``. Each stores
and loads ``by`` again. Here the contributions of one block are added in
the last statement that adds to the adjoint:
``by = by + bt6 * c + bdy * t4``. The sums are the same, in the same
order. A contribution moves only when it has no effect but its value
(``inline.pure``), and only past comments, saves and restores, and
assignments of such values, that neither read nor bind the adjoint nor
bind what the contribution reads. Arrays are left to ``accumulate.py``, which adds in
place. Runs before ``inline.py``, which can then fold the temporaries
that only the sum reads.
"""
import gast

from tangent_ad import saves
from tangent_ad.nodes import is_comment, reads, walk, writes
from tangent_ad.staging.callees import for_function
from tangent_ad.staging.inline import blocks, pure
from tangent_ad.staging.kinds import Kinds

_NUMBERS = frozenset({"float", "int", "complex", "scalar", "real"})


def run(tree, params, unit=None, given=(), namespace=None):
    """Return `tree` with each scalar adjoint's contributions in a block
    added in one statement (`params`, `unit` and `given` as for
    `kinds.Kinds`; calls looked up in `namespace`, ``callees.py``)."""
    kinds = Kinds(tree, params, unit, given)
    callees = for_function(tree, namespace)
    for body in blocks(tree):
        _fold_contributions(body, kinds, callees)
    return tree


def _fold_contributions(body, kinds, callees):
    """Fold each ``v = v + e`` of a scalar `v` into the next statement of
    `body` that adds to `v` (see the module docstring)."""
    i = len(body) - 1
    while i >= 0:  # from the end: a chain of contributions folds in one sweep
        stmt = body[i]
        if _scalar_sum(stmt, kinds) and pure(stmt.value.right, callees):
            v = stmt.targets[0].id
            j = _next_sum(body, i, v, reads(stmt.value.right), callees)
            if j is not None:
                _innermost(body[j].value).left = stmt.value
                del body[i]
        i -= 1


def _scalar_sum(stmt, kinds):
    """``v = v + e`` with a number `v` and `e` not reading `v`."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)):
        return False
    v, value = stmt.targets[0].id, stmt.value
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
            and isinstance(value.left, gast.Name) and value.left.id == v
            and v not in reads(value.right)):
        return False
    kind = kinds.of(value.left)
    return kind is not None and kind.box in _NUMBERS


def _next_sum(body, i, v, needed, callees):
    """The index of the next statement after `i` that adds to `v`
    (``v = v + ... + ...``, `v` read there once, leftmost), if every
    statement before it lets the contribution at `i` move there."""
    for j in range(i + 1, len(body)):
        stmt = body[j]
        if is_comment(stmt):
            continue
        simple = isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name)
        if simple and stmt.targets[0].id == v:
            inner = _innermost(stmt.value)
            added = [n for n in walk(stmt.value) if isinstance(n, gast.Name) and n.id == v]
            return j if inner is not None and len(added) == 1 and \
                inner.left is added[0] else None
        if not (simple and pure(stmt.value, callees) or saves.site_of(stmt) is not None):
            return None  # it might change what the contribution reads in place
        if v in reads(stmt) | writes(stmt) or writes(stmt) & needed:
            return None
    return None


def _innermost(value):
    """The innermost ``a + b`` of the chain ``a + b + c + ...``, or None."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)):
        return None
    while isinstance(value.left, gast.BinOp) and isinstance(value.left.op, gast.Add):
        value = value.left
    return value
