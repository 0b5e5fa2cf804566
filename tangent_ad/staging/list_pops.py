"""An appended list's adjoint taken apart by a counter, not by slicing, in
a derivative specialized by ``specialize.py``.

The adjoint of ``items = appended(items, v)`` (a list built in a loop,
``items.append(v)`` or a comprehension) gives the last entry of the list's
adjoint to `v` and the rest to `items`::

    for i in reversed(range(n)):
        bt = bitems
        bitems = bitems[:-1]
        bv = bt[-1] * ...

Each slice copies the rest of the list: n steps copy n^2 / 2 entries (at
4,000 rows, 45 % of a list comprehension's gradient). Counting the slices
instead reads the same entries without copying, and slices once after
the loop::

    pops_bitems = 0
    for i in reversed(range(n)):
        pops_bitems = pops_bitems - 1
        bv = bitems[pops_bitems] * ...
    if pops_bitems:  # (only when bitems is read after the loop)
        bitems = bitems[:pops_bitems]

Nothing is mutated, so no other name that holds the list can tell. The
rewrite needs, in the loop (its ``else`` and anything nested included):
``bt = bitems`` right before ``bitems = bitems[:-1]``, and no other
mention of `bitems`; `bt` read only as ``bt[-1]``, after those two
statements, and nowhere outside the loop; no nested function or lambda.
"""
import gast

from tangent_ad.nodes import assign, blocks, const, name, walk

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


def run(tree):
    """Return the FunctionDef `tree` with its appended lists' adjoints taken
    apart by counters where that reads the same (module docstring)."""
    names = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    _rewrite_blocks(tree, names, tree)
    return tree


def _rewrite_blocks(node, names, tree):
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        i = 0
        while i < len(block):
            stmt = block[i]
            if isinstance(stmt, (gast.For, gast.While)):
                found = _pattern(stmt, tree)
                if found is not None:  # (then the same loop again: another list, a nested loop)
                    read_after = _loads(walk(tree), found[2]) > _loads(walk(stmt), found[2])
                    before, after = _rewritten(stmt, found, names)
                    block[i:i + 1] = [before, stmt] + ([after] if read_after else [])
                    i += 1
                    continue
            if not isinstance(stmt, _NESTED):
                _rewrite_blocks(stmt, names, tree)
            i += 1


def _pattern(loop, tree):
    """(the two statements, the list's adjoint, the alias) of the first
    slicing in `loop` that a counter can replace, or None."""
    inside = list(walk(loop))
    if any(isinstance(n, _NESTED) for n in inside):
        return None
    for block in blocks(loop):
        for first, second in zip(block, block[1:]):
            alias, source = _copy(first), _sliced(second)
            if alias is None or source is None or alias[1] != source:
                continue
            bt, bl = alias
            if _mentions(inside, bl) == 3 and _only_last_items(loop, tree, bt, first, second):
                return first, second, bl, bt
    return None


def _copy(stmt):
    """(target, source) of ``target = source``, both names."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name):
        return stmt.targets[0].id, stmt.value.id
    return None


def _sliced(stmt):
    """`x` of ``x = x[:-1]``."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Subscript)):
        return None
    value, part = stmt.value.value, stmt.value.slice
    if not (isinstance(value, gast.Name) and value.id == stmt.targets[0].id and
            isinstance(part, gast.Slice) and part.lower is None and part.step is None and
            _minus_one(part.upper)):
        return None
    return value.id


def _minus_one(node):
    return isinstance(node, gast.Constant) and node.value == -1 or \
        isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
        isinstance(node.operand, gast.Constant) and node.operand.value == 1


def _loads(nodes, identifier):
    return sum(1 for n in nodes if isinstance(n, gast.Name) and n.id == identifier
               and isinstance(n.ctx, gast.Load))


def _mentions(nodes, identifier):
    return sum(1 for n in nodes if isinstance(n, gast.Name) and n.id == identifier)


def _only_last_items(loop, tree, bt, first, second):
    """Whether `bt` is bound only by `first`, read only as ``bt[-1]``,
    only after `second` in the loop, and not at all outside it."""
    if _mentions(walk(tree), bt) != _mentions(walk(loop), bt):
        return False
    reads, seen_second = 0, False
    for stmt in _statements_in_order(loop):
        if stmt is second or stmt is first:
            seen_second = seen_second or stmt is second
            continue
        compound = isinstance(stmt, (gast.For, gast.While, gast.If))
        for n in _header(stmt) if compound else walk(stmt):
            if _last_item(n, bt):
                if not seen_second:
                    return False
                reads += 1
    return _mentions(walk(loop), bt) == 1 + reads  # its binding in `first`, and those reads


def _statements_in_order(node):
    for field in ("body", "orelse", "finalbody"):
        for stmt in getattr(node, field, None) or ():
            yield stmt
            if isinstance(stmt, (gast.For, gast.While, gast.If)):
                yield from _statements_in_order(stmt)


def _header(stmt):
    parts = [stmt.test] if isinstance(stmt, (gast.While, gast.If)) else [stmt.target, stmt.iter]
    for part in parts:
        yield from walk(part)


def _last_item(node, bt):
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
        node.value.id == bt and _minus_one(node.slice)


def _rewritten(loop, found, names):
    """(the counter's binding, `loop` rewritten in place, the slice after it)."""
    first, second, bl, bt = found
    counter = f"pops_{bl}"
    k = 2
    while counter in names:
        counter, k = f"pops_{bl}{k}", k + 1
    names.add(counter)
    for block in blocks(loop):
        for i, stmt in enumerate(block):
            if stmt is second:
                block[i] = assign(counter, gast.BinOp(left=name(counter), op=gast.Sub(),
                                                      right=const(1)))
        block[:] = [s for s in block if s is not first]
    _ReadsOfLast(bt, bl, counter).visit(loop)
    after = gast.If(test=name(counter), body=[assign(bl, gast.Subscript(
        value=name(bl), slice=gast.Slice(lower=None, upper=name(counter), step=None),
        ctx=gast.Load()))], orelse=[])
    return assign(counter, const(0)), after


class _ReadsOfLast(gast.NodeTransformer):
    """``bt[-1]`` -> ``bl[counter]``."""

    def __init__(self, bt, bl, counter):
        self.bt, self.bl, self.counter = bt, bl, counter

    def visit_Subscript(self, node):
        if _last_item(node, self.bt):
            return gast.Subscript(value=name(self.bl), slice=name(self.counter),
                                  ctx=gast.Load())
        return self.generic_visit(node)
