"""The tree helpers every pass runs on: walk, children, fix_missing_locations."""
import gc
import textwrap

import gast
import pytest

import tangent_ad as tad
from tangent_ad import collector
from tangent_ad.errors import TangentADError
from tangent_ad.nodes import fix_missing_locations, walk

SOURCE = textwrap.dedent("""
    def f(x, ys, *, k=2):
        total = 0.0
        for i, y in enumerate(ys):
            if y > k:
                total += x[i] ** 2 * y
            else:
                total = total - (lambda v: v * k)(y)
        try:
            z = {a: b for a, b in zip(ys, ys)}
        except ValueError as err:
            z = f"{err!r:>4}"
        return total, z
""")


def test_walk_gives_gast_walks_nodes_but_the_ctx_markers_in_the_same_order():
    tree = gast.parse(SOURCE)
    expected = [n for n in gast.walk(tree) if not isinstance(n, gast.expr_context)]
    assert list(walk(tree)) == expected


def _positions(tree):
    return [(type(n).__name__, getattr(n, "lineno", "-"), getattr(n, "col_offset", "-"),
             getattr(n, "end_lineno", "-"), getattr(n, "end_col_offset", "-"))
            for n in gast.walk(tree)]


def _strip_some(tree):
    """Remove the positions of every third node that has one (as new
    nodes built by a pass lack them)."""
    nodes = [n for n in gast.walk(tree) if "lineno" in n._attributes]
    for node in nodes[::3]:
        for attribute in ("lineno", "col_offset"):
            node.__dict__.pop(attribute, None)
    return tree


def test_fix_missing_locations_gives_gasts_positions():
    ours = fix_missing_locations(_strip_some(gast.parse(SOURCE)))
    theirs = gast.fix_missing_locations(_strip_some(gast.parse(SOURCE)))
    assert _positions(ours) == _positions(theirs)
    assert all(hasattr(n, "lineno") for n in gast.walk(ours) if "lineno" in n._attributes)


def test_a_transformation_leaves_the_cyclic_collector_as_it_found_it():
    def f(x):
        return x * x

    assert gc.isenabled()
    tad.grad(f)
    assert gc.isenabled()

    def bad(x):
        return x.no_such_attribute_anywhere(3)
    with pytest.raises(TangentADError):
        tad.grad(bad)(2.0)
    assert gc.isenabled()
    gc.disable()
    try:
        collector.paused(lambda: None)()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_off_while_a_transformation_runs():
    seen = []

    @collector.paused
    def work():
        seen.append(gc.isenabled())
        raise KeyError("out")
    with pytest.raises(KeyError):
        work()
    assert seen == [False] and gc.isenabled()
