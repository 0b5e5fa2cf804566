"""What a name in the user's function denotes, before the resolve stage.

The passes that run before validation (``comprehensions``,
``function_values``) rewrite syntax whose meaning depends on what a name
is: ``map`` must be the builtin, ``np.sin`` a function and not a local
variable. `StaticScope` answers those questions from the function's
globals and closure cells, the way ``resolve`` will, without recording
anything.
"""
import builtins
import collections

import gast

from tangent_ad.nodes import children, walk

_MISSING = object()


class StaticScope:
    """The local names of the FunctionDef `tree` and the values of the
    others (globals, closure cells, builtins, and the functions the caller
    bound to parameters, ``ctx.static_args``)."""

    def __init__(self, tree, ctx):
        from tangent_ad.frontend.function_globals import function_scope
        scope = function_scope(ctx.func)[0]
        scope.update(ctx.static_args)
        self.scope = scope
        params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
        params += [a.id for a in (tree.args.vararg, tree.args.kwarg) if a is not None]
        self.stores = collections.Counter(p for p in params if p not in ctx.static_args)
        self.names, self.loads, lazy, stored, defs = _names_and_loads(tree)
        in_comprehensions = {id(n) for c in lazy for g in c.generators
                             for n in walk(g.target) if isinstance(n, gast.Name)}
        self.comprehension_variables = set()
        for node in stored:
            if id(node) in in_comprehensions:  # local to its comprehension
                self.comprehension_variables.add(node.id)
            else:
                self.stores[node.id] += 1
        self.stores.update(defs)
        self.local_defs = {name for name in defs if self.stores[name] == 1}

    def is_local(self, identifier):
        return identifier in self.stores or identifier in self.comprehension_variables

    def value(self, node):
        """The object a global Name or Attribute chain denotes, or _MISSING
        (a local root, an unknown name, a missing attribute, any other node)."""
        if isinstance(node, gast.Name):
            if self.is_local(node.id):
                return _MISSING
            if node.id in self.scope:
                return self.scope[node.id]
            return getattr(builtins, node.id, _MISSING)
        if isinstance(node, gast.Attribute):
            base = self.value(node.value)
            if base is _MISSING:
                return _MISSING
            return getattr(base, node.attr, _MISSING)
        return _MISSING

    def is_builtin(self, node, obj):
        """Whether `node` denotes the object `obj` (``map``, ``functools.reduce``)."""
        return self.value(node) is obj

    def is_function(self, node):
        """Whether `node` is a reference to a known function: a global one
        (``np.sin``, ``smooth``; classes excluded) or a nested def of the
        function defined once (``def step(h): ...``). Such a reference can
        be copied to where it is used without changing what runs."""
        if isinstance(node, gast.Name) and node.id in self.local_defs:
            return True
        value = self.value(node)
        return value is not _MISSING and callable(value) and not isinstance(value, type)

    def fresh(self, base):
        """A name that no name of the function uses (for the rewrites)."""
        candidate, i = base, 2
        while candidate in self.names or candidate in self.scope or \
                hasattr(builtins, candidate):
            candidate, i = f"{base}{i}", i + 1
        self.names.add(candidate)
        return candidate


MISSING = _MISSING


def loads(tree):
    """How many times each name is read in `tree`, not counting the reads
    of a comprehension's own variables inside it."""
    return _names_and_loads(tree)[1]


_LAZY = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _names_and_loads(tree):
    """(every name in the FunctionDef `tree`, `loads`, the comprehensions in
    it, the Names its body stores or deletes outside the functions nested in
    it, the names of the functions its body defines outside those), from
    one walk (and one more of each comprehension)."""
    names, counts, lazy, stored, defs = set(), collections.Counter(), [], [], []
    if isinstance(tree, gast.FunctionDef):
        body = {id(statement) for statement in tree.body}
        todo = [(child, id(child) in body) for child in children(tree)]
    else:
        todo = [(tree, False)]
    pop, push = todo.pop, todo.append
    while todo:
        node, outside = pop()
        cls = node.__class__
        if cls is gast.Name:
            names.add(node.id)
            context = node.ctx.__class__
            if context is gast.Load:
                counts[node.id] += 1
            elif outside and (context is gast.Store or context is gast.Del):
                stored.append(node)
            continue
        if cls in _LAZY:
            lazy.append(node)
        elif outside and (cls is gast.FunctionDef or cls is gast.Lambda):
            if cls is gast.FunctionDef:
                defs.append(node.name)
            outside = False  # (what a nested function binds is its own)
        for child in children(node):
            push((child, outside))
    shadowed = {}
    for node in lazy:
        own = {n.id for g in node.generators for n in walk(g.target) if isinstance(n, gast.Name)}
        shadowed.update((id(n), n) for n in walk(node) if isinstance(n, gast.Name)
                        and n.id in own and isinstance(n.ctx, gast.Load))
    counts.subtract(n.id for n in shadowed.values())
    return names, +counts, lazy, stored, defs
