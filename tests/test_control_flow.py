"""Branches and loops: gradients against finite differences, loops kept as loops."""
import numpy as np
import pytest

import tangent_ad as tad
from control_flow_functions import CASES, loop_branch
from tangent_ad.testing import check_grads


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(4))
def test_gradient_matches_finite_differences(name, seed):
    func, make_args, wrt = CASES[name]
    args = make_args(np.random.default_rng(seed))
    check_grads(func, tad.grad(func, wrt=wrt), args, wrt=wrt)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    func, make_args, wrt = CASES[name]
    args = make_args(np.random.default_rng(7))
    fast = tad.grad(func, wrt=wrt)(*args)
    slow = tad.grad(func, wrt=wrt, optimized=False)(*args)
    for a, b in zip(np.atleast_1d(fast) if len(wrt) == 1 else fast,
                    np.atleast_1d(slow) if len(wrt) == 1 else slow):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_zero_iterations_give_the_identity():
    assert tad.grad(loop_branch)(0.3, 0) == 1.0


def test_loops_are_not_unrolled():
    source = tad.show_source(tad.grad(loop_branch))
    code = [l for l in source.splitlines() if not l.strip().startswith("#")]
    assert sum("for i in" in l for l in code) == 2
    assert "for i in reversed(range(n)):" in source


def test_value_that_is_never_overwritten_is_not_saved():
    def scale(x, w, n):
        for i in range(n):
            x = x * w
        return x
    source = tad.show_source(tad.grad(scale, wrt=(0, 1)))
    assert "stack.append(w)" not in source


def test_generated_size_does_not_depend_on_trip_count():
    df = tad.grad(loop_branch)
    assert df(0.3, 3) != df(0.3, 300)  # same code, different counts


def test_value_and_grad_returns_the_final_value():
    value, grad = tad.value_and_grad(loop_branch)(0.7, 4)
    assert value == pytest.approx(loop_branch(0.7, 4))
    assert grad == pytest.approx(tad.grad(loop_branch)(0.7, 4))
