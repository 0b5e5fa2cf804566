"""Copy and constant propagation.

After ``a = b`` (a name) or ``a = 1.5`` (a number), later reads of ``a``
in the same statement list read ``b`` (or the number) instead, until
``a`` or ``b`` is assigned again or a nested block might assign them.
Dead-code elimination then removes the copy. Only straight runs of
statements are rewritten, so the pass is safe around loops and branches.
An operation on two numbers that the propagated constants complete
(``t = 1.0 + 0.01`` once ``0.01`` came in) is folded on the spot, and
a value a constant came into gets simplification's local rewrites
(``bx * 1.0``: ``simplify.locally``), so that a chain of constants
settles in one run and simplification's next run finds nothing new.
Each replaced read, fold and dropped self-copy (``x = x``) is counted in
``ctx.rewrites`` (for the fixed point of ``fixed_point``), and each node
whose field it sets is reported to the passes' ``statement_names``.
"""
import gast

from tangent_ad.analysis import statement_names
from tangent_ad.nodes import clone, is_push, writes
from tangent_ad.optimize import simplify

# every node whose field it sets is reported (``statement_names``)
REPORTS_TOUCHED = True


def run(tree, ctx=None):
    """Return `tree` with copies and constants propagated."""
    rewrites, _ = _block(tree.body, statement_names.of_context(ctx),
                         simplify.derivative_names(ctx))
    if ctx is not None:
        ctx.count_rewrites(rewrites)
    return tree


def _block(stmts, names, derivative):
    """Propagate within `stmts` (in place); return the number of rewrites
    and the names `stmts` bind. A compound statement's names are its
    blocks' (found when they were visited) and its header's: asking
    `writes` of it would walk its blocks again at every level they nest.
    `names` (``statement_names``) tells a simple statement's names and
    hears of each node changed; `derivative`: the adjoints' and tangents'
    names, for ``simplify.locally``."""
    count = len(stmts)
    stmts[:] = [s for s in stmts if not _self_copy(s)]
    rewrites = count - len(stmts)
    copies = _Copies()
    written = set()
    for stmt in stmts:
        blocks = _child_blocks(stmt)
        if blocks:
            assigned = set()
            for sub in blocks:
                inner, bound = _block(sub, names, derivative)
                rewrites += inner
                assigned |= bound
            assigned |= _header_writes(stmt)
        else:
            replaced = _replace_reads(stmt, copies.known, names.touched)
            if replaced:  # ``t = 1.0 + 0.5`` once 0.5 came in, ``bx * 1.0``
                value, simplified = simplify.locally(stmt.value, derivative, names.touched)
                if value is not stmt.value:
                    stmt.value = value
                    names.touched(stmt)
                rewrites += replaced + simplified
            elif isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.BinOp):
                number = simplify.folded(stmt.value)
                if number is not None:
                    stmt.value = number
                    names.touched(stmt)
                    rewrites += 1
            assigned = names.of(stmt).binds
        copies.forget(assigned)
        written |= assigned
        if not blocks and isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and _is_atom(stmt.value) and \
                _atom_name(stmt.value) != stmt.targets[0].id:
            copies.add(stmt.targets[0].id, stmt.value)
    return rewrites, written


class _Copies:
    """The copies known at a point of a statement list: `known` maps a name
    to the atom it holds a copy of, and `readers` each name to the names
    holding a copy of it, so that an assignment forgets what it makes stale
    without a look at every other copy (that look made the pass quadratic
    in the length of a straight run)."""

    def __init__(self):
        self.known = {}
        self.readers = {}

    def add(self, name, atom):
        self.known[name] = atom
        if isinstance(atom, gast.Name):
            self.readers.setdefault(atom.id, set()).add(name)

    def forget(self, assigned):
        """Drop the copies held in, and the copies of, the names `assigned`."""
        known = self.known
        for name in assigned:
            known.pop(name, None)
            for reader in self.readers.pop(name, ()):
                if _atom_name(known.get(reader)) == name:
                    del known[reader]


def _self_copy(stmt):
    """``x = x``, which propagation itself can produce."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name) \
        and stmt.value.id == stmt.targets[0].id


_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def _child_blocks(stmt):
    if stmt.__class__ in _SIMPLE:
        return ()
    return [getattr(stmt, f) for f in _BLOCK_FIELDS
            if isinstance(getattr(stmt, f, None), list)]


# the statements most of a derivative is made of, none with a block inside
_SIMPLE = frozenset((gast.Assign, gast.Expr, gast.Return))


def _header_writes(stmt):
    """The names a compound statement binds outside the blocks `_block`
    visits (a loop's target, a function's parameters, a handler's name)."""
    return writes([getattr(stmt, f) for f in stmt._fields
                   if f not in _BLOCK_FIELDS or not isinstance(getattr(stmt, f), list)])


def _is_atom(node):
    return isinstance(node, gast.Name) or (
        isinstance(node, gast.Constant) and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool))


def _atom_name(node):
    return node.id if isinstance(node, gast.Name) else None


def _replace_reads(stmt, known, touched):
    """Replace the reads of known copies in `stmt`'s value (in place, one
    walk, no visitor class), calling `touched` with each node changed;
    return how many."""
    if not known or is_push(stmt) or not isinstance(stmt, (gast.Assign, gast.Return, gast.Expr)) \
            or stmt.value is None:
        # a push saves the variable it names, to be restored into that same
        # variable: keeping the name keeps each save visibly paired
        return 0
    if _known_read(stmt.value, known):
        stmt.value = clone(known[stmt.value.id])
        touched(stmt)
        return 1
    replaced = 0
    todo = [stmt.value]
    while todo:
        node = todo.pop()
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for i, item in enumerate(value):
                    if _known_read(item, known):
                        value[i] = clone(known[item.id])
                        touched(node)
                        replaced += 1
                    elif isinstance(item, gast.AST):
                        todo.append(item)
            elif isinstance(value, gast.AST):
                if _known_read(value, known):
                    setattr(node, field, clone(known[value.id]))
                    touched(node)
                    replaced += 1
                else:
                    todo.append(value)
    return replaced


def _known_read(node, known):
    return type(node) is gast.Name and node.id in known and isinstance(node.ctx, gast.Load)
