"""Calls to the user's own Python functions, differentiated through pullbacks.

A call ``y = g(a, b)`` to a function with Python source (and no registered
template) is differentiated by differentiating ``g`` itself. Its primal
becomes ``y, back_y = pullback_g_da(a, b)``: the generated *pullback* of
``g`` runs g's primal sweep, saves what its adjoint needs, and returns the
result together with ``back``, a closure holding g's adjoint sweep. The
caller's adjoint then calls ``back_y(by)`` to get the adjoints of the
arguments. Nothing is recomputed; recursion works because a pullback may
call itself; and each pullback is readable on its own.

This module rewrites the call sites; the pipeline generates each requested
pullback (``ctx.calls`` maps ``(function, wrt)`` to its generated name).
"""
import inspect

import gast
import numpy as np

from tangent_ad.ad.zero_backs import GUARD
from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import source
from tangent_ad.frontend.closures import LocalFunction, from_source
from tangent_ad.hooks import checkpoint
from tangent_ad.naming import label
from tangent_ad.nodes import const, name, walk, writes
from tangent_ad.registry import REGISTRY


def is_user_function(func):
    """True for a Python function to be differentiated from its source
    (a nested one, or one marked with tad.checkpoint, included)."""
    return from_source(func, "reverse")


def rewrite_calls(body, ctx, active):
    """Rewrite each active call to a user function into a pullback call.

    Returns ``{statement: (back name, [(parameter, argument atom), ...])}``
    listing, for each rewritten statement, the callee parameters whose
    adjoints the caller needs, in order.
    """
    rewritten = {}
    for stmt in _assignments(body):
        value = stmt.value
        func = ctx.resolved.get(value)
        target = stmt.targets[0].id
        if not isinstance(value, gast.Call) or not is_user_function(func) \
                or target not in active:
            continue
        where = ctx.where(ctx.origin.get(stmt))
        bound = _bind(func, value, where)
        wanted = [(p, a) for p, a in bound if isinstance(a, gast.Name) and a.id in active]
        if not wanted:
            continue
        wrt = tuple(p for p, _ in wanted)
        statics = _static_functions(bound, ctx) + keyword_statics(func, value)
        back = ctx.namer.fresh("back_" + target)
        pullback = gast.Call(
            func=name(pullback_name(ctx.calls, source.called(func), wrt,
                                    statics)),
            args=plain_arguments(func, value), keywords=value.keywords)
        if isinstance(func, checkpoint):
            # only the arguments are kept; the adjoint runs the pullback again
            rewritten[stmt] = (back, wanted, pullback)
            continue
        stmt.targets = [gast.Tuple(elts=[name(target, store=True), name(back, store=True)],
                                   ctx=gast.Store())]
        stmt.value = pullback
        rewritten[stmt] = (back, wanted, None)
    return rewritten


def _static_functions(bound, ctx):
    """Arguments that are known functions (``apply(square, x)``): the
    pullback is specialized to them, so calls through the parameter can be
    differentiated. Returns a sorted tuple of (parameter, function)."""
    functions = ctx.facts.get("local_functions", {})
    statics = []
    for param, atom in bound:
        if not isinstance(atom, (gast.Name, gast.Attribute)):
            continue
        value = ctx.resolved.get(atom)
        if value is None and atom.id in functions and not functions[atom.id].free:
            value = functions[atom.id]
        if inspect.isfunction(value) or isinstance(value, LocalFunction) or \
                _has_rule(value) or isinstance(value, _GENERATORS):
            statics.append((param, value))
    return tuple(sorted(statics, key=lambda item: item[0]))


# random generators passed on (``sample(params, n, rs)``, autograd's
# mixture_variational_inference.py): known objects, so that the callee's
# ``rs.randn(...)`` is known to be a draw, whose derivative is zero
_GENERATORS = (np.random.RandomState, np.random.Generator)


def _has_rule(value):
    """A function with a registered derivative (``np.sin``, ``abs``),
    passed as an argument: known when the call is transformed."""
    if isinstance(value, type) or not callable(value):
        return False
    try:
        return REGISTRY.has("reverse", value) or REGISTRY.has("forward", value)
    except TypeError:  # unhashable
        return False


def static_label(statics):
    """``_with_sin_cube``: the part of a generated name that says which
    functions the parameters are bound to."""
    labels = ["".join(c if c.isalnum() else "_" for c in getattr(f, "__name__", "fn"))
              for _, f in statics if not isinstance(f, tuple)]
    labels += ["_".join(f) for _, f in statics if isinstance(f, tuple)]  # keywords' names
    return "_with_" + "_".join(labels)


def pullback_name(calls, func, wrt, statics=()):
    """The generated name of the pullback of `func` for `wrt` (and the
    functions bound to its parameters), unique in the unit of generated
    functions and the same for every caller."""
    key = (func, wrt, statics)
    if key not in calls:
        base = f"pullback_{label(func)}_d{'_'.join(wrt)}"
        if statics:
            base += static_label(statics)
        taken = set(calls.values())
        candidate, i = base, 2
        while candidate in taken:
            candidate, i = f"{base}{i}", i + 1
        calls[key] = candidate
    return calls[key]


