"""The control-flow graph and the analyses of the generic worklist solver."""
import itertools
import sys
import textwrap
from pathlib import Path

import gast
import pytest

import tangent_ad as tad
from tangent_ad.analysis import cfg, dataflow
from tangent_ad.errors import InternalError


def _graph(source):
    fdef = gast.parse(textwrap.dedent(source)).body[0]
    return fdef, cfg.build(fdef)


def _node(graph, text):
    """The node whose statement (or header) starts with `text`."""
    import astor
    for node in graph.nodes:
        stmt = node.stmt
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            head = astor.to_source(gast.gast_to_ast(stmt)).splitlines()[0]
        else:
            head = astor.to_source(gast.gast_to_ast(stmt)).strip()
        if head.startswith(text):
            return node
    raise KeyError(text)


LOOP = """
def f(x, n):
    s = 0.0
    for i in range(n):
        if i > 2:
            break
        s = s + x
    return s
"""


def test_loop_edges_break_and_fall_through():
    _, graph = _graph(LOOP)
    head = _node(graph, "for i in")
    brk = next(n for n in graph.nodes if isinstance(n.stmt, gast.Break))
    ret = _node(graph, "return s")
    body_end = _node(graph, "s = s + x")
    assert head in body_end.next              # the back edge
    assert ret in brk.next                    # break leaves the loop
    assert ret in head.next                   # the loop may end normally
    assert graph.exit in ret.next


def test_reaching_definitions_see_both_the_initial_and_the_loop_value():
    _, graph = _graph(LOOP)
    ret = _node(graph, "return s")
    defining = {node for name, node in dataflow.reaching_definitions(graph)[ret]
                if name == "s"}
    assert defining == {_node(graph, "s = 0.0"), _node(graph, "s = s + x")}


def test_liveness_keeps_the_loop_carried_value_live():
    _, graph = _graph(LOOP)
    live = dataflow.liveness(graph)
    assert "s" in live[_node(graph, "s = s + x")]
    assert "x" in live[_node(graph, "s = 0.0")]
    assert "i" not in live[_node(graph, "return s")]


def test_activity_is_varied_and_useful():
    _, graph = _graph("""
    def f(x, y, n):
        a = x * 2.0
        b = y * 3.0
        c = a > 0
        d = a + n
        return d
    """)

    def differentiable(node):
        return not isinstance(getattr(node.stmt, "value", None), gast.Compare)
    active = dataflow.activity(graph, ["x"], differentiable)
    assert active == {"x", "a", "d"}  # b does not vary, c is a comparison


def test_activity_through_a_loop():
    _, graph = _graph(LOOP)
    active = dataflow.activity(graph, ["x"], lambda node: True)
    assert {"x", "s"} <= active and "n" not in active


def test_a_worklist_that_never_settles_raises_an_internal_error_naming_it():
    # a transfer that is not monotone (each visit a new fact) would loop
    # forever; the solver's bound turns that into an InternalError
    _, graph = _graph(LOOP)
    counter = itertools.count()
    with pytest.raises(InternalError, match="dataflow worklist"):
        dataflow.solve(graph, lambda node, facts: {next(counter)}, forward=True)


def test_a_loop_that_runs_zero_times_keeps_the_target_value_from_before():
    fdef, graph = _graph("""
    def f(x, n):
        i = 0
        for i in range(n):
            x = x * 2.0
        return x * i
    """)
    defining = {node for name, node in dataflow.reaching_definitions(graph)[
        _node(graph, "return x * i")] if name == "i"}
    assert _node(graph, "i = 0") in defining
    assert "i" in dataflow.liveness(graph)[_node(graph, "i = 0")]


def _sequential_loops(count):
    lines = ["def f(x, n):", "    s = x"]
    for k in range(count):
        lines += [f"    t{k} = s * 2.0", "    for i in range(n):",
                  f"        s = s + t{k} * x", f"    s = s - t{k}"]
    lines.append("    return s")
    return "\n".join(lines) + "\n"


def _round_robin_liveness(graph):
    """Liveness by sweeping every node until nothing changes: the reference."""
    nodes = [graph.entry] + graph.nodes + [graph.exit]
    after = {n: frozenset() for n in nodes}
    before = {n: frozenset() for n in nodes}
    changed = True
    while changed:
        changed = False
        for node in reversed(nodes):
            out = frozenset().union(*(before[s] for s in node.next))
            new = (out - node.defs) | node.uses
            if out != after[node] or new != before[node]:
                after[node], before[node], changed = out, new, True
    return after


def test_the_worklist_order_gives_the_round_robin_fixed_point():
    fdef, graph = _graph(_sequential_loops(24))
    after, _ = dataflow.solve(graph, lambda node, live: (live - node.defs) | node.uses,
                              forward=False)
    assert after == _round_robin_liveness(graph)


def test_dead_code_elimination_visits_each_node_a_few_times_however_many_loops(monkeypatch):
    # first in, first out sent each late find of a loop (a value live only
    # through the loop's back edge) up through all the code before it again:
    # 4.2 visits per node with four blocks of long_function, 9.9 with twelve
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import long_function
    solve, visits = dataflow.solve, []

    def counting(graph, transfer, **options):
        calls = []

        def counted(node, facts):
            calls.append(node)
            return transfer(node, facts)
        result = solve(graph, counted, **options)
        visits.append(len(calls) / (len(graph.nodes) + 2))
        return result
    monkeypatch.setattr(dataflow, "solve", counting)
    tad.grad(long_function.with_blocks(4), wrt=(0, 1, 2, 3, 4))
    assert visits and max(visits) < 2.5
