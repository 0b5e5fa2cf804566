"""Inline stage: a call that passes or returns a closure is written out in the caller.

A function's derivative is generated once per (function, parameters,
functions bound to parameters) and called like the function. Two kinds of
call do not fit: one that passes a function reading the caller's variables
(``apply_twice(lambda v: v * w, x)``: the callee cannot read ``w``), and one
that returns a function made inside the callee (``make_layer(W)(x)``,
``layer = make_layer(W)``: the closure it returns must be called later).
Such a call is replaced, before validation, by the callee's own statements:

    h = make_layer(W)(x)     ->     W2 = W
                                    def layer(x2):
                                        return np.tanh(W2 @ x2)
                                    h = layer(x)

The callee's parameters and variables get new names; each argument is
assigned to its parameter first, in the order of the call. A function
passed in becomes a nested def or lambda of the caller, which the closures
machinery lifts as usual (``closures.py``). Inlined are only plain
functions whose body is straight statements ending with one ``return``
and that are not recursive; any other call stays a call (and is refused
where it cannot be differentiated). A derivative to compile
(``ctx.facts["inline_calls"]``, ``compile="numba"``) has every such call
written out, not only those: its pullbacks would be closures, which Numba
does not compile. A global the callee reads that the
caller's names do not denote (the callee is of another module, or a
variable of the caller hides the name) is read through the callee's
module (``layers.act``), the module bound under a fresh name in
``ctx.facts["helpers"]``.
"""
import builtins
import copy
import inspect
import sys

import gast

from tangent_ad.errors import TangentADError
from tangent_ad.frontend import closures, source
from tangent_ad.frontend.inline_names import Rename, free_names, local_names, relocate, relocate_new, store
from tangent_ad.frontend.static_scope import StaticScope
from tangent_ad.nodes import children, copy_tree, name as _load, walk, fix_locations
from tangent_ad.registry import REGISTRY
from tangent_ad.visitors import Transformer

_OPAQUE = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
           gast.IfExp, gast.BoolOp, gast.FunctionDef)
_LEAVES = frozenset((gast.Name, gast.Constant))
_UNBOUND = object()
ROUNDS = 4  # a factory that calls a factory is written out too, up to this depth


def run(tree, ctx):
    """Return the FunctionDef `tree` with the calls that pass or return
    closures written out (see the module docstring)."""
    if not hasattr(ctx.func, "__globals__"):
        return tree
    return _written_out(tree, ctx, only_made=False)


def applied_makers(tree, ctx):
    """Return the FunctionDef `tree` of generated code (a derivative
    differentiated again, ``frontend.reread``) with its calls of made
    closures written out: it calls a closure only where a rule does,
    ``maker(ans, x)(g)``."""
    if not any(isinstance(n, gast.Call) and isinstance(n.func, gast.Call) for n in walk(tree)):
        return tree
    return _written_out(tree, ctx, only_made=True)


def _written_out(tree, ctx, only_made):
    parsed = {}  # callee -> its parsed tree, for every call of it
    for _ in range(ROUNDS):
        inliner = _Inliner(StaticScope(tree, ctx), ctx, tree, only_made, parsed)
        tree.body = inliner.block(tree.body)
        if not inliner.changed:
            break
    return fix_locations(tree)


class _Calls(Transformer):
    """The calls of one expression, innermost first, each written out by the
    `inliner` where it can be (the statements that does so go to `before`)."""

    def __init__(self, inliner, before):
        self.inliner, self.before = inliner, before

    def visit(self, node):
        if node.__class__ in _LEAVES:
            return node  # nothing inside: not worth the visitor's dispatch
        return super().visit(node)

    def generic_visit(self, node):
        if isinstance(node, _OPAQUE):
            return node  # runs later or not at all: left as written
        return Transformer.generic_visit(self, node)

    def visit_Call(self, node):
        inliner, before = self.inliner, self.before
        self.generic_visit(node)
        if isinstance(node.func, gast.Call) and inliner.only_made:
            return inliner.applied(node, before) or node
        if isinstance(node.func, gast.Call):
            inner = inliner.inlined(node.func, before, returns_function=True)
            if inner is not None:
                node.func = inner
            return node
        return node if inliner.only_made else inliner.inlined(node, before) or node


def _def_names(stmts):
    """The names of the defs in `stmts`, outside nested defs and lambdas. A
    def is a statement: the expressions, most of the nodes, are not looked
    into."""
    names, todo = set(), list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.FunctionDef):
            names.add(node.name)
        elif not isinstance(node, gast.expr):
            todo.extend(children(node))
    return names


