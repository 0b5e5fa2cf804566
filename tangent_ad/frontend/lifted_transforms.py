"""A transform of a lambda or nested def that reads the function's variables.

``tad.grad(lambda y: x * y)(2.0)`` inside a differentiated function: the
lambda reads ``x``, a variable of the function, so its derivative cannot
be made from the lambda alone. `lifted` writes it as a function of its
own parameters followed by what it reads::

    def lambda_lifted(y, x):
        return x * y

with the user's module as its globals (read live, as the lambda would),
so that ``tad.grad(lambda_lifted)`` is made when transforming and the call
becomes ``grad_lambda_lifted(2.0, x)``: the gradient in ``y``, at the
value ``x`` has when the call runs, which is what Python's closure reads.
Its derivative in ``x`` is that of a call of a gradient (second_order.py).
"""
import ast
import itertools
import linecache
import types

import gast

from tangent_ad.frontend import closures
from tangent_ad.nodes import walk

_COUNTER = itertools.count(1)


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
    read = []
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            return None  # a function inside it: left as written
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in own \
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
    function = _load(name, params + read, body, ctx.func.__globals__)
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


def _load(name, params, body, module_globals):
    """The function ``def name(params): body`` with `module_globals` as
    its globals, its source in ``linecache``."""
    fdef = ast.FunctionDef(
        name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                      vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                      defaults=[]),
        body=[gast.gast_to_ast(s) for s in body], decorator_list=[], returns=None,
        type_params=[])
    source = ast.unparse(ast.fix_missing_locations(ast.Module(body=[fdef], type_ignores=[])))
    source += "\n"
    filename = f"<tangent_ad lifted {name} {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return types.FunctionType(inner, module_globals, name)
