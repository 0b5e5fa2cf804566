"""Function values stage: calls through names whose function is known when transforming.

Numerical code passes functions around: ``for f in (np.sin, np.cos):
s += f(x)``, ``act = np.tanh; h = act(W @ x)``, ``{name: f(x) for name, f
in fs.items()}``. The resolver binds every call to one Python object, so
a call through a local variable cannot be differentiated as written. When
the function such a variable holds is known from the source alone, this
pass writes the reference in its place:

* a local name assigned once in the function to a function reference (a global function, ``np.sin``, or a nested def) or to
  a tuple, list or dict of them written in the code: each read of it
  (``g(x)``, ``fs[0]``, ``fs["s"]``) becomes the reference itself;
* a ``for`` loop or a comprehension over such a sequence (also through
  ``enumerate``, ``zip``, ``.items()``, ``.values()`` and ``.keys()``) is
  unrolled: one copy of the body per item, the loop variables replaced by
  the item. A loop with ``break`` or ``continue`` of its own, an ``else``,
  or a loop variable read after the loop is left as written (and refused
  later if it calls the variable).

A derivative made in the function, ``tad.grad(inner)(x)``, is made when
transforming and called by a name (``transforms_in_code``).

A loop over a global or captured list of objects of several classes (a
network's layers) is unrolled over its items too, with a check run first
(``object_loops.py``).

Another sequence that is not written in the code (built in a loop, returned
by a call, passed in as an argument) is not known here; calls through its
items are refused by the resolver with the user's line.
"""
import copy

import gast

from tangent_ad.frontend import closures, object_loops, transforms_in_code
from tangent_ad.frontend.static_scope import StaticScope, loads
from tangent_ad.nodes import located, walk
from tangent_ad.visitors import Transformer


def run(tree, ctx):
    """Return the FunctionDef `tree` with known function values written in
    place of the local names and loop variables that hold them."""
    scope = StaticScope(tree, ctx)
    transforms_in_code.make(tree, scope, ctx)
    _function_defaults(tree, ctx, scope)
    known = aliases(tree, scope)
    if known:
        _Substitute(known, scope).visit_body(tree)
    unroller = _Unroller(scope, ctx)
    tree.body = unroller.block(tree.body)
    tree.body[:0] = unroller.checks
    return tree


def _function_defaults(tree, ctx, scope):
    """``def f(a, _r=np.sum)``: a parameter whose default is a known
    function, never assigned in the body and not bound by the caller
    (``ctx.static_args``), reads as the default. A check at the top of the
    body, run as written, refuses another function passed for it when the
    derivative runs."""
    values = getattr(ctx.func, "__defaults__", None) or ()
    args = tree.args
    if len(values) != len(args.defaults):
        return
    params = args.args[len(args.args) - len(args.defaults):]
    defaults = {}
    for param, expr, value in zip(params, args.defaults, values):
        if param.id in ctx.static_args or param.id in ctx.wrt or \
                scope.stores[param.id] != 1 or not scope.is_function(expr) or \
                scope.value(expr) is not value:
            continue
        defaults[param.id] = expr
    if not defaults:
        return
    _Substitute(defaults, scope).visit_body(tree)
    checks = [gast.Assert(test=gast.Compare(
        left=gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None),
        ops=[gast.Eq()], comparators=[copy.deepcopy(e)]),
        msg=gast.Constant(value=f"the derivative of {tree.name} is made for its default "
                          f"{p}={_text(e)}: differentiate a function that passes the other "
                          f"function to {tree.name}", kind=None))
        for p, e in defaults.items()]
    for check in checks:
        located(check, tree)
    first = 1 if tree.body and isinstance(tree.body[0], gast.Expr) and \
        isinstance(tree.body[0].value, gast.Constant) else 0
    tree.body[first:first] = checks


def _text(expr):
    if isinstance(expr, gast.Attribute):
        return f"{_text(expr.value)}.{expr.attr}"
    return getattr(expr, "id", "...")


