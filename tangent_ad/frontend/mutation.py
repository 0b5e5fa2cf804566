"""Validate: in-place writes whose effect on other names the derivative cannot see.

The front end reads a write into an array or list functionally: ``y[i] = v``
becomes ``y = updated(y, i, v)``, ``y += v`` becomes ``y = y + v`` and
``xs.append(v)`` becomes ``xs = appended(xs, v)``. That is exact while `y`
is the only way to reach its object. It is wrong when Python's in-place
write would also be seen through another name, so such writes are refused:

- into a module-level (or enclosing function's) variable: ``BUF[0] = x``,
  ``CACHE.append(x)`` (a later read of the global sees the write in Python);
- into a parameter of a function that is called from the differentiated
  one (``def normalize_(y): y /= np.sum(y)``), unless the call binds its
  result back to the name it passes (``y = normalize_(y)``, ``vx, vy =
  project(vx, vy)``) and nothing else sees the old object: the caller's
  array changes, which the derivative does not follow otherwise. Every
  caller in the unit checks its calls (``unit_writes``); the callee is then
  differentiated as if it wrote into a copy;
- into a name that may share its object with another one before the write:
  bound from another name, an item, a slice or view (``v = y[1:]``), a call
  that may return its argument; or shared by the write's target itself
  (``z = y`` or ``ys = [y]`` before ``y[0] *= 2``).

A write into a value the function made itself (``np.zeros(3)``,
``x.copy()``, ``np.array(...)``, arithmetic, a list display) that nothing
else refers to stays supported, as does a write into a parameter of the
requested function itself (the caller's array is left unchanged, see
docs/supported-python.md). Calls of NumPy's in-place writers
(``np.copyto``, ``np.put``, ...) and of mutating methods (``.sort()``,
``.fill()``, ``.extend()``, ...) are refused outright.
"""
import builtins
import inspect
import types

import gast
import numpy as np

from tangent_ad.errors import TangentADError, UnsupportedSyntaxError
from tangent_ad.frontend import generated, source
from tangent_ad.frontend import unit_writes
from tangent_ad.frontend.aliasing import MUTATING_METHODS, Values
from tangent_ad.frontend.introspection import _MISSING, function_scope, lookup
from tangent_ad.nodes import children, name_nodes

_NUMPY_WRITERS = {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal,
                  np.put_along_axis, np.random.shuffle}
_OPERATORS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
              gast.MatMult: "@", gast.Mod: "%", gast.FloorDiv: "//"}


def check(tree, ctx, callee, seen=None):
    """Raise at the first unsafe in-place write of the function `tree`, of
    a def inside it, or of a Python function it calls (which may run as
    written, undifferentiated, when its result is constant). `callee`: the
    function is called by another one, so its parameters are the caller's
    values."""
    seen = set() if seen is None else seen
    seen.add(ctx.func)  # by function: decorated functions share their wrapper's code
    scope = function_scope(ctx.func)
    problems, helpers, scopes = [], [], []
    for fdef, nested in _functions(tree):
        checked = _Scope(fdef, ctx, scope, callee or nested)
        problems.extend(checked.problems())
        helpers.extend(checked.helpers)
        scopes.append(checked)
    unit_writes.note_other_uses(tree, scopes, scope, ctx,
                                lambda obj: _is_helper(obj) and mutated_parameters(obj))
    if problems:
        node, message, hint = min(problems, key=lambda p: (p[0].lineno, p[0].col_offset))
        raise UnsupportedSyntaxError(message, hint=hint, **ctx.where(node))
    for helper in helpers:
        if helper not in seen:
            _check_helper(helper, seen, unit_writes.unit_of(ctx))


def _check_helper(func, seen, unit):
    try:
        tree, info = source.parse_function(func)
    except TangentADError:
        return  # the resolver or a derivative rule deals with it
    check(tree, _Helper(func, info, unit), True, seen)


class _Helper:
    """What `check` needs of a Context, for a function the checked one calls."""

    def __init__(self, func, info, unit=None):
        self.func, self.info = func, info
        self.unit = {} if unit is None else unit

    def where(self, node):
        return self.info.where(node)


_MUTATED = {}  # code object -> the parameters its function writes into in place


def mutated_parameters(func):
    """The parameters `func` writes into in place (before rebinding them)."""
    code = getattr(func, "__code__", None)
    if code in _MUTATED:
        return _MUTATED[code]
    found = set()
    try:
        tree, info = source.parse_function(func)
    except TangentADError:
        tree = None
    if tree is not None:
        scope = _Scope(tree, _Helper(func, info), function_scope(func), True)
        found = {name for stmt, name in scope.writes
                 if name in scope.params and not scope._rebound(name, stmt)}
    if code is not None:
        _MUTATED[code] = found
    return found


