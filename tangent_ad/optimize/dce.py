"""Dead-code elimination by liveness, including unneeded saves.

Liveness comes from the generic dataflow solver on the derivative's
control-flow graph (``analysis.cfg``, ``analysis.dataflow``). An
assignment none of whose targets is live afterwards is dropped. The
liveness is *strong*: a dead assignment reads nothing, so a chain of
values computed only for one another goes in one run.

Stack traffic is paired by the save sites declared on it (``saves.pairs``
maps each pop, an ``x = stack.pop()`` restore or an ``if stack.pop():``
replay, to its pushes): a restore whose value is never read, or a replay
whose branches end up empty, is dropped together with its pushes, which
keeps the stack balanced; so is a declared pop that discards its value
(``stack.pop()`` alone: a tangent forward mode has no use for). The sites
ride on the statements, so this holds on the copies staging rewrites too.
A pop with no declared site is never dropped. A ``# Grad of:`` comment left with nothing under it goes too.

Invariant needed: the tree is the output of a differentiator (calls in
assignments have no side effects besides stack traffic). Invariant
established: every remaining assignment may be read later, so a second
run removes nothing (``IDEMPOTENT``: an ``if`` emptied after liveness was
known sends the pass round again, `run`). Each removed
statement is counted in ``ctx.rewrites`` (for the fixed point of
``fixed_point``).
"""
import gast

from tangent_ad import saves
from tangent_ad.analysis import cfg, dataflow, statement_names
from tangent_ad.limits import rounds
from tangent_ad.nodes import is_comment, is_pop, is_push, statements


# it leaves nothing dead, so the fixed point need not run it again to learn so
IDEMPOTENT = True
# it removes statements and sets blocks, and changes no node inside a simple
# statement: nothing to report (``statement_names``)
REPORTS_TOUCHED = True


def run(tree, ctx=None):
    """Return `tree` (a FunctionDef) without its dead statements."""
    names = statement_names.of_context(ctx)
    removed, emptied = _run_once(tree, names)
    # An ``if`` is dropped once its branches are found empty, after the
    # liveness that counted its test as read (a replay's ``stack.pop()``, a
    # name copied only for a test): what only the test read dies then.
    if emptied:
        for _ in rounds("dead-code elimination (emptied branches)", _count_ifs(tree) + 1):
            count, emptied = _run_once(tree, names)
            removed += count
            if not emptied:
                break
    if ctx is not None:
        ctx.count_rewrites(removed)
    return tree


def _run_once(tree, names):
    """One elimination over `tree` and the functions nested in it: the
    statements removed, and how many of them were emptied ``if``s
    (`names`: see ``cfg.build``)."""
    pairs = saves.pairs(tree)
    dead_pushes, live_pops, removed, emptied = set(), set(), 0, 0
    for inner in [s for s in tree.body if isinstance(s, gast.FunctionDef)]:
        # a pullback's `back` first: its pops decide the outer pushes
        remover, pops = _eliminate(inner, pairs, set(), set(), names)
        dead_pushes |= remover.dead_pushes
        live_pops |= pops
        removed, emptied = removed + remover.removed, emptied + remover.emptied
    remover, _ = _eliminate(tree, pairs, dead_pushes, live_pops, names)
    return removed + remover.removed, emptied + remover.emptied


def _count_ifs(tree):
    return sum(isinstance(s, gast.If) for s in statements(tree))


