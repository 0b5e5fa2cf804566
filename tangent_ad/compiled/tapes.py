"""Pullbacks without closures: a forward function that fills a tape and a
backward function that reads it, for ``numba_form``.

A called function's pullback returns its value and ``back``, a closure
over its variables and its own save stack; Numba compiles no closure.
Each pullback ``pullback_f`` of a unit becomes two plain functions:

* ``forward_f(params..., tape)``: the pullback's primal sweep. Its saves
  go to lists shared by every call of ``f`` (they are in the ``tape`` tuple
  that the derivative creates and every function passes on), and at its
  end it saves the variables ``back`` reads.
* ``backward_f(bresult, tape)``: restores those variables, then runs
  ``back``'s body.

A call ``v, back_v = pullback_f(...)`` becomes ``v = forward_f(..., tape)``
and the call ``back_v(b)`` becomes ``backward_f(b, tape)``. One list per
site for every call of `f`, recursive ones included, is enough: the
adjoint sweep calls the backs in the reverse order of the calls, so the
saves of the calls of `f` nest as they did on one stack. Each back must be
called as often as it is made (the same number of call statements as of
statements making it), else the form is refused; the derivative checks at
its end that every list is empty again.

Every list shared this way is a Numba typed list, and its item type comes
from the kinds staging found for the copy (`kinds`): a name whose kind is
unknown cannot be saved, and the form is refused. A variable ``back``
reads that is not bound on every path through the primal sweep (``left``
of a branch that does not run) starts as a zero of its kind.
"""
from dataclasses import dataclass, field

import gast

from tangent_ad.nodes import STACK, assign, call, const, is_pop, is_push, name, walk

TAPE = "tape"
PREFIX = "pullback_"


@dataclass
class Tapes:
    """What `run` wrote: the functions besides the derivative, the lists
    shared through the tape (in its order) with each one's kind, and the
    prefix of the sites of each function (``numba_form`` names the
    lists)."""

    functions: list = field(default_factory=list)
    prefixes: dict = field(default_factory=dict)   # function name -> site prefix
    kinds: dict = field(default_factory=dict)      # function name -> {name: kind}


def run(root, pullbacks, kinds, refuse):
    """Rewrite `root` (in place) and return `Tapes` holding the forward and
    backward function of each of the FunctionDefs `pullbacks`. `kinds`
    maps a function's name to {variable: kind} (``staging.kinds``);
    ``refuse(what, stmt)`` raises the CompileError."""
    names = _short_names(pullbacks)
    out = Tapes()
    made = _backs(root, names, refuse)
    _rewrite_calls(root, made, names)
    for pullback in pullbacks:
        base = names[pullback.name]
        forward, backward = _split(pullback, base, names, kinds.get(pullback.name), refuse)
        out.functions += [forward, backward]
        out.prefixes[forward.name] = out.prefixes[backward.name] = base
        out.kinds[base] = kinds.get(pullback.name) or {}
    return out


def forward_name(base):
    return f"forward_{base}"


def backward_name(base):
    return f"backward_{base}"


def _short_names(pullbacks):
    """{pullback name: a short name for its two functions and their lists}:
    the called function's name (``node`` for ``pullback_node_dWl_Wr_b_1``,
    whose ``_d...`` part names its parameters), unless two pullbacks would
    share it."""
    full = {p.name: p.name[len(PREFIX):] if p.name.startswith(PREFIX) else p.name
            for p in pullbacks}
    short = {p.name: _called_name(full[p.name], {a.id for a in p.args.args})
             for p in pullbacks}
    taken = list(short.values())
    return {n: s if taken.count(s) == 1 else full[n] for n, s in short.items()}


def _called_name(base, params):
    at = base.find("_d")
    while at > 0:
        rest = base[at + 2:].split("_")
        if rest and rest[-1].isdigit():
            rest = rest[:-1]
        if rest and all(part in params for part in rest):
            return base[:at]
        at = base.find("_d", at + 1)
    return base


def _backs(fdef, names, refuse):
    """{back variable: callee pullback} of the calls ``v, back_v =
    pullback(...)`` in `fdef`, each back made and called by as many
    statements."""
    made, calls = {}, {}
    nodes = list(walk(fdef))
    for node in nodes:
        if isinstance(node, gast.Assign) and _pullback_call(node, names):
            back = node.targets[0].elts[1].id
            callee = node.value.func.id
            if made.setdefault(back, callee) != callee:
                refuse(f"'{back}' is the backward pass of two different functions", node)
            calls.setdefault(back, [0, 0])[0] += 1
    for node in nodes:
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in made:
            calls[node.func.id][1] += 1
    for back, (making, called) in calls.items():
        if making != called:
            refuse(f"the backward pass '{back}' of a call is run {called} times for "
                   f"{making} calls", None)
    return made


def _pullback_call(stmt, names):
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    return isinstance(target, gast.Tuple) and len(target.elts) == 2 and \
        all(isinstance(e, gast.Name) for e in target.elts) and \
        isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Name) and \
        stmt.value.func.id in names


def _rewrite_calls(fdef, made, names):
    """In `fdef`: pullback calls -> forward calls, back calls -> backward
    calls, and no statement saving, restoring or predeclaring a back."""
    def block(body):
        out = []
        for stmt in body:
            if _about_back(stmt, made):
                continue
            if isinstance(stmt, gast.Assign) and _pullback_call(stmt, names):
                stmt.targets = [stmt.targets[0].elts[0]]
                stmt.value.func.id = forward_name(names[stmt.value.func.id])
                stmt.value.args.append(name(TAPE))
            for field_name in ("body", "orelse"):
                inner = getattr(stmt, field_name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) \
                        and not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field_name, block(inner))
            out.append(stmt)
        return out

    fdef.body = block(fdef.body)
    for node in walk(fdef):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in made:
            node.func.id = backward_name(names[made[node.func.id]])
            node.args.append(name(TAPE))


