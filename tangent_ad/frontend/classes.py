"""Resolve, for objects: the methods and properties of the user's classes.

``self.layer(x)``, ``model.forward(x)``, ``p.doubled`` (a property) and
``layer(x)`` (an object with ``__call__``) name functions that depend on
the class of a local value, which the source does not say. A derivative
is therefore generated for the *classes* of its arguments (``spec_of``:
the class of an object, and, through its attributes, the classes of the
objects, lists of objects and functions it holds), when it is first
called with them (``api.py``), and again for other classes. The function
is copied (`specialized`) with those classes attached; `rewrite` then turns
each such use into a call of the class's own function, the object first:

    self.layer(x)   ->  Layer_forward(self.layer, x)   (Layer.forward)
    p.doubled       ->  WithProperty_doubled(p)        (its getter)

so that the usual machinery differentiates it (a pullback or a forward
function, specialized in turn to the classes of its arguments). The
classes of local names follow assignments and ``for`` loops over lists of
objects; a name bound to values of different classes is not known.
Attributes that are data stay field reads (``runtime/objects.py``). The
descriptions of classes themselves are in ``class_specs.py``.
"""
import inspect
import types

import gast
import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend.closures import _walk_outside_functions
from tangent_ad.frontend.methods import ATTRIBUTES, METHODS
from tangent_ad.frontend.class_specs import SPECS, spec_of, specialized
from tangent_ad.nodes import name_nodes
from tangent_ad.visitors import Transformer

# attributes only an array has (``x.flat``, ``x.tofile()``): refused up front,
# never read as a field or method of an object (names a field may well
# have are left out)
ARRAY_ONLY = frozenset(a for a in dir(np.ndarray) if not a.startswith("_")) - {
    "data", "base", "dtype", "itemsize", "strides", "flags"}


_WAIT = ("tangent_ad.grad and the other transforms generate such a derivative when "
         "it is first called, for the classes of the arguments; the command line "
         "cannot, as it is given no arguments")


class UnknownClass(UnsupportedSyntaxError):
    """A method or attribute of an argument whose class is not known yet:
    the derivative is generated when it is called (``api.py``)."""


def rewrite(tree, ctx, scope, snapshot):
    """Rewrite the uses of methods and properties in `tree` (see the module
    docstring), binding the functions they call in `scope`; record what the
    derivative depends on. Raise `UnknownClass` for a function that was not
    specialized and uses an attribute of one of its parameters."""
    func = ctx.func
    specs = getattr(func, SPECS, None)
    params = [a.id for a in tree.args.args]
    if not isinstance(func, types.FunctionType) or hasattr(func, "__tangent_ad__"):
        return  # a lifted nested function, or generated code
    if specs is None and not ctx.callee:
        _refuse_unknown(tree, ctx, params)
    names = name_nodes(tree)
    taken = {n.id for n in names}
    rewriter = _Rewriter(ctx, {}, scope, snapshot, taken)
    rewriter.local = set(params) | {n.id for n in names if not isinstance(n.ctx, gast.Load)}
    rewriter.known = _Known(_infer(tree, dict(specs or ()), rewriter.global_spec), rewriter)
    rewriter.visit_body(tree)


class _SameClasses:
    """A check for ``live.Dependencies``: its ``get`` gives itself back
    while the global object read by `read` still has the classes `spec`
    (``net.layers[1] = Softplus(...)`` changes them), so that the
    derivative is generated again when they change."""

    def __init__(self, read, spec):
        self.read, self.spec = read, spec

    def get(self, name, default=None):
        try:
            same = spec_of(self.read()) == self.spec
        except ValueError:  # an emptied closure cell
            same = False
        return self if same else default


class _Known(dict):
    """The classes of local names, and of the global objects the function
    reads (``net.loss(x)`` of a module's ``net``)."""

    def __init__(self, local, rewriter):
        super().__init__(local)
        self.rewriter = rewriter

    def get(self, name, default=None):
        if name in self:
            return self[name]
        return self.rewriter.global_spec(name)


def _refuse_unknown(tree, ctx, params):
    for node in _walk_outside_functions(tree.body):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in params:
            raise UnknownClass(
                f"'{node.func.id}(...)' depends on the class of the argument "
                f"'{node.func.id}'", hint=_WAIT, **ctx.where(node))
        if isinstance(node, gast.Attribute) and _root(node) in params and \
                node.attr not in ATTRIBUTES and node.attr not in METHODS and \
                node.attr not in ARRAY_ONLY and node.attr != "append":
            raise UnknownClass(
                f"'{_root(node)}.{node.attr}' depends on the class of the argument "
                f"'{_root(node)}'", hint=_WAIT, **ctx.where(node))


