"""The control-flow graph and the analyses of the generic worklist solver."""
import itertools
import textwrap

import gast
import pytest

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