_RETURNS_ALIAS = {}  # code object -> whether its function may return a parameter's object


def returns_an_argument(func):
    """Whether what `func` returns may hold the object of one of its
    parameters (``return x``, ``return x[1:]``, ``return (x, y)``), by
    its own links; ``return np.reshape(x * 2, ...)`` does not."""
    code = getattr(func, "__code__", None)
    if code in _RETURNS_ALIAS:
        return _RETURNS_ALIAS[code]
    try:
        tree, info = source.parse_function(func)
    except TangentADError:
        return True
    if code is not None:
        _RETURNS_ALIAS[code] = True  # while it is found out (a recursive call)
    scope = _Scope(tree, _Helper(func, info), function_scope(func), True)
    found = any(isinstance(stmt, gast.Return) and any(
        scope._shares(stmt.value, other)
        for param in scope.params for other in scope._aliases(stmt, param))
        for stmt in scope.order)
    if code is not None:
        _RETURNS_ALIAS[code] = found
    return found


def _is_helper(obj):
    """A user's Python function that the derivative calls or transforms."""
    module = getattr(obj, "__module__", None) or ""
    return inspect.isfunction(obj) and getattr(obj, "__tangent_ad__", None) is None \
        and module.split(".")[0] not in ("tangent_ad", "numpy", "scipy") \
        and not generated.is_generated(obj)


def _functions(tree, nested=False):
    yield tree, nested
    for node in _own_nodes(tree.body):
        if isinstance(node, gast.FunctionDef):
            yield from _functions(node, True)


def _own_nodes(stmts):
    """The nodes of `stmts`, not entering nested defs, lambdas and hook blocks."""
    todo = list(reversed(stmts))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue
        if isinstance(node, gast.With):
            continue  # an insert_grad_code block works on adjoints, in place
        todo.extend(reversed(children(node)))  # (no context markers: nothing asks for them)


