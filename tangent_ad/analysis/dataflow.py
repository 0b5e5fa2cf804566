"""One worklist solver, and the analyses built on it.

``solve`` computes a fixed point of a monotone problem over sets on a
``cfg.CFG``: forward problems flow along edges, backward ones against
them; the meet is union. On top of it:

* ``reaching_definitions``: which assignments may reach each node;
* ``liveness``: which names may be read later;
* ``activity``: which names carry derivative information (varied by a
  ``wrt`` input through differentiable operations, and useful to the
  returned value).

Results are plain dicts keyed by CFG node; nothing is stored on the tree.
"""
import heapq

from tangent_ad.limits import rounds


def solve(graph, transfer, *, forward, start=frozenset(), empty=frozenset()):
    """Fixed point of `transfer(node, incoming) -> outgoing` over `graph`.

    Returns ``(before, after)`` dicts: for a forward problem the facts on
    entry to and exit from each node, for a backward problem the facts
    after and before it (``before`` is the side data arrives from).
    A node with a single predecessor (in the direction of flow) shares
    that predecessor's frozenset rather than copying it: in straight-line
    code, which is most of a derivative, no set is built twice.

    With ``empty=0`` the facts are ints used as bit sets (`bit_sets`):
    the same union, and a function's few hundred names cost a few
    machine words per node rather than a set each.

    The facts of a node only grow (`transfer` is monotone), each change
    queues its successors once, so the worklist empties within
    ``nodes + edges * (facts + 2)`` steps; past that, `rounds` raises
    rather than loop.
    """
    nodes = [graph.entry] + graph.nodes + [graph.exit]
    into = {n: empty for n in nodes}
    out = {n: empty for n in nodes}
    seed = graph.entry if forward else graph.exit
    # the pending node earliest in the direction of flow goes first: a loop
    # settles before the code upstream of it is visited again, so each
    # straight stretch is visited about once however many loops follow it
    # (first in, first out visited everything upstream once per loop)
    order = nodes if forward else nodes[::-1]
    position = {n: i for i, n in enumerate(order)}
    work = list(range(len(order)))  # sorted, so already a heap
    queued = set(nodes)
    as_facts = (lambda v: v) if isinstance(empty, int) else frozenset
    edges = sum(len(n.next) for n in nodes)
    universe = len(start) + sum(len(n.defs) + len(n.uses) + len(n.sources) for n in nodes)
    for _ in rounds("the dataflow worklist", len(nodes) + edges * (universe + 2)):
        if not work:
            break
        node = order[heapq.heappop(work)]
        queued.discard(node)
        sources = node.prev if forward else node.next
        if len(sources) == 1 and node is not seed:
            facts = out[sources[0]]
        else:
            facts = as_facts(start) if node is seed and start else empty
            for src in sources:
                facts |= out[src]
        into[node] = facts
        new = as_facts(transfer(node, facts))
        if new != out[node]:
            out[node] = new
            for dst in (node.next if forward else node.prev):
                if dst not in queued:
                    heapq.heappush(work, position[dst])
                    queued.add(dst)
    return into, out


def bit_sets(graph):
    """``(defs, uses, bit)``: each node's defs and uses as ints (a bit
    per name: ``bit[name]``), for `solve` with ``empty=0``."""
    bit = {}
    defs, uses = {}, {}
    for node in [graph.entry] + graph.nodes + [graph.exit]:
        # (which bit a name gets changes no result: no order is needed)
        defs[node] = _bits(node.defs, bit)
        uses[node] = _bits(node.uses, bit)
    return defs, uses, bit


def _bits(names, bit):
    """The bit set of `names`, giving each name not seen before the next bit."""
    value = 0
    for name in names:
        b = bit.get(name)
        if b is None:
            b = bit[name] = 1 << len(bit)
        value |= b
    return value


def reaching_definitions(graph):
    """{node: set of (name, defining node)} reaching the node's entry.

    Parameters are defined by the entry node.
    """
    def transfer(node, facts):
        if not node.defs:
            return facts
        return {f for f in facts if f[0] not in node.defs} | \
            {(name, node) for name in node.defs}
    into, _ = solve(graph, transfer, forward=True)
    return into


def liveness(graph):
    """{node: names that may be read after the node} (live-out)."""
    def transfer(node, facts):
        return (facts - node.defs) | node.uses
    after, _ = solve(graph, transfer, forward=False)
    return after


def activity(graph, wrt, differentiable):
    """Names that are both varied by `wrt` and useful to the result.

    `differentiable(node)` says whether derivatives flow from a node's
    uses to its defs (False for comparisons, zero-derivative calls and
    loop headers).
    """
    def varied(node, facts):
        if node is graph.entry:
            return set(wrt)
        flows = differentiable(node) and node.sources & facts
        return (facts - node.defs) | (node.defs if flows else set())

    def useful(node, facts):
        if node is graph.exit:
            return facts
        needed = node.defs & facts
        if _is_return(node):
            return node.uses
        flows = differentiable(node) and needed
        return (facts - node.defs) | (node.sources if flows else set())

    _, varied_out = solve(graph, varied, forward=True)
    useful_after, _ = solve(graph, useful, forward=False)
    active = set()
    for node in [graph.entry] + graph.nodes:
        active |= node.defs & varied_out[node] & useful_after[node]
    return active


def _is_return(node):
    return type(node.stmt).__name__ == "Return"