def _is_static(node, scope):
    """A value known from the source: a constant, a function reference, or
    a tuple, list or dict (constant keys) of static values."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_is_static(e, scope) for e in node.elts)
    if isinstance(node, gast.Dict):
        return all(isinstance(k, gast.Constant) for k in node.keys) and \
            all(_is_static(v, scope) for v in node.values)
    return scope.is_function(node)


def _holds_function(node, scope):
    if isinstance(node, (gast.Tuple, gast.List)):
        return any(_holds_function(e, scope) for e in node.elts)
    if isinstance(node, gast.Dict):
        return any(_holds_function(v, scope) for v in node.values)
    return not isinstance(node, gast.Constant) and scope.is_function(node)


def aliases(tree, scope):
    """{name: static value} for the names assigned once in the function
    (a branch or loop included: a valid program reads them after the
    assignment) to a static value holding at least one function."""
    found = {}
    for stmt in closures._walk_outside_functions(tree.body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            target = stmt.targets[0].id
            if scope.stores[target] == 1 and _is_static(stmt.value, scope) and \
                    _holds_function(stmt.value, scope) and \
                    not _reads_any(stmt.value, set(found) | {target}):
                found[target] = stmt.value
    return found


def _reads_any(node, names):
    return any(isinstance(n, gast.Name) and n.id in names for n in walk(node))


class _Substitute(Transformer):
    """Writes each alias's value where it is read: a whole name, an item
    with a constant index (``fs[0]``, ``fs["s"]``), or a loop's iterable.
    Nested functions that bind the name themselves are left alone."""

    def __init__(self, aliases, scope):
        self.aliases = aliases
        self.scope = scope

    def visit_body(self, tree):
        tree.body = [self.visit(stmt) for stmt in tree.body]

    def visit_FunctionDef(self, node):
        own = {a.id for a in node.args.args} | {
            n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        if own & set(self.aliases):
            return node
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        if {a.id for a in node.args.args} & set(self.aliases):
            return node
        self.generic_visit(node)
        return node

    def _comprehension(self, node):
        bound = {n.id for g in node.generators for n in walk(g.target)
                 if isinstance(n, gast.Name)}
        if bound & set(self.aliases):
            return node  # its own variable of that name
        self.generic_visit(node)
        return node

    visit_ListComp = visit_DictComp = visit_SetComp = visit_GeneratorExp = _comprehension

    def visit_Subscript(self, node):
        key = _constant_index(node.slice)
        if isinstance(node.value, gast.Name) and node.value.id in self.aliases and \
                isinstance(node.ctx, gast.Load) and key is not None:
            item = _item(self.aliases[node.value.id], key)
            if item is not None:
                return gast.copy_location(copy.deepcopy(item), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.aliases:
            return located(copy.deepcopy(self.aliases[node.id]), node)
        return node


def _constant_index(node):
    """The value of a constant index (``0``, ``-1``, ``"s"``), or None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, gast.Constant) and node.value is not None:
        return node.value
    return None


def _item(value, key):
    if isinstance(value, gast.Dict):
        for k, v in zip(value.keys, value.values):
            if k.value == key and type(k.value) is type(key):
                return v
        return None
    if isinstance(value, (gast.Tuple, gast.List)) and isinstance(key, int) and \
            not isinstance(key, bool) and -len(value.elts) <= key < len(value.elts):
        return value.elts[key]
    return None


# ---- unrolling ---------------------------------------------------------------

def static_items(node, scope):
    """The items a loop over `node` visits, as source expressions (a tuple
    node per item for ``enumerate``, ``zip`` and ``.items()``), when they are
    known from the source; None otherwise."""
    if isinstance(node, (gast.Tuple, gast.List)) and _is_static(node, scope):
        return list(node.elts)
    if isinstance(node, gast.Dict) and _is_static(node, scope):
        return list(node.keys)
    if not isinstance(node, gast.Call) or node.keywords:
        return None
    func, args = node.func, node.args
    if isinstance(func, gast.Attribute) and not args and isinstance(func.value, gast.Dict) \
            and _is_static(func.value, scope):
        d = func.value
        views = {"keys": lambda: list(d.keys), "values": lambda: list(d.values),
                 "items": lambda: [gast.Tuple(elts=[k, v], ctx=gast.Load())
                                   for k, v in zip(d.keys, d.values)]}
        return views[func.attr]() if func.attr in views else None
    if scope.is_builtin(func, enumerate) and len(args) == 1:
        items = static_items(args[0], scope)
        return None if items is None else [
            gast.Tuple(elts=[gast.Constant(value=i, kind=None), item], ctx=gast.Load())
            for i, item in enumerate(items)]
    if scope.is_builtin(func, zip) and args:
        columns = [static_items(a, scope) for a in args]
        if any(c is None for c in columns):
            return None
        return [gast.Tuple(elts=list(row), ctx=gast.Load()) for row in zip(*columns)]
    return None


def _bindings(target, item):
    """{loop variable: expression} for one item, or None if the item does
    not have the target's shape."""
    if isinstance(target, gast.Name):
        return {target.id: item}
    if isinstance(target, (gast.Tuple, gast.List)) and \
            isinstance(item, (gast.Tuple, gast.List)) and len(item.elts) == len(target.elts):
        out = {}
        for sub, part in zip(target.elts, item.elts):
            inner = _bindings(sub, part)
            if inner is None:
                return None
            out.update(inner)
        return out
    return None


