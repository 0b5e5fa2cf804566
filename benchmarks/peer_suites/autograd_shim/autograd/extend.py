"""autograd.extend: ``primitive`` and ``defvjp``, on tangent_ad's
``@tad.adjoint`` rules.

``primitive(fun)`` is `fun` itself (without a rule tangent_ad reads its
source, as for any Python function). ``defvjp(fun, maker0, maker1, ...)``
registers a reverse rule for `fun` whose adjoint of argument ``i`` is
``maker_i(ans, *args)(g)``, autograd's vjp maker, called when the
derivative runs (and written out where the rule is used, for a maker
that returns a lambda or def: so that the rule's own derivative can be
taken); ``None`` gives no adjoint. The rule is a template in
tangent_ad's notation, written here as source (registered in
``linecache``, as templates are read, never run). autograd's other
extension points (``defjvp``, Boxes and VSpaces) have no counterpart here.
"""
import inspect
import itertools
import linecache

import tangent_ad as tad

_COUNTER = itertools.count()


def primitive(fun):
    return fun


def defvjp(fun, *makers, argnums=None):
    params = [p.name for p in inspect.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    argnums = range(len(makers)) if argnums is None else argnums
    lines = [f"    d[{params[i]}] = _maker{i}(result, {', '.join(params)})(d[result])"
             for i, maker in zip(argnums, makers) if maker is not None]
    source = f"def _(result, {', '.join(params)}):\n" + "\n".join(lines or ["    pass"]) + "\n"
    filename = f"<autograd shim defvjp {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {f"_maker{i}": m for i, m in zip(argnums, makers)}
    exec(compile(source, filename, "exec"), namespace)
    tad.adjoint(fun)(namespace["_"])


def _unsupported(*args, **kwargs):
    raise NotImplementedError("autograd.extend.defjvp and defvjp_argnum: not in the tangent_ad shim")


defjvp = defjvp_argnum = defvjp_argnum = defvjp_argnums = _unsupported
