"""Statements stage: Python's statement forms, as the statements the pipeline knows.

Rewritten before validation, each into plain assignments, branches and
loops that the later stages differentiate as usual:

* ``match`` on literal, ``|``, capture and wildcard patterns, with guards:
  an ``if``/``elif`` chain on the subject, evaluated once
  (``t = subject; if t == 1 or t == 2: ...``); other patterns are refused;
* the walrus operator: ``if (s := np.sum(w)) > 0:`` -> ``s = np.sum(w)``
  then ``if s > 0:`` (a ``while`` header's is evaluated at the top of each
  pass: ``while True: s = ...; if not <test>: break``). Refused where
  that would change what runs: inside a lambda, comprehension,
  conditional expression or ``and``/``or``, or when the statement reads
  the name elsewhere;
* star-unpacking: ``a, *rest, z = xs`` -> ``t = xs``, a length check,
  ``a = t[0]``, ``rest = list(t[1:len(t) - 1])``, ``z = t[-1]``;
* ``functools.reduce(f, xs[, init])`` in a statement -> a loop before it
  that folds the items into an accumulator (a lambda ``f`` is written out);
* ``del name`` leaves no trace (the name is not read again in valid code).
"""
import copy
import functools

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend.function_values import bind
from tangent_ad.frontend.static_scope import StaticScope
from tangent_ad.nodes import const as _const, name as _load, walk, fix_locations
from tangent_ad.visitors import Transformer

_OPAQUE = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
           gast.IfExp, gast.BoolOp, gast.FunctionDef)


def run(tree, ctx):
    """Return the FunctionDef `tree` with the statement forms rewritten."""
    if not any(isinstance(n, (gast.Match, gast.NamedExpr, gast.Starred, gast.Delete,
                              gast.Call)) for n in walk(tree)):
        return tree
    rewriter = _Statements(StaticScope(tree, ctx), ctx)
    tree.body = rewriter.block(tree.body)
    return fix_locations(tree)