class _Inliner:
    def __init__(self, scope, ctx, tree, only_made=False, parsed=None):
        self.scope = scope
        self.ctx = ctx
        self.tree = tree
        self.only_made = only_made
        self.parsed = {} if parsed is None else parsed
        self.changed = False
        # the names of the nested defs, kept as inlining adds some
        self.def_names = _def_names(tree.body)

    def block(self, stmts):
        out = []
        for stmt in stmts:
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, self.block(getattr(stmt, field)))
            before = []
            fields = ("value",) if isinstance(stmt, gast.While) else ("value", "test", "iter")
            for field in fields:
                expr = getattr(stmt, field, None)
                if isinstance(expr, gast.expr) and not isinstance(stmt, gast.While):
                    setattr(stmt, field, self.expression(expr, before))
            out.extend(before + [stmt])
        return out

    def expression(self, expr, before):
        """`expr` with its calls written out (their statements appended to
        `before`)."""
        return _Calls(self, before).visit(expr)

    # ---- one call ---------------------------------------------------------------

    def applied(self, call, before):
        """``maker(a)(g)`` with `maker` returning a lambda: the lambda's
        body, its parameters assigned first (generated code keeps no
        nested def that is not a pullback); None when not written out."""
        made = self.inlined(call.func, before, returns_function=True, applied_to=call)
        if made is None:
            return None
        renames = {}
        for param, arg in zip(made.args.args, call.args):
            renames[param.id] = self.scope.fresh(param.id)
            before.append(relocate_new(gast.Assign(targets=[store(renames[param.id])], value=arg,
                                                    type_comment=None), call))
        return Rename(renames).visit(made.body)

    def parse(self, func):
        """A copy of the tree of the function `func`: a function called in
        several places (a layer of a network) is parsed once."""
        tree = self.parsed.get(func)
        if tree is None:
            tree = self.parsed[func] = source.parse_function(func)[0]
        return copy_tree(tree)

    def inlined(self, call, before, returns_function=False, applied_to=None):
        """The expression that replaces `call` after its callee's statements
        are added to `before`; None when the call is not inlined. With
        `applied_to` (the call of the call's result), only a callee that
        returns a lambda of as many plain parameters as that call passes
        is written out, and the lambda is returned as it is."""
        func = self.scope.value(call.func)
        if not _plain(func) or any(isinstance(a, gast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return None
        try:
            tree = self.parse(func)
        except TangentADError:
            return None
        body = tree.body[1:] if tree.body and _is_docstring(tree.body[0]) else tree.body
        if not _straight(body, tree.name) or tree.args.vararg or tree.args.kwarg or \
                tree.args.kwonlyargs or tree.args.posonlyargs:
            return None
        if not (returns_function or _returns_function(body) or self.passes_closure(call) or
                self.ctx.facts.get("inline_calls")):
            return None
        if applied_to is not None and not _plain_lambda(body, applied_to):
            return None
        local = local_names(tree)
        globals_read = self.globals_read(func, free_names(tree.body, local))
        if globals_read is None:
            return None
        try:
            bound = inspect.signature(func).bind(
                *call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError:
            return None
        renames = {n: self.scope.fresh(n) for n in sorted(local)}
        renames.update(globals_read)
        order = [a for a in call.args] + [k.value for k in call.keywords]
        given = {id(v): p for p, v in bound.arguments.items()}
        assigned = [(given[id(a)], a) for a in order]
        defaults = dict(zip([a.id for a in tree.args.args][len(tree.args.args) -
                                                           len(tree.args.defaults):],
                            tree.args.defaults))
        values = {p.name: p.default for p in inspect.signature(func).parameters.values()}
        for param in [a.id for a in tree.args.args]:
            if param not in bound.arguments:
                default = defaults[param]
                # the default was evaluated when the def ran: written here only
                # when the expression still denotes that very value
                if not (isinstance(default, gast.Constant) or (
                        self.scope.is_function(default) and
                        self.scope.value(default) is values[param])):
                    return None
                assigned.append((param, copy.deepcopy(default)))
        # a known function passed in is written where the parameter is read
        # (the callee's calls of it stay calls of that function)
        stored = {n.id for n in walk(gast.Module(body=body, type_ignores=[]))
                  if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        for p, v in list(assigned):
            if p not in stored and self.scope.is_function(v):
                renames[p] = v
                assigned.remove((p, v))
        statements = [gast.Assign(targets=[store(renames[p])], value=v, type_comment=None)
                      for p, v in assigned]
        renamed = [Rename(renames).visit(copy.deepcopy(s)) for s in body]
        for stmt in renamed:
            relocate(stmt, call)
        for stmt in statements:
            relocate_new(stmt, call)
        before.extend(statements + renamed[:-1])
        self.def_names |= {n.name for n in closures._walk_outside_functions(renamed)
                           if isinstance(n, gast.FunctionDef)}
        self.changed = True
        # the resolver records what the derivative depends on: the callee too
        self.ctx.facts.setdefault("static_reads", []).append(copy.deepcopy(call.func))
        result = renamed[-1].value
        if isinstance(result, gast.Lambda) and applied_to is None:
            # a def of its own, as the callee's def would be: a name bound to
            # it (``l1 = make_layer(W1)``) is then a known nested function
            label = self.scope.fresh(f"{tree.name}_result")
            self.def_names.add(label)
            ret = gast.Return(value=result.body)
            before.append(relocate_new(gast.FunctionDef(
                name=label, args=result.args, body=[relocate_new(ret, call)],
                decorator_list=[], returns=None, type_comment=None, type_params=[]), call))
            result = gast.copy_location(gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                  type_comment=None), call)
        return result

    def globals_read(self, func, free):
        """What to write for the globals the callee reads that the
        caller's names do not denote (the callee is of another module, or
        a variable of the caller hides one): ``layers.act``, the callee's
        module bound under a fresh name in ``ctx.facts["helpers"]`` (read
        when the derivative runs, as any attribute of a module is); a
        builtin is bound itself. None when the callee reads a name it
        does not have."""
        renames = {}
        helpers = self.ctx.facts.setdefault("helpers", {})
        module = sys.modules.get(func.__module__)
        for identifier in sorted(free):
            if identifier in func.__globals__:
                value, holder = func.__globals__[identifier], module
            else:
                value = holder = getattr(builtins, identifier, _UNBOUND)
            if value is _UNBOUND:
                return None
            if self.scope.value(_load(identifier)) is value:
                continue
            if getattr(holder, "__dict__", None) is not func.__globals__ and holder is not value:
                return None  # (the globals of no module we can name)
            alias = next((k for k, v in helpers.items() if v is holder), None)
            if alias is None:
                alias = self.scope.fresh(holder.__name__.rpartition(".")[2])
                helpers[alias] = holder
            renames[identifier] = _load(alias) if holder is value else \
                gast.Attribute(value=_load(alias), attr=identifier, ctx=gast.Load())
        return renames

    def passes_closure(self, call):
        """Whether `call` passes a lambda or nested def that reads a
        variable of the caller (its pullback could not read it)."""
        args = list(call.args) + [k.value for k in call.keywords]
        if not any(isinstance(a, gast.Lambda) or
                   isinstance(a, gast.Name) and a.id in self.def_names for a in args):
            return False  # (walking the tree for its defs, per call, was most of inlining)
        defs = {n.name: n for n in closures._walk_outside_functions(self.tree.body)
                if isinstance(n, gast.FunctionDef)}
        for arg in args:
            if isinstance(arg, gast.Lambda) and self.reads_locals(arg, arg.args.args):
                return True
            if isinstance(arg, gast.Name) and arg.id in defs and \
                    self.reads_locals(defs[arg.id], defs[arg.id].args.args):
                return True
        return False

    def reads_locals(self, node, params):
        own = {p.id for p in params} | {n.id for n in walk(node) if isinstance(n, gast.Name)
                                        and isinstance(n.ctx, gast.Store)}
        return any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and
                   n.id not in own and self.scope.is_local(n.id) for n in walk(node))


def _plain(func):
    """A Python function with its source, not a closure, not registered,
    not decorated, not a derivative."""
    return inspect.isfunction(func) and func.__closure__ is None and \
        not hasattr(func, "__wrapped__") and not hasattr(func, "__tangent_ad__") and \
        not REGISTRY.has("reverse", func) and not inspect.isgeneratorfunction(func)


def _plain_lambda(body, applied_to):
    """Whether `body` returns a lambda that `applied_to` calls with one
    positional argument per parameter (none with a default, no ``*``, no
    keywords), and makes no other function (in generated code a nested
    def or lambda would be taken for a pullback)."""
    value = body[-1].value
    if not isinstance(value, gast.Lambda) or applied_to.keywords or sum(
            isinstance(n, (gast.Lambda, gast.FunctionDef)) for s in body for n in walk(s)) != 1:
        return False
    args = value.args
    return not (args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults) \
        and len(args.args) == len(applied_to.args) and \
        not any(isinstance(a, gast.Starred) for a in applied_to.args)


def _is_docstring(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) \
        and isinstance(stmt.value.value, str)


def _straight(body, own_name):
    """Statements with one ``return <value>``, the last, and none in a
    branch or loop; no call of the function itself."""
    if not body or not isinstance(body[-1], gast.Return) or body[-1].value is None:
        return False
    for stmt in body:
        if isinstance(stmt, (gast.Global, gast.Nonlocal, gast.Try, gast.With)):
            return False
        for node in closures._walk_outside_functions([stmt]):
            if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom)) and \
                    node is not body[-1]:
                return False
    return not any(isinstance(n, gast.Name) and n.id == own_name for n in walk(
        gast.Module(body=body, type_ignores=[])))


def _returns_function(body):
    """Whether the returned value is a lambda or a def of the body."""
    value = body[-1].value
    defs = {s.name for s in body if isinstance(s, gast.FunctionDef)}
    return isinstance(value, gast.Lambda) or (isinstance(value, gast.Name) and value.id in defs)
