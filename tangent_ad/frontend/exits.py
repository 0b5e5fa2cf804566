"""Exits stage: make ``break``, ``continue`` and early ``return`` structured.

The reverse pass replays branches and loops; it needs each statement to
run either fully or not at all in an iteration. This pass rewrites the
core form so that it does:

* the statements after an ``if`` one of whose branches always leaves
  (``break``/``continue``/``return``) move into the other branch, so
  ``if c: break`` followed by ``rest`` becomes ``if c: break else: rest``;
* a ``continue`` left at the end of a loop body is then a no-op and goes;
* a ``return`` inside a loop becomes ``result = v; returned = True;
  break``, followed after the loop by ``if returned: return result``;
* early returns become assignments to one result variable, returned at
  the end.

* an exit nested in an ``if`` that does not always leave, with
  statements after it, sets a flag instead (``breaking = True``), and
  ``if breaking: break`` after that ``if`` takes the statements after it
  into its ``else`` (a return outside loops sets ``returned``).
"""
import gast

from tangent_ad.nodes import assign, children, name, walk

_EXITS = (gast.Break, gast.Continue, gast.Return)


def run(tree, ctx):
    """Return `tree` with every exit in tail position (see module doc)."""
    body = tree.body
    returns = [n for n in _walk_own(body) if isinstance(n, gast.Return)]
    if len(returns) == 1 and body[-1] is returns[0]:
        if any(isinstance(n, (gast.Break, gast.Continue)) for n in _walk_own(body)):
            tree.body = _Exits(ctx, None, None).block(body)
        return tree
    user = ctx.facts.get("user_names", ())
    temps = [r.value.id for r in returns if isinstance(r.value, gast.Name)
             and r.value.id.startswith("result") and r.value.id not in user]
    result = sorted(temps)[0] if temps else ctx.namer.fresh("result")
    flag = ctx.namer.fresh("returned")
    exits = _Exits(ctx, result, flag)
    body = exits.block(body)
    body = exits.drop_final_returns(body)
    if exits.used_flag:
        body.insert(0, assign(flag, gast.Constant(value=False, kind=None)))
    tree.body = body + [gast.Return(value=name(result))]
    return tree