def _about_back(stmt, made):
    """``stack.append(back_v)``, ``back_v = stack.pop()`` or ``back_v = None``."""
    if is_push(stmt):
        value = stmt.value.args[0] if stmt.value.args else None
        return isinstance(value, gast.Name) and value.id in made
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in made:
        value = stmt.value
        return is_pop(value) or isinstance(value, gast.Constant) and value.value is None
    return False


def _split(pullback, base, names, kinds, refuse):
    """The forward and backward FunctionDefs of the FunctionDef `pullback`."""
    body = [s for s in pullback.body if not isinstance(s, gast.Nonlocal)]
    last = body[-1] if body else None
    nested = [s for s in body if isinstance(s, gast.FunctionDef)]
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Tuple) and
            len(last.value.elts) == 2 and isinstance(last.value.elts[1], gast.Name) and
            len(nested) == 1 and nested[0].name == last.value.elts[1].id):
        refuse(f"the pullback {pullback.name} is not a primal sweep and one backward pass",
               None)
    back = nested[0]
    primal = [s for s in body[:-1] if s is not back]
    params = [a.id for a in pullback.args.args]
    bound = set(params)
    for stmt in primal:
        bound |= {n.id for n in walk(stmt) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Store)}
    made = _backs(pullback, names, refuse)
    own = {a.id for a in back.args.args}
    captured = sorted({n.id for n in walk(back) if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Load)} & bound - own - set(made) - {STACK})
    kinds = kinds or {}
    unknown = [c for c in captured if kinds.get(c) is None]
    if unknown:
        refuse(f"the backward pass of {pullback.name} reads '{unknown[0]}', whose kind "
               f"staging does not know, so it cannot be saved in a typed list", None)
    sure = _bound_on_every_path(primal, set(params))
    start = []
    for c in captured:
        if c not in sure:
            zero = zero_of(kinds[c])
            if zero is None:
                refuse(f"the backward pass of {pullback.name} reads '{c}', which is not "
                       f"bound on every path and has no zero here", None)
            start.append(assign(c, zero))
    forward = gast.FunctionDef(
        name=forward_name(base), args=_with_tape(pullback.args),
        body=start + [s for s in primal if not _is_new_stack(s)] +
        [gast.Expr(value=call(f"{STACK}.append", name(c))) for c in captured] +
        [gast.Return(value=last.value.elts[0])],
        decorator_list=[], returns=None, type_comment=None)
    backward = gast.FunctionDef(
        name=backward_name(base), args=_with_tape(back.args),
        body=[assign(c, call(f"{STACK}.pop")) for c in reversed(captured)] +
        [s for s in back.body if not isinstance(s, gast.Nonlocal)],
        decorator_list=[], returns=None, type_comment=None)
    for function in (forward, backward):
        _rewrite_calls(function, made, names)
    return forward, backward


def _bound_on_every_path(body, bound):
    """The names bound whichever way the statements `body` run (a loop's
    body may not run; a branch binds what both of its arms bind)."""
    bound = set(bound)
    for stmt in body:
        if isinstance(stmt, gast.If):
            bound |= _bound_on_every_path(stmt.body, bound) & \
                _bound_on_every_path(stmt.orelse, bound)
        elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            bound |= {n.id for t in targets for n in walk(t) if isinstance(n, gast.Name)}
    return bound


def _is_new_stack(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == STACK


def _with_tape(arguments):
    args = [gast.Name(id=a.id, ctx=gast.Param(), annotation=None, type_comment=None)
            for a in arguments.args] + [gast.Name(id=TAPE, ctx=gast.Param(), annotation=None,
                                                   type_comment=None)]
    return gast.arguments(args=args, posonlyargs=[], vararg=None, kwonlyargs=[],
                          kw_defaults=[], kwarg=None, defaults=[])


def zero_of(kind):
    """A zero of `kind` (a ``staging`` Kind: box, shape, dtype), as an
    expression; None for a kind that has none here."""
    if kind.box in ("int", "bool", "float"):
        return const({"int": 0, "bool": False, "float": 0.0}[kind.box])
    if kind.box in ("scalar", "real") and kind.dtype == "float64":
        return const(0.0)  # Numba's float64 either way
    if kind.box == "array" and kind.dtype.isnative and kind.dtype.kind in "biuf":
        shape = gast.Tuple(elts=[const(n) for n in kind.shape], ctx=gast.Load())
        dtype = gast.Attribute(value=name("np"), ctx=gast.Load(),
                               attr=kind.dtype.name if kind.dtype.kind != "b" else "bool_")
        return call("np.zeros", shape, dtype)
    return None


def type_of(kind):
    """(NumPy dtype name, number of dimensions) of the values of `kind`,
    for a typed list; None when Numba has no such type here."""
    if kind.box in ("int", "bool", "float", "complex"):
        return {"int": "int64", "bool": "bool", "float": "float64",
                "complex": "complex128"}[kind.box], 0
    if kind.box in ("scalar", "real") and kind.dtype.kind in "biufc":
        return kind.dtype.name, 0
    if kind.box == "array" and kind.dtype.isnative and kind.dtype.kind in "biufc":
        return kind.dtype.name, len(kind.shape)
    return None
