"""Comprehensions stage: generator expressions, ``map`` and ``filter`` as list comprehensions.

The normalize stage turns a list comprehension into a loop that appends,
whose derivative flows back through each item. The lazy forms people write
for the same thing are rewritten into one before validation:

* a generator expression passed to a builtin that reads it whole, once,
  in order (``sum(f(x) for x in xs)``, ``max(...)``, ``tuple(...)``,
  ``list(...)``, ``any(...)``): it receives ``[f(x) for x in xs]``, the
  same items. NumPy's ``np.stack`` and ``np.concatenate`` refuse a
  generator when they run, so they are left to say so;
* ``map(f, xs)`` -> ``[f(x) for x in xs]``, ``map(f, xs, ys)`` -> ``[f(x, y)
  for x, y in zip(xs, ys)]``, ``map(lambda a: e, xs)`` -> ``[e for a in xs]``;
* ``filter(f, xs)`` -> ``[x for x in xs if f(x)]`` (``filter(None, xs)``
  keeps the true items);
* a set comprehension ``{e for ...}`` -> ``set([e for ...])``.

A loop or comprehension over ``d.items()``, ``d.values()`` or ``d.keys()``
of a local ``d`` goes over its keys and reads each value, ``for k in d:
v = d[k]`` (``for k in d for v in [d[k]]`` in a comprehension), so that
the value's adjoint flows back into ``d[k]``.

``map`` and ``filter`` are rewritten only when the names denote the
builtins (``StaticScope``) and the function is a name, an attribute of a
global or a lambda with plain parameters, so that evaluating it once per
item, as the comprehension does, is the same as evaluating it once.
A generator expression anywhere else (``g = (x for x in xs)``) stays, and
validation refuses it.
"""
import builtins

import functools

import gast

from tangent_ad.frontend import function_values
from tangent_ad.frontend.static_scope import StaticScope
from tangent_ad.nodes import walk, fix_locations
from tangent_ad.visitors import Transformer


# builtins that read a generator argument whole, once, in order
_CONSUMERS = tuple(getattr(builtins, n) for n in (
    "sum", "max", "min", "any", "all", "tuple", "list", "sorted", "set", "dict",
    "zip", "enumerate", "map", "filter"))


def run(tree, ctx):
    """Return the FunctionDef `tree` with the lazy forms rewritten."""
    scope = StaticScope(tree, ctx)
    _Rewrite(scope, set(function_values.aliases(tree, scope))).visit(tree)
    return fix_locations(tree)