class _Statements:
    def __init__(self, scope, ctx):
        self.scope = scope
        self.ctx = ctx

    def refuse(self, node, message, hint):
        raise UnsupportedSyntaxError(message, hint=hint, **self.ctx.where(node))

    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        """The statements that do what `stmt` does."""
        if isinstance(stmt, gast.Match):
            return self.match(stmt)
        if isinstance(stmt, gast.Delete) and all(isinstance(t, gast.Name) for t in stmt.targets):
            return []
        if isinstance(stmt, gast.While):
            return self.while_loop(stmt)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and \
                any(isinstance(e, gast.Starred) for e in stmt.targets[0].elts):
            before, value = self.hoisted(stmt.value, stmt)
            return before + self.star_unpack(stmt, stmt.targets[0], value)
        if isinstance(stmt, gast.FunctionDef):
            stmt.body = self.block(stmt.body)
            return [stmt]
        spread = []
        if isinstance(stmt, gast.For):
            spread = self.zip_spread(stmt)
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        before = []
        for field in ("value", "test", "iter"):
            expr = getattr(stmt, field, None)
            if isinstance(expr, gast.expr):
                hoisted, new = self.hoisted(expr, stmt)
                before += hoisted
                setattr(stmt, field, new)
        return spread + before + [stmt]

    def zip_spread(self, stmt):
        """``for a, b, c in zip(*E)`` (autograd's gmm.py): the target says
        that ``E`` holds three sequences, so the loop becomes ``t = E``,
        a check of ``len(t)``, and ``for a, b, c in zip(t[0], t[1], t[2])``,
        which later stages index. Returns the statements to run first."""
        it, target = stmt.iter, stmt.target
        if not (isinstance(it, gast.Call) and len(it.args) == 1 and not it.keywords
                and isinstance(it.args[0], gast.Starred) and isinstance(target, gast.Tuple)
                and not any(isinstance(e, gast.Starred) for e in target.elts)
                and self.builtins_visible("zip", "len")):
            return []
        import builtins
        if not self.scope.is_builtin(it.func, builtins.zip):
            return []
        count = len(target.elts)
        whole = self.scope.fresh("t")
        before = [gast.Assign(targets=[_store(whole)], value=it.args[0].value, type_comment=None),
                  gast.Assert(test=gast.Compare(left=_call("len", _load(whole)), ops=[gast.Eq()],
                                                comparators=[_const(count)]),
                              msg=_const(f"zip(*...) of {count} sequences expected here, as "
                                         f"the loop unpacks {count} values"))]
        it.args = [gast.Subscript(value=_load(whole), slice=_const(i), ctx=gast.Load())
                   for i in range(count)]
        return [_located(b, stmt) for b in before]

    # ---- expressions computed before their statement --------------------------

    def hoisted(self, expr, stmt):
        """(statements to run first, `expr` with its walrus assignments and
        reduce calls replaced by the names that hold their values)."""
        before = []
        for node in walk(expr):
            if isinstance(node, _OPAQUE) and not _first_operand_walrus(node) and any(
                    isinstance(n, gast.NamedExpr) for n in walk(node)):
                self.refuse(node, "the walrus operator is supported in a statement's "
                            "own expression, not inside a lambda, comprehension, "
                            "conditional expression or the right of and/or",
                            "assign the value on its own line first")
        targets = {n.target.id for n in walk(expr) if isinstance(n, gast.NamedExpr)}
        reads = [n for n in walk(stmt) if isinstance(n, gast.Name) and n.id in targets
                 and isinstance(n.ctx, gast.Load) and not _in_block(stmt, n)]
        if reads:
            self.refuse(stmt, "the walrus operator's name is read in the same statement",
                        "assign the value on its own line first")
        return before, _Hoist(self, before).visit(expr)

    def while_loop(self, stmt):
        stmt.body = self.block(stmt.body)
        stmt.orelse = self.block(stmt.orelse)
        before, test = self.hoisted(stmt.test, stmt)
        if not before:
            return [stmt]
        if stmt.orelse:
            self.refuse(stmt, "a walrus operator in the header of a while loop with "
                        "an else clause is not supported", "assign the value in the loop")
        leave = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test),
                        body=[gast.Break()], orelse=[])
        loop = gast.While(test=gast.Constant(value=True, kind=None),
                          body=before + [leave] + stmt.body, orelse=[])
        return [_located(loop, stmt)]

    def reduce(self, node):
        """``functools.reduce(f, xs[, init])`` as (statements, name of the
        result), or None for a form left as written."""
        if node.keywords or len(node.args) not in (2, 3):
            return None
        func, items = node.args[0], node.args[1]
        scope = self.scope
        if not self.builtins_visible("list", "len", "range"):
            return None
        seq, acc, i = scope.fresh("seq"), scope.fresh("acc"), scope.fresh("i")
        item = gast.Subscript(value=_load(seq), slice=_load(i), ctx=gast.Load())
        if isinstance(func, gast.Lambda):
            args = func.args
            if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or \
                    len(args.args) != 2:
                return None
            step = bind({args.args[0].id: _load(acc), args.args[1].id: item},
                        copy.deepcopy(func.body), node)
        elif isinstance(func, gast.Name) or scope.is_function(func):
            step = gast.Call(func=func, args=[_load(acc), item], keywords=[])
        else:
            return None
        length = gast.Call(func=_load("len"), args=[_load(seq)], keywords=[])
        if len(node.args) == 3:
            start, first = node.args[2], gast.Constant(value=0, kind=None)
        else:
            start = gast.Subscript(value=_load(seq), slice=gast.Constant(value=0, kind=None),
                                   ctx=gast.Load())
            first = gast.Constant(value=1, kind=None)
        statements = [
            gast.Assign(targets=[_store(seq)], value=gast.Call(
                func=_load("list"), args=[items], keywords=[]), type_comment=None),
            gast.Assign(targets=[_store(acc)], value=start, type_comment=None),
            gast.For(target=_store(i), iter=gast.Call(func=_load("range"), args=[first, length],
                                                      keywords=[]),
                     body=[gast.Assign(targets=[_store(acc)], value=step, type_comment=None)],
                     orelse=[], type_comment=None),
        ]
        return [_located(s, node) for s in statements], _located(_load(acc), node)

    # ---- unpacking -------------------------------------------------------------

    def builtins_visible(self, *names):
        """Whether the names denote the builtins here (not shadowed)."""
        import builtins
        return all(self.scope.is_builtin(_load(n), getattr(builtins, n)) for n in names)

    def star_unpack(self, stmt, target, value):
        if not self.builtins_visible("list", "len"):
            self.refuse(stmt, "star-unpacking is written with list() and len(), which "
                        "are other objects here", "unpack by indexing")
        elts = target.elts
        star = [k for k, e in enumerate(elts) if isinstance(e, gast.Starred)]
        if len(star) != 1:
            self.refuse(stmt, "only one starred name is allowed in an assignment",
                        "unpack with one *name")
        k = star[0]
        after = len(elts) - k - 1
        whole = self.scope.fresh("t")
        out = [gast.Assign(targets=[_store(whole)], value=value, type_comment=None),
               gast.Assert(test=gast.Compare(left=_call("len", _load(whole)), ops=[gast.GtE()],
                                             comparators=[_const(len(elts) - 1)]),
                           msg=_const(f"not enough values to unpack (expected at least "
                                      f"{len(elts) - 1})"))]
        for j, elt in enumerate(elts):
            if j < k:
                index = _const(j)
            elif j > k:
                index = gast.UnaryOp(op=gast.USub(), operand=_const(len(elts) - j))
            else:
                upper = None if after == 0 else gast.BinOp(
                    left=_call("len", _load(whole)), op=gast.Sub(), right=_const(after))
                part = gast.Subscript(value=_load(whole), slice=gast.Slice(
                    lower=_const(k), upper=upper, step=None), ctx=gast.Load())
                out.append(gast.Assign(targets=[elt.value], value=_call("list", part),
                                       type_comment=None))
                continue
            out.append(gast.Assign(targets=[elt], value=gast.Subscript(
                value=_load(whole), slice=index, ctx=gast.Load()), type_comment=None))
        return [_located(s, stmt) for s in out]

    # ---- match -----------------------------------------------------------------

    def match(self, stmt):
        subject = self.scope.fresh("subject")
        first = _located(gast.Assign(targets=[_store(subject)], value=stmt.subject,
                                     type_comment=None), stmt.subject)
        return [first] + self.cases(stmt.cases, subject)

    def cases(self, cases, subject):
        if not cases:
            return []
        case, rest = cases[0], self.cases(cases[1:], subject)
        test, captures = self.pattern(case.pattern, subject)
        body = self.block(case.body) or [gast.Pass()]
        binds = [_located(gast.Assign(targets=[_store(n)], value=_load(subject),
                                      type_comment=None), case.pattern) for n in captures]
        if case.guard is not None:
            body = [_located(gast.If(test=case.guard, body=body,
                                     orelse=copy.deepcopy(rest)), case.guard)]
        if test is None:
            return binds + body  # always matches: the cases after it never run
        return [_located(gast.If(test=test, body=binds + body, orelse=rest), case.pattern)]

    def pattern(self, pattern, subject):
        """(test, or None for always; names the pattern captures)."""
        if isinstance(pattern, gast.MatchAs):
            captures = [pattern.name] if pattern.name else []
            if pattern.pattern is None:
                return None, captures
            test, inner = self.pattern(pattern.pattern, subject)
            return test, inner + captures
        if isinstance(pattern, gast.MatchValue):
            return _located(gast.Compare(left=_load(subject), ops=[gast.Eq()],
                                         comparators=[pattern.value]), pattern), []
        if isinstance(pattern, gast.MatchOr):
            tests = []
            for option in pattern.patterns:
                test, captures = self.pattern(option, subject)
                if test is None or captures:
                    break
                tests.append(test)
            else:
                return _located(gast.BoolOp(op=gast.Or(), values=tests), pattern), []
        self.refuse(pattern, "this kind of 'case' pattern is not supported",
                    "match supports literals, '|', a name, '_' and 'if' guards; "
                    "write other tests as an if/elif chain")


