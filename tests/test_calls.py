"""Calls to the user's own functions: helpers, recursion, mutual recursion."""
import pytest

import tangent_ad as tad
from call_functions import CASES, net, use_power
from corpus import check_against_finite_differences, check_optimizer_keeps_values


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_gradient_matches_finite_differences(name, seed):
    check_against_finite_differences(CASES[name], seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    check_optimizer_keeps_values(CASES[name])


def test_each_callee_gets_a_readable_pullback():
    source = tad.show_source(tad.grad(net, wrt=(0, 1)))
    assert "def pullback_layer_dW(W, x, scale=1.0):" in source
    assert "def pullback_layer_dW_x(W, x, scale=1.0):" in source
    assert "def back(bresult):" in source
    assert "h, back_h = pullback_layer_dW(W1, x)" in source


def test_recursion_deeper_than_the_generated_code():
    df = tad.grad(use_power)
    assert df(1.01, 200) == pytest.approx(200 * 1.01 ** 199)


def test_calling_a_function_without_source_is_a_no_derivative_error():
    import math

    def f(x):
        return math.gamma(x)
    with pytest.raises(tad.NoDerivativeError, match="gamma"):
        tad.grad(f)
