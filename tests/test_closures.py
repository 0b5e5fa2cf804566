"""Nested functions, lambdas, functions as arguments, comprehensions."""
import numpy as np
import pytest

import tangent_ad as tad
from closure_functions import CASES, closure, higher_order
from tangent_ad.testing import check_grads


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_gradient_matches_finite_differences(name, seed):
    func, make_args, wrt = CASES[name]
    args = make_args(np.random.default_rng(seed))
    check_grads(func, tad.grad(func, wrt=wrt), args, wrt=wrt)


def test_captured_variables_become_parameters_of_the_pullback():
    source = tad.show_source(tad.grad(closure, wrt=(0, 1)))
    assert "def pullback_scaled_dy_w(y, w):" in source


def test_function_arguments_specialize_the_pullback():
    source = tad.show_source(tad.grad(higher_order))
    assert "def pullback_apply_dx_with_square(f, x):" in source
