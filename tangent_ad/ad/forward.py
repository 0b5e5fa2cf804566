"""Forward mode: turn a core-form function into its Jacobian-vector product.

The generated function takes the primal's parameters (without their
defaults) followed by one tangent per ``wrt`` parameter, named
``d<name>``, and returns ``(value, tangent of the value)``. Each primal
statement is followed by its tangent statement, expanded from the
forward template of the operation (``d[result] = ...``, see
``ad.forward_templates``). Branches and loops are copied with the
tangent statements inside them: a tangent is computed when its value is,
so nothing is saved and nothing runs backwards.

Only *active* variables (``ctx.facts["active"]``: varied by a ``wrt``
parameter and useful to the result) have tangents. Every assignment to
an active variable defines its tangent, as ``zeros_like(x)`` when the
assigned value does not vary, and a parameter that becomes active only
later starts with zeros: a tangent is defined wherever its variable is.
A tangent known to be zero at a statement (assigned zeros earlier in the
same straight run of code, or on both sides of a branch) counts as a
symbolic zero there, so no arithmetic is spent on it; dead-code
elimination drops the zeros nothing reads.

A call to one of the user's Python functions becomes a call to that
function's own forward function, ``y, dy = jvp_g_da(a, b, da)``, which
the pipeline generates next (``ctx.calls``, as for reverse mode's
pullbacks); a recursive function calls its own forward function. Each
is specialized to the arguments that have tangents, hence names such as
``jvp_layer_dW_x``.

Forward mode over code tangent_ad generated (``tad.jvp(tad.grad(f))``,
see ``frontend.generated``) pairs each ``stack.append(v)`` with a push of
``v``'s tangent and each pop with a pop of the tangent, first (values and
tangents leave the stack in reverse order), each declared with the
tangent's save site (``saves``), so that a tangent nothing reads is not
saved; a pullback's closure gets a forward closure (``forward_closures``).

Invariant needed: the core form after ``exits`` (one final ``return``).
Invariant established: a FunctionDef returning ``(value, tangent)``.
"""
import copy
import inspect

import gast
import numpy as np

from tangent_ad import saves
from tangent_ad.ad import calls, containers, forward_closures
from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend.closures import from_source
from tangent_ad.hooks import checkpoint
from tangent_ad.frontend.generated import is_stack_pop, is_stack_push, returns_closure
from tangent_ad.nodes import STACK, assign, call, const, name, pop, push, reads, writes, fix_locations
from tangent_ad.naming import label
from tangent_ad.analysis.shapes import ShapeClasses
from tangent_ad.runtime.structures import concatenated, repeated
from tangent_ad.registry import REGISTRY
from tangent_ad.templating import binding, forward_templates, templates


def register(unit, func, wrt, statics=()):
    """Record in `unit` (``ctx.calls``) a name, unique there, for the
    forward function of `func` with tangents for the parameters `wrt`
    (and the functions `statics` bound to its parameters); return its key."""
    key = (func, tuple(wrt), tuple(statics))
    if key not in unit:
        # not a function (a functools.partial, say): parse_function refuses it next
        base = f"jvp_{label(func)}" + (f"_d{'_'.join(wrt)}" if wrt else "")
        if statics:
            base += calls.static_label(statics)
        taken = set(unit.values())
        candidate, i = base, 2
        while candidate in taken:
            candidate, i = f"{base}{i}", i + 1
        unit[key] = candidate
    return key


def hvp_name(func, wrt):
    """The name of the tangent-only forward function of `func` along `wrt`
    (``ctx.kind == "hvp"``): ``hvp_<f>_d<wrt>`` for the gradient of `f`
    with respect to `wrt`, a Hessian-vector product; ``hvp_<g>_d<wrt>``
    for any other generated function `g` (a gradient along other
    arguments, a vjp); ``tangent_<f>_d<wrt>`` for a function of the
    user's. No two of these functions share a name."""
    info = getattr(func, "__tangent_ad__", None)
    along = "_".join(wrt)
    if info is None:
        return f"tangent_{label(func)}_d{along}"
    if info.mode == "reverse" and info.kind == "gradient" and \
            not info.preserve_result and tuple(info.wrt) == tuple(wrt):
        return f"hvp_{label(info.primal)}_d{along}"
    return f"hvp_{func.__name__}_d{along}"


def run(tree, ctx):
    """Return the forward-mode FunctionDef of the core-form FunctionDef `tree`."""
    return _Forward(tree, ctx).build()


def is_user_function(func):
    """True for a Python function to be differentiated from its source
    in forward mode (one with a forward template is not, nor is a runtime
    helper: one without a template has no forward rule yet)."""
    return from_source(func, "forward")


