"""Control-flow graph of a core-form function.

Every simple statement (assignment, return, break, continue, expression)
is a node; so is the header of each ``if`` (its test), ``for`` (one node
evaluates the iterable once, a second takes the next item or leaves the
loop, a third binds the loop variables) and ``while`` (its test). Edges
follow Python's semantics: branches fork at their header and join after,
a loop's body flows back to its header, ``break`` leaves the loop,
``continue`` goes back to the header, ``return`` goes to the exit.

Analyses run on the graph (see ``dataflow``); the tree is never changed.
"""
import gast

from tangent_ad.analysis.statement_names import FRESH
from tangent_ad.nodes import reads, writes


class Node:
    """One statement or header, with the names it reads and writes."""

    __slots__ = ("stmt", "defs", "uses", "sources", "next", "prev")

    def __init__(self, stmt, defs=(), uses=(), sources=None):
        self.stmt = stmt
        self.defs = frozenset(defs)
        self.uses = frozenset(uses)
        # the names the defs are computed from (a for loop's variables come
        # from its iterable, read once before the loop)
        self.sources = self.uses if sources is None else frozenset(sources)
        self.next = []
        self.prev = []

    def __repr__(self):
        return f"<Node {type(self.stmt).__name__} defs={sorted(self.defs)} " \
               f"uses={sorted(self.uses)}>"


class CFG:
    """Nodes in program order, plus distinguished entry and exit nodes."""

    def __init__(self):
        self.nodes = []
        self.entry = Node(None)
        self.exit = Node(None)

    def add(self, node):
        self.nodes.append(node)
        return node

    def unlink(self):
        """Drop every edge. Linked nodes point at one another, a cycle that
        reference counting cannot free, and the collector is paused while
        code is written (``collector``): an analysis done with a graph it
        built calls this, and the graph's nodes and sets go at once."""
        for node in [self.entry] + self.nodes + [self.exit]:
            node.next = []
            node.prev = []

    @staticmethod
    def link(a, b):
        if b not in a.next:
            a.next.append(b)
            b.prev.append(a)


def build(fdef, names=FRESH):
    """The CFG of the FunctionDef `fdef` (parameters are defined at entry).
    `names` tells the names a simple statement reads and binds
    (``statement_names``: the optimization passes keep them)."""
    graph = CFG()
    graph.entry.defs = frozenset(a.id for a in fdef.args.args)
    ends = _Builder(graph, names).block(fdef.body, [graph.entry], loop=None)
    for end in ends:
        CFG.link(end, graph.exit)
    return graph


class _Builder:
    def __init__(self, graph, names):
        self.graph = graph
        self.names = names

    def block(self, stmts, preds, loop):
        """Add `stmts` after `preds`; return the nodes that fall through.
        `loop` is (header, break-nodes list) of the innermost loop."""
        for stmt in stmts:
            preds = self.statement(stmt, preds, loop)
        return preds

    def simple(self, stmt, preds, defs=(), uses=(), sources=None):
        node = self.graph.add(Node(stmt, defs, uses, sources))
        for p in preds:
            CFG.link(p, node)
        return node

    def statement(self, stmt, preds, loop):
        if isinstance(stmt, gast.If):
            head = self.simple(stmt, preds, uses=reads(stmt.test))
            return self.block(stmt.body, [head], loop) + \
                (self.block(stmt.orelse, [head], loop) if stmt.orelse else [head])
        if isinstance(stmt, (gast.For, gast.While)):
            if isinstance(stmt, gast.For):
                # the iterable is evaluated once, before the first iteration;
                # the head takes the next item or leaves, binding nothing
                # when it leaves (after zero iterations the target keeps
                # its value from before the loop)
                start = self.simple(stmt.iter, preds, uses=reads(stmt.iter))
                head = self.simple(stmt, [start])
                bind = self.simple(stmt, [head], defs=writes(stmt.target),
                                   sources=reads(stmt.iter))
            else:
                head = bind = self.simple(stmt, preds, uses=reads(stmt.test))
            breaks = []
            for end in self.block(stmt.body, [bind], (head, breaks)):
                CFG.link(end, head)
            return [head] + breaks
        if isinstance(stmt, gast.Break):
            node = self.simple(stmt, preds)
            loop[1].append(node)
            return []
        if isinstance(stmt, gast.Continue):
            node = self.simple(stmt, preds)
            CFG.link(node, loop[0])
            return []
        if isinstance(stmt, gast.Return):
            node = self.simple(stmt, preds, uses=self.names.of(stmt).uses)
            CFG.link(node, self.graph.exit)
            return []
        if isinstance(stmt, gast.Assign):
            names = self.names.of(stmt)
            return [self.simple(stmt, preds, defs=names.defs, uses=names.uses)]
        if isinstance(stmt, gast.Expr):
            return [self.simple(stmt, preds, uses=self.names.of(stmt).uses)]
        if isinstance(stmt, gast.FunctionDef):  # a nested function: defines its name
            return [self.simple(stmt, preds, defs={stmt.name}, uses=reads(stmt))]
        return [self.simple(stmt, preds, uses=reads(stmt))]
