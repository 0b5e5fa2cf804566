"""Desugaring helpers of the normalize stage, for Python's richer statements.

Each turns one construct into the core form with simpler statements:
a nested def or lambda into its lifted form, a comprehension into a loop
that appends, ``y[i] = v`` into ``y = updated(y, i, v)``, unpacking into
indexing, ``for x in X`` into an index loop (a call's ``*args`` are
``call_arguments.py``'s). They are methods of the normalizer (``Desugar``
is mixed into it) because they emit through it and use its current names.
"""
import copy
import inspect
import operator

import gast
import numpy as np

from tangent_ad.nodes import assign, call, const, name, walk
from tangent_ad.runtime.structures import appended, iterated, updated
from tangent_ad.visitors import Transformer


class Desugar:
    """Mixed into normalize.Normalizer; see the module docstring."""

    def local_function(self, lifted):
        """Emit a nested def (or lambda) in its lifted form, whose captured
        variables are parameters; it runs as plain Python in the primal."""
        self.emit(copy.deepcopy(lifted.tree))
        self.version[lifted.__name__] = lifted.__name__
        return name(lifted.__name__)

    def comprehension(self, node):
        """``[e for x in xs if c]`` -> a loop appending to a new list (a dict
        comprehension stores items). Its variables get fresh names, as they
        are local to the comprehension in Python."""
        items = self.ctx.namer.fresh("items")
        self.mutable.add(items)
        empty = gast.List(elts=[], ctx=gast.Load()) if isinstance(node, gast.ListComp) \
            else gast.Dict(keys=[], values=[])
        self.emit(assign(items, empty))
        self.version[items] = items
        renames = {}
        for gen in node.generators:
            for target in walk(gen.target):
                if isinstance(target, gast.Name):
                    renames[target.id] = self.ctx.namer.fresh(target.id)
                    self.mutable.add(renames[target.id])
        rename = _Renamer(renames)
        if isinstance(node, gast.ListComp):
            inner = gast.Expr(value=gast.Call(
                func=gast.Attribute(value=name(items), attr="append", ctx=gast.Load()),
                args=[rename.visit(node.elt)], keywords=[]))
        else:
            inner = gast.Assign(targets=[gast.Subscript(
                value=name(items), slice=rename.visit(node.key), ctx=gast.Store())],
                value=rename.visit(node.value), type_comment=None)
        loop = inner
        for gen in reversed(node.generators):
            for cond in reversed(gen.ifs):
                loop = gast.If(test=rename.visit(cond), body=[loop], orelse=[])
            loop = gast.For(target=rename.visit(gen.target), iter=rename.visit(gen.iter),
                            body=[loop], orelse=[], type_comment=None)
        for sub in walk(loop):
            gast.copy_location(sub, node)
            sub.end_lineno, sub.end_col_offset = node.end_lineno, node.end_col_offset
        self.statement(loop)
        return name(items)

    def store_item(self, target, value):
        """``y[i] = v`` -> ``y = updated(y, i, v)``: a copy with the item
        replaced, so the array before the write can still be restored."""
        array = self.atom(target.value)
        index = _index_value(self.index(target.slice), self)
        update = self._resolved(call("updated", array, index, value), updated)
        self.bind(target.value.id, update)

    def unpack(self, target, value, core=False):
        """``a, b = v`` -> ``t = v; a = t[0]; b = t[1]`` (nested as needed).
        `value` is a user expression, or a core operation when nested.
        A literal of as many items, ``x, v = 1.0, 0.0`` (or a callee's
        ``return x + dt * v, v`` written out), binds each name to its item,
        every item read before any name is bound: no tuple is built, and
        the adjoints stay numbers and arrays, not a tuple's."""
        if not core and _literal_pairs(target, value):
            targets = {e.id for e in target.elts} | \
                {self.version.get(e.id) for e in target.elts}
            parts = []
            for element in value.elts:
                part = self.atom(element)
                if isinstance(part, gast.Name) and part.id in targets:
                    temp = self.ctx.namer.fresh("t")  # `x, y = y, x`: the old y
                    self.emit(assign(temp, part))
                    part = name(temp)
                parts.append(part)
            for element, part in zip(target.elts, parts):
                self.bind(element.id, part)
            return
        whole = self.operation(value) if not core else value
        if not isinstance(whole, gast.Name) or any(
                n.id == whole.id for n in walk(target) if isinstance(n, gast.Name)):
            temp = self.ctx.namer.fresh("t")  # also `x, y = x`: read before rebinding
            self.emit(assign(temp, whole))
            whole = name(temp)
        for i, element in enumerate(target.elts):
            part = self._resolved(gast.Subscript(value=name(whole.id), slice=const(i),
                                                 ctx=gast.Load()), operator.getitem)
            if isinstance(element, (gast.Tuple, gast.List)):
                self.unpack(element, part, core=True)
            else:
                self.bind(element.id, part)

    def loop_else_flag(self, loop):
        """For a loop with an ``else`` clause and a ``break`` of its own, a
        new flag, set to False before the loop (each of its breaks sets it
        to True); None otherwise."""
        if not loop.orelse or not has_break(loop.body):
            return None
        flag = self.ctx.namer.fresh("broke")
        self.mutable.add(flag)
        self.version[flag] = flag
        self.emit(assign(flag, gast.Constant(value=False, kind=None)))
        return flag

    def loop_else(self, loop, flag):
        """The ``else`` clause of `loop`, after it: it runs unless a break
        left the loop (``if not broke: ...``; an early return inside the
        loop skips it too, as the exits stage returns right after the loop)."""
        if not loop.orelse:
            return
        body = self.block(loop.orelse)
        if flag is None:
            self.body.extend(body)
            return
        self.emit(gast.If(test=gast.UnaryOp(op=gast.Not(), operand=name(flag)),
                          body=body or [gast.Pass()], orelse=[]))

    def chained_assignment(self, stmt):
        """``a = b = v`` -> ``t = v; a = t; b = t``: `v` is evaluated once,
        then assigned to the targets from left to right, as Python does."""
        value = stmt.value
        if not isinstance(value, gast.Constant):
            temp = self.ctx.namer.fresh("t")
            self.assign_to(temp, value)
            value = name(temp)
        for target in stmt.targets:
            self.statement(gast.Assign(targets=[target], value=copy.copy(value),
                                       type_comment=None))

    def note_kind(self, new, value):
        """Remember whether the name `new`, just bound to the core operation
        `value`, statically holds a dict ("dict"), something else ("other":
        a list, tuple, array or number), or either (not noted). Only names
        assigned once are noted; a loop over a name uses it (`iterable`)."""
        if new in self.mutable:
            return
        kind = _kind(value, self.kinds, self.ctx.resolved)
        if kind is not None:
            self.kinds[new] = kind

    def iterable(self, sequence):
        """The sequence that ``for x in <sequence>`` indexes: the name itself
        when it is statically not a dict, else a view of it, ``t =
        iterated(sequence)``: a dict's keys (they carry no derivative), or
        the sequence itself, decided when it runs."""
        if self.kinds.get(sequence.id) == "other":
            return sequence
        view = self.ctx.namer.fresh("t")
        self.emit(assign(view, self._resolved(call("iterated", sequence), iterated)))
        self.version[view] = view
        return name(view)

    def indexed_loop(self, target, iterable, breaks=False):
        """``for x in X`` -> ``for i in range(len(X)): x = X[i]`` (and the
        same for ``enumerate(X)`` and ``zip(X, Y)``), so that each element
        read is an indexing whose adjoint flows back into ``X``. An `X` not
        known to be other than a dict is read through ``t = iterated(X)``
        (a dict's keys, as a list)."""
        func = self.ctx.resolved.get(iterable)
        listed = isinstance(iterable, gast.Call) and inspect.isgeneratorfunction(func) \
            and not breaks
        if listed:  # read to the end: the list of its items (frontend/generators.py)
            iterable = self._resolved(gast.Call(func=name("list"), args=[iterable],
                                                keywords=[]), list)
            self.ctx.namespace.setdefault("list", list)
        start = None  # enumerate's start, when given
        if isinstance(iterable, gast.Name) and iterable not in self.ctx.resolved or \
                listed or _computed_sequence(iterable, self.ctx.resolved) or \
                iterable in self.ctx.facts.get("fields", ()):  # `for layer in self.layers`
            sequences, index, targets = [iterable], None, [target]
        elif func is enumerate and isinstance(target, gast.Tuple) and len(target.elts) == 2 \
                and _enumerate_start(iterable) is not False:
            sequences, index, targets = iterable.args[:1], target.elts[0], target.elts[1:]
            start = _enumerate_start(iterable)
        elif func is zip and isinstance(target, gast.Tuple) and \
                len(target.elts) == len(iterable.args):
            sequences, index, targets = iterable.args, None, target.elts
        else:
            return self.header(target), self.header(iterable), []
        if not all(_unpacks(t) for t in targets) or \
                any(isinstance(s, gast.Name) and s in self.ctx.resolved for s in sequences):
            return self.header(target), self.header(iterable), []
        if start is not None and not isinstance(index, gast.Name):
            return self.header(target), self.header(iterable), []
        written = [isinstance(s, (gast.List, gast.Tuple, gast.ListComp)) for s in sequences]
        sequences = [self.named(self.atom(s)) for s in sequences]
        for sequence, is_written in zip(sequences, written):
            if is_written and sequence.id not in self.mutable:
                self.kinds[sequence.id] = "other"  # not a dict: no iterated() view
        sequences = [self.iterable(s) for s in sequences]
        reads_ = []
        if start is not None:  # enumerate(xs, k): the user's index is i + k
            start = self.atom(start)
            if isinstance(start, gast.Name):  # evaluated once, though the body rebinds it
                first = self.ctx.namer.fresh("start")
                self.emit(assign(first, start))
                start = name(first)
            counted = index.id
            index = self.ctx.namer.fresh("i")
            self.version[counted] = counted
            reads_.append(assign(counted, self._resolved(
                gast.BinOp(left=name(index), op=gast.Add(), right=start), operator.add)))
            self.ctx.origin[reads_[-1]] = self.origin
        else:
            index = index.id if index is not None else self.ctx.namer.fresh("i")
        self.version[index] = index
        lengths = [self._resolved(call("len", name(s.id)), len) for s in sequences]
        count = lengths[0] if len(lengths) == 1 else self._resolved(call("min", *lengths), min)
        for seq, tgt in zip(sequences, targets):
            item = gast.Subscript(value=name(seq.id), slice=name(index), ctx=gast.Load())
            self.ctx.resolved[item] = operator.getitem
            if isinstance(tgt, gast.Name):
                reads_.append(assign(tgt.id, item))
                self.ctx.origin[reads_[-1]] = self.origin
                continue
            outer, self.body = self.body, []  # `for W, b in params`: unpack the item
            for sub in walk(tgt):
                if isinstance(sub, gast.Name):
                    self.mutable.add(sub.id)
            self.unpack(tgt, item, core=True)
            reads_.extend(self.body)
            self.body = outer
        return name(index, store=True), self._resolved(call("range", count), range), reads_

    def named(self, atom):
        """`atom` as a name: a constant (``enumerate("ab")``, a loop over a
        string or a tuple written in the code) is bound to a new temporary."""
        if isinstance(atom, gast.Name):
            return atom
        temp = self.ctx.namer.fresh("t")
        self.emit(assign(temp, atom))
        self.version[temp] = temp
        self.note_kind(temp, atom)
        return name(temp)


