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


def test_mutual_recursion_passing_a_constant_in_every_mode():
    """The branch that calls `unsettled(1.5, n - 1)` has an active target
    but no active argument: it contributes nothing (it used to look the
    user's own function up as a registered rule)."""
    import numpy as np
    from call_functions import mutual_with_constant as f, settles
    from tangent_ad.testing import check_grads, check_jvp
    x, v, h = np.array([0.5, -0.3, 0.8]), np.array([1.0, 2.0, -1.0]), 1e-5
    for n in range(4):
        check_grads(f, tad.grad(f), (x, n))
        check_jvp(f, tad.jvp(f), (x, n))
        want = (tad.grad(f)(x + h * v, n) - tad.grad(f)(x - h * v, n)) / (2 * h)
        np.testing.assert_allclose(tad.hvp(f)(x, n, v), want, rtol=1e-4, atol=1e-6)
    # settles(x, 2) = unsettled(1.5, 1) = settles(1.5, 0) * 1.5: no x in it
    assert tad.grad(settles)(0.7, 2) == 0.0
