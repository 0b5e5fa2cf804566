"""The names each simple statement reads and binds, remembered across the
runs of the optimization passes.

Copy propagation asks every statement which names it binds, and the
control-flow graph of dead-code elimination which names it reads and
binds, at every one of their runs: a walk of each statement each time,
about a quarter of the optimizer's time on the 199-line function of
``benchmarks/long_function.py``. From one run to the next few statements
change. `Names` remembers the answer for each assignment, expression
statement and return, and forgets it when a pass changes the statement.
Simplification counts the bindings of each name from the same answers
(`Answer.bound`), walking only the rest of the tree.

Why a remembered answer is never stale:

* an answer is a function of the nodes inside its statement, and of
  nothing else;
* the passes change a tree in place only by setting a field, or an item
  of a list field, of a node; the pass reports each node it sets so to
  `Names.touched` (``simplify``, ``propagate``; dead-code elimination only
  sets the blocks of compound statements and functions, which no
  remembered statement holds, and changes no expression);
* no pass sets a field of a Name or a Constant (one is replaced by
  setting its parent's field), so only the other nodes need a record;
* while it computes an answer, `Names` records each such node inside the
  statement as held by it; a subtree may be shared by several statements
  (a loop's ``range(n)`` is in its adjoint's header too), and a node keeps
  every statement that holds it. `touched` forgets the answers of all of
  them;
* a node a pass adds to a statement is added by setting a field of a node
  of that statement, so the statement is forgotten first; its next answer
  records the new nodes.

Only the fixed point keeps a `Names`, while it runs passes that all
report what they touch (``REPORTS_TOUCHED``, ``fixed_point.run``); it is
handed to them in ``ctx.facts[FACT]``. A pass run on its own, or with a
pass that does not report, gets `FRESH`, which remembers nothing.
"""
import gast

from tangent_ad.nodes import SHARED, child_fields, name_nodes, reads, writes

FACT = "statement_names"  # the key of the passes' `Names` in ``ctx.facts``

_AST, _NAME = gast.AST, gast.Name
_LOAD, _BINDS = gast.Load, (gast.Store, gast.Param)
_KEPT = (gast.Assign, gast.Expr, gast.Return)  # the statements whose answers are kept
# nodes no pass changes in place: no record of their statements needed
_UNCHANGED = frozenset((gast.Name, gast.Constant, *SHARED))


class Answer:
    """The names of one simple statement: `defs`, bound by an assignment's
    targets (empty for another statement); `uses`, read by an assignment's
    value or by another statement (``nodes.reads``); `binds`, bound
    anywhere inside the statement (``nodes.writes``); `bound`, the name of
    each binding inside the statement, once per binding (a list)."""

    __slots__ = ("defs", "uses", "binds", "bound")

    def __init__(self, defs, uses, binds, bound):
        self.defs = defs
        self.uses = uses
        self.binds = binds
        self.bound = bound


class _Computed:
    """The `Answer` of a statement, each set computed when it is asked for
    (a pass asks for one or two of them)."""

    __slots__ = ("stmt",)

    def __init__(self, stmt):
        self.stmt = stmt

    @property
    def defs(self):
        stmt = self.stmt
        return writes(stmt.targets) if isinstance(stmt, gast.Assign) else frozenset()

    @property
    def uses(self):
        stmt = self.stmt
        return reads(stmt.value if isinstance(stmt, gast.Assign) else stmt)

    @property
    def binds(self):
        return writes(self.stmt)

    @property
    def bound(self):
        return [n.id for n in name_nodes(self.stmt) if isinstance(n.ctx, _BINDS)]


class Fresh:
    """Answers computed at each question, nothing remembered."""

    @staticmethod
    def of(stmt):
        """The `Answer` of the simple statement `stmt`."""
        return _Computed(stmt)

    @staticmethod
    def touched(node):
        """Nothing is remembered: nothing to forget."""


FRESH = Fresh()


def of_context(ctx):
    """The `Names` a pass run with `ctx` is handed, else `FRESH`."""
    facts = getattr(ctx, "facts", None)
    return facts.get(FACT, FRESH) if facts else FRESH


class Names(Fresh):
    """Answers remembered per statement until a node inside it is touched."""

    def __init__(self):
        self._answers = {}  # statement -> Answer
        self._holders = {}  # node -> the statements holding it whose answers were kept

    def of(self, stmt):
        answer = self._answers.get(stmt)
        if answer is not None:
            return answer
        if stmt.__class__ not in _KEPT:
            return Fresh.of(stmt)
        if stmt.__class__ is gast.Assign:
            self._holders.setdefault(stmt, []).append(stmt)
            _, targets = self._walk(stmt.targets, stmt)
            uses, inside = self._walk(stmt.value, stmt)
            bound = targets + inside
            answer = Answer(frozenset(targets), frozenset(uses), frozenset(bound), bound)
        else:
            uses, bound = self._walk(stmt, stmt)
            answer = Answer(frozenset(), frozenset(uses), frozenset(bound), bound)
        self._answers[stmt] = answer
        return answer

    def touched(self, node):
        """Forget the answers of the statements holding `node`, a node one
        of whose fields a pass has just set."""
        for stmt in self._holders.pop(node, ()):
            self._answers.pop(stmt, None)

    def _walk(self, node, stmt):
        """(the set of names read, the list of the names of the bindings)
        inside `node` (a node or a list), recording its nodes as held by the
        statement `stmt`."""
        loads, binds = set(), []
        holders = self._holders
        todo = [node]
        pop, push, extend = todo.pop, todo.append, todo.extend
        while todo:
            current = pop()
            kind = current.__class__
            if kind is _NAME:
                if isinstance(current.ctx, _LOAD):
                    loads.add(current.id)
                elif isinstance(current.ctx, _BINDS):
                    binds.append(current.id)
                continue
            if kind is list:
                extend(current)
                continue
            if not isinstance(current, _AST):
                continue
            if kind not in _UNCHANGED:
                holders.setdefault(current, []).append(stmt)
            values = current.__dict__
            for field in child_fields(kind):
                value = values.get(field)
                if value is not None:
                    push(value)
        return loads, binds
