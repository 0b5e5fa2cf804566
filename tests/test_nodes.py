"""The tree helpers every pass runs on (walk, children), and the collector pause."""
import gc
import textwrap

import gast
import pytest

import tangent_ad as tad
from tangent_ad import collector
from tangent_ad.errors import TangentADError
from tangent_ad.nodes import walk

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


def test_the_collector_is_off_while_a_paused_function_runs_and_on_after_it_raises():
    seen = []

    @collector.paused
    def work():
        seen.append(gc.isenabled())
        raise KeyError("out")
    with pytest.raises(KeyError):
        work()
    assert seen == [False] and gc.isenabled()
