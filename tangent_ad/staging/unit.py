"""The pullbacks a derivative calls, specialized with it.

The derivative of a function that calls other Python functions is a
*unit*: the derivative, then a pullback per function called,
``pullback_f(args) -> (result, back)``, where ``back(bresult)`` returns the
adjoints of ``f``'s ``wrt`` arguments. Staging specializes the pullbacks
too: one *copy* per callee and argument kinds met at a call site.

A copy's facts are the kind of its result and the kinds of what its
``back`` returns. They are solved together with the kinds of every
function of the unit, from the bottom up to a common fixed point, since a
recursive pullback's result is built from its own results. A copy also
assumes that its ``back`` receives an adjoint of its result's kind: every
call of that ``back`` is checked, and a copy whose ``back`` may get
anything else (or escapes, rather than being called) is dropped; its
callers keep the general pullback.
"""
import gast

from tangent_ad import saves
from tangent_ad.nodes import walk
from tangent_ad.staging.bindings import dotted
from tangent_ad.staging.kind_values import _join
from tangent_ad.staging.kinds import BOTTOM, Kinds, Outline

OUTPUT_ADJOINT = "bresult"  # the parameter of a pullback's back
MAX_COPIES = 16
MAX_ROUNDS = 20


class _Copy:
    def __init__(self, name):
        self.name = name
        self.result = BOTTOM  # the kind of the pullback's result
        self.back = BOTTOM    # the kinds back returns: a tuple, or one kind


class Unit:
    """The pullbacks `functions` ({name: FunctionDef}) of one unit; `fresh`
    gives each copy a name of its own; `namespace` holds the globals their
    calls refer to (``callees.py``)."""

    def __init__(self, functions, fresh, global_kinds=None, namespace=None):
        self.functions = functions
        self.fresh = fresh
        self.namespace = namespace
        self.global_kinds = global_kinds or {}  # data globals' kinds, guarded by staging
        self.copies = {}   # (callee, argument kinds) -> _Copy
        self.origin = {}   # copy name -> callee
        self.invalid = set()
        self.frozen = False
        self.changed = False
        self.outlines = {}  # id of a tree -> (tree, its Outline): solve's trees do not change

    def is_pullback(self, name):
        return name in self.functions or name in self.origin

    def key(self, kinds, call):
        """(callee, argument kinds) of a pullback call; BOTTOM or None."""
        if call.keywords or any(isinstance(a, gast.Starred) for a in call.args):
            return None
        args = tuple(kinds.of(a) for a in call.args)
        if BOTTOM in args:
            return BOTTOM
        name = dotted(call.func)
        return self.origin.get(name, name), args

    def copy(self, key):
        """The copy for `key`, made if new (before `freeze`); None if invalid."""
        if key in self.invalid:
            return None
        if key not in self.copies:
            if self.frozen or len(self.copies) >= MAX_COPIES:
                return None
            name = self.fresh(key[0])
            self.copies[key] = _Copy(name)
            self.origin[name] = key[0]
            self.changed = True
        return self.copies[key]

    def part(self, kinds, part):
        """The kind of a target of a pullback call (the result, index 0) or
        of a call of a back (its adjoints), called by `Kinds.of`."""
        name = dotted(part.call.func)
        if self.is_pullback(name):
            key = self.key(kinds, part.call)
            if key in (BOTTOM, None):
                return key
            copy = self.copy(key)
            return copy.result if copy is not None and part.index == 0 else None
        key = self.key(kinds, kinds.backs[name]) if kinds.backs.get(name) else None
        if key in (BOTTOM, None):
            return key
        copy = self.copy(key)
        if copy is None or not self._receives(kinds, part.call, copy, key):
            return None
        if copy.back == BOTTOM:
            return BOTTOM
        if part.index is None:
            return None if isinstance(copy.back, tuple) else copy.back
        if isinstance(copy.back, tuple) and len(copy.back) == part.count:
            return copy.back[part.index]
        return None

    def _receives(self, kinds, call, copy, key):
        """Whether a call of `copy`'s back passes an adjoint of its result's
        kind; if it may not, the copy is dropped."""
        if not kinds.settled:
            return True
        arg = kinds.of(call.args[0]) if len(call.args) == 1 and not call.keywords else None
        if arg == BOTTOM or copy.result in (BOTTOM, None) or \
                arg is not None and _join(arg, copy.result) == copy.result:
            return True  # (a real scalar's copy takes a Python float too)
        self.drop(key)
        return False

    def drop(self, key):
        if key not in self.invalid:
            self.invalid.add(key)
            self.changed = True

    def params(self, key):
        """The kinds of the parameters of the copy for `key`, with its back's."""
        fdef = self.functions[key[0]]
        params = dict(zip([a.id for a in fdef.args.args], key[1]))
        params[OUTPUT_ADJOINT] = self.copies[key].result
        return params

    def kinds(self, key, tree=None):
        """The Kinds of the copy for `key` (of `tree`, its rewritten form)."""
        if tree is not None:
            return Kinds(tree, self.params(key), self, given=(OUTPUT_ADJOINT,))
        tree = self.functions[key[0]]
        return Kinds(tree, self.params(key), self, given=(OUTPUT_ADJOINT,),
                     outline=self._outline(tree, (OUTPUT_ADJOINT,)))

    def _outline(self, tree, given=()):
        if id(tree) not in self.outlines:
            self.outlines[id(tree)] = (tree, Outline(tree, given, self.namespace))
        return self.outlines[id(tree)][1]

    def solve(self, root, params):
        """Solve the facts of the copies reachable from `root` (the
        derivative, with parameter kinds `params`), then freeze the unit."""
        for _ in range(MAX_ROUNDS):
            self.changed = False
            self._check(Kinds(root, params, self, outline=self._outline(root)))
            for key, copy in list(self.copies.items()):
                if key in self.invalid:
                    continue
                kinds = self.kinds(key)
                self._check(kinds)
                result, back = _returns(self.functions[key[0]], kinds)
                if copy.result == BOTTOM:
                    back = BOTTOM  # its back ran on an adjoint of no kind yet
                if (result, back) != (copy.result, copy.back):
                    copy.result, copy.back, self.changed = result, back, True
            if not self.changed:
                break
        else:
            self.invalid.update(self.copies)
        self.frozen = True

    def valid(self):
        """{key: copy} of the copies that staging writes."""
        return {k: c for k, c in self.copies.items() if k not in self.invalid}

    def _check(self, kinds):
        """Drop the copies whose back is read other than by a call (or by
        the save of a loop, ``stack.append(back_v)``, which a pop restores
        for the call)."""
        called = {id(n.func) for n in kinds.nodes if isinstance(n, gast.Call)}
        called |= {id(n.value.args[0]) for n in kinds.nodes if saves.is_save(n)}
        called |= {id(n.left) for n in kinds.nodes if _is_none_test(n)}
        read = {n.id for n in kinds.nodes if isinstance(n, gast.Name) and
                isinstance(n.ctx, gast.Load) and id(n) not in called}
        for name, call in kinds.backs.items():
            key = self.key(kinds, call) if call is not None else None
            if name in read and key not in (BOTTOM, None):
                self.drop(key)


