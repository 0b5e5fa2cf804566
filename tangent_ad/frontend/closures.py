"""Functions defined inside the differentiated function: nested defs and lambdas.

Each one is *lifted*: the variables it reads from the enclosing function
become extra parameters, and every call passes their current values. The
primal then still runs the (lifted) nested function where it was defined,
and an active call is differentiated like a call to any other Python
function, through a generated pullback whose adjoint flows back into the
captured variables too.

``collect`` finds them; ``LocalFunction`` is what the resolver records for
a call to one, and what the pipeline generates a pullback from.
"""
import collections
import copy
import inspect

import gast

from tangent_ad.hooks import checkpoint
from tangent_ad.nodes import child_fields, walk
from tangent_ad.registry import REGISTRY


class LocalFunction:
    """A lifted nested function: its tree, its parent, and its captures."""

    def __init__(self, tree, parent, free):
        self.tree = tree
        self.parent = parent
        self.free = tuple(free)
        self.__name__ = tree.name
        self.__qualname__ = f"{parent.__qualname__}.<locals>.{tree.name}"
        self.__globals__ = parent.__globals__
        self.__code__ = parent.__code__
        self.__closure__ = parent.__closure__
        self.__signature__ = inspect.Signature([
            inspect.Parameter(a.id, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for a in tree.args.args])

    def __repr__(self):
        return f"<local function {self.__qualname__}>"

    def __call__(self, *args, **kwargs):  # callable, so inspect.signature reads it
        raise TypeError("a lifted function is only ever differentiated, not called")


def collect(fdef, func):
    """{name: LocalFunction} for the nested defs and lambdas of `fdef`.

    A lambda assigned to a name takes that name; any other lambda gets
    ``lambda_<n>``. The map also holds each Lambda node, so that the
    normalizer can put a lifted def in its place.
    """
    nodes = list(_walk_outside_functions(fdef.body))  # one walk, read four times
    parent_locals = {a.id for a in fdef.args.args} | {
        n.id for n in nodes if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    parent_locals |= {s.name for s in nodes if isinstance(s, gast.FunctionDef)}
    found, count = {}, 0
    for node in nodes:
        if isinstance(node, gast.FunctionDef):
            found[node.name] = found[node] = _lift(node, parent_locals, func)
        elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda) \
                and isinstance(node.targets[0], gast.Name):
            lifted = _lift(_as_def(node.targets[0].id, node.value), parent_locals, func)
            found[node.targets[0].id] = found[node.value] = lifted
    for node in nodes:
        if isinstance(node, gast.Lambda) and node not in found:
            count += 1
            found[node] = _lift(_as_def(f"lambda_{count}", node), parent_locals, func)
            found[found[node].__name__] = found[node]
    return found


def _walk_outside_functions(stmts):
    """gast.walk over `stmts`, yielding nested defs and lambdas but not
    descending into them. The front end's second most used walk: the
    children of a node are found in the loop (as ``nodes.walk`` does), not
    by a call per node."""
    todo = collections.deque(stmts)
    pop, add = todo.popleft, todo.append
    while todo:
        node = pop()
        yield node
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue
        values = node.__dict__
        for field in child_fields(node.__class__):
            value = values.get(field)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, gast.AST):
                        add(item)
            elif isinstance(value, gast.AST):
                add(value)


def _as_def(name, lam):
    fdef = gast.FunctionDef(name=name, args=copy.deepcopy(lam.args),
                            body=[gast.Return(value=lam.body)], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    return gast.copy_location(fdef, lam)


def _lift(fdef, parent_locals, func):
    free = sorted(free_names(fdef) & parent_locals)
    lifted = copy.copy(fdef)
    lifted.args = copy.copy(fdef.args)
    lifted.args.args = list(fdef.args.args) + [
        gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
        for v in free]
    lifted.decorator_list = []
    return LocalFunction(lifted, func, free)


def free_names(function):
    """The names the FunctionDef or Lambda `function` reads from outside
    itself: those read in its body, or free in a function inside it, that
    it does not bind (a parameter of an inner lambda shadows the
    enclosing function's variable of the same name)."""
    params = function.args.args + function.args.kwonlyargs + [
        a for a in (function.args.vararg, function.args.kwarg) if a is not None]
    body = function.body if isinstance(function.body, list) else [function.body]
    bound = {a.id for a in params}
    read = set()
    for node in _walk_outside_functions(body):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            read |= free_names(node)
            read |= {n.id for d in node.args.defaults + node.args.kw_defaults
                     if d is not None for n in walk(d) if isinstance(n, gast.Name)}
            if isinstance(node, gast.FunctionDef):
                bound.add(node.name)
        elif isinstance(node, gast.Name):
            (read if isinstance(node.ctx, gast.Load) else bound).add(node.id)
    return read - bound


def from_source(func, mode):
    """Whether a call of `func` is differentiated from its source in
    `mode` ("reverse" or "forward"): a nested function, one marked with
    tad.checkpoint (reverse), or a Python function without a rule (in
    forward mode, not a runtime helper: those without a rule have none)."""
    if isinstance(func, LocalFunction) or mode == "reverse" and isinstance(func, checkpoint):
        return True
    return inspect.isfunction(func) and not REGISTRY.has(mode, func) and (
        mode == "reverse" or
        not (getattr(func, "__module__", None) or "").startswith("tangent_ad.runtime"))