class _Forward:
    def __init__(self, tree, ctx):
        self.tree = tree
        self.ctx = ctx
        self.namer = ctx.namer
        self.active = set(ctx.facts["active"]) - {STACK}  # its tangents ride on it
        self.shapes = ShapeClasses(tree, ctx)
        self.primal_of = {}  # tangent name -> primal name
        self.zero = set()    # active names whose tangent is zero here
        # `a + b`, `a * b` that may concatenate or repeat tuples or lists
        self.sequence_ops = set(map(id, containers.sequence_operations(tree.body)[0]))

    def tangent_name(self, var):
        tangent = self.namer.tangent(var)
        self.primal_of[tangent] = var
        return tangent

    def tangent_of(self, atom):
        """The tangent name of an active Name atom, None when it has none
        or its tangent is known to be zero here."""
        if isinstance(atom, gast.Name) and atom.id in self.active \
                and atom.id not in self.zero:
            return self.tangent_name(atom.id)
        return None

    def define(self, var, tangent):
        """``dvar = tangent`` (an expression that is not known to be zero)."""
        self.zero.discard(var)
        return assign(self.tangent_name(var), tangent)

    def tangent_or_zero(self, atom):
        tangent = self.tangent_of(atom)
        return name(tangent) if tangent else forward_templates.zero_value(atom)

    def zeros(self, var, value=None):
        """``dvar = zeros_like(var)``, or ``dvar = 0.0`` after ``var = 1.0``."""
        zero = forward_templates.zero_value(value) if isinstance(value, gast.Constant) \
            else call("zeros_like", name(var))
        self.zero.add(var)
        return assign(self.tangent_name(var), zero)

    def build(self):
        body = self.tree.body
        returned = body[-1].value
        params = [a.id for a in self.tree.args.args]
        # A parameter that varies later starts with a zero tangent. (Not
        # `zeros_like`: the simplifier would read its shape from the value
        # the body assigns to the parameter, which does not exist yet.)
        inits = [assign(self.tangent_name(p), call("zero_tangent", name(p)))
                 for p in params if p in self.active and p not in self.ctx.wrt]
        self.zero = {p for p in params if p in self.active and p not in self.ctx.wrt}
        code = self.block(body[:-1])
        result = gast.Return(value=gast.Tuple(
            elts=[returned, self.tangent_or_zero(returned)], ctx=gast.Load()))
        key = (self.ctx.func, self.ctx.wrt, self.ctx.static_key())
        fname = self.ctx.calls.get(key)
        if self.ctx.kind == "hvp":  # the tangent of a gradient only: H @ v
            result = gast.Return(value=self.tangent_or_zero(returned))
            fname = hvp_name(self.ctx.func, self.ctx.wrt)
        args = params + [self.namer.tangent(p) for p in self.ctx.wrt]
        arguments = gast.arguments(
            args=[gast.Name(id=a, ctx=gast.Param(), annotation=None, type_comment=None)
                  for a in args], posonlyargs=[], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        return fix_locations(gast.FunctionDef(
            name=fname, args=arguments, body=inits + code + [result],
            decorator_list=[], returns=None, type_comment=None, type_params=[]))

    # ---- statements ---------------------------------------------------

    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        if isinstance(stmt, gast.Assign):
            return self.assignment(stmt)
        if isinstance(stmt, gast.If):
            if is_stack_pop(stmt.test):  # `if stack.pop():` pops its tangent first
                replay = self.branch(stmt)
                saves.carry(stmt, replay)
                return [self.tangent_save(stmt, gast.Expr(value=pop()))] + replay
            return self.branch(stmt)
        if isinstance(stmt, (gast.For, gast.While)):
            # a tangent the loop assigns may be nonzero from the second iteration on
            self.zero -= writes(stmt)
            return self.loop(stmt)
        if isinstance(stmt, gast.With):
            return []  # insert_grad_code: its body belongs to the backward pass
        if is_stack_push(stmt):  # push the tangent after the value
            return [stmt, self.tangent_save(stmt, push(self.saved_tangent(stmt.value.args[0])))]
        if isinstance(stmt, gast.Expr) and is_stack_pop(stmt.value):
            # a tangent, dropped: and its own
            return [self.tangent_save(stmt, gast.Expr(value=pop())), stmt]
        if isinstance(stmt, gast.FunctionDef) and self.ctx.facts.get("generated"):
            return forward_closures.closure(self, stmt)  # a pullback's `back`
        return [stmt]  # break, continue, pass, a lifted nested def

    def saved_tangent(self, atom):
        """What to push for the tangent of a saved value: its tangent
        variable, or None for a value without one (a decision, or a
        variable that is not active: its restore is not active either)."""
        if isinstance(atom, gast.Name) and atom.id in self.active:
            return name(self.tangent_name(atom.id))
        return const(None)

    def restore(self, stmt, target):
        """``v = stack.pop()`` -> ``dv = stack.pop(); v = stack.pop()``."""
        if target not in self.active:
            return [self.tangent_save(stmt, gast.Expr(value=pop())), stmt]
        self.zero.discard(target)
        return [self.tangent_save(stmt, assign(self.tangent_name(target), pop())), stmt]

    def tangent_save(self, stmt, new):
        """`new`, the push or pop of the tangent beside the save `stmt` of
        the code read, declared with the site of that tangent (one per save
        site of the code read, ``saves``): dead-code elimination can then
        drop a tangent that nothing reads with its pushes. Undeclared when
        `stmt` is (code that was not generated)."""
        site = saves.site_of(stmt)
        if site is None:
            return new
        tangents = self.ctx.facts.setdefault("tangent_sites", {})
        return saves.declare(new, tangents.setdefault(site, saves.Site("tangent")))

    def branch(self, stmt):
        before = set(self.zero)
        body = self.block(stmt.body)
        self.zero, after_body = before, self.zero
        orelse = self.block(stmt.orelse)
        self.zero &= after_body  # zero after the branch if zero on both sides
        return [gast.If(test=stmt.test, body=body or [gast.Pass()], orelse=orelse)]

    def loop(self, stmt):
        before = set(self.zero)
        if isinstance(stmt, gast.For):
            if writes(stmt.target) & self.active:
                raise UnsupportedSyntaxError(
                    "looping over a differentiated sequence is not supported yet",
                    hint="loop over the sequence itself, enumerate() or zip() of "
                         "sequences, or over range(len(x)) and index x[i]",
                    **self.ctx.where(self.ctx.origin.get(stmt)))
            loop = gast.For(target=stmt.target, iter=stmt.iter,
                            body=self.block(stmt.body) or [gast.Pass()], orelse=[],
                            type_comment=None)
        else:
            loop = gast.While(test=stmt.test, body=self.block(stmt.body) or [gast.Pass()],
                              orelse=[])
        self.zero = before  # the loop may run any number of times
        return [loop]

    def assignment(self, stmt):
        """The primal assignment followed by its tangent (or a call to the
        callee's forward function, which computes both)."""
        target = stmt.targets[0].id
        value = stmt.value
        if is_stack_pop(value):
            return self.restore(stmt, target)
        if target not in self.active:
            return [stmt]
        if not isinstance(value, gast.Name) and target in reads(value):
            # `x = f(x)`: compute into a temporary, so the rule sees the old x
            temp = self.namer.fresh("t")
            self.active.add(temp)
            first = assign(temp, value)
            self.ctx.origin[first] = self.ctx.origin.get(stmt)
            if id(stmt) in self.sequence_ops:
                self.sequence_ops.add(id(first))
            return self.assignment(first) + self.assignment(assign(target, name(temp)))
        func = self.ctx.resolved.get(value)
        func = getattr(func, "__wrapped__", func) if isinstance(func, checkpoint) else func
        if isinstance(value, gast.Call) and returns_closure(func):
            return self.user_call(stmt, func, target)  # its closure has a tangent
        if not any([self.tangent_of(name(v)) for v in sorted(reads(value))]):
            return [stmt, self.zeros(target, value)]  # nothing here varies
        if forward_closures.is_closure_call(value, self.ctx):
            return forward_closures.closure_call(self, stmt, target)
        if isinstance(value, gast.Name):
            return [stmt, self.define(target, name(self.tangent_of(value)))]
        if isinstance(value, (gast.Tuple, gast.List)):
            return [stmt, self.define(target, type(value)(
                elts=[self.tangent_or_zero(e) for e in value.elts], ctx=gast.Load()))]
        if isinstance(value, gast.Dict):
            return [stmt, self.define(target, gast.Dict(
                keys=copy.deepcopy(value.keys),
                values=[self.tangent_or_zero(v) for v in value.values]))]
        if isinstance(value, gast.Call) and is_user_function(func):
            return self.user_call(stmt, func, target)
        if func is None or REGISTRY.is_zero(func):
            return [stmt, self.zeros(target)]
        if isinstance(value, gast.Subscript):
            # indexing, written as indexing: dy = dx[i, 1:3]
            source = self.tangent_of(value.value)
            if source is None:
                return [stmt, self.zeros(target)]
            return [stmt, self.define(target, gast.Subscript(
                value=name(source), slice=copy.deepcopy(value.slice), ctx=gast.Load()))]
        if id(stmt) in self.sequence_ops:
            func = concatenated if isinstance(value.op, gast.Add) else repeated
        return [stmt] + self.expand(stmt, func, target)

    def expand(self, stmt, func, target):
        """The tangent statements of ``target = func(...)`` from its template."""
        value = stmt.value
        where = self.ctx.where(self.ctx.origin.get(stmt))
        template = REGISTRY.lookup("forward", func, where=where)
        if REGISTRY.is_nonholomorphic(func):  # recorded: reverse over this jvp conjugates
            self.ctx.facts["nonholomorphic"] = True
        templates.load_globals(template, self.ctx.namespace)
        args, keywords = templates.operands(value)
        bound = binding.bind(template, func, args, keywords, where=where)
        binding.refuse_arguments(func, REGISTRY.refused_arguments(func), bound,
                                   lambda atom: self.tangent_of(atom) is not None, where)
        omitted = binding.omitted_parameters(bound, args, keywords)
        temporaries, tangent, dropped = forward_templates.expand_tangent(
            template, bound, name(target), self.tangent_of, self.namer.fresh, omitted)
        if tangent is None:
            return [self.zeros(target)]
        if dropped and REGISTRY.is_broadcasting(func):
            tangent = self.fit_shape(tangent, bound, target)
        return [assign(n, e) for n, e in temporaries] + [self.define(target, tangent)]

    def fit_shape(self, tangent, bound, target):
        """Broadcast the tangent of a broadcasting function to the result's
        shape when a left-out term may have been what broadcast it: unless
        every array argument still appears in the (elementwise) tangent,
        or one it reads provably has the result's shape."""
        operands = {a.id for a in bound.values() if isinstance(a, gast.Name)}
        leaves = {self.primal_of.get(n, n) for n in reads(tangent)}
        if operands <= leaves or target in leaves or any(
                self.shapes.same(name(leaf), name(target)) for leaf in leaves & operands):
            return tangent
        return call("broadcast_like", tangent, name(target))

    # ---- calls to the user's functions ------------------------------------

    def user_call(self, stmt, func, target):
        """``y = g(a, b)`` -> ``y, dy = jvp_g_da(a, b, da)``: every parameter
        is passed (defaults filled in), then the tangents of those with one."""
        value = stmt.value
        where = self.ctx.where(self.ctx.origin.get(stmt))
        bound = calls._bind(func, value, where)
        wanted = [(p, a) for p, a in bound if self.tangent_of(a)]
        if not wanted and not returns_closure(func):
            return [stmt, self.zeros(target)]  # the callee's *args read it, say
        statics = calls._static_functions(bound, self.ctx) + calls.keyword_statics(func, value)
        key = register(self.ctx.calls, func, tuple(p for p, _ in wanted), statics)
        given = dict(bound)
        arguments = []
        for param in inspect.signature(func).parameters.values():
            if param.name in given:
                arguments.append(given[param.name])
            elif param.kind is param.VAR_POSITIONAL:  # no items for *args
                arguments.append(gast.Tuple(elts=[], ctx=gast.Load()))
            elif param.kind is param.VAR_KEYWORD:  # its keywords, by name (signatures.py)
                arguments.extend(given[k] for k in dict(statics).get(f"**{param.name}", ()))
            else:
                arguments.append(self.default(func, param))
        arguments += [name(self.tangent_of(a)) for _, a in wanted]
        self.zero.discard(target)
        new = gast.Assign(
            targets=[gast.Tuple(elts=[name(target, store=True),
                                      name(self.tangent_name(target), store=True)],
                                ctx=gast.Store())],
            value=gast.Call(func=name(self.ctx.calls[key]), args=arguments, keywords=[]),
            type_comment=None)
        self.ctx.origin[new] = self.ctx.origin.get(stmt)
        return [new]

    def default(self, func, param):
        """A parameter's default value as an atom: a literal when it is
        one, else a name for it in the generated code's namespace."""
        literal = _literal(param.default)
        if literal is not None:
            return literal
        alias = self.namer.fresh(f"{func.__name__}_{param.name}")
        self.ctx.namespace[alias] = param.default
        return name(alias)


def _literal(value):
    """`value` as a gast literal (numbers, strings, None and tuples of
    them), or None when it is not one."""
    if isinstance(value, (bool, int, str, type(None))) or (
            isinstance(value, (float, complex)) and np.isfinite(value)):
        return const(value)
    if isinstance(value, tuple):
        items = [_literal(v) for v in value]
        if all(i is not None for i in items):
            return gast.Tuple(elts=items, ctx=gast.Load())
    return None
