"""The Numba form of a specialized derivative: the same tree, written so
that ``numba.njit`` compiles it.

A staged copy (``staging.dispatch``) is already plain arithmetic on numbers
and arrays of known kinds. Five things in it keep Numba from compiling it,
and `run` rewrites each:

* The pullback of a called function is a closure: each becomes a forward
  function that fills a tape and a backward function that reads it
  (``tapes``), recursion included.

* One save stack holds every value the adjoint restores, of every type;
  a Numba list holds one type. Each save site gets a list of its own: the
  pushes of ``x`` and the pops into ``x`` use ``stack_x``, the branch
  decisions ``stack_branch``. Every pop restores the value its own push
  saved, so the pairs of one site nest as they did on the one stack, and
  each list is still last in, first out.
* ``for i in reversed(range(a, b)):`` becomes ``range(b - 1, a - 1, -1)``.
* Numba freezes the globals a function reads when it compiles. The data
  globals a derivative reads live (``DT = 0.01`` in the user's module)
  become trailing parameters, so each call passes their current value.
* Parameter defaults go: the dispatcher in front applies them.

What Numba cannot compile at all, any other closure or nested function,
is refused here with the user's line, before anything is compiled.
"""
import dataclasses
from dataclasses import dataclass

import gast

from tangent_ad.compiled import array_saves, tapes
from tangent_ad.errors import CompileError
from tangent_ad.nodes import (STACK, assign, call, const, copy_tree, is_comment, is_pop,
                              is_push, name, walk)

BRANCH_SITE = "branch"


@dataclass
class Form:
    """The functions Numba compiles, the derivative first, and the Numba
    types their shared typed lists hold: {name in the text: (NumPy dtype
    name, dimensions)}."""

    functions: list
    item_types: dict = dataclasses.field(default_factory=dict)

    @property
    def root(self):
        return self.functions[0]


def run(functions, live_names, locate, array_sites=None, keep_defaults=False, kinds=None):
    """The `Form` to compile, from the specialized `functions` of a unit
    (the derivative first, then the pullbacks it calls). `live_names` are
    the data globals read live; ``locate(text)`` gives the (file, line,
    source) of the user's line behind a statement of the tree, from the
    ``# Grad of:`` comment above it (`text`, or None). `array_sites` maps
    the lists (``stack_x``) whose items Numba typed as numbers to a NumPy
    dtype name: those become arrays (``array_saves``). With `keep_defaults`
    (a file the command line writes, which has no dispatcher in front) the
    parameters keep their defaults. `kinds` maps each function's name to
    the kinds staging found for its variables: placeholders (``t = None``,
    pushed before t's first value, never read) start as a zero of their
    kind, so that Numba types their save lists without an Optional, and
    the lists a pullback's saves go to (``tapes``) are typed by them."""
    root = copy_tree(functions[0])
    kinds = kinds or {}

    extra = []
    callees = _reachable(root, [copy_tree(f) for f in functions[1:]])

    def refuse(what, stmt):
        _refuse(what, _text_of([root] + callees, stmt), locate)

    if callees:
        for callee in callees:
            reads = {n.id for n in walk(callee) if isinstance(n, gast.Name)}
            if reads & set(live_names):
                refuse(f"a called function reads the global "
                       f"'{sorted(reads & set(live_names))[0]}' live", None)
        done = tapes.run(root, callees, kinds, refuse)
        extra = done.functions
    for fdef in [root] + extra:
        stmt, text = _first(fdef, lambda s: any(
            isinstance(n, (gast.FunctionDef, gast.Lambda, gast.Nonlocal, gast.Global))
            for n in walk(s)))
        if stmt is not None:
            _refuse("it defines a function inside the derivative (a closure)", text,
                    locate, "numba compiles no closures; compile=None runs it as Python")
    _zero_placeholders(root, kinds.get(functions[0].name) or {})
    for fdef in extra:
        _zero_placeholders(fdef, done.kinds[done.prefixes[fdef.name]])
    _split_stack(root, locate, _sites(root, STACK))
    item_types = {}
    if extra:
        taken = {n.id for f in [root] + extra for n in walk(f) if isinstance(n, gast.Name)}
        shared = {}
        for fdef in extra:
            base = done.prefixes[fdef.name]
            site = shared.setdefault(base, _sites(None, f"{STACK}_{base}", taken))
            _split_stack(fdef, locate, site)
        for base, site in shared.items():
            for key, list_name in site.lists.items():
                kind = done.kinds[base].get(key)
                item = ("bool", 0) if key == BRANCH_SITE else \
                    tapes.type_of(kind) if kind is not None else None
                if item is None:
                    refuse(f"a called function saves '{key}', whose kind staging does "
                           f"not know, so it cannot be saved in a typed list", None)
                item_types[list_name] = item
        types = _share(root, extra, item_types, taken)
    if array_sites:
        array_saves.run(root, array_sites)
    for fdef in [root] + extra:
        for node in walk(fdef):
            if isinstance(node, gast.For):
                node.iter = _counted(node, locate)
    read = {n.id for n in walk(root) if isinstance(n, gast.Name)}
    params = [n.id for n in root.args.args]
    if not keep_defaults:
        root.args.defaults = []
    root.args.args += [name(g, store=False) for g in sorted(set(live_names) & read)
                       if g not in params]
    for fdef in [root] + extra:
        for arg in fdef.args.args:
            arg.ctx = gast.Param()
    return Form([root] + extra, types if extra else {})


