"""Front end of generated code: a derivative's stored tree, read again.

When a derivative is itself differentiated (``tad.jvp(tad.grad(f))``,
the Hessian-vector products behind ``grad(grad(f))``), the pipeline
starts from the tree the derivative was printed from (``source``
returns it), not from its text, and runs this one stage in place of the
user's front end::

    stored tree -> reread -> exits -> aux -> activity -> forward | reverse

The user's stages (``statements`` ... ``validate``) never see generated
code: it is already in the core form, less its atoms (the optimizer
folded temporaries into expressions), and it has constructs a user's
code may not, which only this stage reads:

* its save stack (``stack.append(v)``, ``v = stack.pop()``, ``if
  stack.pop():``), kept in place rather than made the functional
  ``stack = appended(stack, v)`` of a user's list, and the names it
  saves never versioned, so that a save and its restore keep one name;
* the closure ``back`` a pullback returns, kept as a real closure with
  its ``nonlocal`` line, and the calls of such closures;
* packed arguments (``f(*t)``, one value with one adjoint) and lambdas
  of a user's nested def, kept as written;
* rules' made closures, ``maker(ans, x)(g)``, written out
  (``inline.applied_makers``).

Boolean masks and ``out=`` keywords need nothing: validation, which
refuses them in a user's code, is not run on ours.
"""
import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import generated, inline, normalize, resolve
from tangent_ad.nodes import call


def run(tree, ctx):
    """Return the core form of the stored tree `tree` of a generated
    function, its calls resolved (``ctx.resolved``)."""
    ctx.facts["generated"] = True
    tree = inline.applied_makers(tree, ctx)
    tree = resolve.resolved_by(_Resolver, tree, ctx)
    return normalize.core_form(_Normalizer, tree, ctx, generated.saved_names(tree))


class _Resolver(resolve.Resolver):
    lifts_nested = False  # a pullback's `back` stays a real closure

    def visit_FunctionDef(self, node):
        own = {a.id for a in node.args.args} | {
            n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}
        inner = type(self)(self.ctx, self.scope, self.local | own, self.snapshot)
        for stmt in node.body:  # resolved in place
            inner.visit(stmt)

    def spreads_when_run(self, node, obj):
        return False  # f(*t) in generated code passes one packed value

    def local_call(self, node):
        if isinstance(node.func, gast.Name):
            for child in node.args:  # `back_y(by)`: a pullback's closure
                self.visit(child)
            return True
        if isinstance(node.func, gast.Attribute) and node.func.attr == "pop":
            _check_pop(node, self.ctx)
            return True  # restoring a saved value
        return False


def _check_pop(node, ctx):
    """Accept ``stack.pop()``; refuse the other lists a generated gradient
    pops from (a checkpointed loop's snapshots), with a clear message."""
    if not generated.is_stack_pop(node):
        raise UnsupportedSyntaxError(
            "differentiating a gradient whose loop is checkpointed "
            "(tad.checkpointed) is not supported yet",
            hint="for second derivatives, take the gradient of a version of "
                 "the function without tad.checkpointed",
            **ctx.where(node))


class _Normalizer(normalize.Normalizer):
    keeps_lambdas = True  # its calls go to the lambda's pullback

    def statement(self, stmt):
        if isinstance(stmt, gast.FunctionDef):
            self.emit(self.closure(stmt))
        elif generated.is_stack_push(stmt):
            self.emit(gast.Expr(value=call("stack.append", self.atom(stmt.value.args[0]))))
        else:
            super().statement(stmt)

    def call_arguments(self, node):
        if node.args and isinstance(node.args[-1], gast.Starred):  # packed
            return [self.atom(a) for a in node.args[:-1]] + [
                gast.Starred(value=self.atom(node.args[-1].value), ctx=gast.Load())]
        return super().call_arguments(node)

    def closure(self, fdef):
        """The core form of a nested def (a pullback's ``back``), kept as a
        real closure: its body is normalized where it stands, reading the
        enclosing function's variables at their current versions, and its
        ``nonlocal`` line is kept."""
        inner = type(self)(self.ctx, self.mutable)
        inner.version = dict(self.version)
        inner.origin = self.origin
        for arg in fdef.args.args:
            inner.version[arg.id] = arg.id
        declared = [s for s in fdef.body if isinstance(s, gast.Nonlocal)]
        body = inner.block([s for s in fdef.body if not isinstance(s, gast.Nonlocal)])
        self.version[fdef.name] = fdef.name
        return gast.FunctionDef(name=fdef.name, args=fdef.args, body=declared + body,
                                decorator_list=[], returns=None, type_comment=None,
                                type_params=[])