def _walk_own(stmts):
    """Every statement of `stmts` outside nested function definitions,
    with the nodes directly inside them (an exit is a statement, and no
    expression holds one: the expressions, most of the nodes, are not
    looked into)."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (gast.FunctionDef, gast.expr)):
            todo.extend(children(node))


def _always_exits(block):
    if not block:
        return False
    last = block[-1]
    if isinstance(last, _EXITS):
        return True
    if isinstance(last, gast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return False


def _may_exit(block):
    for stmt in block:
        if isinstance(stmt, _EXITS):
            return True
        if isinstance(stmt, gast.If) and (_may_exit(stmt.body) or _may_exit(stmt.orelse)):
            return True
        if isinstance(stmt, (gast.For, gast.While)) and any(
                isinstance(n, gast.Return) for n in walk(stmt)):
            return True
    return False


class _Exits:
    def __init__(self, ctx, result, flag):
        self.ctx = ctx
        self.result = result
        self.flag = flag
        self.used_flag = False

    def block(self, stmts, in_loop=False):
        out = []
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, gast.Return) and in_loop:
                self.used_flag = True
                return out + [assign(self.result, stmt.value),
                              assign(self.flag, gast.Constant(value=True, kind=None)),
                              gast.Break()]
            if isinstance(stmt, _EXITS):
                return out + [stmt]  # anything after an exit is unreachable
            if isinstance(stmt, (gast.For, gast.While)):
                stmt.body = _drop_tail_continues(self.block(stmt.body, in_loop=True))
                stmt.body = stmt.body or [gast.Pass()]
                out.append(stmt)
                if self.flag and any(_sets(n, self.flag) for n in walk(stmt)):
                    follow = gast.If(test=name(self.flag),
                                     body=[gast.Return(value=name(self.result))],
                                     orelse=[])
                    return out + self.block([follow] + rest, in_loop)
                continue
            if isinstance(stmt, gast.If):
                stmt.body = self.block(stmt.body, in_loop)
                stmt.orelse = self.block(stmt.orelse, in_loop)
                if rest and _always_exits(stmt.body):
                    stmt.orelse = self.block(stmt.orelse + rest, in_loop)
                    return out + [stmt]
                if rest and _always_exits(stmt.orelse):
                    stmt.body = self.block(stmt.body + rest, in_loop)
                    return out + [stmt]
                if rest and (_may_exit(stmt.body) or _may_exit(stmt.orelse)):
                    inits, follow = self.flag_exits(stmt)
                    return out + inits + [stmt] + self.block([follow] + rest, in_loop)
            out.append(stmt)
        return out

    def flag_exits(self, stmt):
        """For an ``if`` `stmt` some of whose paths leave and others go on:
        each exit in it (in tail position by now) becomes the setting of a
        flag, and the exit itself moves into a new ``if`` on the flags
        after `stmt` (the caller then moves the statements after `stmt`
        into that one's ``else``). Returns (flag initializations, the new
        ``if``). A return here is outside any loop (one in a loop is a
        ``break`` by now) and sets the function's `returned` flag."""
        flags, returns = {}, []

        def flag(kind, exit_stmt):
            if kind not in flags:
                flags[kind] = self.ctx.namer.fresh(
                    "breaking" if kind is gast.Break else "continuing")
            return self._origin(assign(flags[kind], gast.Constant(value=True, kind=None)),
                                exit_stmt)

        def replace(block):
            out = []
            for s in block:
                if isinstance(s, (gast.Break, gast.Continue)):
                    out.append(flag(type(s), s))
                elif isinstance(s, gast.Return):
                    self.used_flag = True
                    returns.append(s)
                    out += [self._origin(assign(self.result, s.value), s),
                            self._origin(assign(self.flag, gast.Constant(
                                value=True, kind=None)), s)]
                else:
                    if isinstance(s, gast.If):
                        s.body = replace(s.body) or [gast.Pass()]
                        s.orelse = replace(s.orelse)
                    out.append(s)
            return out

        stmt.body = replace(stmt.body) or [gast.Pass()]
        stmt.orelse = replace(stmt.orelse)
        inits = [self._origin(assign(f, gast.Constant(value=False, kind=None)), stmt)
                 for f in flags.values()]
        tests = [(flags[k], k()) for k in (gast.Break, gast.Continue) if k in flags]
        if returns:
            tests.append((self.flag, gast.Return(value=name(self.result))))
        follow = []
        for test, exit_stmt in reversed(tests):
            follow = [self._origin(gast.If(test=name(test), body=[
                self._origin(exit_stmt, stmt)], orelse=follow), stmt)]
        return inits, follow[0]

    def _origin(self, new, old):
        self.ctx.origin[new] = self.ctx.origin.get(old)
        return new

    def drop_final_returns(self, stmts):
        """Replace each tail `return v` by `result = v` (the caller appends
        the one final return); a temporary computed just for the return is
        renamed to the result instead of copied."""
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Return):
                value = stmt.value
                if isinstance(value, gast.Name) and value.id == self.result:
                    continue
                if out and _sets(out[-1], getattr(value, "id", None)) and \
                        value.id.startswith("result"):
                    out[-1].targets[0].id = self.result
                    continue
                out.append(assign(self.result, value))
                continue
            if isinstance(stmt, gast.If):
                stmt.body = self.drop_final_returns(stmt.body) or [gast.Pass()]
                stmt.orelse = self.drop_final_returns(stmt.orelse)
            out.append(stmt)
        return out


def _sets(stmt, target):
    return isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
        and stmt.targets[0].id == target


def _drop_tail_continues(block):
    """Remove `continue` statements in tail position of a loop body."""
    if not block:
        return block
    last = block[-1]
    if isinstance(last, gast.Continue):
        return block[:-1]
    if isinstance(last, gast.If):
        last.body = _drop_tail_continues(last.body) or [gast.Pass()]
        last.orelse = _drop_tail_continues(last.orelse)
    return block
