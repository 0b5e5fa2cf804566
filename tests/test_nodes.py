"""The tree helpers every pass runs on (walk, children), and the collector pause."""
import copy
import gc
import random
import textwrap
from pathlib import Path

import gast
import pytest

import tangent_ad as tad
from tangent_ad import collector
from tangent_ad.errors import TangentADError
from tangent_ad.nodes import fix_locations, walk

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


def test_fix_locations_gives_what_gast_gives():
    """nodes.fix_locations, which the stages end with, fills in the same
    lines and columns as gast.fix_missing_locations."""
    fields = ("lineno", "col_offset", "end_lineno", "end_col_offset")
    rng = random.Random(3)
    tree = gast.parse((Path(tad.__file__).parent / "frontend" / "normalize.py").read_text())
    for node in gast.walk(tree):
        for field in fields:
            if rng.random() < 0.4:
                try:
                    delattr(node, field)
                except AttributeError:
                    pass
    expected, got = copy.deepcopy(tree), copy.deepcopy(tree)
    gast.fix_missing_locations(expected)
    fix_locations(got)

    def places(t):
        return [(type(n).__name__, [getattr(n, f, None) for f in fields]) for n in gast.walk(t)]
    assert places(got) == places(expected)
    assert any(getattr(n, "lineno", None) is None for n in gast.walk(tree)
               if "lineno" in n._attributes)  # the test removed some
