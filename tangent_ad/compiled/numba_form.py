"""The Numba form of a specialized derivative: the same tree, written so
that ``numba.njit`` compiles it.

A staged copy (``staging.dispatch``) is already plain arithmetic on numbers
and arrays of known kinds. Four things in it keep Numba from compiling it,
and `run` rewrites each:

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

What Numba cannot compile at all, a closure (the pullback of a called
function, which returns its ``back``) or a nested function, is refused
here with the user's line, before anything is compiled.
"""
import gast

from tangent_ad.errors import CompileError
from tangent_ad.nodes import (STACK, call, const, copy_tree, is_comment, is_pop, is_push,
                              name, walk)

BRANCH_SITE = "branch"


def run(functions, live_names, locate, array_sites=None, keep_defaults=False, zeros=None):
    """The FunctionDef to compile, from the specialized `functions` of a
    unit (the derivative first, then the pullbacks it calls).
    `live_names` are the data globals read live; ``locate(text)`` gives
    the (file, line, source) of the user's line behind a statement of the
    tree, from the ``# Grad of:`` comment above it (`text`, or None).
    `array_sites` maps the lists (``stack_x``) whose items Numba typed as
    numbers to a NumPy dtype name: those become arrays (`_as_arrays`).
    With `keep_defaults` (a file the command line writes, which has no
    dispatcher in front) the parameters keep their defaults. `zeros` maps
    placeholders (``t = None``, pushed before t's first value, never read)
    to a zero of their kind, so that Numba types their save lists without
    an Optional."""
    root = copy_tree(functions[0])
    if len(functions) > 1:
        callees = {f.name for f in functions[1:]}
        stmt, text = _first(root, lambda s: any(
            isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in callees
            for n in walk(s)))
        _refuse("it calls a function whose derivative is a closure (a pullback that "
                "returns its backward pass)", text, locate,
                "numba form takes loops, branches and calls that staging inlines; "
                "a call of a user function that stays a call, and recursion, do not "
                "compile yet: compile=None runs it as Python")
    stmt, text = _first(root, lambda s: any(
        isinstance(n, (gast.FunctionDef, gast.Lambda, gast.Nonlocal, gast.Global))
        for n in walk(s)))
    if stmt is not None:
        _refuse("it defines a function inside the derivative (a closure)", text,
                locate, "numba compiles no closures; compile=None runs it as Python")
    if zeros:
        for stmt in root.body:
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in zeros \
                    and isinstance(stmt.value, gast.Constant) and stmt.value.value is None:
                stmt.value = copy_tree(zeros[stmt.targets[0].id])
    _split_stack(root, locate)
    if array_sites:
        _as_arrays(root, array_sites)
    for node in walk(root):
        if isinstance(node, gast.For):
            node.iter = _counted(node, locate)
    read = {n.id for n in walk(root) if isinstance(n, gast.Name)}
    params = [n.id for n in root.args.args]
    if not keep_defaults:
        root.args.defaults = []
    root.args.args += [name(g, store=False) for g in sorted(set(live_names) & read)
                       if g not in params]
    for arg in root.args.args:
        arg.ctx = gast.Param()
    return root


def _split_stack(root, locate):
    """One list per save site in place of the one stack (module docstring)."""
    taken = {n.id for n in walk(root) if isinstance(n, gast.Name)}
    lists = {}

    def site(key):
        if key not in lists:
            candidate = f"{STACK}_{key}"
            while candidate in taken:
                candidate += "_"
            taken.add(candidate)
            lists[key] = candidate
        return lists[key]

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
    root.body = _declare(root.body, sorted(lists.values()))


def site_lists(root):
    """The names of the per-site lists of a Numba form `root`."""
    return [stmt.targets[0].id for stmt in root.body if isinstance(stmt, gast.Assign)
            and isinstance(stmt.value, gast.List) and stmt.targets[0].id.startswith(STACK)]


