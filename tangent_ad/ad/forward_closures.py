"""Forward mode over the closures of generated pullbacks.

A gradient that calls one of the user's functions calls its pullback,
``y, back_y = pullback_g_dx(x)``, and later the closure the pullback
returned, ``bx = back_y(by)`` (see ``ad.calls``). Forward mode over such
code treats a closure as a value whose tangent is a function too: next to
``def back(bresult):`` it writes

    def dback(bresult, dbresult):
        nonlocal x, dx
        ...                     # back's body with its tangents
        return bx, dbx

so the pullback's forward function returns ``(y, back)`` with the tangent
``(dy, dback)``, and the call ``bx = back_y(by)`` becomes
``bx, dbx = dback_y(by, dby)``. The closure reads the enclosing
function's tangents as it reads its values; a value it restores from the
stack (``x = stack.pop()``, declared ``nonlocal``) comes with its tangent,
pushed beside it by the enclosing function.
"""
import gast

from tangent_ad.analysis.activity import active_names
from tangent_ad.frontend.generated import nonlocal_names
from tangent_ad.nodes import STACK, name, reads


def is_closure_call(value, ctx):
    """``back_y(by)`` in generated code: a call of a local variable."""
    return ctx.facts.get("generated") and isinstance(value, gast.Call) \
        and isinstance(value.func, gast.Name) and value.func not in ctx.resolved \
        and ctx.resolved.get(value) is None


def closure(fw, fdef):
    """`fdef` (a nested def of generated code), followed by its forward
    function when it is active; `fw` is the enclosing function's _Forward."""
    if fdef.name not in fw.active:
        return [fdef]
    ctx = fw.ctx
    params = [a.id for a in fdef.args.args]
    seen = reads(fdef)
    outer = fw.active | ({STACK} & set(ctx.facts["active"]))
    inner = type(fw)(fdef, ctx)
    declared = nonlocal_names(fdef)
    active = set(active_names(fdef, ctx, tuple(set(params) | (outer & seen))))
    # a restored variable has a tangent only where the enclosing function
    # gave it one (and pushed it); a captured one keeps its tangent
    active -= {STACK} | {n for n in declared if n not in fw.active}
    inner.active = active | (fw.active & seen)
    inner.zero = fw.zero & seen
    body = [s for s in fdef.body[:-1] if not isinstance(s, gast.Nonlocal)]
    code = inner.block(body)
    returned = fdef.body[-1].value
    result = gast.Return(value=gast.Tuple(
        elts=[returned, inner.tangent_or_zero(returned)], ctx=gast.Load()))
    shared = declared + [fw.tangent_name(n) for n in declared if n in fw.active]
    head = [gast.Nonlocal(names=shared)] if shared else []
    args = params + [fw.tangent_name(p) for p in params]
    arguments = gast.arguments(
        args=[gast.Name(id=a, ctx=gast.Param(), annotation=None, type_comment=None)
              for a in args], posonlyargs=[], vararg=None, kwonlyargs=[],
        kw_defaults=[], kwarg=None, defaults=[])
    fw.zero.discard(fdef.name)
    return [fdef, gast.FunctionDef(
        name=fw.tangent_name(fdef.name), args=arguments, body=head + code + [result],
        decorator_list=[], returns=None, type_comment=None, type_params=[])]


def closure_call(fw, stmt, target):
    """``y = back(a)`` -> ``y, dy = dback(a, da)`` (zeros when the
    closure does not vary)."""
    value = stmt.value
    function = fw.tangent_of(value.func)
    if function is None:
        return [stmt, fw.zeros(target)]
    fw.zero.discard(target)
    new = gast.Assign(
        targets=[gast.Tuple(elts=[name(target, store=True),
                                  name(fw.tangent_name(target), store=True)],
                            ctx=gast.Store())],
        value=gast.Call(func=name(function), keywords=[], args=list(value.args) + [
            fw.tangent_or_zero(a) for a in value.args]),
        type_comment=None)
    fw.ctx.origin[new] = fw.ctx.origin.get(stmt)
    return [new]