def _computed_sequence(node, resolved):
    """A loop's sequence written as a list, tuple or comprehension with
    something to compute in it, an item or slice of a value, or what a
    call of the user's function or of NumPy returns (``for W, b in [(W1,
    b1), (W2, b2)]``, ``for x in xs[1:]``, ``for W, b in layers(params)``,
    ``for part in np.split(x, 3)``): it is evaluated once into a temporary
    and indexed, like a named sequence. Other calls (``map``, ``iter``, a
    generator) give iterators, which are not indexed."""
    if isinstance(node, (gast.List, gast.Tuple)):
        return not all(isinstance(e, gast.Constant) for e in node.elts)
    if isinstance(node, gast.ListComp):
        return True
    if isinstance(node, gast.Call):
        func = resolved.get(node)
        return (inspect.isfunction(func) and not inspect.isgeneratorfunction(func)
                and not getattr(func, "__module__", "").startswith("tangent_ad")) or \
            getattr(func, "__module__", None) in _ARRAY_MODULES
    return isinstance(node, gast.Subscript) and node.value not in resolved


_ARRAY_MODULES = ("numpy", "numpy.linalg", "numpy.fft")  # where NumPy's public functions say they are


def _literal_pairs(target, value):
    """Whether ``target = value`` pairs names with the items of a literal
    one to one (``a, b = x, 2.0``; no starred items, no nested targets)."""
    return isinstance(target, (gast.Tuple, gast.List)) and \
        isinstance(value, (gast.Tuple, gast.List)) and len(target.elts) == len(value.elts) \
        and all(isinstance(e, gast.Name) for e in target.elts) and \
        not any(isinstance(e, gast.Starred) for e in value.elts)


