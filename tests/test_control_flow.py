"""Branches and loops: gradients against finite differences, loops kept as loops."""
import numpy as np
import pytest

import tangent_ad as tad
from control_flow_functions import CASES, loop_branch
from corpus import check_against_finite_differences, check_all_modes, \
    check_optimizer_keeps_values


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


# ---- empty bodies (Python has no empty block: `pass`, or a body the transform empties) ----

def pass_in_for(x, n):
    for i in range(n):
        pass
    return np.sum(x * x)


def pass_in_while(x, n):
    i = 0
    while i < n:
        i = i + 1
    while i > 100:
        pass
    return np.sum(x * x)


def pass_in_branches(x, n):
    if n > 1:
        pass
    else:
        pass
    if n > 2:
        pass
    else:
        x = x * 2.0
    return np.sum(x * x)


def pass_in_nested_loops(x, n):
    for i in range(n):
        for j in range(n):
            pass
        if i > 0:
            pass
    return np.sum(np.sin(x))


def loop_without_active_statements(x, n):
    s = 0.0
    for i in range(n):
        s = s + 1.0
    return np.sum(x * x) + s


@pytest.mark.parametrize("func", [pass_in_for, pass_in_while, pass_in_branches,
                                  pass_in_nested_loops, loop_without_active_statements])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_empty_bodies_in_every_mode(func, n):
    check_all_modes(func, (np.array([0.3, -0.8]), n))
