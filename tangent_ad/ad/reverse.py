"""Reverse mode: turn a core-form function into its adjoint function.

The generated function takes the primal's arguments plus ``bresult``, the
adjoint of the returned value (1.0 by default), and returns the adjoints
of the ``wrt`` arguments. For ``vjp`` (``ctx.kind == "vjp"``) the output
may be anything (an array, a tuple, a dict): ``bresult`` is its cotangent,
of the same structure, with no default, and the output is not checked
for being a scalar. Its body is the primal sweep (the user's code
plus the saves of ``saving``) followed by the adjoint sweep: each
statement's derivative template, in reverse order, under a ``# Grad of:``
comment quoting the user's line. Branches stay branches (replaying the
recorded decision) and loops stay loops (running backwards).

An adjoint with no contribution yet is *undefined* rather than zero: the
first contribution defines it (``bx = ...``), later ones accumulate
(``bx = bx + ...``). After the adjoint of ``x = ...`` the adjoint of the
older ``x`` starts undefined again. Where control flow joins, an adjoint
defined on one path only is set to zeros on the other (of the primal
value, set to None before the primal sweep when it may not exist there),
and a loop's adjoint starts with every adjoint its body accumulates into
defined.
"""
import inspect

import gast

from tangent_ad import saves
from tangent_ad.ad import (calls, checkpointing, containers, output_check,
                           rematerialize, saving, zero_backs)
from tangent_ad.errors import InternalError, UnsupportedSyntaxError
from tangent_ad.frontend import generated
from tangent_ad.naming import COMPLEX_NOTE
from tangent_ad.nodes import STACK, assign, call, comment, const, name, fix_locations
from tangent_ad.registry import REGISTRY
from tangent_ad.runtime.structures import concatenated, repeated
from tangent_ad.templating import binding, templates

OUTPUT_ADJOINT = "bresult"


def derivative_name(func_name, wrt):
    """``d<f>_d<wrt...>``, e.g. ``dloss_dW_b``: the generated function's name."""
    return f"d{func_name}_d{'_'.join(wrt)}"


def run(tree, ctx):
    """Return the adjoint FunctionDef of the core-form FunctionDef `tree`."""
    generated.refuse_reverse(tree, ctx)
    return _Reverse(tree, ctx).build()


