"""Nested functions, lambdas, functions as arguments, comprehensions."""
import numpy as np
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


def test_a_lambda_called_on_constants_keeps_its_globals_in_every_mode():
    from closure_functions import constant_lambda_call
    x, t = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    scale = np.sin(1.0) + 1.0
    np.testing.assert_allclose(tad.jvp(constant_lambda_call)(x, t)[1], scale * t.sum())
    np.testing.assert_allclose(tad.hvp(constant_lambda_call)(x, t), np.zeros(3))
    np.testing.assert_allclose(tad.grad(constant_lambda_call, optimized=False)(x),
                               np.full(3, scale))
