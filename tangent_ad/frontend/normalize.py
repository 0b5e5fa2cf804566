"""Normalize stage: desugar the function into a small core form.

After this pass the body is made of

* ``name = <one operation>`` where the operation is a constant, a name, a
  binary or unary operator, a comparison or a call whose operands are all
  *atoms* (names, constants, global attributes such as ``np.pi``, or
  tuples of atoms);
* ``if <test>:``, ``for <names> in <iterable>:`` and ``while <test>:``
  whose headers are kept as written (they are never differentiated);
* ``break``, ``continue`` and ``return <atom>``.

Nested expressions get temporaries (``t``, ``t2``, ...), ``a += b``
becomes ``a = a + b``, ``x.T`` becomes ``np.transpose(x)`` and
``a if c else b`` becomes an ``if`` statement. A name assigned only in
straight-line code gets a new version when it is assigned again (``x2``),
so every value the derivative needs stays available; a name assigned in
a branch or loop keeps its name (the reverse pass saves its old values).
``ctx.origin`` maps each new statement to the user's statement it came
from. Expressions are taken apart into atoms by the ``atoms.Atoms`` mixin.
"""
import copy
import operator

import gast

from tangent_ad import saves
from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.naming import Namer
from tangent_ad.frontend.atoms import Atoms
from tangent_ad.frontend.call_arguments import CallArguments
from tangent_ad.frontend.desugar import Desugar, has_break
from tangent_ad.frontend.numpy_forms import refuse_in_place
from tangent_ad.nodes import assign, call, name, reads, walk, fix_locations
from tangent_ad.runtime.structures import appended
from tangent_ad.visitors import Transformer

RUNTIME_NAMES = ("np", "bresult", "stack")
_COMPOUND = (gast.If, gast.For, gast.While)


def run(tree, ctx):
    """Return the core form of the validated, resolved FunctionDef `tree`."""
    return core_form(Normalizer, tree, ctx)


def core_form(normalizer_class, tree, ctx, unversioned=()):
    """`run` with another `Normalizer` class, and the names `unversioned`
    never given new versions: generated code read again
    (``frontend.reread``) keeps its saves in place."""
    reserved = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    reserved.update(ctx.namespace, RUNTIME_NAMES)
    ctx.namer = ctx.namer or Namer(reserved)
    ctx.facts["user_names"] = frozenset(
        n.id for n in walk(tree) if isinstance(n, gast.Name))
    mutable = _assigned_in_compound(tree) | set(unversioned)
    return normalizer_class(ctx, mutable).function(tree)


def _assigned_in_compound(tree):
    """Names assigned inside a branch or loop, or by a conditional
    expression: they are never versioned."""
    names = set()
    for node in walk(tree):
        if isinstance(node, _COMPOUND):
            for sub in walk(node):
                if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store):
                    names.add(sub.id)
                elif isinstance(sub, gast.Expr) and isinstance(sub.value, gast.Call) \
                        and isinstance(sub.value.func, gast.Attribute):
                    names.add(sub.value.func.value.id)  # xs.append(v) assigns xs
                elif isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store):
                    names.add(sub.value.id)  # y[i] = v assigns y
        elif isinstance(node, (gast.Assign, gast.AnnAssign)) and \
                isinstance(node.value, gast.IfExp):
            target = node.targets[0] if isinstance(node, gast.Assign) else node.target
            names.update(n.id for n in walk(target) if isinstance(n, gast.Name))
    return names


class _PassCaptures(Transformer):
    """Copies a header or a statement kept as written; a call in it to a
    lifted nested function or lambda (``closures.py``) passes the captured
    variables too, at their current versions, as every other call does."""

    def __init__(self, resolved, version):
        self.resolved = resolved
        self.version = version

    def visit_Call(self, node):
        captured = getattr(self.resolved.get(node), "free", ())
        self.generic_visit(node)
        node.args = list(node.args) + [name(self.version.get(v, v)) for v in captured]
        return node


# (classes of the module, not made per call: a class is a reference cycle,
# which only the collector frees, and it is paused while code is written)
class _HeaderCopy(_PassCaptures):
    """`_PassCaptures` for a header: each name it reads at its current
    version (`Normalizer.header`)."""

    def __init__(self, ctx, version):
        super().__init__(ctx.resolved, version)
        self.ctx = ctx

    def visit_Name(self, node):
        ctx, version = self.ctx, self.version
        if node in ctx.resolved or not isinstance(node.ctx, gast.Load) or \
                (node.id in ctx.namespace and node.id not in version):
            return node
        if node.id not in version:
            raise UnsupportedSyntaxError(
                f"'{node.id}' is used before it is assigned",
                **ctx.where(node))
        return name(version[node.id])


