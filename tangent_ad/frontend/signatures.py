"""Signatures stage: a called function's ``*args`` and keyword-only parameters as plain ones.

A function the differentiated code calls is generated as a pullback (or a
forward function) that only ever the generated caller calls, so its
parameters can take the form the later stages know:

* ``def g(a, *args)`` -> ``def g(a, args=())``: the caller packs the items
  its call passes to ``*args`` into one tuple (``call_arguments.py``)
  and passes the tuple (``ad/calls.py``), whose adjoint flows back into
  each item as for any tuple;
* ``def g(a, *, k=2.0)`` -> ``def g(a, k=2.0)``: the caller passes ``k``
  by keyword, as written, or every parameter in order (forward mode);
* ``def g(*args, **kwargs): ... f(*args, **kwargs)``: the pullback is
  made for the keywords a call passes into ``**kwargs`` (``ad/calls.py``:
  ``keyword_statics``), each a keyword-only parameter of its own (default
  None: the caller always passes it), and each ``**kwargs`` that passes
  it on becomes those keywords; with none, the parameter goes. Any other
  use of it is refused.

The requested function itself keeps its signature: the user calls its
derivative with the arguments of the function, and a ``*args`` or
keyword-only parameter there is refused by validation.
"""
import gast

from tangent_ad.errors import UnsupportedSyntaxError


def run(tree, ctx):
    """Return the FunctionDef `tree` of a called function with plain
    parameters; the requested function's is returned unchanged."""
    if not ctx.callee:
        return tree
    args = tree.args
    if args.kwarg is not None:
        _explicit_kwargs(tree, ctx, ctx.static_args.get(f"**{args.kwarg.id}", ()))
    if args.vararg is None and not args.kwonlyargs:
        return tree
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    params = list(args.args)
    if args.vararg is not None:
        params.append(gast.Name(id=args.vararg.id, ctx=gast.Param(), annotation=None,
                                type_comment=None))
        defaults.append(gast.Tuple(elts=[], ctx=gast.Load()))
    for param, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is None and any(d is not None for d in defaults):
            raise UnsupportedSyntaxError(
                f"the keyword-only parameter '{param.id}' of {tree.name} has no default "
                "but follows parameters that have one",
                hint="give it a default, or make it an ordinary parameter",
                **ctx.where(tree))
        params.append(param)
        defaults.append(default)
    first = next((i for i, d in enumerate(defaults) if d is not None), len(defaults))
    tree.args = gast.arguments(args=params, posonlyargs=list(args.posonlyargs), vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None,
                               defaults=defaults[first:])
    return tree


def _explicit_kwargs(tree, ctx, names):
    """Replace the ``**kwargs`` parameter of `tree` by one keyword-only
    parameter per name the generated caller passes into it (`names`, none
    for most calls), and each ``**kwargs`` that passes it on by those
    keywords (``f(x, **kwargs)`` -> ``f(x, allow_singular=allow_singular)``)."""
    kwargs = tree.args.kwarg.id
    for node in gast.walk(tree):
        if isinstance(node, gast.Call) and any(
                k.arg is None and isinstance(k.value, gast.Name) and k.value.id == kwargs
                for k in node.keywords):
            node.keywords = [k for k in node.keywords
                             if not (k.arg is None and isinstance(k.value, gast.Name)
                                     and k.value.id == kwargs)] + [
                gast.keyword(arg=n, value=gast.Name(id=n, ctx=gast.Load(), annotation=None,
                                                    type_comment=None)) for n in names]
    for node in (n for stmt in tree.body for n in gast.walk(stmt)):
        if isinstance(node, gast.Name) and node.id == kwargs:
            raise UnsupportedSyntaxError(
                f"{tree.name} uses its **{kwargs} parameter other than to pass it on "
                f"(f(..., **{kwargs})), which is not supported",
                hint="list the keyword parameters explicitly", **ctx.where(node))
    tree.args.kwonlyargs = list(tree.args.kwonlyargs) + [
        gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in names]
    tree.args.kw_defaults = list(tree.args.kw_defaults) + [
        gast.Constant(value=None, kind=None) for _ in names]
    tree.args.kwarg = None