class _Reverse:
    def __init__(self, tree, ctx):
        self.tree = tree
        self.ctx = ctx
        self.namer = ctx.namer
        self.active = ctx.facts["active"]
        self.namer.reserve(OUTPUT_ADJOINT, STACK)

    def adjoint_of(self, atom):
        if isinstance(atom, gast.Name) and atom.id in self.active:
            return self.namer.adjoint(atom.id)
        return None

    def zeros(self, var):
        self.zeroed.add(var)
        zeros = assign(self.namer.adjoint(var), call("zeros_like", name(var)))
        setattr(zeros, zero_backs.ZERO, True)
        return zeros

    def build(self):
        body = self.tree.body
        returned = body[-1].value
        params = [a.id for a in self.tree.args.args]
        saving.prepare_loops(body, self.ctx)
        self.pullbacks = calls.rewrite_calls(body[:-1], self.ctx, self.active)
        self.ctx.facts[zero_backs.CALLED] = [calls.called_pullback(stmt, record)
                                             for stmt, record in self.pullbacks.items()]
        self.ctx.facts[zero_backs.GUARDS] = []
        sequences = containers.sequence_operations(body)
        self.structured = containers.may_hold_containers(body, self.ctx, self.pullbacks,
                                                         sequences)
        if self.ctx.kind == "vjp" and isinstance(returned, gast.Name):
            self.structured.add(returned.id)  # any output: its cotangent is given
        self.ctx.facts["may_hold_containers"] = self.structured
        self.sequence_ops = set(map(id, sequences[0]))
        primal, self.plan = saving.primal_sweep(body, self.ctx, params)
        self.zeroed = set()  # primal names the adjoint sweep takes zeros_like of
        # a name assigned only in a branch has no value where the branch did
        # not run; the zeros of its adjoint on that path need one (None)
        self.surely = set(params) | {t for stmt in body[:-1] if isinstance(stmt, gast.Assign)
                                     for t in saving.writes_in([stmt])}
        checks, seed, defined = [], [], set()
        pullback = self.ctx.kind == "pullback"
        vjp = self.ctx.kind == "vjp"  # any output, its cotangent given: no check
        checked = getattr(self.ctx.func, "__tangent_ad_checked_output__", False)
        aux = self.ctx.facts.get("aux_output")  # has_aux: the value is the pair
        scalar = self.ctx.facts.get("scalar_output") or not self.ctx.preserve_result
        if not pullback and not vjp and scalar and not checked:
            checks += output_check.statements(returned, body, self.ctx)
        if isinstance(returned, gast.Name) and returned.id in self.active:
            ret = returned.id
            if ret in self.ctx.facts.get("user_names", ()):
                seed.append(assign(self.namer.adjoint(ret), name(OUTPUT_ADJOINT)))
            else:
                self.namer.set_adjoint(ret, OUTPUT_ADJOINT)
            defined.add(ret)
        if self.ctx.preserve_result and not pullback:
            value = self.namer.fresh("value")  # the adjoint may restore older values
            checks.append(assign(value, name(aux) if aux else returned))
            returned = name(value)
        adjoint, defined = self.block(body[:-1], defined)
        preamble = [assign(STACK, gast.List(elts=[], ctx=gast.Load()))]
        preamble += [assign(v, const(None)) for v in
                     sorted(self.plan.undefined | (self.zeroed - self.surely))]
        results = []
        for param in self.ctx.wrt:
            if param not in defined:
                adjoint.append(self.zeros(param))
            results.append(name(self.namer.adjoint(param)))
        value = results[0] if len(results) == 1 else gast.Tuple(elts=results, ctx=gast.Load())
        if pullback:
            back = _function("back", [OUTPUT_ADJOINT], [], seed + adjoint
                             + [gast.Return(value=value)])
            body = preamble + primal + [back, gast.Return(value=gast.Tuple(
                elts=[returned, name("back")], ctx=gast.Load()))]
            return _function(
                self.ctx.calls[(self.ctx.func, self.ctx.wrt, self.ctx.static_key())],
                self.tree.args, None, body)
        if self.ctx.preserve_result:
            value = gast.Tuple(elts=[returned, value], ctx=gast.Load())
        body = preamble + primal + checks + seed + adjoint + [gast.Return(value=value)]
        args = self.tree.args
        if vjp:  # the cotangent has no default, so neither do the parameters before it
            return _function(
                "vjp_" + derivative_name(self.tree.name, self.ctx.wrt)[1:],
                list(args.args) + [OUTPUT_ADJOINT], [], body)
        return _function(
            derivative_name(self.tree.name, self.ctx.wrt),
            list(args.args) + [OUTPUT_ADJOINT], list(args.defaults) + [const(1.0)], body)

    # ---- the adjoint sweep ------------------------------------------------

    def block(self, stmts, defined):
        """Adjoints of `stmts` in reverse order, given the set of variables
        whose adjoints are defined after them; returns (code, defined)."""
        out, last_origin = [], None
        defined = set(defined)
        for stmt in reversed(stmts):
            if isinstance(stmt, gast.Assign):
                code = self.assign_adjoint(stmt, defined)
            elif isinstance(stmt, gast.If):
                code = self.if_adjoint(stmt, defined)
            elif isinstance(stmt, (gast.For, gast.While)):
                code = self.loop_adjoint(stmt, defined)
            elif isinstance(stmt, gast.With):
                code = self.hook(stmt, defined)
            else:
                code = []  # break, pass: nothing flows back
            code = [rematerialize.recompute(binding)
                    for binding in self.plan.recomputed.get(stmt, ())] + code
            if not code:
                continue
            origin = self.ctx.origin.get(stmt)
            if origin is not last_origin and not isinstance(
                    stmt, (gast.If, gast.For, gast.While, gast.With)):
                out.append(comment("Grad of: " + self.ctx.info.segment(origin)))
            last_origin = origin
            out.extend(code)
        return out, defined

    def assign_adjoint(self, stmt, defined):
        target = calls.assigned_names(stmt)[0]
        code = []
        if target in self.active and target in defined:
            expansion = self.expand(stmt, target)
            defined.discard(target)
            before = set(defined)
            code = self.contribute(expansion, defined)
            if stmt in self.pullbacks:
                code = self.guard(stmt, code, defined - before)
        else:
            defined.discard(target)
        for var, saved in reversed(self.plan.saved.get(stmt, [])):
            code.append(saves.restore(var, saves.site_of(saved)))
        return code

    def guard(self, stmt, code, first):
        """A pullback call's contributions under ``if back is not None:``,
        the zeros of the adjoints they define first on the other way (see
        ``zero_backs.py``, which keeps the guard only where the callee may
        return no back). Unguarded when one of those adjoints is of a value
        that may not exist there."""
        if not first <= self.surely:
            return code
        code = calls.guarded(stmt, self.pullbacks[stmt], code, [self.zeros(v) for v in sorted(first)])
        self.ctx.facts[zero_backs.GUARDS].append(code[-1])
        return code

    def expand(self, stmt, target):
        """The template expansion for one core assignment."""
        if stmt in self.pullbacks:
            return calls.expansion(self.pullbacks[stmt], self.namer.adjoint(target))
        value = stmt.value
        if isinstance(value, gast.Name):  # a copy: the adjoint flows through
            if self.adjoint_of(value) is None:
                return []
            return [(("adjoint", value.id), name(self.namer.adjoint(target)))]
        if isinstance(value, (gast.Tuple, gast.List, gast.Dict)):
            return self.literal_expansion(value, target)
        func = self.ctx.resolved.get(value)
        if id(stmt) in self.sequence_ops:  # may concatenate or repeat a sequence
            func = concatenated if isinstance(value.op, gast.Add) else repeated
        if REGISTRY.is_nonholomorphic(func):
            self.ctx.facts["nonholomorphic"] = True
        if func is None or REGISTRY.is_zero(func) or not isinstance(
                value, (gast.Call, gast.BinOp, gast.UnaryOp, gast.Subscript)):
            return []  # constants, globals, comparisons: nothing flows back
        if isinstance(value, gast.Call) and calls.is_user_function(func):
            # the user's function of constants only (``o(1.0, n)`` in a branch
            # whose target is active on another one): ``rewrite_calls`` made
            # a pullback of every call with an active argument
            return []
        where = self.ctx.where(self.ctx.origin.get(stmt))
        template = REGISTRY.lookup("reverse", func, where=where)
        templates.load_globals(template, self.ctx.namespace)
        args, keywords = templates.operands(value)
        bound = binding.bind(template, func, args, keywords, where=where)
        binding.refuse_arguments(func, REGISTRY.refused_arguments(func), bound,
                                   lambda atom: self.adjoint_of(atom) is not None, where)
        return templates.expand(template, bound, name(target), self.adjoint_of,
                                self.namer.fresh,
                                binding.omitted_parameters(bound, args, keywords))

    def literal_expansion(self, value, target):
        """``t = (a, b)``: the adjoint of each element is its entry of bt."""
        if isinstance(value, gast.Dict):
            entries = zip(value.keys, value.values)
        else:
            entries = ((const(i), e) for i, e in enumerate(value.elts))
        return [(("adjoint", element.id),
                 gast.Subscript(value=name(self.namer.adjoint(target)), slice=key,
                                ctx=gast.Load()))
                for key, element in entries if self.adjoint_of(element) is not None]

    def contribute(self, expansion, defined):
        stmts = []
        for (kind, var), expr in expansion:
            if kind == "unpack":
                stmts.extend(self.unpack_contributions(var, expr, defined))
                continue
            if kind == "locals":
                targets = gast.Tuple(elts=[name(n, store=True) for n in var],
                                     ctx=gast.Store())
                stmts.append(gast.Assign(targets=[targets], value=expr, type_comment=None))
                continue
            if kind == "adjoint":
                target = self.namer.adjoint(var)
                if var in defined and var in self.structured:
                    expr = call("accumulate", name(target), expr)
                elif var in defined:
                    expr = gast.BinOp(left=name(target), op=gast.Add(), right=expr)
                defined.add(var)
            else:
                target = var
            stmts.append(assign(target, expr))
        return stmts

    def unpack_contributions(self, variables, expr, defined):
        """``ba, bb = expr`` where the adjoints are still undefined, and
        fresh names added afterwards where they are not."""
        names, later = [], []
        for var in variables:
            if var in defined or var in variables[:len(names)]:
                temp = self.namer.fresh("g_" + var)
                names.append(temp)
                later.append((("adjoint", var), name(temp)))
            else:
                names.append(self.namer.adjoint(var))
                defined.add(var)
        targets = gast.Tuple(elts=[name(n, store=True) for n in names], ctx=gast.Store())
        return [gast.Assign(targets=[targets], value=expr, type_comment=None)] + \
            self.contribute(later, defined)

    def hook(self, stmt, defined):
        """The body of ``with insert_grad_code(x) as dx:``, where x's adjoint
        is complete: dx is bound to it, and what dx holds afterwards
        replaces it. Nothing happens for a value with no adjoint."""
        var = stmt.items[0].context_expr.args[0]
        alias = stmt.items[0].optional_vars
        if not isinstance(var, gast.Name) or var.id not in self.active:
            return []
        adjoint = self.namer.adjoint(var.id)
        code = [comment("Inserted grad code: " + self.ctx.info.segment(
            self.ctx.origin.get(stmt)).split(":")[0])]
        if var.id not in defined:
            code.append(self.zeros(var.id))
            defined.add(var.id)
        if alias is None:
            return code + stmt.body
        return code + [assign(alias.id, name(adjoint))] + stmt.body + \
            [assign(adjoint, name(alias.id))]

    def if_adjoint(self, stmt, defined):
        body, in_body = self.block(stmt.body, defined)
        orelse, in_orelse = self.block(stmt.orelse, defined)
        joined = in_body | in_orelse
        body += [self.zeros(v) for v in sorted(joined - in_body)]
        orelse += [self.zeros(v) for v in sorted(joined - in_orelse)]
        defined.clear()
        defined.update(joined)
        return [saves.replay(self.plan.decisions[stmt], body or [gast.Pass()], orelse)]

    def loop_adjoint(self, stmt, defined):
        if isinstance(stmt, gast.For) and saving.writes_in([stmt.target]) & self.active:
            func = self.ctx.resolved.get(stmt.iter)
            if inspect.isgeneratorfunction(func):
                raise UnsupportedSyntaxError(
                    f"looping over what the generator {func.__qualname__} yields is not "
                    "supported", hint=f"make {func.__name__} build and return a list of "
                    "its items", **self.ctx.where(self.ctx.origin.get(stmt)))
            raise UnsupportedSyntaxError(
                "looping over a differentiated sequence is not supported yet",
                hint="loop over the sequence itself, enumerate() or zip() of "
                     "sequences, or over range(len(x)) and index x[i]",
                **self.ctx.where(self.ctx.origin.get(stmt)))
        at_head = set(defined)
        for _ in range(len(self.active) + 2):
            body, at_end = self.block(stmt.body, at_head)
            if at_end <= at_head:
                break
            at_head |= at_end
        else:
            raise InternalError("adjoint loop analysis did not converge")
        inits = [self.zeros(v) for v in sorted(at_head - defined)]
        body += [self.zeros(v) for v in sorted(at_head - at_end)]
        defined.update(at_head)
        header = self.ctx.info.segment(self.ctx.origin.get(stmt))
        segments = self.plan.checkpointed.get(stmt)
        if segments is not None:
            return [comment("Grad of: " + header)] + inits + [
                checkpointing.adjoint(stmt, segments, body)]
        loop = gast.For(target=self.reverse_target(stmt), iter=self.reverse_iter(stmt),
                        body=body or [gast.Pass()], orelse=[], type_comment=None)
        return [comment("Grad of: " + header)] + inits + [loop]

    def reverse_target(self, stmt):
        if isinstance(stmt, gast.For):
            return stmt.target
        return name(self.namer.fresh("_"), store=True)

    def reverse_iter(self, stmt):
        """The iterable of the adjoint loop: the primal one, backwards."""
        counter = self.plan.counters.get(stmt)
        if isinstance(stmt, gast.While):
            return call("range", name(counter))
        items = stmt.iter
        if isinstance(items, gast.Call) and self.ctx.resolved.get(items) is not range:
            items = call("list", items)
        if counter is not None:
            items = gast.Subscript(value=items, slice=gast.Slice(
                lower=None, upper=name(counter), step=None), ctx=gast.Load())
        return call("reversed", items)