class _Rewrite(Transformer):
    def __init__(self, scope, tables):
        self.scope = scope
        self.tables = tables  # names of dicts of functions: function_values unrolls them

    def visit_For(self, node):
        self.generic_visit(node)
        view = self._view(node.target, node.iter)
        if view is not None and _rebinds(node, node.iter):
            view = None  # `v = d[k]` would read the new dict, not the one looped over
        if view is not None and not node.orelse:
            node.target, node.iter, reads = view
            if reads is not None:
                target, value = reads
                read = gast.Assign(targets=[target], value=value, type_comment=None)
                node.body = [_located(read, node.iter)] + node.body
        return node

    def visit_comprehension(self, node):
        self.generic_visit(node)
        return node

    def _comprehension(self, node):
        self.generic_visit(node)
        generators = []
        for gen in node.generators:
            view = self._view(gen.target, gen.iter)
            if view is None:
                generators.append(gen)
                continue
            target, iterable, reads = view
            generators.append(gast.comprehension(target=target, iter=iterable,
                                                 ifs=[] if reads else gen.ifs, is_async=0))
            if reads is not None:  # `for v in [d[k]]`: one more loop, over the item
                read_target, value = reads
                generators.append(gast.comprehension(
                    target=read_target, iter=_located(gast.List(elts=[value], ctx=gast.Load()),
                                                      gen.iter), ifs=gen.ifs, is_async=0))
        node.generators = generators
        return node

    visit_ListComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_SetComp(self, node):
        """``{e for ...}`` -> ``set([e for ...])``: a set of what the list
        holds (of indices or keys: a set carries no derivative)."""
        node = self._comprehension(node)
        if not self.scope.is_builtin(gast.Name(id="set", ctx=gast.Load(), annotation=None,
                                               type_comment=None), set):
            return node
        listed = _located(gast.ListComp(elt=node.elt, generators=node.generators), node)
        return _located(gast.Call(func=_load("set"), args=[listed], keywords=[]), node)

    def _view(self, target, iterable):
        """A loop over ``d.items()``, ``d.values()`` or ``d.keys()`` of a
        local ``d`` (or ``enumerate`` of one) as a loop over ``d``'s keys:
        (new target, new iterable, (target, value) of the item read first
        or None), or None for any other loop."""
        counted = isinstance(iterable, gast.Call) and not iterable.keywords and \
            len(iterable.args) == 1 and self.scope.is_builtin(iterable.func, enumerate)
        view = iterable.args[0] if counted else iterable
        if not (isinstance(view, gast.Call) and isinstance(view.func, gast.Attribute) and
                view.func.attr in ("items", "values", "keys") and not view.args and
                not view.keywords and isinstance(view.func.value, gast.Name) and
                self.scope.is_local(view.func.value.id)) or view.func.value.id in self.tables:
            return None
        if counted:
            if not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
                return None
            count, target = target.elts
        container, kind = view.func.value, view.func.attr
        if kind == "items":
            if not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
                return None
            key_target, value_target = target.elts
        else:
            key_target, value_target = (target, None) if kind == "keys" else (None, target)
        if not isinstance(key_target, gast.Name):
            if key_target is not None:
                return None
            key_target = _store(self.scope.fresh("key"))
        keys = gast.Name(id=container.id, ctx=gast.Load(), annotation=None, type_comment=None)
        new_target, new_iter = key_target, keys
        if counted:
            new_target = gast.Tuple(elts=[count, key_target], ctx=gast.Store())
            new_iter = gast.Call(func=iterable.func, args=[keys], keywords=[])
        reads = None
        if value_target is not None:
            reads = (value_target, gast.Subscript(value=_load(container.id),
                                                  slice=_load(key_target.id), ctx=gast.Load()))
        return new_target, _located(new_iter, iterable), reads

    def visit_Call(self, node):
        self.generic_visit(node)
        if any(self.scope.is_builtin(node.func, b) for b in _CONSUMERS):
            node.args = [_as_list(a) if isinstance(a, gast.GeneratorExp) else a
                         for a in node.args]
        if node.keywords:
            return node
        if self.scope.is_builtin(node.func, map) and len(node.args) >= 2:
            return self._map(node) or node
        if self.scope.is_builtin(node.func, filter) and len(node.args) == 2:
            return self._filter(node) or node
        return node

    def _map(self, node):
        func, sequences = node.args[0], node.args[1:]
        if isinstance(func, gast.Lambda):
            params = _plain_parameters(func, len(sequences))
            if params is None:
                return None
            targets, elt = [_store(p) for p in params], func.body
        elif _evaluates_alike(func, self.scope):
            variables = [self.scope.fresh("item") for _ in sequences]
            targets = [_store(v) for v in variables]
            elt = gast.Call(func=func, args=[_load(v) for v in variables], keywords=[])
        elif self._plain_partial(func):  # map(partial(g, a), xs) -> [g(a, x) for x in xs]
            variables = [self.scope.fresh("item") for _ in sequences]
            targets = [_store(v) for v in variables]
            elt = gast.Call(func=func.args[0], args=func.args[1:] + [_load(v) for v in variables],
                            keywords=[])
        else:
            return None
        iterable = self._zipped(sequences, node)
        if iterable is None:
            return None
        target = targets[0] if len(targets) == 1 else gast.Tuple(elts=targets, ctx=gast.Store())
        return _located(_comprehension(elt, target, iterable, []), node)

    def _plain_partial(self, func):
        """Whether `func` is ``functools.partial(g, a, ...)`` of a known
        function and names or constants, which evaluate alike once per item
        (autograd's hmm_em.py)."""
        return isinstance(func, gast.Call) and not func.keywords and func.args and \
            self.scope.is_builtin(func.func, functools.partial) and \
            _evaluates_alike(func.args[0], self.scope) and \
            all(isinstance(a, (gast.Name, gast.Constant)) for a in func.args[1:])

    def _filter(self, node):
        func, sequence = node.args
        if isinstance(func, gast.Lambda):
            params = _plain_parameters(func, 1)
            if params is None:
                return None
            variable, test = params[0], func.body
        elif isinstance(func, gast.Constant) and func.value is None:
            variable = self.scope.fresh("item")
            test = _load(variable)
        elif _evaluates_alike(func, self.scope):
            variable = self.scope.fresh("item")
            test = gast.Call(func=func, args=[_load(variable)], keywords=[])
        else:
            return None
        return _located(_comprehension(_load(variable), _store(variable), sequence,
                                       [test]), node)

    def _zipped(self, sequences, node):
        if len(sequences) == 1:
            return sequences[0]
        if not self.scope.is_builtin(gast.Name(id="zip", ctx=gast.Load(), annotation=None,
                                               type_comment=None), zip):
            return None  # `zip` is some other object here
        return gast.Call(func=_load("zip"), args=list(sequences), keywords=[])


def _rebinds(loop, iterable):
    """Whether the body of `loop` assigns the dict whose view it loops over."""
    view = iterable.args[0] if isinstance(iterable, gast.Call) and iterable.args else iterable
    container = getattr(getattr(view, "func", None), "value", None)
    if not isinstance(container, gast.Name):
        return False
    return any(isinstance(n, gast.Name) and n.id == container.id and
               not isinstance(n.ctx, gast.Load) for s in loop.body for n in walk(s))


def _evaluates_alike(func, scope):
    """Whether evaluating `func` once per item is the same as once: a name,
    or an attribute chain of a global (``np.sum``)."""
    if isinstance(func, gast.Name):
        return True
    return isinstance(func, gast.Attribute) and scope.is_function(func)


def _plain_parameters(lam, count):
    args = lam.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or \
            getattr(args, "posonlyargs", None) or len(args.args) != count:
        return None
    return [a.id for a in args.args]


def _as_list(genexp):
    return gast.copy_location(
        gast.ListComp(elt=genexp.elt, generators=genexp.generators), genexp)


def _comprehension(elt, target, iterable, ifs):
    return gast.ListComp(elt=elt, generators=[gast.comprehension(
        target=target, iter=iterable, ifs=ifs, is_async=0)])


def _load(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def _store(identifier):
    return gast.Name(id=identifier, ctx=gast.Store(), annotation=None, type_comment=None)


def _located(new, where):
    """`new` with the location of `where` on every node that has none (the
    user's expressions inside keep theirs), so errors point at the call."""
    for sub in walk(new):
        if isinstance(sub, (gast.expr, gast.comprehension)) and \
                getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, where)
            sub.end_lineno, sub.end_col_offset = where.end_lineno, where.end_col_offset
    return new