def _as_arrays(root, sites):
    """Each list of `sites` whose saves all run in one loop of the
    function's body, over a ``range``, as an array of that many items per
    save statement, with a count, ``top_x``: a list boxes each item, an
    array of numbers stores them flat (about six times faster for a scalar
    loop). Other lists stay lists. A placeholder ``t = None`` of a value
    saved there becomes a zero: it is pushed, never read."""
    loops = _saving_loops(root, sites)
    if not loops:
        return
    taken = {n.id for n in walk(root) if isinstance(n, gast.Name)}
    tops = {}
    for site in loops:
        top = "top_" + site[len(STACK) + 1:] if site.startswith(STACK + "_") else f"top_{site}"
        while top in taken:
            top += "_"
        tops[site] = top
    saved = {}  # value name -> its site, for the placeholders

    def rewrite(body):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(stmt, field, rewrite(inner))
            site = _site_of(stmt)
            if site not in loops:
                out.append(stmt)
            elif isinstance(stmt, gast.Expr):  # the push
                value = stmt.value.args[0]
                if isinstance(value, gast.Name):
                    saved[value.id] = site
                out += [_assign(gast.Subscript(value=name(site), slice=name(tops[site]),
                                               ctx=gast.Store()), value),
                        _bump(tops[site], gast.Add())]
            elif isinstance(stmt, gast.Assign):
                out += [_bump(tops[site], gast.Sub()),
                        _assign(stmt.targets[0].id, _item(site, tops[site]))]
            else:  # if stack.pop():
                stmt.test = _item(site, tops[site])
                out += [_bump(tops[site], gast.Sub()), stmt]
        return out

    root.body = rewrite(root.body)
    body = []
    for stmt in root.body:
        target = stmt.targets[0].id if isinstance(stmt, gast.Assign) and \
            isinstance(stmt.targets[0], gast.Name) else None
        for site, (loop, count) in loops.items():
            if stmt is loop:
                size = _trip_count(loop.iter)
                if count > 1:
                    size = gast.BinOp(left=size, op=gast.Mult(), right=const(count))
                dtype = gast.Attribute(value=name("np"), attr=sites[site], ctx=gast.Load())
                body.append(_assign(site, call("np.empty", size, dtype)))
        if target in loops and isinstance(stmt.value, gast.List):
            body.append(_assign(tops[target], const(0)))
        elif target in saved and isinstance(stmt.value, gast.Constant) and \
                stmt.value.value is None:
            kind = sites[saved[target]]
            body.append(_assign(target, const(False if kind == "bool_" else
                                              0 if kind.startswith("int") else 0.0)))
        else:
            body.append(stmt)
    root.body = body


def _saving_loops(root, sites):
    """{list: (loop, saves per iteration)} for the lists of `sites` whose
    saves all sit in one ``for ... in range(...)`` of the function's body,
    outside any loop nested in it (so their count is known before it)."""
    found, spoiled = {}, set()
    for stmt in root.body:
        counts = {}
        nested = isinstance(stmt, gast.For) and _trip_count(stmt.iter) is not None
        for node in walk(stmt):
            site = _site_of(node) if isinstance(node, gast.Expr) else None
            if site in sites:
                counts[site] = counts.get(site, 0) + 1
        if not counts:
            continue
        inner = [n for n in walk(stmt) if isinstance(n, (gast.For, gast.While)) and n is not stmt]
        deep = {_site_of(n) for loop in inner for n in walk(loop) if isinstance(n, gast.Expr)}
        for site, count in counts.items():
            if not nested or site in deep or site in found:
                spoiled.add(site)
            else:
                found[site] = (stmt, count)
    return {site: entry for site, entry in found.items() if site not in spoiled}


def _trip_count(iterable):
    """The number of iterations of ``range(...)``, as an expression, or None."""
    if not (isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) and
            iterable.func.id == "range" and 1 <= len(iterable.args) <= 3 and
            not iterable.keywords):
        return None
    if len(iterable.args) == 1:
        return call("max", iterable.args[0], const(0))
    return gast.Call(func=name("len"), args=[iterable], keywords=[])


def _site_of(stmt):
    """The list a save statement of the Numba form uses, or None."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
            isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append":
        return getattr(stmt.value.func.value, "id", None)
    value = stmt.value if isinstance(stmt, gast.Assign) else \
        stmt.test if isinstance(stmt, gast.If) else None
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
            value.func.attr == "pop" and not value.args:
        return getattr(value.func.value, "id", None)
    return None


def _assign(target, value):
    target = name(target, store=True) if isinstance(target, str) else target
    return gast.Assign(targets=[target], value=value, type_comment=None)


def _bump(top, op):
    return gast.AugAssign(target=name(top, store=True), op=op, value=const(1))


def _item(site, top):
    return gast.Subscript(value=name(site), slice=name(top), ctx=gast.Load())


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
    """The iterable of `loop`, with ``reversed(range(...))`` counted down."""
    it = loop.iter
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and
            it.func.id == "reversed"):
        return it
    inner = it.args[0] if len(it.args) == 1 else None
    if not (isinstance(inner, gast.Call) and isinstance(inner.func, gast.Name) and
            inner.func.id == "range" and 1 <= len(inner.args) <= 2 and not inner.keywords):
        _refuse("it walks a sequence backwards with reversed(), which numba does not support",
                None, locate)
    start, stop = (const(0), inner.args[0]) if len(inner.args) == 1 else inner.args
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
