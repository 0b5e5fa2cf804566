"""Calls to the user's own functions: helpers, recursion, mutual recursion."""
import numpy as np
import pytest

import tangent_ad as tad
from call_functions import CASES, net, use_power
from tangent_ad.testing import check_grads


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_gradient_matches_finite_differences(name, seed):
    func, make_args, wrt = CASES[name]
    args = make_args(np.random.default_rng(seed))
    check_grads(func, tad.grad(func, wrt=wrt), args, wrt=wrt)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    func, make_args, wrt = CASES[name]
    args = make_args(np.random.default_rng(5))
    fast = tad.grad(func, wrt=wrt)(*args)
    slow = tad.grad(func, wrt=wrt, optimized=False)(*args)
    for a, b in zip(fast if len(wrt) > 1 else [fast], slow if len(wrt) > 1 else [slow]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


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
