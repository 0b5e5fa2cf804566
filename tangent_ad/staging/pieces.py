"""The adjoints of concatenations and splits, written with the kinds known.

Two rewrites of a specialized copy (``specialize.py`` runs this pass):

* ``unconcatenate(g, [a, b], axis)``, the adjoint of
  ``np.concatenate([a, b], axis)``, -> ``[g[0:16], g[16:32]]`` for arrays
  of known kinds of g's rank and dtype: the slices the helper would cut;
* the adjoint of ``cand, gate = np.split(z, [n])``, built item by item::

      bt = unindex(bgate, t, 1)
      bt = accumulate_at(bt, bcand, t, 0)
      bz = np.concatenate(bt)

  -> ``bz = np.concatenate([bcand, bgate])`` (the concatenation may be part
  of a larger expression) when every piece gets exactly
  one adjoint of its own kind (``Kinds.pieces``), so no zeros are made.

A piece picked from such a list, ``[g[0:16], g[16:32]][0]``, is the one
slice ``g[0:16]`` (slicing a name by constants has no effect to keep).
"""
import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.nodes import clone, const, is_comment, name, walk
from tangent_ad.staging import fills
from tangent_ad.staging.kinds import BOTTOM
from tangent_ad.visitors import Transformer


def run(tree, kinds, bindings):
    """Rewrite `tree` in place for `kinds` (``kinds.Kinds``); `bindings`:
    ``fills.binding_counts(tree)`` (the split adjoints are joined after the
    other rewrites, which add reads of g). Returns how many rewrites it made."""
    counts = bindings[0]
    rewrites = 0
    for node in list(walk(tree)):
        func = kinds.callee(node.value) if isinstance(node, gast.Assign) else None
        new = _slices(node.value, kinds) if func is runtime.unconcatenate else \
            _split(node.value, kinds) if func is np.split else None
        if new is not None:
            node.value, rewrites = new, rewrites + 1
    picker = _Picked(kinds, bindings)
    picker.visit(tree)
    rewrites += picker.rewrites
    loads = {}  # name -> how many times the tree reads it
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    for node in list(walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                joined = _joined(block, kinds, counts, loads)
                rewrites += joined != block
                setattr(node, field, joined)
    return rewrites


def _slices(call, kinds):
    """``unconcatenate(g, parts, axis)`` as the list of slices of g it
    returns, or None."""
    args = call.args
    if call.keywords or not 2 <= len(args) <= 3 or not isinstance(args[0], gast.Name):
        return None
    axis = 0 if len(args) == 2 else (args[2].value if isinstance(args[2], gast.Constant)
                                     else None)
    parts = kinds._through(args[1])
    g = kinds.of(args[0])
    if type(axis) is not int or not isinstance(parts, (gast.List, gast.Tuple)) or \
            g in (None, BOTTOM) or g.box != "array" or not -len(g.shape) <= axis < len(g.shape):
        return None
    axis %= len(g.shape)
    found = [kinds.of(p) for p in parts.elts]
    if any(k in (None, BOTTOM) or k.box != "array" or len(k.shape) != len(g.shape) or
           k.dtype != g.dtype for k in found) or \
            sum(k.shape[axis] for k in found) != g.shape[axis]:
        return None
    pieces, start = [], 0
    for k in found:
        pieces.append(_cut(args[0].id, axis, start, start + k.shape[axis]))
        start += k.shape[axis]
    return gast.List(elts=pieces, ctx=gast.Load())


class _Picked(Transformer):
    """``[g[0:16], g[16:32]][0]`` -> ``g[0:16]``, the list written out or
    bound once to a name, outside loops, like each g it slices (so every g
    still has the value it was sliced at)."""

    def __init__(self, kinds, bindings):
        self.kinds, self.bindings = kinds, bindings
        self.rewrites = 0

    def visit_Subscript(self, node):
        self.generic_visit(node)
        items, index = node.value, node.slice
        if isinstance(items, gast.Name) and fills.bound_once(items, *self.bindings):
            items = self.kinds._through(items, depth=1)
        if not (isinstance(items, (gast.List, gast.Tuple)) and isinstance(index, gast.Constant)
                and type(index.value) is int and -len(items.elts) <= index.value < len(items.elts)
                and all(_is_cut(e) for e in items.elts)):
            return node
        picked = items.elts[index.value]
        if items is not node.value and not fills.bound_once(picked.value, *self.bindings):
            return node
        self.rewrites += 1
        return clone(picked)


def _is_cut(node):
    """``g[lo:hi]`` or ``g[:, lo:hi]``: a name sliced by constants."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)):
        return False
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    return all(isinstance(p, gast.Slice) and p.step is None and
               all(b is None or isinstance(b, gast.Constant) and type(b.value) is int
                   for b in (p.lower, p.upper)) for p in parts)


def _split(call, kinds):
    """``np.split(x, [n])`` as the list ``[x[0:n], x[n:32]]`` of the same
    views, for an array `x` of a known kind, sections that the kinds fix
    (increasing, within x) and a constant axis; None otherwise."""
    args, options = call.args, {k.arg: k.value for k in call.keywords}
    if len(args) != 2 or set(options) - {"axis"}:
        return None
    axis = options.get("axis", const(0))
    x = kinds.of(args[0])
    if not (isinstance(args[0], gast.Name) and isinstance(axis, gast.Constant) and
            type(axis.value) is int) or x in (None, BOTTOM) or x.box != "array" or \
            not -len(x.shape) <= axis.value < len(x.shape):
        return None
    axis = axis.value % len(x.shape)
    length, sections = x.shape[axis], kinds._through(args[1])
    if isinstance(sections, (gast.List, gast.Tuple)):
        cuts = [kinds._static_int(e) for e in sections.elts]
        if None in cuts or cuts != sorted(cuts) or any(not 0 <= c <= length for c in cuts):
            return None
    else:
        count = kinds._static_int(sections)
        if not count or count < 0 or length % count:
            return None  # np.split raises for unequal parts: it still does
        cuts = list(range(length // count, length, length // count))
    bounds = [0] + cuts + [length]
    return gast.List(elts=[_cut(args[0].id, axis, lo, hi)
                           for lo, hi in zip(bounds, bounds[1:])], ctx=gast.Load())


def _cut(array, axis, lo, hi):
    """``array[lo:hi]``, or ``array[:, lo:hi]``... along `axis`."""
    index = [gast.Slice(lower=None, upper=None, step=None)] * axis + \
        [gast.Slice(lower=const(lo), upper=const(hi), step=None)]
    index = index[0] if len(index) == 1 else gast.Tuple(elts=index, ctx=gast.Load())
    return gast.Subscript(value=name(array), slice=index, ctx=gast.Load())


def _joined(block, kinds, counts, loads):
    """`block` with each item-by-item split adjoint joined in one call."""
    out, i = [], 0
    while i < len(block):
        found = _split_adjoint(block, i, kinds, counts, loads)
        if found is None:
            out.append(block[i])
            i += 1
            continue
        end, joined = found
        out.append(joined)
        i = end + 1
    return out


def _split_adjoint(block, start, kinds, counts, loads):
    """(index of the concatenation, its rewritten statement) for the
    pattern of the module docstring starting at ``block[start]``; None."""
    first = block[start]
    if not _binds(first, runtime.unindex, 3, kinds):
        return None
    listed = first.targets[0].id
    items = kinds.pieces(first.targets[0])
    if not isinstance(items, tuple):
        return None
    adjoints, bindings, i = {}, 0, start
    while i < len(block):
        stmt = block[i]
        if is_comment(stmt):
            i += 1
            continue
        if _binds(stmt, runtime.unindex if i == start else runtime.accumulate_at,
                  3 if i == start else 4, kinds) and stmt.targets[0].id == listed:
            g, index = stmt.value.args[-3], stmt.value.args[-1]
            position = kinds._static_int(index)
            if position is None or any(isinstance(n, gast.Name) and n.id == listed
                                       for n in walk(g)):
                return None
            position %= len(items)
            if position in adjoints:
                return None
            adjoints[position] = g
            bindings += 1
            i += 1
            continue
        break
    if i == len(block) or len(adjoints) != len(items) or counts.get(listed) != bindings:
        return None
    user = block[i]  # the statement that concatenates the list: its only reader
    reads = [n for n in walk(user) if isinstance(n, gast.Name) and n.id == listed]
    joins = [n for n in walk(user) if isinstance(n, gast.Call) and
             kinds.callee(n) is np.concatenate and n.args and n.args[0] in reads]
    # read nowhere else in the tree: by the accumulate_at lines and this one
    if len(reads) != 1 or len(joins) != 1 or loads.get(listed) != bindings:
        return None
    joins[0].args[0] = gast.List(elts=[adjoints[p] for p in range(len(items))],
                                 ctx=gast.Load())
    return i, user


def _binds(stmt, func, count, kinds):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) and \
        kinds.callee(stmt.value) is func and len(stmt.value.args) == count and \
        not stmt.value.keywords
