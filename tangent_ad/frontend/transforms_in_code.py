"""Derivatives made inside the differentiated function: ``tad.grad(inner)(x)``.

``make`` finds calls of a public transform whose result is called at once,
with constant options, and makes the derivative when transforming (what
the call would make when it runs); the call then reads it by a name bound
in ``ctx.facts["helpers"]``, as a derivative held in a global is.

A lambda or nested def that reads the function's variables,
``tad.grad(lambda y: x * y)(2.0)``, cannot be differentiated alone. `lifted`
writes it as a function of its own parameters followed by what it reads::

    def lambda_lifted(y, x):
        return x * y

with the user's module as its globals (read live, as the lambda would),
so that ``tad.grad(lambda_lifted)`` is made when transforming and the call
becomes ``grad_lambda_lifted(2.0, x)``: the gradient in ``y``, at the
value ``x`` has when the call runs, which is what Python's closure reads.
Its derivative in ``x`` is that of a call of a gradient (second_order.py).
"""
import ast
import copy
import itertools
import types

import gast

from tangent_ad.frontend import closures, to_gast
from tangent_ad.naming import label
from tangent_ad.nodes import located, name, walk
from tangent_ad import printed_places, texts
from tangent_ad.visitors import Transformer

_COUNTER = itertools.count(1)


def make(tree, scope, ctx):
    """Make the derivatives `tree` calls at once (see the module docstring)."""
    _Transforms(scope, ctx.facts.setdefault("helpers", {}),
                ctx.facts.setdefault("static_reads", []), ctx, tree).visit(tree)


class _Transforms(Transformer):
    """``tad.grad(inner)(x)`` in the function: the derivative of a known
    function with constant options is made when transforming (what the
    call would make when it runs) and called through a name bound to it
    (``ctx.facts["helpers"]``), as a derivative held in a global is."""

    def __init__(self, scope, helpers, reads, ctx=None, tree=None):
        self.scope = scope
        self.helpers = helpers
        self.reads = reads
        self.ctx, self.tree = ctx, tree

    def visit_FunctionDef(self, node):
        """A nested def (or lambda) reads names of its own scope, which
        `scope` does not describe: its calls are made when it is
        transformed itself (lifted, inlined), or when it runs."""
        return self.generic_visit(node) if node is self.tree else node

    visit_Lambda = visit_FunctionDef

    def visit_Call(self, node):
        self.generic_visit(node)
        maker = node.func
        if not isinstance(maker, gast.Call):
            return node
        transform = self.scope.value(maker.func)
        # a public transform, known by where it is defined (importing
        # tangent_ad.api here would make an import cycle through the pipeline)
        if getattr(transform, "__module__", None) != "tangent_ad.api" or \
                getattr(transform, "__name__", None) not in _TRANSFORMS or \
                not maker.args or \
                not all(_is_constant(a) for a in maker.args[1:]) or \
                not all(_is_constant(k.value) for k in maker.keywords):
            return node
        first = maker.args[0]
        if not self.scope.is_function(first) or \
                isinstance(first, gast.Name) and first.id in self.scope.local_defs:
            return self._of_a_closure(node, maker, transform)  # a lambda, a nested def
        func = self.scope.value(maker.args[0])
        self.reads.append(copy.deepcopy(maker.args[0]))  # see resolve: a dependency
        return self._call_made(node, maker, transform, func)

    def _of_a_closure(self, node, maker, transform):
        """``tad.grad(lambda y: x * y)(2.0)``: the derivative of the lambda
        written as a function of what it reads too (`lifted`),
        called with those values after the call's own arguments."""
        if transform.__name__ != "grad" or node.keywords or \
                any(isinstance(a, gast.Starred) for a in node.args) or self.tree is None:
            return node
        found = lifted(maker.args[0], self.scope, self.ctx, self.tree)
        if found is None or len(node.args) != found[0].__code__.co_argcount - len(found[1]):
            return node
        func, read = found
        node.args = node.args + [located(name(r), maker) for r in read]
        return self._call_made(node, maker, transform, func)

    def _call_made(self, node, maker, transform, func):
        """`node` calling ``transform(func, <maker's constant options>)``,
        made now and bound to a fresh name among the helpers."""
        options = {k.arg: _constant_value(k.value) for k in maker.keywords}
        made = transform(func, *[_constant_value(a) for a in maker.args[1:]], **options)
        helper = self.scope.fresh(f"{transform.__name__}_{label(func)}")
        self.helpers[helper] = made
        node.func = located(name(helper), maker)
        return node


