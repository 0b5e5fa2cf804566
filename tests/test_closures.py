"""Nested functions, lambdas, functions as arguments, comprehensions."""
import pytest

import tangent_ad as tad
from corpus import check_against_finite_differences, check_optimizer_keeps_values
from closure_functions import CASES, closure, higher_order


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_gradient_matches_finite_differences(name, seed):
    check_against_finite_differences(CASES[name], seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    check_optimizer_keeps_values(CASES[name])


def test_captured_variables_become_parameters_of_the_pullback():
    source = tad.show_source(tad.grad(closure, wrt=(0, 1)))
    assert "def pullback_scaled_dy_w(y, w):" in source


def test_function_arguments_specialize_the_pullback():
    source = tad.show_source(tad.grad(higher_order))
    assert "def pullback_apply_dx_with_square(f, x):" in source