class _Hoist(Transformer):
    """Replaces the walrus assignments and reduce calls of an expression by
    the names that hold their values, their statements appended to
    `before` (`_Statements.hoisted`). A class of the module, not one made
    per call: a class is a reference cycle, which only the collector
    frees, and it is paused while code is written (``collector``)."""

    def __init__(self, statements, before):
        self.statements = statements
        self.before = before

    def generic_visit(self, node):
        if isinstance(node, gast.BoolOp):  # its first operand always runs
            node.values[0] = self.visit(node.values[0])
            return node
        if isinstance(node, _OPAQUE):
            return node  # evaluated later, or not at all: left as written
        return Transformer.generic_visit(self, node)

    def visit_NamedExpr(self, node):
        self.generic_visit(node)
        self.before.append(_located(gast.Assign(
            targets=[_store(node.target.id)], value=node.value, type_comment=None), node))
        return _located(_load(node.target.id), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.statements.scope.is_builtin(node.func, functools.reduce):
            folded = self.statements.reduce(node)
            if folded is not None:
                statements, name = folded
                self.before.extend(statements)
                return name
        return node


def _first_operand_walrus(node):
    """An ``and``/``or`` whose walrus operators are all in its first
    operand, which always runs (``(n := f(x)) > 0 and n < 9``)."""
    return isinstance(node, gast.BoolOp) and not any(
        isinstance(n, gast.NamedExpr) for v in node.values[1:] for n in walk(v)) and not any(
        isinstance(n, _OPAQUE) and any(isinstance(m, gast.NamedExpr) for m in walk(n))
        for n in walk(node.values[0]))


def _in_block(stmt, node):
    """Whether `node` lies in a nested statement list of `stmt` (a branch
    or loop body), not in its own expression."""
    for field in ("body", "orelse", "cases"):
        for inner in getattr(stmt, field, None) or []:
            if any(n is node for n in walk(inner)):
                return True
    return False


def _call(func, *args):
    return gast.Call(func=_load(func), args=list(args), keywords=[])


def _store(identifier):
    return _load(identifier, store=True)


def _located(new, where):
    for sub in walk(new):
        if isinstance(sub, (gast.expr, gast.stmt)) and getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, where)
            sub.end_lineno = getattr(where, "end_lineno", None)
            sub.end_col_offset = getattr(where, "end_col_offset", None)
    return new
