"""Call arguments for the normalize stage: ``*args`` spread or packed.

``g(a, *xs)`` into a function with a fixed number of parameters is
``g(a, xs[0], xs[1])``, so that each item's adjoint flows back into
``xs``; the items a call passes to a callee's ``*args`` are packed into
one tuple, ``g(x, *t)``, which its derivative template or pullback takes
as one value with one adjoint. Methods of the normalizer
(``CallArguments`` is mixed into it), as ``desugar.py``'s are.
"""
import inspect
import operator

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import source
from tangent_ad.nodes import assign, call, const, name
from tangent_ad.registry import REGISTRY


class CallArguments:
    """Mixed into normalize.Normalizer; see the module docstring."""

    def spread(self, node):
        """``g(a, *xs)`` for a function with a fixed number of parameters:
        ``g(a, xs[0], xs[1])``, so each item's adjoint flows back into xs."""
        callee = self.ctx.resolved.get(node)
        try:
            params = list(source.signature(callee).parameters.values())
        except (TypeError, ValueError):
            params = None
        if params is not None and _takes_the_rest(params, node, callee):
            # g(a, *xs) for `def g(a, *args)`, a user function: args = tuple(xs)
            packed = self.ctx.namer.fresh("t")
            self.emit(assign(packed, self._resolved(
                call("tuple", self.atom(node.args[-1].value)), tuple)))
            self.ctx.namespace.setdefault("tuple", tuple)
            return [self.atom(a) for a in node.args[:-1]] + [
                gast.Starred(value=name(packed), ctx=gast.Load())]
        if params is not None and not inspect.isfunction(callee) and \
                any(p.kind is p.VAR_POSITIONAL for p in params):
            # rs.randn(*x.shape), np.broadcast_arrays(*xs): a function without
            # Python source that takes *args gets the tuple as it is (a rule
            # that cannot bind it refuses later, where an adjoint is needed)
            return [self.atom(a) for a in node.args[:-1]] + [
                gast.Starred(value=self.atom(node.args[-1].value), ctx=gast.Load())]
        if params is None or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
            raise UnsupportedSyntaxError(
                "*args in a call is supported only for a function with a fixed "
                "number of parameters", hint="pass the items one by one",
                **self.ctx.where(node))
        given = [self.atom(a) for a in node.args[:-1]]
        starred = node.args[-1].value
        named = {k.arg for k in node.keywords}
        rest = [p for p in params[len(given):] if p.name not in named]
        if isinstance(starred, (gast.Tuple, gast.List)):
            count = len(starred.elts)
        elif all(p.default is p.empty for p in rest):
            count = len(rest)
        else:
            raise UnsupportedSyntaxError(
                "*args in a call to a function with default parameters needs a "
                "tuple or list written in the call, so its length is known",
                hint="write g(*(a, b)) or pass the items one by one",
                **self.ctx.where(node))
        sequence = self.atom(starred)
        items = []
        for i in range(count):
            item = self.ctx.namer.fresh("t")
            self.emit(assign(item, self._resolved(gast.Subscript(
                value=sequence, slice=const(i), ctx=gast.Load()), operator.getitem)))
            items.append(name(item))
        return given + items

    def call_arguments(self, node):
        """The arguments of a call as atoms; those that fill the callee's
        ``*args`` are packed into one tuple, ``f(x, *t)``, so that its
        derivative template sees them as one value with one adjoint."""
        if node.args and isinstance(node.args[-1], gast.Starred):
            return self.spread(node)
        args = [self.atom(a) for a in node.args]
        first = _first_variadic(self.ctx.resolved.get(node))
        if first is None or len(args) <= first:
            return args
        packed = self.ctx.namer.fresh("t")
        self.emit(assign(packed, gast.Tuple(elts=args[first:], ctx=gast.Load())))
        return args[:first] + [gast.Starred(value=name(packed), ctx=gast.Load())]


def _takes_the_rest(params, node, callee):
    """Whether the starred last argument of `node` fills exactly the
    ``*args`` of `callee`, a user function with source (``def g(a, *args)``
    called as ``g(x, *xs)``)."""
    kinds = [p.kind for p in params]
    if params[0].VAR_POSITIONAL not in kinds or not inspect.isfunction(callee) or \
            REGISTRY.has("reverse", callee):
        return False
    before = kinds.index(params[0].VAR_POSITIONAL)
    return all(k is params[0].POSITIONAL_OR_KEYWORD for k in kinds[:before]) and \
        len(node.args) - 1 == before and not node.keywords


def _first_variadic(func):
    """The position of `func`'s ``*args`` parameter, or None."""
    if func is None or isinstance(func, type) or getattr(func, "free", None) is not None:
        return None
    try:
        params = list(source.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, param in enumerate(params):
        if param.kind is param.VAR_POSITIONAL:
            return None if _rule_names_the_rest(func, param.name) else i
    return None


def _rule_names_the_rest(func, star):
    """Whether `func`'s registered rule names the values its ``*star``
    takes one by one (scipy.stats' ``norm.cdf(x, *args, **kwds)``, whose
    row has ``loc`` and ``scale``, parameters `func` takes through
    ``**kwds``) rather than as the one tuple `star`: those are passed as
    they are, for the rule to bind in order."""
    try:
        own = source.signature(func).parameters
    except (TypeError, ValueError):
        return False
    if not any(p.kind is p.VAR_KEYWORD for p in own.values()):
        return False  # np.gradient(f, *varargs, axis=...): the rest is its own
    for mode in ("reverse", "forward"):
        if REGISTRY.has(mode, func):
            try:
                template = REGISTRY.lookup(mode, func)
                params = inspect.signature(template).parameters
            except (TypeError, ValueError):
                return False
            return star not in params and any(p not in own for p in list(params)[1:])
    return False
