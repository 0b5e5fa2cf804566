"""Lists a derivative owns, grown and added into in place (``staging/in_place.py``).

Each case runs the rewritten source against the source it came from, on
loops of zero, one and several steps: the same results. The cases where
another name or a save could see the list must stay as they are.
"""
import copy
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import emit, runtime
from tangent_ad.frontend import to_gast
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging import in_place
from tangent_ad.testing import numerical_grad


def _namespace():
    return {"np": np, **{h: getattr(runtime, h) for h in runtime.__all__}}


def rewritten(source, cases=((0,), (1,), (4,))):
    """`source` (a function ``f``) after the pass; its results are checked
    to equal the source's for each argument tuple of `cases`."""
    source = textwrap.dedent(source)
    namespace = _namespace()
    out = emit.run(in_place.run(to_gast.parse(source).body[0], namespace))
    for args in cases:
        got, want = _namespace(), _namespace()
        exec(out, got)
        exec(source, want)
        assert repr(got["f"](*copy.deepcopy(args))) == repr(want["f"](*copy.deepcopy(args)))
    return out


def test_a_list_built_in_a_loop_is_appended_to():
    out = rewritten("""
        def f(n):
            items = []
            for i in range(n):
                items = appended(items, i * 0.5)
            t = items
            return sum(t), len(items)
    """)
    assert "items.append(i * 0.5)" in out


def test_an_adjoint_list_is_added_into():
    out = rewritten("""
        def f(n):
            xs = [1.0] * n
            bt = zeros_like(xs)
            for i in reversed(range(n)):
                bt = accumulate_at(bt, 2.0 * i, xs, i)
                bt = accumulate_at(bt, 1.0, xs, i)
            return bt
    """)
    assert out.count("accumulate_into(bt,") == 2


@pytest.mark.parametrize("source", [
    # saved before an update: the save would change with it
    """
    def f(n):
        stack = []
        items = []
        for i in range(n):
            stack.append(items)
            items = appended(items, i)
        return [len(s) for s in stack]
    """,
    # read in the loop, as more than the update's own argument
    """
    def f(n):
        items = []
        seen = []
        for i in range(n):
            seen = appended(seen, items)
            items = appended(items, i)
        return [len(s) for s in seen]
    """,
    # read before the loop: that name holds the list the loop grows
    """
    def f(n):
        items = []
        before = items
        for i in range(n):
            items = appended(items, i)
        return len(before)
    """,
    # bound to something other than a fresh list
    """
    def f(n):
        start = [0]
        items = start
        for i in range(n):
            items = appended(items, i)
        return len(start)
    """,
    # grown in two loops: a read between them would see the second
    """
    def f(n):
        items = []
        for i in range(n):
            items = appended(items, i)
        first = items
        for i in range(n):
            items = appended(items, -i)
        return len(first)
    """,
    # a nested function reads it
    """
    def f(n):
        items = []
        size = lambda: len(items)
        for i in range(n):
            items = appended(items, size())
        return items
    """,
])
def test_what_must_stay(source):
    assert "items = appended(items, " in rewritten(source)


def test_a_global_named_like_the_helper_keeps_the_copies():
    source = textwrap.dedent("""
        def f(n):
            xs = [1.0] * n
            bt = zeros_like(xs)
            for i in reversed(range(n)):
                bt = accumulate_at(bt, 2.0, xs, i)
            return bt
    """)
    namespace = {**_namespace(), "accumulate_into": len}
    out = emit.run(in_place.run(to_gast.parse(source).body[0], namespace))
    assert "accumulate_into" not in out


def comprehension(W, X):
    rows = [np.tanh(W @ x) for x in X]
    return sum(np.sum(r ** 2) for r in rows)


@pytest.mark.parametrize("n", [0, 1, 6])
def test_a_staged_comprehension_updates_its_lists_in_place(n, monkeypatch):
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    rng = np.random.default_rng(n)
    W, X = rng.normal(size=(3, 3)), rng.normal(size=(n, 3))
    df = tad.grad(comprehension)
    for _ in range(3):
        got = df(W, X)
    assert np.array_equal(got, getattr(df, "__wrapped__", df)(W, X))
    np.testing.assert_allclose(got, numerical_grad(comprehension, (W, X), 0),
                               rtol=1e-6, atol=1e-9)
    source = "\n".join(staging.variants(df).values())
    assert "items.append(" in source and "accumulate_into(" in source
