"""Resolve stage: bind every global name and attribute to its Python object.

Templates are keyed by object, so ``np.sum``, ``numpy.sum`` and a bare
``sum`` imported from NumPy must all lead to the same function. This pass
looks each one up (closure cells, then module globals, then builtins) and
records, in ``ctx.resolved``, the object behind every call, operator,
global name and global attribute. ``ctx.namespace`` receives the root names
the generated code will need when it is loaded. The tree is not changed,
except for defaults that are not visible as globals (``_bind_defaults``),
methods of objects (called through their class's function), and calls of
function values that only the running code knows (``h(x)`` becomes
``call_value(h, (x,))``).
"""
import builtins
import inspect
import operator
import types

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import class_specs, classes, closures, source, value_calls
from tangent_ad.frontend.function_globals import RESERVED, Dependencies, function_scope
from tangent_ad.frontend.methods import ATTRIBUTES, METHODS
from tangent_ad.hooks import insert_grad_code
from tangent_ad.live import behind, shapes_code
from tangent_ad.nodes import walk
from tangent_ad.visitors import Visitor

BINARY_OPERATORS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow,
    gast.MatMult: operator.matmul, gast.Mod: operator.mod,
    gast.FloorDiv: operator.floordiv,
}
UNARY_OPERATORS = {gast.USub: operator.neg, gast.UAdd: operator.pos}

_MISSING = object()

def run(tree, ctx):
    """Fill ctx.resolved and ctx.namespace for the FunctionDef `tree`.

    Functions defined inside `tree` are lifted (see ``closures``) and
    recorded in ``ctx.facts["local_functions"]``; parameters bound to a
    known function by the caller (``ctx.static_args``) resolve to it.
    """
    return resolved_by(Resolver, tree, ctx)


def resolved_by(resolver_class, tree, ctx):
    """`run` with another `Resolver` class: generated code read again
    (``frontend.reread``) resolves its own constructs."""
    scope, live, snapshot, cells = function_scope(ctx.func)
    # bound by frontend.builtin_forms and frontend.inline; a lifted nested
    # function reads those of the function it was lifted from
    helpers = {**getattr(ctx.func, "helpers", {}), **ctx.facts.get("helpers", {})}
    snapshot |= set(ctx.static_args) | set(helpers)
    scope.update(ctx.static_args)
    scope.update(helpers)
    ctx.facts["live"] = live
    ctx.facts["live_names"] = set()
    ctx.facts["dependencies"] = Dependencies(ctx.func, live, cells)
    classes.rewrite(tree, ctx, scope, snapshot)  # methods and properties of objects
    local_functions = closures.collect(tree, ctx.func) if resolver_class.lifts_nested else {}
    for lifted in set(local_functions.values()):
        lifted.info = ctx.info
        lifted.helpers = helpers
    ctx.facts["local_functions"] = local_functions
    local = {a.id for a in tree.args.args} - set(ctx.static_args)
    local |= {n for n in local_functions if isinstance(n, str)}
    for node in closures._walk_outside_functions(tree.body):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            local.add(node.id)
        elif isinstance(node, gast.FunctionDef):
            local.add(node.name)
    resolver = resolver_class(ctx, scope, local, snapshot)
    resolver.closures = value_calls.holding_local_functions(tree, local_functions)
    for stmt in tree.body:
        resolver.visit(stmt)
    for lifted in set(local_functions.values()):
        _globals_of_lifted(lifted.tree, resolver)
    # names the stages before validation replaced by what they denote (a
    # callee written out, a function given to tad.grad): the derivative
    # depends on them as on any name it reads
    for read in ctx.facts.get("static_reads", ()):
        resolver.lookup(read)
    _bind_defaults(tree, ctx, scope, snapshot)
    return tree