def _reachable(root, callees):
    """The FunctionDefs of `callees` that `root` calls, directly or through
    others (staging may have written copies for kinds that were passing)."""
    by_name = {f.name: f for f in callees}
    found, todo = {}, [root]
    while todo:
        for node in walk(todo.pop()):
            if isinstance(node, gast.Name) and node.id in by_name and node.id not in found:
                found[node.id] = by_name[node.id]
                todo.append(by_name[node.id])
    return [f for f in callees if f.name in found]


def _zero_placeholders(fdef, kinds):
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and \
                isinstance(stmt.value, gast.Constant) and stmt.value.value is None:
            kind = kinds.get(stmt.targets[0].id)
            zero = tapes.zero_of(kind) if kind is not None else None
            if zero is not None:
                stmt.value = zero


def _share(root, extra, items, taken):
    """Declare the shared lists (`items`: {list: (dtype, dimensions)}) at
    the top of `root`, as typed lists in a ``tape`` tuple, and check at its
    end that each is empty again; each function of `extra` unpacks the
    tuple first. Returns {type name: (dtype, dimensions)}
    of the item types the declarations name (``float64_1d``, ``boolean``)."""
    lists, types, declare = list(items), {}, []
    for list_name, item in items.items():
        dtype, ndim = item
        type_name = next((n for n, t in types.items() if t == item), None)
        if type_name is None:
            type_name = "boolean" if dtype == "bool" else dtype
            type_name += f"_{ndim}d" if ndim else ""
            while type_name in taken:
                type_name += "_"
            taken.add(type_name)
            types[type_name] = item
        declare.append(assign(list_name, call("List.empty_list", name(type_name))))
    declare.append(assign(tapes.TAPE, gast.Tuple(elts=[name(n) for n in lists],
                                                  ctx=gast.Load())))
    root.body = declare + root.body
    if isinstance(root.body[-1], gast.Return):
        total = call("len", name(lists[0]))
        for n in lists[1:]:
            total = gast.BinOp(left=total, op=gast.Add(), right=call("len", name(n)))
        check = gast.If(test=gast.Compare(left=total, ops=[gast.NotEq()],
                                          comparators=[const(0)]),
                        body=[gast.Raise(exc=call("RuntimeError", const(
                            "tangent_ad: the saves of a compiled derivative did not pair up")),
                            cause=None)], orelse=[])
        root.body.insert(len(root.body) - 1, check)
    for fdef in extra:
        unpack = gast.Tuple(elts=[name(n, store=True) for n in lists], ctx=gast.Store())
        fdef.body.insert(0, assign(unpack, name(tapes.TAPE)))
    return types


def _text_of(functions, stmt):
    """The ``# Grad of:`` text above the statement `stmt` of `functions`."""
    for fdef in functions if stmt is not None else ():
        for candidate, text in _statements(fdef.body, None):
            if candidate is stmt:
                return text
    return None


class _sites:
    """Names of the save lists of one function (or of a pullback's forward
    and backward pair): ``<prefix>_<site>``, none equal to a taken name."""

    def __init__(self, fdef, prefix, taken=None):
        self.prefix = prefix
        self.taken = taken if taken is not None else \
            {n.id for n in walk(fdef) if isinstance(n, gast.Name)}
        self.lists = {}

    def __call__(self, key):
        if key not in self.lists:
            candidate = f"{self.prefix}_{key}"
            while candidate in self.taken:
                candidate += "_"
            self.taken.add(candidate)
            self.lists[key] = candidate
        return self.lists[key]