def _unpacks(target):
    """A name, or a (nested) tuple or list of names."""
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, (gast.Tuple, gast.List)) and all(_unpacks(e) for e in target.elts)


def has_break(stmts):
    """Whether `stmts` (a loop body) hold a ``break`` of their own loop."""
    for stmt in stmts:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (has_break(stmt.body) or has_break(stmt.orelse)):
            return True
        if isinstance(stmt, gast.With) and has_break(stmt.body):
            return True
    return False


def _kind(value, kinds, resolved):
    """"dict", "other" or None (either): what the core operation `value`
    gives, as far as is known before it runs (see Desugar.note_kind)."""
    if isinstance(value, gast.Dict):
        return "dict"
    if isinstance(value, (gast.List, gast.Tuple, gast.Constant)):
        return "other"
    if isinstance(value, gast.Name):
        return kinds.get(value.id)
    func = resolved.get(value)
    if isinstance(value, gast.Call) and func is updated and value.args \
            and isinstance(value.args[0], gast.Name):
        return kinds.get(value.args[0].id)
    if isinstance(value, gast.Call) and (func is appended or _is_numpy(func)):
        return "other"
    if isinstance(value, (gast.BinOp, gast.UnaryOp)) and not isinstance(
            getattr(value, "op", None), gast.BitOr):  # `d1 | d2` is a dict
        return "other"
    return None


