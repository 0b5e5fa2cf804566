"""A call bound to a derivative template: which atom each of the
template's parameters stands for (`bind`), which of them the call left at
their defaults (`omitted_parameters`), and the refusal of a derivative
with respect to an argument its rule has none for (`refuse_arguments`).
Both modes bind calls this way (``ad/reverse.py``, ``ad/forward.py``).
"""
import gast

from tangent_ad.errors import NoDerivativeError, UnsupportedSyntaxError
from tangent_ad.nodes import clone
from tangent_ad.templating.signatures import callee_name, signature_of
from tangent_ad.templating.templates import NO_DEFAULT, parse


def bind(template, callee, args, keywords, *, where):
    """Map the template's parameters to the atoms of a call.

    The call is bound with the callee's own signature when Python can
    read it (so positional arguments land on NumPy's parameter names),
    then matched to the template's parameters by name. Returns
    ``{parameter: atom node}`` without ``result``.
    """
    params, defaults, _ = parse(template)
    params, defaults = params[1:], defaults[1:]
    named, (star, spread, own) = _bind_to_signature(callee, args, keywords)
    if spread and star not in params:
        # f(x, *args, **kwds) called as f(x, a, b): the values in *args fill
        # the template's next parameters that f takes through **kwds, in
        # order (scipy.stats' shapes, loc, scale), as the callee reads them
        free = [p for p in params if p not in named and p not in own]
        if len(spread) > len(free):
            raise UnsupportedSyntaxError(
                f"too many arguments for the derivative of {callee_name(callee)}", **where)
        named.update(zip(free, spread))
    if named is None:
        if len(args) > len(params):
            raise UnsupportedSyntaxError(
                f"too many arguments for the derivative of {callee_name(callee)}",
                **where)
        named = dict(zip(params, args))
        named.update((k.arg, k.value) for k in keywords)
    bound = {}
    for param, default in zip(params, defaults):
        if param in named:
            bound[param] = named.pop(param)
        elif default is not NO_DEFAULT:
            bound[param] = clone(default)
        else:
            raise UnsupportedSyntaxError(
                f"missing argument '{param}' in the call to {callee_name(callee)}",
                **where)
    if named:
        raise UnsupportedSyntaxError(
            f"the derivative of {callee_name(callee)} does not support the "
            f"argument(s) {', '.join(sorted(named))}",
            hint="drop the argument, or register a derivative that "
                 "accepts it with @tangent_ad.adjoint", **where)
    return bound


def _bind_to_signature(callee, args, keywords):
    """(``{parameter: atom}`` by the callee's signature, or None; the name
    of its ``*args``, the positional atoms it took one by one when the
    callee also takes ``**kwds``, and the callee's parameter names)."""
    signature = signature_of(callee)
    if signature is None:
        return None, (None, (), ())
    starred = args[-1].value if args and isinstance(args[-1], gast.Starred) else None
    if starred is not None:
        args = args[:-1]
    try:
        bound = signature.bind_partial(*args, **{k.arg: k.value for k in keywords}) \
            if starred is not None else \
            signature.bind(*args, **{k.arg: k.value for k in keywords})
    except TypeError:
        return None, (None, (), ())
    named, spread = dict(bound.arguments), (None, (), ())
    for param in signature.parameters.values():
        if param.kind is param.VAR_KEYWORD and param.name in named:
            named.update(named.pop(param.name))
        if param.kind is param.VAR_POSITIONAL:
            # f(x, *t): the tuple `t` of the remaining arguments, as one atom
            values = named.pop(param.name, ())
            if starred is not None:
                named[param.name] = starred
            elif any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
                spread = (param.name, tuple(values), tuple(signature.parameters))
    return named, spread


def refuse_arguments(func, params, bound, differentiated, where):
    """NoDerivativeError if a parameter in `params` (which `func`'s rule
    cannot differentiate in) is bound to a value `differentiated(atom)`
    says carries a derivative."""
    for param in params:
        if param in bound and differentiated(bound[param]):
            own = getattr(func, "__tangent_ad_refusal__", None)  # (message, hint)
            if own is not None:
                raise NoDerivativeError(own[0], hint=own[1], **where)
            raise NoDerivativeError(
                f"{callee_name(func)} has no derivative rule with respect to its "
                f"argument '{param}'",
                hint=f"pass '{param}' as a constant, or wrap it in "
                     "tangent_ad.stop_gradient", **where)


def omitted_parameters(bound, args, keywords):
    """The parameters of `bound` the call (`args`, `keywords`) left out,
    bound to their defaults."""
    given = [a.value if isinstance(a, gast.Starred) else a for a in args] + \
        [k.value for k in keywords]
    return [p for p, atom in bound.items() if not any(atom is g for g in given)]