def _spread_of_unknown_length(node, func):
    """Whether `node` is ``fun(*xs)`` (or ``fun(*xs, k=v)``) of a function
    with a default parameter and fixed ones only, with `xs` not written in
    the call: how many parameters it fills is known when the code runs, so
    the call is made as a function value's (``call_value(fun, tuple(xs))``)."""
    if len(node.args) != 1 or not isinstance(node.args[0], gast.Starred) or \
            any(k.arg is None for k in node.keywords) or \
            isinstance(node.args[0].value, (gast.Tuple, gast.List)) or not callable(func) or \
            isinstance(func, type):
        return False
    try:
        params = list(source.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    fixed = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return bool(params) and all(p.kind in fixed for p in params) and \
        any(p.default is not p.empty for p in params)


def _globals_of_lifted(fdef, resolver):
    """Put the globals a lifted nested function reads into the namespace:
    the primal runs it as written even where no pullback of it is made
    (``scale = inner(1.0)``, a call with constant arguments)."""
    own = resolver.local | {a.id for a in fdef.args.args} | {
        n.id for n in walk(fdef) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    for node in walk(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                node.id not in own and (node.id in resolver.scope or hasattr(builtins, node.id)):
            resolver.lookup(node)


def _bind_defaults(tree, ctx, scope, snapshot):
    """Make the parameters' defaults loadable in the generated code.

    A derivative keeps the defaults of `tree` as expressions, but they were
    evaluated where the function was defined, not in its body. A default
    that reads no name stays as written; a name that denotes the default
    value in `scope` goes into ``ctx.namespace`` (``s=SCALE`` stays
    readable); any other default (``k=k`` in a closure, ``np.ones(3)``) is
    replaced by its value, bound to ``__tad_default_<parameter>``.
    """
    args = tree.args
    values = getattr(ctx.func, "__defaults__", None)
    params = args.args[len(args.args) - len(args.defaults):]
    for i, (param, expr) in enumerate(zip(params, args.defaults)):
        if not any(isinstance(n, gast.Name) for n in walk(expr)):
            continue
        value = values[i] if values is not None and len(values) == len(params) else _MISSING
        if isinstance(expr, gast.Name) and expr.id in scope and \
                (value is _MISSING or scope[expr.id] is value):
            ctx.namespace[expr.id] = scope[expr.id]
        elif value is not _MISSING:
            key = f"__tad_default_{param.id}"
            ctx.namespace[key] = value
            args.defaults[i] = gast.Name(id=key, ctx=gast.Load(), annotation=None,
                                         type_comment=None)
        else:  # a lifted nested function: its defaults must be globals
            Resolver(ctx, scope, set(), snapshot).visit(expr)


def _user_method(obj):
    """A method of a Python class of the user's bound to an object (or a
    classmethod); not one of a library's (``scipy.stats.norm.logpdf``: its
    rule is called)."""
    if not (isinstance(obj, types.MethodType) and isinstance(obj.__func__, types.FunctionType)
            and getattr(obj.__func__, "__tangent_ad__", None) is None):
        return False
    owner = obj.__self__ if isinstance(obj.__self__, type) else type(obj.__self__)
    return not class_specs.library_class(owner)


_RENAMED = "_user_"  # the prefix of a global renamed for a helper's name

class Resolver(Visitor):
    """Records the object behind each name, attribute and call it visits."""

    lifts_nested = True  # nested defs become functions of their own (``closures``)

    def __init__(self, ctx, scope, local, snapshot=()):
        self.ctx = ctx
        self.scope = scope
        self.local = local
        self.snapshot = snapshot

    def lookup(self, node):
        """The object a Name or Attribute chain denotes, or _MISSING when
        it is rooted at a local variable."""
        if isinstance(node, gast.Name):
            if node.id in self.local:
                return _MISSING
            value = self.scope.get(node.id, _MISSING)
            if value is _MISSING:
                value = getattr(builtins, node.id, _MISSING)
            if value is _MISSING and node.id.startswith(_RENAMED) and \
                    node.id[len(_RENAMED):] in self.scope:
                # a global with a helper's name, renamed below when the
                # function around a nested def resolved it: the nested def,
                # lifted into a function of its own, reads it again
                node.id = node.id[len(_RENAMED):]
                value = self.scope[node.id]
            if value is _MISSING:
                raise UnsupportedSyntaxError(
                    f"name '{node.id}' is not defined",
                    hint="tangent_ad reads the function's globals when it "
                         "transforms it: define the name before asking for "
                         "the derivative",
                    **self.ctx.where(node))
            live = node.id in self.scope and node.id not in self.snapshot
            if RESERVED.get(node.id, value) is not value:
                # a global of the user's with the name of a helper the
                # derivative calls (``unbroadcast``, ``len``): written under
                # another name, and made again when it changes (not read live)
                deps = self.ctx.facts["dependencies"]
                deps.name(node.id, value, live)
                if live and not shapes_code(value):
                    deps.names.append((self.ctx.facts["live"], node.id, value))
                node.id = _RENAMED + node.id
                self.ctx.namespace[node.id] = value
                return value
            self.ctx.namespace[node.id] = value
            if live and not shapes_code(value):
                self.ctx.facts["live_names"].add(node.id)  # read when it runs
            self.ctx.facts["dependencies"].name(node.id, value, live)
            return value
        if isinstance(node, gast.Attribute):
            base = self.lookup(node.value)
            if base is _MISSING:
                return _MISSING
            try:
                value = getattr(base, node.attr)
                self.ctx.facts["dependencies"].attribute(base, node.attr, value)
                return value
            except AttributeError:
                raise UnsupportedSyntaxError(
                    f"'{type(base).__name__}' object has no attribute "
                    f"'{node.attr}'", **self.ctx.where(node)) from None
        return _MISSING

    def visit_With(self, node):
        call = node.items[0].context_expr
        if self.lookup(call.func) is not insert_grad_code:
            raise UnsupportedSyntaxError(
                "only 'with tad.insert_grad_code(x) as dx:' blocks are supported",
                **self.ctx.where(node))
        for stmt in node.body:  # resolved for its globals; never differentiated
            self.visit(stmt)

    def visit_FunctionDef(self, node):
        pass  # resolved on its own, when its pullback is generated

    def spreads_when_run(self, node, obj):
        """Whether the call `node` of `obj` is made as a function value's,
        its arguments counted when it runs."""
        return _spread_of_unknown_length(node, obj)

    def local_call(self, node):
        """Resolve the call `node` of a local variable's function or
        method that this resolver knows itself; False for the others."""
        return False

    def visit_Lambda(self, node):
        pass

    def visit_Call(self, node):
        if not isinstance(node.func, (gast.Name, gast.Attribute)):
            return self._value_call(node)  # make(W)(x), fs[i](x)
        functions = self.ctx.facts["local_functions"]
        if isinstance(node.func, gast.Name) and node.func.id in functions:
            self.ctx.resolved[node] = functions[node.func.id]
            for child in node.args + [k.value for k in node.keywords]:
                self.visit(child)
            return
        obj = self.lookup(node.func)
        if obj is not _MISSING and self.spreads_when_run(node, obj):
            return self._value_call(node)  # fun(*args) into defaults: its count when it runs
        if obj is _MISSING:
            if self.local_call(node):
                return
            if not isinstance(node.func, gast.Attribute):
                return self._value_call(node)  # h = pick(kind); h(x)
            method = node.func.attr
            if method == "append":  # xs.append(v): normalize makes it functional
                self.visit(node.func.value)
                for child in node.args:
                    self.visit(child)
                return
            if method not in METHODS:
                # rs.randn(3) of a local RandomState: the bound method is a
                # function value, known when the code runs
                return self._value_call(node)
            obj = METHODS[method]
            self.ctx.facts.setdefault("methods", set()).add(node)
            self.visit(node.func.value)
        elif _user_method(obj):  # obj.method(x): the class's function, obj first
            self._method_call(node, obj)
            return
        else:
            obj = behind(obj)  # a derivative the user's code calls: its current code
            # a function of the user's given objects: its copy for their classes
            obj = self.ctx.facts.get("specialized_calls", {}).get(node, obj)
            if self.ctx.mode == "forward" and hasattr(obj, "__tangent_ad_function__"):
                obj = obj.__tangent_ad_function__()  # a product made on demand
            self.ctx.resolved[node.func] = obj
        self.ctx.resolved[node] = obj
        partials = [] if closures.from_source(obj, self.ctx.mode) else \
            value_calls.pass_local_functions(node, self.ctx)
        for child in node.args + [k.value for k in node.keywords]:
            for part in child.args + child.keywords if child in partials else [child]:
                self.visit(part)

    def _value_call(self, node):
        """``h(x, y)`` of a function value known only when the code runs."""
        partials = value_calls.pass_local_functions(node, self.ctx)
        value_calls.rewrite(node, self.ctx, getattr(self, "closures", ()))
        for child in node.args:
            for part in child.args + child.keywords if child in partials else [child]:
                self.visit(part)

    def _method_call(self, node, method):
        """``model.loss(x)`` of a global `model` as ``Model_loss(model, x)``:
        a call of the function ``Model.loss``, bound in the namespace."""
        function = method.__func__
        spec = class_specs.spec_of(method.__self__)
        if spec is not None and spec[0] == "object":  # its methods and properties, too
            first = next(iter(inspect.signature(function).parameters))
            function = class_specs.specialized(function, ((first, spec),))
        alias = "__tad_method_" + function.__qualname__.replace(".", "_").replace("<", "_") \
            .replace(">", "_")
        if isinstance(node.func, gast.Name):
            # a name bound to the bound method itself (a function value's
            # caller, ``function(a0, a1)``): its object is bound beside it
            receiver = gast.Name(id=alias + "_self", ctx=gast.Load(), annotation=None,
                                 type_comment=None)
            self.scope[receiver.id] = method.__self__
            self.snapshot = set(self.snapshot) | {receiver.id}
        else:
            receiver = node.func.value
            if isinstance(receiver, gast.Name) and receiver.id not in self.local:
                # the object's class and layout shaped the code: another object
                # is another derivative
                self.ctx.facts["dependencies"].names.append(
                    (self.ctx.facts["live"], receiver.id, method.__self__))
        self.ctx.namespace[alias] = function
        self.ctx.facts["dependencies"].generated(function)
        node.func = gast.Name(id=alias, ctx=gast.Load(), annotation=None, type_comment=None)
        node.args.insert(0, receiver)
        self.ctx.resolved[node.func] = self.ctx.resolved[node] = function
        for child in node.args + [k.value for k in node.keywords]:
            self.visit(child)

    def visit_Attribute(self, node):
        obj = self.lookup(node)
        if obj is not _MISSING:
            self.ctx.resolved[node] = obj
        elif node.attr not in ATTRIBUTES and node.attr in classes.ARRAY_ONLY:
            raise UnsupportedSyntaxError(
                f"the attribute '.{node.attr}' of a local value is not "
                "supported", hint="supported array attributes: " +
                ", ".join(sorted(ATTRIBUTES)),
                **self.ctx.where(node))
        elif node.attr not in ATTRIBUTES:  # obj.W: a field (runtime.objects)
            self.ctx.facts.setdefault("fields", set()).add(node)
            self.visit(node.value)
        else:
            self.ctx.facts.setdefault("methods", set()).add(node)
            self.visit(node.value)

    def visit_Subscript(self, node):
        self.ctx.resolved[node] = operator.getitem
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id not in self.local:
            self.ctx.resolved[node] = self.lookup(node)

    def visit_BinOp(self, node):
        if type(node.op) in BINARY_OPERATORS:  # not `|` of a generated mask
            self.ctx.resolved[node] = BINARY_OPERATORS[type(node.op)]
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.ctx.resolved[node] = BINARY_OPERATORS[type(node.op)]
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if type(node.op) in UNARY_OPERATORS:  # `not` is only ever a condition
            self.ctx.resolved[node] = UNARY_OPERATORS[type(node.op)]
        self.generic_visit(node)
