"""A scalar adjoint's contributions added in one statement (``staging/sums.py``),
and temporaries folded past saves (``staging/inline.py``).

Each case runs the specialized source against the source it came from:
the same numbers, bit for bit (the sums are added in the same order).
The cases that must keep their statements apart are checked to.
"""
import copy
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import emit, runtime
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging import passes as staging_passes
from tangent_ad.staging.kinds import kind_of
from test_optimize import functions


def _run(source, args):
    namespace = {"np": np, **{h: getattr(runtime, h) for h in runtime.__all__}}
    exec(source, namespace)
    return namespace["f"](*args)


def specialized(source, args):
    """`source` (a function ``f``) specialized for the kinds of `args`;
    its results are checked to equal the source's exactly."""
    source = textwrap.dedent(source)
    tree = functions(source)[0]  # its pushes and pops declared as saves
    params = dict(zip([a.id for a in tree.args.args], map(kind_of, args)))
    out = emit.run(staging_passes.optimize(tree, params))
    got, want = _run(out, copy.deepcopy(args)), _run(source, copy.deepcopy(args))
    assert repr(got) == repr(want)
    return out


def test_contributions_in_a_block_are_added_in_the_last_one():
    out = specialized("""
        def f(a, b, x, y):
            by = 0.0
            bx = 0.0
            for i in range(3):
                t = a * x
                by = by + t * b
                s = b * y
                bx = bx + s
                by = by + s * x
                bx = bx + t * y
            return bx, by
    """, (0.3, 1.7, 0.9, -1.1))
    assert "by = by + t * b + s * x" in out
    assert "bx = bx + s + t * y" in out


def test_a_read_of_the_adjoint_in_between_keeps_them_apart():
    out = specialized("""
        def f(a, x, bx):
            bx = bx + a * x
            z = bx * 2.0
            bx = bx + z
            return bx
    """, (0.3, 0.9, 0.5))
    assert "bx = bx + a * x" in out


def test_a_rebinding_of_what_the_contribution_reads_keeps_them_apart():
    out = specialized("""
        def f(a, x, bx):
            bx = bx + a * x
            x = x * 3.0
            bx = bx + x
            return bx
    """, (0.3, 0.9, 0.5))
    assert "bx = bx + a * x" in out


def test_a_restore_in_between_keeps_a_contribution_that_reads_it():
    out = specialized("""
        def f(a, x, bx):
            stack = [x]
            x = x * 2.0
            bx = bx + a * x
            x = stack.pop()
            bx = bx + x
            return bx, x
    """, (0.3, 0.9, 0.5))
    assert "bx = bx + a * x\n    x = stack.pop()" in out


def test_a_call_that_may_change_values_in_place_keeps_them_apart():
    out = specialized("""
        def f(a, x, bx):
            bx = bx + a[0] * x
            a.sort()
            bx = bx + x
            return bx
    """, (np.array([2.0, 1.0]), 0.9, 0.5))
    assert "bx = bx + a[0] * x" in out


def test_arrays_are_not_summed_in_one_expression():
    out = specialized("""
        def f(a, x):
            bx = np.zeros(3)
            bx = bx + a * x
            z = a * 2.0
            bx = bx + z
            return bx
    """, (np.ones(3), 0.9))
    assert "a * x + z" not in out


def test_a_temporary_folds_past_a_save():
    out = specialized("""
        def f(x, dx, dt, n):
            stack = []
            for i in range(n):
                t8 = x + dt * dx
                stack.append(x)
                x = t8
            return x, stack
    """, (0.3, 1.5, 0.1, 3))
    assert "x = x + dt * dx" in out


def ode(a, b, x, y, dt, steps):
    for i in range(steps):
        dx = a * x - b * x * y
        dy = b * x * y - a * y
        x = x + dt * dx
        y = y + dt * dy
    return (x - 1.0) ** 2 + y ** 2


@pytest.mark.parametrize("steps", [0, 1, 7])
def test_a_staged_scalar_loop_gives_the_general_numbers(steps, monkeypatch):
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    df = tad.grad(ode, wrt=(0, 1))
    general = getattr(df, "__wrapped__", df)
    args = (0.7, 0.3, 1.2, 0.8, 0.05, steps)
    for _ in range(3):
        staged = df(*args)
    assert staging.variants(df)
    assert staged == general(*args)  # the same sums in the same order: equal
    source, = staging.variants(df).values()
    if steps:
        assert any(line.count(" + ") >= 2 and line.strip().startswith(("ba = ba", "bb = bb", "bx = bx", "by = by"))
                   for line in source.splitlines())