def _root(node):
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _infer(tree, known, global_spec):
    """The classes of local names: each name assigned (or looped over) only
    values of one known class; parameters keep theirs unless reassigned.
    `global_spec` gives those of the global objects."""
    definitions, handled = {}, set()
    for node in _walk_outside_functions(tree.body):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            definitions.setdefault(node.targets[0].id, []).append(("value", node.value))
            handled.add(id(node.targets[0]))
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Tuple) and isinstance(node.value, gast.Tuple) \
                and len(node.targets[0].elts) == len(node.value.elts):  # a, b = x, y
            for target, value in zip(node.targets[0].elts, node.value.elts):
                if isinstance(target, gast.Name):
                    definitions.setdefault(target.id, []).append(("value", value))
                    handled.add(id(target))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            definitions.setdefault(node.target.id, []).append(("item", node.iter))
            handled.add(id(node.target))
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                id(node) not in handled:
            definitions.setdefault(node.id, []).append(("unknown", None))
    for name in definitions:
        if name in known:
            definitions[name].append(("spec", known[name]))
    result = {name: spec for name, spec in known.items() if name not in definitions}
    params = {a.id for a in tree.args.args}
    local = set(definitions) | params

    class Lookup(dict):
        def get(self, name, default=None):
            if name in self or name in local:
                return dict.get(self, name, default)
            return global_spec(name)

    result = Lookup(result)
    for _ in range(len(definitions) + 1):
        changed = False
        for name, defs in definitions.items():
            found = {_definition(kind, expr, result) for kind, expr in defs}
            spec = found.pop() if len(found) == 1 else None
            if spec is not None and result.get(name) != spec:
                result[name] = spec
                changed = True
        if not changed:
            break
    return {name: spec for name, spec in result.items() if spec is not None}


def _definition(kind, expr, known):
    if kind == "spec":
        return expr
    if kind == "unknown":
        return None
    spec = chain(expr, known)
    if kind == "item":
        return ("object", spec[1]) if spec is not None and spec[0] == "items" else None
    return spec


def chain(expr, known):
    """The spec of the value of `expr`, a chain of attribute reads and
    indexing rooted at a local name, or None."""
    if isinstance(expr, gast.Name):
        return known.get(expr.id)
    if isinstance(expr, gast.Attribute):
        base = chain(expr.value, known)
        if base is None or base[0] != "object":
            return None
        entry = base[1].attr(expr.attr)
        return entry if entry is not None and entry[0] != "function" else None
    if isinstance(expr, gast.Subscript):
        base = chain(expr.value, known)
        if base is not None and base[0] == "items":
            return ("object", base[1])
        index = expr.slice
        if base is not None and base[0] == "seq" and isinstance(index, gast.Constant) and \
                type(index.value) is int and -len(base[1]) <= index.value < len(base[1]):
            return ("object", base[1][index.value])
    return None


