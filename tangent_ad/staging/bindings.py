"""Where the names of a derivative get their values, for ``kinds.py``.

`bindings` lists every binding of a function as (name, value): the value
is the expression assigned, a `Part` of a call that returns a tuple, or
None when the value cannot be followed (a loop over anything but
``range``, a nested function's parameter, a ``with`` target).
"""
from dataclasses import dataclass

import gast

from tangent_ad.nodes import STACK, is_pop, walk


@dataclass(frozen=True, eq=False)
class Part:
    """Target `index` of `count` in ``a, b = call(...)``."""

    call: gast.Call
    index: int
    count: int


def dotted(func):
    """'np.sum' for ``np.sum``, 'f' for ``f``; None for anything else."""
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        return f"{func.value.id}.{func.attr}"
    return None


def placeholders(fdef):
    """The names of the ``v = None`` lines right after ``stack = []``."""
    names, body = set(), fdef.body
    for i, stmt in enumerate(body):
        if single_target(stmt) and stmt.targets[0].id == STACK:
            for later in body[i + 1:]:
                if not (single_target(later) and isinstance(later.value, gast.Constant)
                        and later.value.value is None):
                    break
                names.add(later.targets[0].id)
            break
    return names


def single_target(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name)


def bindings(fdef, skip, callees, given=(), nodes=None):
    """(name, value) for every binding in `fdef` (see the module
    docstring), without the placeholders `skip` and the stack restores.
    The parameters of nested functions named in `given` are left out: the
    caller knows their kinds. `callees` (``callees.Callees``) tells a loop
    over ``range`` (its variable an int); `nodes`: ``walk(fdef)``, when the
    caller has it already."""
    out = []
    for node in walk(fdef) if nodes is None else nodes:
        if isinstance(node, gast.Assign):
            if single_target(node):
                name, value = node.targets[0].id, node.value
                if is_pop(value) or (name in skip and isinstance(value, gast.Constant)
                                     and value.value is None):
                    continue
                out.append((name, value))
            elif len(node.targets) == 1 and isinstance(node.targets[0], gast.Tuple) and \
                    isinstance(node.value, gast.Call) and \
                    all(isinstance(e, gast.Name) for e in node.targets[0].elts):
                elts = node.targets[0].elts
                out += [(e.id, Part(node.value, i, len(elts))) for i, e in enumerate(elts)]
            else:
                out += [(n.id, None) for t in node.targets for n in walk(t)
                        if isinstance(n, gast.Name)]
        elif isinstance(node, gast.For):
            counted = _is_range(node.iter, callees)
            out += [(n.id, gast.Constant(value=0, kind=None) if counted else None)
                    for n in walk(node.target) if isinstance(n, gast.Name)]
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.NamedExpr)):
            out += [(n.id, None) for n in walk(node.target) if isinstance(n, gast.Name)]
        elif isinstance(node, gast.FunctionDef) and node is not fdef:
            out += [(a.id, None) for a in node.args.args if a.id not in given]
            out.append((node.name, None))
        elif isinstance(node, gast.Lambda):
            out += [(a.id, None) for a in node.args.args]
        elif isinstance(node, (gast.With, gast.comprehension, gast.ExceptHandler)):
            out += [(n.id, None) for n in walk(node)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
    return out


def _is_range(node, callees):
    """``range(...)`` or ``reversed(range(...))``: the loop variable is an int."""
    if callees.of_call(node) is reversed and len(node.args) == 1:
        node = node.args[0]
    return callees.of_call(node) is range


def entry_copies(fdef, params, counts):
    """{name: parameter} for the leading ``name = parameter`` statements of
    `fdef` (each name bound once, no parameter rebound before them)."""
    copies = {}
    for stmt in fdef.body:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name)
                and stmt.value.id in params and stmt.targets[0].id not in params and
                counts.get(stmt.targets[0].id) == 1):
            break
        copies[stmt.targets[0].id] = stmt.value.id
    return copies


def entry_conversions(fdef, callees, convert):
    """The parameters `fdef` converts first, by leading ``x = convert(x)``
    statements (a gradient's boundary, ``x = float_argument(x)``): nothing
    reads x before, so everywhere else x has the converted kind, whatever
    its parameter's was. `callees` (``callees.Callees``) tells the calls."""
    params = {a.id for a in fdef.args.args}
    found = []
    for stmt in fdef.body:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)
                and len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], gast.Name)
                and stmt.value.args[0].id == stmt.targets[0].id in params
                and callees.of_call(stmt.value) is convert):
            break
        found.append(stmt.targets[0].id)
    return found