def _split_stack(root, locate, site):
    """One list per save site in place of the one stack (module
    docstring), named by `site`; a function that creates its stack
    (``stack = []``) declares its lists there."""
    for stmt, text in _statements(root.body, None):
        if is_push(stmt):
            value = stmt.value.args[0] if len(stmt.value.args) == 1 else None
            if isinstance(value, gast.Name):
                key = value.id
            elif isinstance(value, gast.Constant) and isinstance(value.value, bool):
                key = BRANCH_SITE
            else:
                _refuse("it saves a value that is not a variable or a branch decision",
                        text, locate)
            stmt.value.func.value.id = site(key)
        elif isinstance(stmt, gast.Assign) and is_pop(stmt.value):
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Name):
                _refuse("it restores a saved value into something that is not a variable",
                        text, locate)
            stmt.value.func.value.id = site(stmt.targets[0].id)
        elif isinstance(stmt, gast.If) and is_pop(stmt.test):
            stmt.test.func.value.id = site(BRANCH_SITE)
    for node in walk(root):
        if isinstance(node, gast.Name) and node.id == STACK:
            stmt, text = _first(root, lambda s: node in walk(s))
            if _is_new_stack(stmt):
                continue
            _refuse("it reads its save stack in a way numba form does not know", text,
                    locate)
    root.body = _declare(root.body, sorted(site.lists.values()))


def site_lists(root):
    """The names of the per-site lists of a Numba form `root`."""
    return [stmt.targets[0].id for stmt in root.body if isinstance(stmt, gast.Assign)
            and isinstance(stmt.value, gast.List) and stmt.targets[0].id.startswith(STACK)]


def _is_new_stack(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == STACK and \
        isinstance(stmt.value, gast.List) and not stmt.value.elts


def _declare(body, lists):
    """`body` with ``stack = []`` replaced by one empty list per site."""
    out = []
    for stmt in body:
        if _is_new_stack(stmt):
            out += [gast.Assign(targets=[name(n, store=True)], value=gast.List(
                elts=[], ctx=gast.Load()), type_comment=None) for n in lists]
        else:
            out.append(stmt)
    return out


def _counted(loop, locate):
    """The iterable of `loop`, with ``reversed(range(...))`` (and the first
    turns of one, ``reversed(range(n)[:k])``) counted down."""
    it = loop.iter
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and
            it.func.id == "reversed"):
        return it
    inner = it.args[0] if len(it.args) == 1 else None
    count = None
    if isinstance(inner, gast.Subscript) and isinstance(inner.slice, gast.Slice) and \
            inner.slice.lower is None and inner.slice.step is None and \
            inner.slice.upper is not None:
        # ``reversed(range(n)[:k])``: a loop that stopped early, after k turns
        inner, count = inner.value, inner.slice.upper
    if not (isinstance(inner, gast.Call) and isinstance(inner.func, gast.Name) and
            inner.func.id == "range" and 1 <= len(inner.args) <= 2 and not inner.keywords):
        _refuse("it walks a sequence backwards with reversed(), which numba does not support",
                None, locate)
    start, stop = (const(0), inner.args[0]) if len(inner.args) == 1 else inner.args
    if count is not None:  # the first k of range(start, stop), k >= 0
        stop = gast.BinOp(left=start, op=gast.Add(), right=call(
            "min", count, call("max", gast.BinOp(left=stop, op=gast.Sub(), right=start),
                               const(0))))
    return call("range", _minus_one(stop), _minus_one(start), const(-1))


def _minus_one(value):
    if isinstance(value, gast.Constant) and type(value.value) is int:
        return const(value.value - 1)
    return gast.BinOp(left=value, op=gast.Sub(), right=const(1))


def _statements(body, text):
    """``(statement, comment text above it)`` for every statement, in order."""
    for stmt in body:
        if is_comment(stmt):
            text = stmt.value.args[0].value
            continue
        yield stmt, text
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                yield from _statements(inner, text)


def _first(root, test):
    """The first innermost statement passing `test`, and its comment text."""
    found = (None, None)
    for stmt, text in _statements(root.body, None):
        if test(stmt):
            found = (stmt, text)
            if not any(test(s) for f in ("body", "orelse")
                       for s in getattr(stmt, f, None) or () if isinstance(s, gast.stmt)):
                return found
    return found


def _refuse(what, text, locate, hint=None):
    filename, lineno, source = locate(text)
    raise CompileError(f"this derivative cannot be compiled with numba: {what}",
                       filename=filename, lineno=lineno, source_line=source, hint=hint)