class _VerbatimCopy(_PassCaptures):
    """`_PassCaptures` for a statement kept as written: the names of the
    function's variables it reads at their current versions
    (`Normalizer.verbatim`)."""

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.version:
            return name(self.version[node.id])
        return node


class Normalizer(Desugar, CallArguments, Atoms):
    """Writes a function's statements in the core form, one at a time."""

    keeps_lambdas = False  # a lambda that is not a lifted function stays as written

    def __init__(self, ctx, mutable):
        self.ctx = ctx
        self.mutable = mutable
        self.version = {}      # user name -> the name holding its current value
        self.body = []
        self.origin = None
        self.loop_flags = []   # per enclosing loop: its for/while-else flag, or None
        self.kinds = {}        # name assigned once -> "dict" or "other" (see note_kind)
        self.tail_raises = set()  # ids of the raise statements that end a path

    def function(self, tree):
        for arg in tree.args.args:
            self.version[arg.id] = arg.id
        self.tail_raises = set(map(id, _tail_raises(tree.body)))
        self.body = self.block(tree.body)
        tree = gast.FunctionDef(
            name=tree.name, args=tree.args, body=self.body,
            decorator_list=[], returns=None, type_comment=None,
            type_params=[])
        return fix_locations(tree)

    def block(self, stmts):
        """Normalize a statement list into a new list."""
        outer, self.body = self.body, []
        for stmt in stmts:
            outer_origin, self.origin = self.origin, stmt
            start = len(self.body)
            self.statement(stmt)
            saves.carry(stmt, self.body[start:])  # generated code's saves stay declared
            self.origin = outer_origin
        inner, self.body = self.body, outer
        return inner

    def emit(self, stmt):
        self.body.append(stmt)
        self.ctx.origin[stmt] = self.origin

    def statement(self, stmt):
        functions = self.ctx.facts.get("local_functions", {})
        if isinstance(stmt, gast.FunctionDef) or (
                isinstance(stmt, gast.Assign) and stmt.value in functions):
            self.local_function(functions[stmt if isinstance(stmt, gast.FunctionDef)
                                          else stmt.value])
        elif isinstance(stmt, gast.Assign) and len(stmt.targets) > 1:
            self.chained_assignment(stmt)
        elif isinstance(stmt, (gast.Assign, gast.AnnAssign)):
            target = stmt.targets[0] if isinstance(stmt, gast.Assign) else stmt.target
            if isinstance(target, (gast.Tuple, gast.List)):
                self.unpack(target, stmt.value)
            elif isinstance(target, gast.Subscript):
                self.store_item(target, self.atom(stmt.value))
            else:
                self.assign_to(target.id, stmt.value)
        elif isinstance(stmt, (gast.Assert, gast.Raise)) or (
                isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
                and not _is_append(stmt.value)):
            if isinstance(stmt, gast.Expr):
                refuse_in_place(stmt.value, self.ctx.resolved.get(stmt.value), self.ctx)
            self.emit(self.verbatim([stmt])[0])  # for its effect: forward sweep only
            if id(stmt) in self.tail_raises:
                # a path that ends by raising still ends with a return for the
                # passes after this one; it is never reached
                self.statement(gast.copy_location(
                    gast.Return(value=gast.Constant(value=0.0, kind=None)), stmt))
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            # xs.append(v)
            items = stmt.value.func.value
            value = self._resolved(call("appended", items, stmt.value.args[0]), appended)
            self.assign_to(items.id, value)
        elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript):
            read = gast.Subscript(value=stmt.target.value, slice=stmt.target.slice,
                                  ctx=gast.Load())
            value = gast.BinOp(left=self._resolved(read, operator.getitem),
                               op=stmt.op, right=stmt.value)
            self.ctx.resolved[value] = self.ctx.resolved[stmt]
            self.store_item(stmt.target, self.atom(value))
        elif isinstance(stmt, gast.AugAssign):
            value = gast.BinOp(left=name(stmt.target.id), op=stmt.op,
                               right=stmt.value)
            self.ctx.resolved[value] = self.ctx.resolved[stmt]
            self.assign_to(stmt.target.id, value)
        elif isinstance(stmt, gast.Return):
            if self.is_atom(stmt.value):
                value = self.atom(stmt.value)
            else:
                result = self.ctx.namer.fresh("result")
                self.emit(assign(result, self.operation(stmt.value)))
                value = name(result)
            self.emit(gast.Return(value=value))
        elif isinstance(stmt, gast.If):
            test = self.header(stmt.test)
            self.emit(gast.If(test=test, body=self.block(stmt.body) or [gast.Pass()],
                              orelse=self.block(stmt.orelse)))
        elif isinstance(stmt, gast.For):
            flag = self.loop_else_flag(stmt)
            target, iterable, reads_ = self.indexed_loop(stmt.target, stmt.iter,
                                                         breaks=has_break(stmt.body))
            for name_node in walk(stmt.target):
                if isinstance(name_node, gast.Name):
                    self.version[name_node.id] = name_node.id
            self.loop_flags.append(flag)
            body = reads_ + self.block(stmt.body) or [gast.Pass()]
            self.loop_flags.pop()
            self.emit(gast.For(target=target, iter=iterable, body=body,
                               orelse=[], type_comment=None))
            self.loop_else(stmt, flag)
        elif isinstance(stmt, gast.While):
            flag = self.loop_else_flag(stmt)
            test = self.header(stmt.test)
            self.loop_flags.append(flag)
            body = self.block(stmt.body) or [gast.Pass()]
            self.loop_flags.pop()
            self.emit(gast.While(test=test, body=body, orelse=[]))
            self.loop_else(stmt, flag)
        elif isinstance(stmt, (gast.Break, gast.Continue)):
            if isinstance(stmt, gast.Break) and self.loop_flags and self.loop_flags[-1]:
                self.emit(assign(self.loop_flags[-1], gast.Constant(value=True, kind=None)))
            self.emit(type(stmt)())
        elif isinstance(stmt, gast.With):  # insert_grad_code: kept for the adjoint
            item = stmt.items[0]
            opener = item.context_expr
            target = self.atom(opener.args[0])
            hook = gast.With(items=[gast.withitem(
                context_expr=gast.Call(func=opener.func, args=[target], keywords=[]),
                optional_vars=item.optional_vars)], body=self.verbatim(stmt.body),
                type_comment=None)
            self.emit(hook)
        # docstrings and `pass` leave no trace in the core form

    def assign_to(self, target, value):
        if isinstance(value, gast.IfExp):
            test = self.header(value.test)
            body = self._branch(target, value.body)
            orelse = self._branch(target, value.orelse)
            self.emit(gast.If(test=test, body=body, orelse=orelse))
            self.version[target] = target
            return
        self.bind(target, self.operation(value))

    def bind(self, target, value):
        """Emit ``target = value`` for a core operation `value`, choosing the
        name that holds the user's `target` from now on."""
        if target in self.mutable:
            new = target
            if target in reads(value) and not isinstance(value, gast.Name):
                # `x = x * 0.9`: compute into a temporary first, so the adjoint
                # of the new x is used up before the old x's adjoint is built
                temp = self.ctx.namer.fresh("t")
                self.emit(assign(temp, value))
                value = name(temp)
        elif target in self.version:
            new = self.ctx.namer.fresh(target)
        else:
            new = target
        self.emit(assign(new, value))
        self.version[target] = new
        self.note_kind(new, value)

    def _branch(self, target, expr):
        outer, self.body = self.body, []
        self.version[target] = target
        value = self.operation(expr)
        if target in reads(value) and not isinstance(value, gast.Name):
            # `x = x * x if c else x`: the new x goes through a temporary,
            # as a plain `x = x * x` in a branch does (see `bind`)
            temp = self.ctx.namer.fresh("t")
            self.emit(assign(temp, value))
            value = name(temp)
        self.emit(assign(target, value))
        inner, self.body = self.body, outer
        return inner

    def header(self, node):
        """A copy of a branch or loop header with names at their current
        versions; headers are evaluated as written, never differentiated."""
        return _HeaderCopy(self.ctx, self.version).visit(node)

    def verbatim(self, stmts):
        """User statements copied as they are, except that names of the
        function's variables read the versions current here."""
        version = dict(self.version)
        out = []
        for stmt in stmts:
            copies = {}
            copied = copy.deepcopy(stmt, copies)
            calls = {copies[id(n)]: self.ctx.resolved[n] for n in walk(stmt)
                     if isinstance(n, gast.Call) and n in self.ctx.resolved}
            out.append(_VerbatimCopy(calls, version).visit(copied))
        return out



def _is_append(node):
    return isinstance(node.func, gast.Attribute) and node.func.attr == "append" \
        and isinstance(node.func.value, gast.Name) and len(node.args) == 1


def _tail_raises(block):
    """The ``raise`` statements that end a path through `block` (its last
    statement, or the last of a branch of an ``if`` that is), which the
    function would otherwise leave without a return."""
    if not block:
        return []
    last = block[-1]
    if isinstance(last, gast.Raise):
        return [last]
    if isinstance(last, gast.If):
        return _tail_raises(last.body) + _tail_raises(last.orelse)
    return []