def _is_numpy(func):
    """Whether `func` is a NumPy function (its results are never dicts)."""
    module = getattr(func, "__module__", None) or ""
    return isinstance(func, np.ufunc) or module == "numpy" or module.startswith("numpy.")


def _enumerate_start(node):
    """The start of the call ``enumerate(xs)`` / ``enumerate(xs, k)`` /
    ``enumerate(xs, start=k)``: None for the first, the expression for the
    others, False for any other form of call."""
    keywords = {k.arg: k.value for k in node.keywords}
    if len(node.args) == 1 and not keywords:
        return None
    if len(node.args) == 2 and not keywords:
        return node.args[1]
    if len(node.args) == 1 and set(keywords) == {"start"}:
        return keywords["start"]
    return False


def _index_value(index, normalizer):
    """An index as a value to pass to a function: ``1:3`` becomes
    ``slice(1, 3, None)``."""
    if isinstance(index, gast.Slice):
        parts = [getattr(index, p) or const(None) for p in ("lower", "upper", "step")]
        return normalizer._resolved(call("slice", *parts), slice)
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_index_value(e, normalizer) for e in index.elts],
                          ctx=gast.Load())
    return index


class _Renamer(Transformer):
    """Rename the local names in `renames` (comprehension variables)."""

    def __init__(self, renames):
        self.renames = renames

    def visit_Name(self, node):
        if node.id in self.renames:
            return gast.Name(id=self.renames[node.id], ctx=node.ctx,
                             annotation=None, type_comment=None)
        return node
