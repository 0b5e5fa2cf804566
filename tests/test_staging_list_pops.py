"""An appended list's adjoint taken apart by a counter (``staging/list_pops.py``).

Each case runs the rewritten source against the source it came from: the
same results, for loops that run zero, one and several times. The cases
that must stay as they are are checked to.
"""
import copy
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import emit
from tangent_ad.frontend import to_gast
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging import list_pops
from tangent_ad.testing import numerical_grad


def _run(source, args):
    namespace = {"np": np}
    exec(source, namespace)
    return namespace["f"](*copy.deepcopy(args))


def rewritten(source, cases):
    """`source` (a function ``f``) after the pass; its results are checked
    to equal the source's on every argument tuple of `cases`."""
    source = textwrap.dedent(source)
    out = emit.run(list_pops.run(to_gast.parse(source).body[0]))
    for args in cases:
        assert repr(_run(out, args)) == repr(_run(source, args))
    return out


CASES = [([], 0), ([1.0], 1), ([1.0, 2.0, 3.0, 4.0], 4), ([1.0, 2.0, 3.0], 2)]


def test_the_slices_become_a_counter():
    out = rewritten("""
        def f(bitems, n):
            bx = 0.0
            for i in reversed(range(n)):
                bt = bitems
                bitems = bitems[:-1]
                bx = bx + bt[-1] * i
            return bx
    """, CASES)
    assert "[:-1]" not in out and "bitems[pops_bitems]" in out
    assert "bitems = bitems[:pops_bitems]" not in out  # not read after the loop


def test_a_list_read_after_the_loop_is_sliced_once_there():
    out = rewritten("""
        def f(bitems, n):
            bx = 0.0
            for i in reversed(range(n)):
                bt = bitems
                bitems = bitems[:-1]
                if i > 0:
                    bx = bx + bt[-1] * i
            return bx, bitems
    """, CASES)
    assert "[:-1]" not in out and "bitems = bitems[:pops_bitems]" in out


def test_inside_an_outer_loop():
    out = rewritten("""
        def f(bitems, n):
            total = 0.0
            for j in range(2):
                b = list(bitems)
                for i in reversed(range(n)):
                    bt = b
                    b = b[:-1]
                    total = total + bt[-1] * (i + j)
                total = total + len(b)
            return total
    """, CASES)
    assert "[:-1]" not in out


def test_two_lists_in_one_loop_and_one_in_a_nested_loop():
    out = rewritten("""
        def f(bitems, n):
            bx = 0.0
            bother = list(bitems)
            for i in reversed(range(n)):
                bt = bitems
                bitems = bitems[:-1]
                bu = bother
                bother = bother[:-1]
                bx = bx + bt[-1] * i - bu[-1]
                b = [0.5 * k for k in range(i + 1)]
                for j in range(i + 1):
                    bv = b
                    b = b[:-1]
                    bx = bx + bv[-1] * j
            return bx
    """, CASES)
    assert "[:-1]" not in out and out.count("pops_") >= 9


@pytest.mark.parametrize("body", [
    "u = bt[0]",                   # another read of the alias
    "u = len(bitems)",             # the list read otherwise in the loop
    "u = (lambda: bt[-1])()",      # a nested function
])
def test_what_must_stay(body):
    source = f"""
        def f(bitems, n):
            bx = 0.0
            u = 0
            for i in reversed(range(n)):
                bt = bitems
                bitems = bitems[:-1]
                {body}
                bx = bx + bt[-1] * i + u
            return bx
    """
    assert "bitems[:-1]" in rewritten(source, CASES)


def test_an_alias_read_before_its_slice_or_outside_the_loop_stays():
    before = rewritten("""
        def f(bitems, n):
            bx = 0.0
            bt = [0.0]
            for i in reversed(range(n)):
                bx = bx + bt[-1]
                bt = bitems
                bitems = bitems[:-1]
            return bx
    """, CASES)
    assert "bitems[:-1]" in before


def stacked(W, xs):
    h = np.zeros(W.shape[0])
    outs = []
    for x in xs:
        h = np.tanh(W @ h + x)
        outs.append(h)
    return np.sum(np.stack(outs) ** 2)


def rows(W, X):
    return sum(np.sum(r ** 2) for r in [np.tanh(W @ x) for x in X])


@pytest.mark.parametrize("func,n", [(stacked, 1), (stacked, 7), (rows, 0), (rows, 1), (rows, 7)])
def test_a_staged_list_loop_gives_the_general_numbers(func, n, monkeypatch):
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    rng = np.random.default_rng(n)
    W, X = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(n, 4))
    df = tad.grad(func)
    for _ in range(3):
        got = df(W, X)
    assert np.array_equal(got, getattr(df, "__wrapped__", df)(W, X))
    np.testing.assert_allclose(got, numerical_grad(func, (W, X), 0), rtol=1e-6, atol=1e-9)
    source = "\n".join(staging.variants(df).values())
    assert source and "[:-1]" not in source