def expansion(record, result_adjoint):
    """The contributions of a pullback call, in the form of
    ``templates.expand``; ``("unpack", vars)`` marks a tuple of
    contributions, one per variable, and ``("locals", names)`` a tuple
    assignment (a checkpointed call's recomputation)."""
    back, wanted, recompute = record
    out = []
    if recompute is not None:
        out.append((("locals", ["_", back]), recompute))
    pulled = gast.Call(func=name(back), args=[name(result_adjoint)], keywords=[])
    if len(wanted) == 1:
        return out + [(("adjoint", wanted[0][1].id), pulled)]
    return out + [(("unpack", [atom.id for _, atom in wanted]), pulled)]


def guarded(stmt, record, code, zeros):
    """``if back is not None: code else: zeros``: the contributions `code`
    of the pullback call `stmt` (after the recomputation of a checkpointed
    one), declared with the generated name of the pullback it calls
    (``zero_backs.py``)."""
    back, _, recompute = record
    kept = 1 if recompute is not None else 0
    test = gast.Compare(left=name(back), ops=[gast.IsNot()], comparators=[const(None)])
    guard = gast.If(test=test, body=code[kept:], orelse=zeros)
    setattr(guard, GUARD, called_pullback(stmt, record))
    return code[:kept] + [guard]


def called_pullback(stmt, record):
    """The generated name of the pullback that the rewritten call `stmt`
    (or, checkpointed, the adjoint's recomputation) calls."""
    recompute = record[2]
    return (recompute or stmt.value).func.id


def _bind(func, call, where):
    """[(parameter, argument atom)] of a call to a user function. The
    items a call passes to ``*args`` arrive packed, ``g(a, *t)``
    (``call_arguments.py``): the parameter is bound to the tuple `t`,
    which the callee takes as a plain parameter (``frontend/signatures.py``)."""
    signature = source.signature(func)
    params = list(signature.parameters.values())
    kwargs = [p.name for p in params if p.kind is p.VAR_KEYWORD]
    args, packed = list(call.args), None
    variadic = [p for p in params if p.kind is p.VAR_POSITIONAL]
    if args and isinstance(args[-1], gast.Starred):
        if not variadic or not isinstance(args[-1].value, gast.Name):
            raise UnsupportedSyntaxError(
                f"*args in this call to {func.__qualname__} is not supported",
                hint="pass the items one by one", **where)
        packed = args.pop().value
    try:
        bound = signature.bind(*args, **{k.arg: k.value for k in call.keywords})
    except TypeError as exc:
        raise UnsupportedSyntaxError(f"bad call to {func.__qualname__}: {exc}",
                                     **where) from None
    items = [(p, a) for p, a in bound.arguments.items() if p not in kwargs]
    if packed is not None:
        items = [(p, a) for p, a in items if p != variadic[0].name] + \
            [(variadic[0].name, packed)]
    # keywords into **kwargs: parameters of their own in the callee's
    # pullback, which is made for these names (keyword_statics)
    return items + sorted(bound.arguments.get(kwargs[0], {}).items() if kwargs else [])


def keyword_statics(func, call):
    """``(("**kwargs", names),)`` for a call that passes the keywords
    `names` into the ``**kwargs`` of user function `func`, else ``()``: a
    pullback is made per set of names, with one parameter for each
    (``frontend/signatures.py``)."""
    params = source.signature(func).parameters.values()
    kwargs = next((p.name for p in params if p.kind is p.VAR_KEYWORD), None)
    if kwargs is None:
        return ()
    named = {p.name for p in params if p.kind is not p.VAR_KEYWORD}
    names = tuple(sorted(k.arg for k in call.keywords if k.arg is not None and k.arg not in named))
    return ((f"**{kwargs}", names),) if names else ()


def plain_arguments(func, call):
    """The arguments of `call` as the generated pullback or forward
    function of `func` takes them: a tuple packed for ``*args`` is passed
    as one argument (``frontend/signatures.py``)."""
    args = list(call.args)
    if args and isinstance(args[-1], gast.Starred) and any(
            p.kind is p.VAR_POSITIONAL for p in source.signature(func).parameters.values()):
        args[-1] = args[-1].value
    return args


def _assignments(body):
    for stmt in body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            yield stmt
        if isinstance(stmt, (gast.FunctionDef, gast.With)):
            continue
        for field in ("body", "orelse"):
            yield from _assignments(getattr(stmt, field, None) or [])


def assigned_names(stmt):
    """Every name a (possibly rewritten) assignment binds, in order."""
    return [n.id for n in walk(stmt.targets[0]) if isinstance(n, gast.Name)] \
        if isinstance(stmt.targets[0], gast.Tuple) else sorted(writes(stmt))