_TRANSFORMS = ("grad", "value_and_grad", "jvp", "vjp", "hvp", "jacobian", "hessian")


def _is_constant(node):
    return isinstance(node, gast.Constant) or (
        isinstance(node, gast.Tuple) and all(_is_constant(e) for e in node.elts))


def _constant_value(node):
    if isinstance(node, gast.Tuple):
        return tuple(_constant_value(e) for e in node.elts)
    return node.value


def lifted(node, scope, ctx, tree):
    """(a function, the names it reads from `tree`) for the Lambda node or
    the name of a lambda or def bound once in `tree`; None when it is not
    such a function, or reads what cannot be passed (a closure cell of the
    function, another nested function)."""
    fdef = _definition(node, scope, tree)
    if fdef is None:
        return None
    params = [a.id for a in fdef.args.args]
    if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs or fdef.args.defaults or \
            fdef.args.posonlyargs:
        return None
    body = fdef.body if isinstance(fdef.body, list) else [gast.Return(value=fdef.body)]
    own = set(params) | {n.id for n in walk(gast.Module(body=body, type_ignores=[]))
                         if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    read, static = [], {}
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            return None  # a function inside it: left as written
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in own \
                and n.id in ctx.static_args and scope.stores.get(n.id, 0) == 0:
            static[n.id] = ctx.static_args[n.id]  # a known function: a cell of its own
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in own \
                and scope.is_local(n.id) and n.id not in read:
            read.append(n.id)
    cells = set(getattr(getattr(ctx.func, "__code__", None), "co_freevars", ()))
    if any(isinstance(n, gast.Name) and n.id in cells
           for n in walk(gast.Module(body=body, type_ignores=[]))):
        return None  # a closure cell of the function: not passed
    if any(scope.is_function(gast.Name(id=r, ctx=gast.Load(), annotation=None,
                                       type_comment=None)) for r in read):
        return None
    name = f"{getattr(fdef, 'name', 'lambda')}_lifted"
    function = _load(name, params + read, body, ctx.func.__globals__, static)
    return function, read


def _definition(node, scope, tree):
    """The Lambda or FunctionDef `node` denotes in `tree`."""
    if isinstance(node, gast.Lambda):
        return node
    if not isinstance(node, gast.Name) or scope.stores.get(node.id) != 1:
        return None
    for stmt in closures._walk_outside_functions(tree.body):
        if isinstance(stmt, gast.FunctionDef) and stmt.name == node.id:
            return stmt
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda) and \
                [t.id for t in stmt.targets if isinstance(t, gast.Name)] == [node.id]:
            return stmt.value
    return None


def _load(name, params, body, module_globals, cells=None):
    """The function ``def name(params): body`` with `module_globals` as
    its globals, its source in ``linecache``; `cells` maps the names of
    known functions it reads (a parameter the caller bound to a function)
    to them, as closure cells."""
    fdef = ast.FunctionDef(
        name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                      vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                      defaults=[]),
        body=[gast.gast_to_ast(s) for s in body], decorator_list=[], returns=None,
        type_params=[])
    source = ast.unparse(ast.fix_missing_locations(ast.Module(body=[fdef], type_ignores=[]))) + "\n"
    filename = f"<tangent_ad lifted {name} {next(_COUNTER)}>"
    texts.register(filename, source)
    parsed = printed_places.compilable([fdef], printed_places.place(source, [fdef]))
    stored = to_gast.convert(parsed).body[0]  # what the front end reads (not the text)
    if cells:  # the same lines one def in, so that the code of `name` reads the cells
        outer = ast.FunctionDef(
            name="with_cells", args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=c) for c in cells], vararg=None,
                kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=parsed.body + [ast.Return(value=ast.Name(id=name, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_params=[], lineno=1, col_offset=0)
        parsed = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    code = compile(parsed, filename, "exec")
    if cells:
        code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    closure = tuple(types.CellType(cells[v]) for v in inner.co_freevars) if cells else None
    function = types.FunctionType(inner, module_globals, name, None, closure)
    function.__tangent_ad_tree__ = stored
    return function