def _eliminate(fdef, pairs, dead_pushes, live_pops, names):
    """Remove dead statements from `fdef`; return the `_Remover` (the ids
    of the pushes whose pops were removed, how many statements went, how
    many emptied ``if``s) and the pops that stay.

    A push reads its value only for its pop: it counts as a use only once
    that pop is known to be needed. The set of needed pops grows to a
    fixed point, so saves that only feed other saves (as when a
    checkpointed loop runs a segment again) disappear with them.
    """
    pop_of = {id(push): pop for pop, pushes in pairs.items() for push in pushes}
    live_pops = set(live_pops)
    graph = cfg.build(fdef, names)
    defs, uses, _ = dataflow.bit_sets(graph)
    push_uses = {node: uses[node] for node in graph.nodes if is_push(node.stmt)}
    pops = sum(isinstance(n.stmt, gast.Assign) and is_pop(n.stmt.value) for n in graph.nodes)
    # each round that does not stop adds one of the pops to `live_pops`
    for _ in rounds("dead-code elimination (saves)", pops + 2):
        for node, read in push_uses.items():
            pop = pop_of.get(id(node.stmt))
            # a push whose pop is not needed goes with it: it reads nothing, not
            # even the stack, whose creation then goes too when nothing else uses it
            uses[node] = 0 if pop is not None and pop not in live_pops else read
        removable = {node for node in graph.nodes if _removable(node, pairs, live_pops)}
        live_after = _strong_liveness(graph, removable, defs, uses)
        needed = {node.stmt for node in graph.nodes
                  if isinstance(node.stmt, gast.Assign) and is_pop(node.stmt.value)
                  and defs[node] & live_after[node]}
        if needed <= live_pops:
            break
        live_pops |= needed
    dead = {node.stmt for node in removable if not defs[node] & live_after[node]}
    remover = _Remover(dead, pairs)
    remover.dead_pushes |= dead_pushes
    for stmt in dead:
        if isinstance(stmt, gast.Assign) and is_pop(stmt.value):
            remover.dead_pushes.update(map(id, pairs[stmt]))
    fdef.body = remover.block(fdef.body)
    graph.unlink()
    return remover, live_pops


def _removable(node, pairs, live_pops):
    """An assignment (or a nested function) that may go when its targets
    are dead; a restore only with its pushes, unless its pop is needed."""
    stmt = node.stmt
    return isinstance(stmt, (gast.Assign, gast.FunctionDef)) and (
        not isinstance(stmt, gast.Assign) or not is_pop(stmt.value)
        or (stmt in pairs and stmt not in live_pops))


def _strong_liveness(graph, removable, defs, uses):
    """{node: names read later, as bits}, where a removable statement (a
    node in the set `removable`) whose targets are dead reads nothing: a
    chain of values computed only for one another is dead at once, not
    one link per round. `defs` and `uses` are the nodes' bit sets."""
    def transfer(node, live):
        written = defs[node]
        if node in removable and not written & live:
            return live
        return (live & ~written) | uses[node]
    live_after, _ = dataflow.solve(graph, transfer, forward=False, empty=0)
    return live_after


class _Remover:
    def __init__(self, dead, pairs):
        self.dead = dead
        self.pairs = pairs
        self.dead_pushes = set()
        self.removed = 0
        self.emptied = 0  # ifs dropped because their branches are empty

    def block(self, stmts):
        """`stmts` without dead statements, visited last to first so that
        a replay is judged before the pushes it pairs with."""
        kept = []
        for stmt in reversed(stmts):
            if self.keep(stmt):
                kept.append(stmt)
        kept.reverse()
        kept = _drop_orphan_comments(kept)
        self.removed += len(stmts) - len(kept)
        return kept

    def keep(self, stmt):
        if stmt in self.dead:
            return False
        if isinstance(stmt, gast.Expr) and is_pop(stmt.value) and stmt in self.pairs:
            self.dead_pushes.update(map(id, self.pairs[stmt]))  # a value nothing reads
            return False
        if is_push(stmt):
            return id(stmt) not in self.dead_pushes
        if isinstance(stmt, gast.If):
            stmt.body = self.block(stmt.body)
            stmt.orelse = self.block(stmt.orelse)
            if not _real(stmt.body) and not _real(stmt.orelse):
                if not is_pop(stmt.test):
                    self.emptied += 1
                    return False
                if stmt in self.pairs:
                    self.dead_pushes.update(map(id, self.pairs[stmt]))
                    self.emptied += 1
                    return False
            stmt.body = stmt.body or [gast.Pass()]
            return True
        if isinstance(stmt, (gast.For, gast.While)):
            stmt.body = self.block(stmt.body) or [gast.Pass()]
        return True


def _real(block):
    return [s for s in block if not isinstance(s, gast.Pass) and not is_comment(s)]


def _drop_orphan_comments(stmts):
    kept = []
    for i, stmt in enumerate(stmts):
        if is_comment(stmt):
            following = stmts[i + 1] if i + 1 < len(stmts) else None
            if following is None or is_comment(following) or \
                    isinstance(following, gast.Return):
                continue
        kept.append(stmt)
    return kept