def _own_jumps(stmts):
    """Whether `stmts` hold a break or continue of their own loop."""
    for stmt in stmts:
        if isinstance(stmt, (gast.Break, gast.Continue)):
            return True
        for field in ("body", "orelse"):
            if not isinstance(stmt, (gast.For, gast.While, gast.FunctionDef)) and \
                    _own_jumps(getattr(stmt, field, None) or []):
                return True
    return False


class _Unroller(Transformer):
    def __init__(self, scope, ctx):
        self.scope = scope
        self.ctx = ctx
        self.checks = []  # asserts, run first: what an unrolled loop assumed

    def block(self, stmts):
        out = []
        for stmt in stmts:
            result = self.visit(stmt)
            out.extend(result if isinstance(result, list) else [result])
        return out

    def _plan(self, target, iterable):
        """[{variable: expression}] per item, when unrolling over `iterable`
        is known and useful (some item is a function); else None."""
        items, check = static_items(iterable, self.scope), None
        if items is None:
            items, check = object_loops.mixed_objects(iterable, self.scope, self.ctx) or \
                (None, None)
        elif not any(_holds_function(i, self.scope) for i in items):
            return None
        if not items:
            return None
        plan = [_bindings(target, item) for item in items]
        if any(b is None for b in plan):
            return None
        if check is not None:
            self.checks.append(check)
        return plan

    def visit_For(self, node):
        plan = self._plan(node.target, node.iter)
        variables = {n.id for n in walk(node.target) if isinstance(n, gast.Name)}
        if plan is None or node.orelse or _own_jumps(node.body) or \
                self._bound_elsewhere(node, variables):
            node.body = self.block(node.body)
            node.orelse = self.block(node.orelse)
            return node
        out = []
        for bindings in plan:
            copied = [_Bind(bindings, node).visit(copy.deepcopy(s)) for s in node.body]
            out.extend(self.block(copied))
        return out or [gast.copy_location(gast.Pass(), node)]

    def _bound_elsewhere(self, loop, variables):
        """Whether a loop variable is assigned in the body, assigned
        elsewhere in the function, or captured by a nested function."""
        if any(self.scope.stores[v] != 1 for v in variables):
            return True
        inside = loads(loop)
        if any(inside[v] != self.scope.loads[v] for v in variables):
            return True  # read after the loop: it must hold the last item
        for sub in walk(loop):
            if isinstance(sub, (gast.FunctionDef, gast.Lambda)) and \
                    _reads_any(sub, variables):
                return True
        return False

    def _comprehension(self, node):
        if len(node.generators) != 1 or node.generators[0].ifs or \
                node.generators[0].is_async:
            return None
        gen = node.generators[0]
        return self._plan(gen.target, gen.iter)

    def visit_ListComp(self, node):
        plan = self._comprehension(node)
        self.generic_visit(node)
        if plan is None:
            return node
        elts = [_Bind(b, node).visit(copy.deepcopy(node.elt)) for b in plan]
        return gast.copy_location(gast.List(elts=elts, ctx=gast.Load()), node)

    def visit_DictComp(self, node):
        plan = self._comprehension(node)
        self.generic_visit(node)
        if plan is None:
            return node
        keys = [_Bind(b, node).visit(copy.deepcopy(node.key)) for b in plan]
        values = [_Bind(b, node).visit(copy.deepcopy(node.value)) for b in plan]
        return gast.copy_location(gast.Dict(keys=keys, values=values), node)


def bind(bindings, node, where):
    """`node` with the reads of the names in `bindings` replaced by their
    expressions (lambdas and comprehensions that rebind a name keep it)."""
    return _Bind(bindings, where).visit(node)


class _Bind(Transformer):
    """Replace reads of the loop variables by their items (nested
    comprehensions and lambdas that rebind a variable keep theirs)."""

    def __init__(self, bindings, where):
        self.bindings = bindings
        self.where = where

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.bindings:
            value = self.bindings[node.id]
            if isinstance(value, gast.Constant):
                return gast.copy_location(gast.Constant(value=value.value, kind=None), node)
            return located(copy.deepcopy(value), node)
        return node

    def _scoped(self, node, bound):
        shadowed = {k: v for k, v in self.bindings.items() if k not in bound}
        if len(shadowed) == len(self.bindings):
            self.generic_visit(node)
            return node
        return _Bind(shadowed, self.where).generic_visit(node)

    def visit_Lambda(self, node):
        return self._scoped(node, {a.id for a in node.args.args})

    def _comprehension(self, node):
        bound = {n.id for g in node.generators for n in walk(g.target)
                 if isinstance(n, gast.Name)}
        return self._scoped(node, bound)

    visit_ListComp = visit_DictComp = visit_SetComp = visit_GeneratorExp = _comprehension
