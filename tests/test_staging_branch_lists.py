"""A loop's branch decisions on a list of their own in a specialized copy
(``staging/branch_lists.py``): the adjoint loop iterates the list instead
of counting and popping. The gradients are the general derivative's, bit
for bit (the same operations in the same order), and finite
differences'; the loops that must keep the stack are checked to."""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging import dispatch as staging
from control_flow_functions import loop_branch


def _staged(f, args):
    df = tad.grad(f, wrt=(0,))
    for _ in range(3):
        got = df(*args)
    (source,) = staging.variants(df).values()
    want = df.__wrapped__(*args)
    assert repr(got) == repr(want)
    step = 1e-6
    fd = (f(args[0] + step, *args[1:]) - f(args[0] - step, *args[1:])) / (2 * step)
    np.testing.assert_allclose(np.ravel(got)[0], fd, rtol=1e-6, atol=1e-9)
    return source


def two_branches(x, n):
    for i in range(n):
        if x > 0.5:
            x = x * 0.9 + 0.05
        else:
            x = np.sin(x) + 0.3
        if x < 0.7:
            x = x * 1.1
        else:
            x = x - 0.01 * x * x
    return x


def test_the_adjoint_loop_iterates_the_decisions():
    source = _staged(loop_branch, (0.3, 10))
    assert "taken = []" in source and "taken.append(True)" in source
    assert "for taken_step in reversed(taken):" in source and "if taken_step:" in source
    assert "if stack.pop():" not in source


def test_one_list_per_loop():
    source = _staged(two_branches, (0.3, 12))
    assert source.count("reversed(taken)") == 1 and source.count("if stack.pop():") == 1


def indexes(x, n, w):
    for i in range(n):
        if x > 0.5:
            x = x * w[i]
        else:
            x = np.sin(x) + w[i]
    return x


def test_a_counter_saved_with_its_item_is_not_needed():
    """The adjoint of ``x * w[i]`` reads the saved item, not ``i``."""
    assert "reversed(taken)" in _staged(indexes, (0.3, 6, np.linspace(0.8, 1.1, 6)))


def reads_the_counter(x, n):
    for i in range(n):
        if x > 0.5:
            x = x * i / n + 0.3
        else:
            x = np.sin(x) + 0.3
    return x


def breaks(x, n):
    for i in range(n):
        if x > 2.0:
            break
        if x > 0.5:
            x = x * 1.2
        else:
            x = np.sin(x) + 0.3
    return x


def nested(x, n):
    for j in range(2):
        for i in range(n):
            if x > 0.5:
                x = x * 0.9 + 0.05
            else:
                x = np.sin(x) + 0.3
    return x


def test_a_count_kept_as_a_range():
    """A count rebound in the loop: both loops run over one saved range."""
    source = _staged(count_changes, (0.3, 7))
    assert "iterable = range(n)" in source and "reversed(taken)" in source


def count_changes(x, n):
    m = n
    for i in range(m):
        if x > 0.5:
            x = x * 0.9 + 0.05
        else:
            x = np.sin(x) + 0.3
        m = m - 1
    return x


@pytest.mark.parametrize("f, args", [
    (reads_the_counter, (0.3, 6)),
    (breaks, (0.3, 8)),
    (nested, (0.3, 5)),
])
def test_loops_that_keep_the_stack(f, args):
    """A counter read in the adjoint, a ``break`` (the adjoint loop runs
    over the steps taken), a loop inside a loop."""
    assert "taken" not in _staged(f, args)


# ---- the conditions, on derivatives written out (sites declared as the reverse pass does) ----

import textwrap  # noqa: E402

from tangent_ad import emit  # noqa: E402
from tangent_ad.staging import branch_lists  # noqa: E402
from test_optimize import functions  # noqa: E402

LOOP = """
    def f(x, n, m):
        stack = []
        {before}
        for i in {forward}:
            if x > 0.5:
                x = x * 0.9
                stack.append(True)
            else:
                stack.append(x)
                x = np.sin(x)
                stack.append(False)
        {between}
        bx = 1.0
        for i in reversed({back}):
            if stack.pop():
                bx = bx * 0.9{reads}
            else:
                x = stack.pop()
                bx = bx * np.cos(x)
        return bx
"""


def rewritten(before="", forward="range(n)", between="", back="range(n)", reads="",
              namespace=None):
    source = textwrap.dedent(LOOP.format(before=before, forward=forward, between=between,
                                         back=back, reads=reads))
    out = emit.run(branch_lists.run(functions(source)[0], namespace))
    changed = "reversed(taken)" in out
    if changed:  # the same numbers as the stack, whatever the branches
        ns = {"np": np}
        exec(source, ns)
        want = ns["f"]
        exec(out, ns)
        for x in (0.3, 0.7, 2.0):
            assert ns["f"](x, 6, 4) == want(x, 6, 4)
    return changed


def test_conditions_that_allow_it():
    assert rewritten()
    assert rewritten(forward="range(7)", back="range(7)")
    assert rewritten(before="it = range(m)", forward="it", back="it")


def test_conditions_that_keep_the_stack():
    assert not rewritten(between="n = n - 1")  # the count is rebound
    assert not rewritten(forward="range(n)", back="range(m)")
    assert not rewritten(before="it = range(m)\n        it = range(n)", forward="it", back="it")
    assert not rewritten(reads=" * i")  # the counter is read
    assert not rewritten(reads="\n                break")
    assert not rewritten(between="print(len(stack))")  # the stack is read otherwise
    assert not rewritten(between="g = lambda: stack")
    assert not rewritten(namespace={"range": lambda n: [0]})  # range is not the builtin
