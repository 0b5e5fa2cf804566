"""Reverse mode: turn a core-form function into its adjoint function.

The generated function takes the primal's arguments plus ``bresult``, the
adjoint of the returned value (1.0 by default), and returns the adjoints
of the ``wrt`` arguments. Its body is the primal computation followed by
the adjoint sweep: for each primal statement, in reverse order, the
expansion of its derivative template, under a ``# Grad of:`` comment that
quotes the user's line.

The first contribution to an adjoint defines it (``bx = ...``); later
ones accumulate (``bx = bx + ...``), so no adjoint starts as a zero
array. The optimizer cleans up what the templates leave behind.
"""
import inspect

import gast
import numpy as np

from tangent_ad.ad import templates
from tangent_ad.errors import InternalError, UnsupportedSyntaxError
from tangent_ad.frontend.normalize import assign, name
from tangent_ad.registry import REGISTRY

from tangent_ad.naming import COMMENT_MARKER
OUTPUT_ADJOINT = "bresult"


def comment(text):
    """A statement that the emitter prints as ``# text``."""
    return gast.Expr(value=gast.Call(
        func=name(COMMENT_MARKER), args=[gast.Constant(value=text, kind=None)],
        keywords=[]))


def derivative_name(func_name, wrt):
    """``d<f>_d<wrt...>``, e.g. ``dloss_dW_b``: the generated function's name."""
    return f"d{func_name}_d{'_'.join(wrt)}"


def run(tree, ctx):
    """Return the adjoint FunctionDef of the core-form FunctionDef `tree`."""
    return _Reverse(tree, ctx).build()


class _Reverse:
    def __init__(self, tree, ctx):
        self.tree = tree
        self.ctx = ctx
        self.namer = ctx.namer
        self.active = ctx.facts["active"]
        self.defined = set()   # variables whose adjoint has a value
        self.namer.reserve(OUTPUT_ADJOINT)

    def adjoint_of(self, atom):
        if isinstance(atom, gast.Name) and atom.id in self.active:
            return self.namer.adjoint(atom.id)
        return None

    def build(self):
        body = self.tree.body
        returned = body[-1].value
        primal = body[:-1]
        adjoint = []
        if isinstance(returned, gast.Name) and returned.id in self.active:
            self.namer.set_adjoint(returned.id, OUTPUT_ADJOINT)
            self.defined.add(returned.id)
        last_origin = None
        for stmt in reversed(primal):
            block = self.statement_adjoint(stmt)
            if not block:
                continue
            origin = self.ctx.origin.get(stmt)
            if origin is not last_origin:
                adjoint.append(comment("Grad of: " + self.ctx.info.segment(origin)))
                last_origin = origin
            adjoint.extend(block)
        checks = [] if _provably_scalar(returned, primal, self.ctx) else [
            gast.Expr(value=_call("ensure_scalar", returned))]
        results = []
        for param in self.ctx.wrt:
            if param in self.defined:
                results.append(name(self.namer.adjoint(param)))
            else:
                zero = self.namer.adjoint(param)
                adjoint.append(assign(zero, _call("zeros_like", name(param))))
                results.append(name(zero))
        value = results[0] if len(results) == 1 else gast.Tuple(elts=results, ctx=gast.Load())
        if self.ctx.preserve_result:
            value = gast.Tuple(elts=[returned, value], ctx=gast.Load())
        args = self.tree.args
        args = gast.arguments(
            args=list(args.args) + [gast.Name(id=OUTPUT_ADJOINT, ctx=gast.Param(),
                                              annotation=None, type_comment=None)],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=list(args.defaults) + [gast.Constant(value=1.0, kind=None)])
        return gast.fix_missing_locations(gast.FunctionDef(
            name=derivative_name(self.tree.name, self.ctx.wrt), args=args,
            body=list(primal) + checks + adjoint + [gast.Return(value=value)],
            decorator_list=[], returns=None, type_comment=None, type_params=[]))

    def statement_adjoint(self, stmt):
        """The adjoint statements of one core assignment (maybe none)."""
        target = stmt.targets[0].id
        if target not in self.active or target not in self.defined:
            return []
        value = stmt.value
        result = name(target)
        if isinstance(value, gast.Name):  # a copy: the adjoint flows through
            if self.adjoint_of(value) is None:
                return []
            return self.contribute([(("adjoint", value.id),
                                     name(self.namer.adjoint(target)))])
        func = self.ctx.resolved.get(value)
        if func is None:
            return []  # constants, globals, comparisons: nothing flows back
        where = self.ctx.where(self.ctx.origin.get(stmt))
        if inspect.isfunction(func) and not REGISTRY.has("reverse", func):
            raise UnsupportedSyntaxError(
                f"calls to Python functions ({func.__qualname__}) are not "
                "supported yet",
                hint="inline the helper into this function, or register "
                     "its derivative with @tangent_ad.adjoint", **where)
        template = REGISTRY.lookup("reverse", func, where=where)
        if isinstance(value, gast.BinOp):
            args, keywords = [value.left, value.right], []
        elif isinstance(value, gast.UnaryOp):
            args, keywords = [value.operand], []
        elif isinstance(value, gast.Call):
            args, keywords = value.args, value.keywords
        else:
            raise InternalError(f"unexpected core operation {type(value).__name__}")
        bound = templates.bind(template, func, args, keywords, where=where)
        return self.contribute(templates.expand(
            template, bound, result, self.adjoint_of, self.namer.fresh))

    def contribute(self, expansion):
        stmts = []
        for (kind, var), expr in expansion:
            if kind == "adjoint":
                target = self.namer.adjoint(var)
                if var in self.defined:
                    expr = gast.BinOp(left=name(target), op=gast.Add(), right=expr)
                self.defined.add(var)
            else:
                target = var
            stmts.append(assign(target, expr))
        return stmts


_FULL_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin,
                    np.var, np.std, np.vdot}


def _provably_scalar(atom, primal, ctx):
    """True when the returned atom is a number or a full reduction."""
    if isinstance(atom, gast.Constant):
        return True
    for stmt in primal:
        if isinstance(atom, gast.Name) and stmt.targets[0].id == atom.id:
            value = stmt.value
            func = ctx.resolved.get(value)
            if isinstance(value, gast.Call) and func in _FULL_REDUCTIONS:
                named = {k.arg for k in value.keywords}
                return len(value.args) == 1 and not named & {"axis", "keepdims"}
            return func is float
    return False


def _call(func, *args):
    return gast.Call(func=name(func), args=list(args), keywords=[])