class _Scope(Values):
    """The writes, and the links that may make two names share an object, of
    one function."""

    is_helper = staticmethod(_is_helper)
    returns_an_argument = staticmethod(returns_an_argument)

    def __init__(self, fdef, ctx, scope, callee):
        self.ctx, self.scope, self.callee = ctx, scope, callee
        self.params = {a.id for a in fdef.args.args}
        self.local = set(self.params)
        self.order = {}   # statement -> position in the source
        self.loops = {}   # statement -> the loops around it
        self.writes = []  # (statement, name written in place)
        self.links = []   # (statement, target names, expression, binds the targets)
        self.loads = []   # (statement, names it reads)
        self.direct = []  # (node, message, hint): refused whatever the names
        self.helpers = []  # Python functions called
        self.calls = []    # (call, statement, Python function called)
        self.unfresh = set()  # (statement, name) bound to a value that may be shared
        for node in _own_nodes(fdef.body):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                self.local.add(node.id)
            elif isinstance(node, gast.FunctionDef):
                self.local.add(node.name)
        self.blocks = {}  # statement -> the statement lists around it, innermost last
        self._statements(fdef.body, (), ())

    # -- collecting ---------------------------------------------------------

    def _statements(self, stmts, loops, blocks):
        blocks = blocks + (id(stmts),)
        for stmt in stmts:
            self.order[stmt] = len(self.order)
            self.loops[stmt] = loops
            self.blocks[stmt] = blocks
            self._statement(stmt)
            if isinstance(stmt, (gast.For, gast.While)):
                self._statements(stmt.body, loops + (stmt,), blocks)
            elif isinstance(stmt, gast.If):
                self._statements(stmt.body, loops, blocks)
                self._statements(stmt.orelse, loops, blocks)

    def _statement(self, stmt):
        if isinstance(stmt, (gast.If, gast.While)):
            heads = [stmt.test]
        elif isinstance(stmt, gast.For):
            heads = [stmt.iter]
            self._target(stmt.target, None, stmt.iter, stmt)
        else:
            heads = [stmt]
        self.loads.append((stmt, {n.id for n in name_nodes(heads)
                                  if isinstance(n.ctx, gast.Load)}))
        if isinstance(stmt, (gast.Assign, gast.AnnAssign)) and stmt.value is not None:
            for target in getattr(stmt, "targets", None) or [stmt.target]:
                self._target(target, stmt.value, stmt.value, stmt)
        elif isinstance(stmt, gast.AugAssign):
            target = stmt.target
            base = target.value if isinstance(target, gast.Subscript) else target
            if isinstance(base, gast.Name):
                self.writes.append((stmt, base.id))
                if isinstance(stmt.value, (gast.List, gast.Tuple)):  # xs += [y] keeps y
                    self.links.append((stmt, {base.id}, stmt.value, False))
        if isinstance(stmt, (gast.FunctionDef, gast.With)):
            return
        for node in _own_nodes(heads):
            if isinstance(node, gast.Call):
                self._call(node, stmt)

    def _target(self, target, value, source, stmt):
        """Record what assigning `value` (a part of `source`) to `target` links."""
        if isinstance(target, gast.Name):
            self.links.append((stmt, {target.id}, source if value is None else value, True))
            if value is None or not self._fresh(value):
                self.unfresh.add((stmt, target.id))
        elif isinstance(target, (gast.Tuple, gast.List)):
            values = value.elts if isinstance(value, (gast.Tuple, gast.List)) and \
                len(value.elts) == len(target.elts) else [None] * len(target.elts)
            for t, v in zip(target.elts, values):
                self._target(t, v, source, stmt)
        elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            self.writes.append((stmt, target.value.id))
            self.links.append((stmt, {target.value.id}, value, False))

    def _call(self, call, stmt):
        func = call.func
        obj = lookup(func, self.local, self.scope)
        if _is_helper(obj):
            self.helpers.append(obj)
            self.calls.append((call, stmt, obj))
        ufunc_at = isinstance(func, gast.Attribute) and func.attr == "at" and \
            isinstance(lookup(func.value, self.local, self.scope), np.ufunc)
        if ufunc_at or any(obj is w for w in _NUMPY_WRITERS):
            self.direct.append((call, f"{_dotted(func)}(...) writes into an array in "
                                "place, which the derivative does not see",
                                "build the new array instead (np.where, or indexing "
                                "and assignment into a copy)"))
        elif obj is _MISSING and isinstance(func, gast.Attribute) and \
                func.attr in MUTATING_METHODS and isinstance(func.value, gast.Name):
            receiver = func.value.id
            self.writes.append((stmt, receiver))
            self.links.append((stmt, {receiver}, gast.Tuple(elts=call.args, ctx=gast.Load()),
                               False))
            if func.attr != "append" or not isinstance(stmt, gast.Expr):
                self.direct.append((call, f"'.{func.attr}()' changes "
                                    f"'{receiver}' in place, which the derivative "
                                    "does not see", "build a new value instead "
                                    "(sorted(xs), xs + [v], np.sort(x), ...)"))

    # -- judging ------------------------------------------------------------

    def problems(self):
        found = list(self.direct)
        for call, stmt, helper in self.calls:
            found.extend(self._mutating_call(call, stmt, helper))
        for stmt, name in self.writes:
            problem = self._judge(stmt, name)
            if problem:
                found.append((stmt,) + problem)
        return found

    def _judge(self, stmt, name):
        text = self.ctx.info.segment(stmt) if self.ctx.info else name
        if name not in self.local:
            module = name in getattr(self.ctx.func, "__globals__", {}) or hasattr(builtins, name)
            where = "a module-level variable" if module else "a variable of the enclosing function"
            return (f"'{text}' changes '{name}', {where}, in place; the "
                    "derivative cannot follow a change to state outside the function",
                    f"pass '{name}' as an argument and return its new value, or "
                    "build a new array or list inside the function")
        if name in self.params and self.callee and not self._rebound(name, stmt) and \
                not self._let_through(name, stmt):
            return (f"'{text}' changes the parameter '{name}' in place, which "
                    "changes the caller's value too; the derivative cannot follow that",
                    f"compute a new value ({name} = {name} / s, or a copy: "
                    f"{name} = {name}.copy()) and return it")
        for other, link in self._aliases(stmt, name).items():
            if other != name and self._observed(other, stmt):
                source = self.ctx.info.segment(link) if self.ctx.info else other
                return (f"'{text}' writes in place into '{name}', which may share "
                        f"its object with '{other}' ('{source}', line "
                        f"{self._line(link)}); in Python '{other}' may change too, "
                        "which the derivative would not see", self._hint(stmt, name))
        return None

    def _let_through(self, name, stmt):
        """Whether every checked call binds back what this write changes
        (noted for ``unit_writes.check_unit``)."""
        if (self.ctx.func, name) not in unit_writes.checked_calls(self.ctx):
            return False
        unit_writes.let_through(self.ctx, self.ctx.func, name, self.ctx.where(stmt))
        return True

    def _mutating_call(self, call, stmt, helper):
        """The problems of a call of `helper`, which writes into some of its
        parameters in place: each argument passed there must be a fresh
        value, or a name that the call's statement binds again or that is
        not read after it (then it is a write into that name here, judged
        as the others, for its aliases)."""
        mutated = mutated_parameters(helper)
        if not mutated:
            return []
        text = self.ctx.info.segment(stmt) if self.ctx.info else helper.__name__
        try:
            if any(isinstance(a, gast.Starred) for a in call.args) or \
                    any(k.arg is None for k in call.keywords):
                raise TypeError
            bound = inspect.signature(helper).bind(
                *call.args, **{k.arg: k.value for k in call.keywords}).arguments
        except (TypeError, ValueError):
            bound = None
        problems = []
        for param in sorted(mutated):
            arg = None if bound is None else bound.get(param)
            if bound is not None and param not in bound:
                continue  # its default: a value the caller does not hold
            if isinstance(arg, gast.Name) and (arg.id in _bound_by(stmt) or
                                               not self._observed(arg.id, stmt)):
                self.writes.append((stmt, arg.id))  # its aliases are judged there
            elif arg is None:
                problems.append((stmt, f"'{text}' calls {helper.__name__}, which changes its "
                                 f"parameter '{param}' in place, with *args or **kwargs that "
                                 "the derivative cannot match to its parameters",
                                 f"pass '{param}' by position or by name"))
                continue
            elif not self._fresh(arg):
                shown = self.ctx.info.segment(arg) if self.ctx.info else param
                problems.append((stmt, f"'{text}' passes {shown!r} to {helper.__name__}, "
                                 f"which changes its parameter '{param}' in place; the "
                                 "derivative would not see that change in the caller",
                                 f"bind the result back ({shown} = {helper.__name__}(...), "
                                 f"with {helper.__name__} returning its new '{param}'), "
                                 f"or pass a copy ({shown}.copy())"))
                continue
            unit_writes.checked_calls(self.ctx).add((helper, param))
        return problems

    @staticmethod
    def _hint(stmt, name):
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
            op = _OPERATORS.get(type(stmt.op), "+")
            return (f"write '{name} = {name} {op} ...': a new value, where "
                    f"'{name} {op}= ...' changes an array in place")
        return "make a copy before writing (.copy()), or build the new value " \
            "without writing in place"

    def _rebound(self, name, write):
        """`name` is bound to a fresh value on every path to `write`: by an
        earlier statement of a block around it (``y = y / s`` first)."""
        for stmt, targets, expr, binds in self.links:
            if binds and targets == {name} and (stmt, name) not in self.unfresh \
                    and self.order[stmt] < self.order[write] \
                    and self.blocks[write][:len(self.blocks[stmt])] == self.blocks[stmt]:
                return True
        return False

    def _aliases(self, write, name):
        """{name that may refer to `name`'s object, or hold it: the statement
        that linked it}, over the links that may run before `write`."""
        found = {name: write}
        changed = True
        while changed:
            changed = False
            for stmt, targets, expr, binds in self.links:
                if stmt is write or not self._before(stmt, write):
                    continue
                new = set()
                if any(self._shares(expr, a) for a in found):
                    new |= targets  # the targets now hold a reference
                if binds and targets & set(found) and (stmt, next(iter(targets))) in self.unfresh:
                    new |= {n.id for n in gast.walk(expr) if isinstance(n, gast.Name)
                            and self._shares(expr, n.id)}
                for other in new - set(found):
                    found[other] = stmt
                    changed = True
        return found

    def _observed(self, other, write):
        """A change to `other`'s object after `write` would be seen."""
        if other not in self.local:
            obj = self.scope.get(other, _MISSING)
            return obj is not _MISSING and not callable(obj) and \
                not isinstance(obj, types.ModuleType)
        if other in self.params and self.callee:
            return True
        for stmt, names in self.loads:
            if stmt is not write and other in names and (
                    self.order[stmt] > self.order[write] or stmt in self.loops[write]
                    or set(self.loops[stmt]) & set(self.loops[write])):
                return True
        return False

    def _line(self, node):
        return self.ctx.where(node).get("lineno")

    def _before(self, first, second):
        """`first` may run before `second`: earlier, or in a loop around both."""
        return self.order[first] < self.order[second] or \
            bool(set(self.loops[first]) & set(self.loops[second]))

def _bound_by(stmt):
    """The names an assignment statement binds (its targets' names)."""
    if not isinstance(stmt, gast.Assign):
        return set()
    return {n.id for t in stmt.targets for n in gast.walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _dotted(node):
    if isinstance(node, gast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return getattr(node, "id", "...")