def _is_none_test(node):
    """``back is None`` or ``back is not None`` (``ad/zero_backs.py``)."""
    return isinstance(node, gast.Compare) and len(node.ops) == 1 and \
        isinstance(node.ops[0], (gast.Is, gast.IsNot)) and \
        isinstance(node.comparators[0], gast.Constant) and node.comparators[0].value is None


def _returns(fdef, kinds):
    """(kind of the result, kinds of what back returns) of a pullback; the
    result's kind is that of every return's (``return result, None`` on a
    way with no back, ``ad/zero_backs.py``, besides the last)."""
    last = fdef.body[-1]
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Tuple)
            and len(last.value.elts) == 2 and isinstance(last.value.elts[1], gast.Name)):
        return None, None
    back_name = last.value.elts[1].id
    result = BOTTOM
    for ret in _own_returns(fdef.body):
        if not (isinstance(ret.value, gast.Tuple) and len(ret.value.elts) == 2):
            return None, None
        result = _join(result, kinds.of(ret.value.elts[0]))
    backs = [s for s in fdef.body if isinstance(s, gast.FunctionDef) and s.name == back_name]
    returned = BOTTOM
    for node in walk(backs[0]) if len(backs) == 1 else []:
        if isinstance(node, gast.Return) and node.value is not None:
            value = node.value
            kind = tuple(kinds.of(e) for e in value.elts) \
                if isinstance(value, gast.Tuple) else kinds.of(value)
            returned = kind if returned in (BOTTOM, kind) else None
    return result, (None if returned == BOTTOM and len(backs) != 1 else returned)


def _own_returns(stmts):
    """The return statements among `stmts`, outside nested functions."""
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            yield stmt
        elif not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                yield from _own_returns(getattr(stmt, field, None) or [])
