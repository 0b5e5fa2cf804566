"""Parse, for a decorated function: the wrapper's ``*args, **kwargs`` made explicit.

A ``functools.wraps`` decorator returns a wrapper, and what a call runs is
the wrapper's code, so that is what is differentiated (``source``). Most
wrappers forward whatever they get, ``def wrapper(*args, **kwargs): ...
fn(*args, **kwargs) ...``, and the transform does not take ``*args``
parameters. When every use of ``args`` and ``kwargs`` is such a forwarding
call, the wrapper is rewritten with the wrapped function's parameters
(``def wrapper(x, y, scale=1.0): ... fn(x, y, scale) ...``, its literal
defaults too), which means the same for every call that the wrapped
function accepts. Any other use (``args[0]``,
``len(args)``, ``kwargs.get(...)``) is refused, naming the wrapper's line.
"""
import inspect

import gast

from tangent_ad.errors import UnsupportedSyntaxError


def specialize(node, func, info):
    """The wrapper `node` of `func` with explicit parameters, or refuse."""
    args = node.args
    if not (args.vararg or args.kwarg):
        return node
    star = args.vararg.id if args.vararg else None
    stars = args.kwarg.id if args.kwarg else None
    found = _plain_parameters(func.__wrapped__)
    used = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
    if found is None or args.args or args.kwonlyargs or args.posonlyargs \
            or used & set(found[0]):
        _refuse(node, func, info)
    params, defaults = found
    for call in gast.walk(node):
        if isinstance(call, gast.Call) and _forwards(call, star, stars):
            call.args = [_name(p) for p in params]
            call.keywords = []
    for n in (n for stmt in node.body for n in gast.walk(stmt)):
        if isinstance(n, gast.Name) and n.id in (star, stars):
            _refuse(node, func, info)  # a use that is not a forwarding call
    node.args = gast.arguments(args=[_name(p, gast.Param()) for p in params],
                               posonlyargs=[], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=defaults)
    return node


def _plain_parameters(wrapped):
    """``(names, defaults)`` of the wrapped function's parameters, when all
    are plain positional ones and their defaults are literals (``scale=1.0``,
    ``mode="full"``, ``None``: written as such in the wrapper, so that a
    call that leaves one out passes the same value on); else None."""
    try:
        signature = inspect.signature(wrapped)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        return None
    defaults = [p.default for p in params if p.default is not p.empty]
    if not all(_literal(d) for d in defaults):
        return None
    return [p.name for p in params], [gast.Constant(value=d, kind=None) for d in defaults]


def _literal(value):
    return value is None or type(value) in (bool, int, float, complex, str)


def _forwards(call, star, stars):
    """``g(*args, **kwargs)`` (or the part of it the wrapper has)."""
    wanted_args = [star] if star else []
    if [a.value.id for a in call.args if isinstance(a, gast.Starred)
            and isinstance(a.value, gast.Name)] != wanted_args or \
            len(call.args) != len(wanted_args):
        return False
    wanted_kw = [stars] if stars else []
    return len(call.keywords) == len(wanted_kw) and all(
        k.arg is None and isinstance(k.value, gast.Name) and k.value.id == stars
        for k in call.keywords)


def _name(identifier, ctx=None):
    return gast.Name(id=identifier, ctx=ctx or gast.Load(), annotation=None,
                     type_comment=None)


def _refuse(node, func, info):
    inner = getattr(func.__wrapped__, "__name__", "the function")
    raise UnsupportedSyntaxError(
        f"{func.__qualname__} is the wrapper '{node.name}' that a decorator put "
        "around it, with *args or **kwargs parameters used other than to pass "
        "them on (or the wrapped function has special parameters or defaults that are "
        "not literals); "
        "the decorator's code runs when it is called, so it cannot be skipped",
        hint=f"give the wrapper {inner}'s parameters (def {node.name}(x): ... "
             f"{inner}(x) ...), or differentiate {inner}.__wrapped__ if the "
             "decorator does not change the value",
        **info.where(node))