def conjugate_complex_results(tree, ctx):
    """Conjugate the adjoints the (optimized) top-level derivative `tree`
    returns, with ``bz = conj_complex(bz)`` before its return: the step
    from JAX's convention to df/dRe z + i df/dIm z, which a real value
    needs only when a non-holomorphic rule was used."""
    ret = tree.body[-1]
    results = ret.value.elts[1] if ctx.preserve_result else ret.value
    names = [ctx.namer.adjoint(param) for param in ctx.wrt]
    atoms = results.elts if len(names) > 1 else [results]
    stmts = []
    if [getattr(atom, "id", None) for atom in atoms] == names:
        stmts = [assign(n, call("conj_complex", name(n))) for n in names]
    elif ctx.preserve_result:  # an expression, or one adjoint returned twice
        ret.value.elts[1] = call("conj_complex", results)
    else:
        ret.value = call("conj_complex", results)
    added = [comment(COMPLEX_NOTE)] + stmts
    tree.body[-1:-1] = added
    for stmt in added:  # only these and the return have new nodes to place
        gast.copy_location(stmt, tree)
        fix_locations(stmt)
    fix_locations(ret)
    return tree


def _function(fname, args, defaults, body):
    """A FunctionDef; `args` is a gast.arguments or a list of names/Names."""
    if not isinstance(args, gast.arguments):
        args = gast.arguments(
            args=[a if isinstance(a, gast.Name) else
                  gast.Name(id=a, ctx=gast.Param(), annotation=None, type_comment=None)
                  for a in args],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=defaults)
    return gast.FunctionDef(name=fname, args=args, body=body, decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
