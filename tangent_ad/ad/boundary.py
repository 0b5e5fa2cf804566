"""The boundary of a requested derivative: what its arguments and results are.

A gradient has its argument's type, structure, shape and dtype; a jvp's
output tangent has its output's. The rules inside a derivative follow
NumPy's promotions (a float32 array times a float64 constant is float64)
and may build a list where the argument was a tuple; rather than make
every rule cast, the requested function casts once, where it returns,
with ``cast_like`` (``tangent_ad/runtime/boundary.py``). An integer
argument enters as float64 (``float_argument``), so that no adjoint is
truncated to an integer (unless the function reads it as a count,
``range(n)``, or an index, ``x[i]``); a bool argument is refused there. This runs on
the optimized tree of the requested function only (the pullbacks and
forward functions it calls return values of the computation, not
results); staging drops both steps where the arguments' kinds make them
do nothing (``staging/specialize.py``).

    def df_dx(x, bresult=1.0):
        x = float_argument(x)
        ...
        return cast_like(bx, x)
"""
import gast

from tangent_ad.nodes import assign, call, fix_locations, name, name_nodes, walk


def run(tree, ctx):
    """`tree`, the optimized FunctionDef of the requested derivative, with
    its arguments and results crossing the boundary (see the module
    docstring); other kinds of functions are returned unchanged."""
    ret = tree.body[-1]
    if not isinstance(ret, gast.Return):
        return tree
    entry = []
    if ctx.mode == "reverse" and ctx.kind in ("gradient", "vjp"):
        entry = _reverse(tree, ret, ctx)
    elif ctx.mode == "forward" and ctx.kind == "jvp":
        _forward(ret, ctx)
        entry = [assign(p, call("float_argument", name(p))) for p in _converted(tree, ctx)]
    tree.body[:0] = entry
    # only the statements added here, and the return, have new nodes: a walk
    # of the whole tree to place them cost more than the rest of this stage
    for stmt in entry:
        gast.copy_location(stmt, tree)
        fix_locations(stmt)
    fix_locations(ret)
    return tree


def _reverse(tree, ret, ctx):
    params = [a.id for a in tree.args.args]
    wrt = [p for p in ctx.wrt if p in params]
    rebound = _assigned(tree.body) & set(wrt)
    counts = _counts(tree)
    entry, like = [], {}
    for param in wrt:
        like[param] = param
        if param in counts:  # read as a count or an index: an int stays one
            continue
        entry.append(assign(param, call("float_argument", name(param))))
        if param in rebound:  # the body rebinds it: cast like the argument
            like[param] = ctx.namer.fresh(param + "_arg")
            entry.append(assign(like[param], name(param)))
    results = ret.value.elts[1] if ctx.preserve_result else ret.value
    casts = _cast(results, [like[p] for p in ctx.wrt if p in like], len(ctx.wrt))
    if ctx.preserve_result:
        ret.value.elts[1] = casts
    else:
        ret.value = casts
    return entry


def _converted(tree, ctx):
    """The `wrt` parameters that enter as floats: all but counts and indices."""
    params = [a.id for a in tree.args.args]
    counts = _counts(tree)
    return [p for p in ctx.wrt if p in params and p not in counts]


def _cast(results, likes, count):
    """``cast_like(result, argument)`` for each of the `count` results."""
    if len(likes) != count:
        return results
    if count == 1:
        return call("cast_like", results, name(likes[0]))
    if not isinstance(results, gast.Tuple) or len(results.elts) != count:
        return results
    results.elts = [call("cast_like", r, name(p)) for r, p in zip(results.elts, likes)]
    return results


def _forward(ret, ctx):
    """``return t, cast_like(dt, t)``: the output tangent in the output's
    type, structure and dtype."""
    value = ret.value
    if not (isinstance(value, gast.Tuple) and len(value.elts) == 2):
        return
    output, tangent = value.elts
    if isinstance(output, gast.Name):
        value.elts[1] = call("cast_like", tangent, name(output.id))


def _counts(tree):
    """Names read directly as a count (``range(n)``) or an index (``x[i]``):
    their integer values are what the function computes with (and their
    derivative is zero)."""
    names = set()
    for node in walk(tree):  # one walk for both kinds of node
        if node.__class__ is gast.Call:
            if isinstance(node.func, gast.Name) and node.func.id == "range":
                names.update(a.id for a in node.args if isinstance(a, gast.Name))
        elif node.__class__ is gast.Subscript:
            names.update(n.id for n in name_nodes(node.slice))
    return names


def _assigned(body):
    return {n.id for n in name_nodes(body) if isinstance(n.ctx, gast.Store)}
