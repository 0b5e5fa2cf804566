"""Branches and loops: gradients against finite differences, loops kept as loops."""
import pytest

import tangent_ad as tad
from control_flow_functions import CASES, loop_branch
from corpus import check_against_finite_differences, check_optimizer_keeps_values


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(4))
def test_gradient_matches_finite_differences(name, seed):
    check_against_finite_differences(CASES[name], seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    check_optimizer_keeps_values(CASES[name])


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