class _Rewriter(Transformer):
    def __init__(self, ctx, known, scope, snapshot, taken):
        self.ctx, self.known, self.scope, self.snapshot = ctx, known, scope, snapshot
        self.taken = taken  # the function's own names
        self.globals_seen = {}
        self.mixed = {}  # loop variables over objects of several classes
        self.deps = ctx.facts["dependencies"]

    def global_spec(self, name):
        """The class of the global object `name` (not one of the function's
        own names), recorded as a dependency: another object there is
        another derivative."""
        if name in self.local:
            return None
        if name in self.globals_seen:
            return self.globals_seen[name]
        value = self.scope.get(name)
        spec = spec_of(value) if value is not None else None
        self.globals_seen[name] = spec
        if spec is not None:
            cell = self.deps.cells.get(name)
            read = (lambda: cell.cell_contents) if cell is not None else \
                (lambda live=self.deps.live: live.get(name))
            check = _SameClasses(read, spec)
            self.deps.names.append((check, name, check))
        return spec

    def visit_body(self, tree):
        tree.body = [self.visit(stmt) for stmt in tree.body]

    def visit_FunctionDef(self, node):
        return node  # nested functions are resolved on their own

    def visit_For(self, node):
        spec = chain(node.iter, self.known)
        if spec is not None and spec[0] == "seq" and isinstance(node.target, gast.Name) \
                and node.target.id not in self.known:
            self.mixed[node.target.id] = spec[1]
        return self.generic_visit(node)

    def visit_Lambda(self, node):
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Attribute):
            if isinstance(func.value, gast.Name):
                self._refuse_mixed(node, func.value.id)
            base = chain(func.value, self.known)
            if base is not None and base[0] == "object":
                return self._method(node, func.value, base[1], func.attr)
        elif isinstance(func, gast.Name):
            spec = self.known.get(func.id)
            if spec is not None and spec[0] == "object":  # an object with __call__
                return self._method(node, func, spec[1], "__call__")
            self._refuse_mixed(node, func.id)
            value = self.scope.get(func.id)
            if func.id not in self.known and isinstance(value, types.FunctionType):
                self._arguments(node, value)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load):
            return node
        base = chain(node.value, self.known)
        if base is None or base[0] != "object" or base[1].attr(node.attr) is not None:
            return node
        owner, attr = _lookup(base[1].cls, node.attr)
        if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
            self.deps.names.append((vars(owner), node.attr, attr))
            call = gast.Call(func=None, args=[node.value], keywords=[])
            return self._bind(call, attr.fget, base[1], owner, node.attr, node)
        return node

    def _refuse_mixed(self, node, name):
        if name in self.mixed:
            kinds = ", ".join(dict.fromkeys(spec.cls.__name__ for spec in self.mixed[name]))
            raise UnsupportedSyntaxError(
                f"'{name}' goes through objects of different classes ({kinds}), so "
                "which method a call runs depends on the iteration",
                hint="make the items one class, or take them out by index first "
                     "(first = layers[0]; first(x))", **self.ctx.where(node))

    def _method(self, node, receiver, spec, attr):
        entry = spec.attr(attr) if attr != "__call__" else None
        if entry is not None and entry[0] == "function":  # self.activation = np.tanh
            return self._call(node, entry[1], f"{spec.cls.__name__}_{attr}")
        if entry is not None:  # self.layer(x): the object's __call__
            inner = chain(gast.Attribute(value=receiver, attr=attr, ctx=gast.Load()),
                          self.known)
            if inner is None or inner[0] != "object":
                return node
            node.func = gast.Attribute(value=receiver, attr=attr, ctx=gast.Load())
            return self._method(node, node.func, inner[1], "__call__")
        owner, found = _lookup(spec.cls, attr)
        if owner is None:
            raise UnsupportedSyntaxError(
                f"'{spec.cls.__name__}' object has no attribute '{attr}'",
                **self.ctx.where(node))
        self.deps.names.append((vars(owner), attr, found))
        if isinstance(found, staticmethod):
            return self._call(node, found.__func__, f"{spec.cls.__name__}_{attr}")
        if isinstance(found, types.FunctionType):
            node.args.insert(0, receiver)
            return self._bind(node, found, spec, owner, attr, node)
        raise UnsupportedSyntaxError(
            f"'{spec.cls.__name__}.{attr}' is a {type(found).__name__}, which cannot "
            "be called on an object in a differentiated function",
            hint=f"call a plain method of {spec.cls.__name__}", **self.ctx.where(node))

    def _bind(self, call, function, spec, owner, attr, where):
        """`call` as a call of `function`, specialized to the classes of its
        arguments (`spec` for the object, the first)."""
        specs = self._argument_specs(call, function, {0: ("object", spec)})
        alias = f"{owner.__name__}_{attr.strip('_')}"
        target = specialized(function, specs)
        call.func = self._name(alias, target)
        return gast.copy_location(call, where)

    def _call(self, node, function, alias):
        if isinstance(function, types.FunctionType):
            specs = self._argument_specs(node, function, {})
            function = specialized(function, specs) if specs else function
        node.func = self._name(alias, function)
        return node

    def _arguments(self, node, function):
        """A call of a global function of the user's with objects among its
        arguments: the resolver calls a copy specialized to their classes."""
        specs = self._argument_specs(node, function, {})
        if specs:
            self.ctx.facts.setdefault("specialized_calls", {})[node] = \
                specialized(function, specs)

    def _argument_specs(self, call, function, given):
        try:
            params = list(inspect.signature(function).parameters)
        except (TypeError, ValueError):
            return ()
        specs = {}
        for i, arg in enumerate(call.args):
            if isinstance(arg, gast.Starred) or i >= len(params):
                break
            spec = given.get(i) or chain(arg, self.known)
            if spec is not None:
                specs[params[i]] = spec
        for keyword in call.keywords:
            spec = chain(keyword.value, self.known) if keyword.arg in params else None
            if spec is not None:
                specs[keyword.arg] = spec
        return tuple(sorted(specs.items(), key=lambda item: item[0]))

    def _name(self, alias, value):
        """A global name for `value` in the generated code: ``alias``, or
        ``alias2``... when the name is taken by something else."""
        candidate, i = alias, 2
        while self.scope.get(candidate, value) is not value or candidate in self.taken:
            candidate, i = f"{alias}{i}", i + 1
        self.scope[candidate] = value
        self.snapshot.add(candidate)
        return gast.Name(id=candidate, ctx=gast.Load(), annotation=None, type_comment=None)


def _lookup(cls, attr):
    """(the class in `cls`'s MRO that defines `attr`, the raw attribute)."""
    for klass in cls.__mro__:
        if attr in vars(klass):
            return klass, vars(klass)[attr]
    return None, None
