"""Calls to the user's own functions: helpers, recursion, mutual recursion."""
import functools

import numpy as np
import pytest

import tangent_ad as tad
from call_functions import (
    CASES, calls_decorated, calls_two_decorated, net, scaled_square, use_power)
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
def test_a_decorator_is_differentiated_with_the_function_in_forward_mode_too():
    # scaled_square(x) = 3 * sum(x ** 2): the directional derivative along v
    # is 6 * x . v (the undecorated body alone would give 2 * x . v)
    x, v = np.array([0.3, -1.2, 0.8]), np.array([1.0, 0.5, -2.0])
    value, tangent = tad.jvp(scaled_square)(x, v)
    assert value == pytest.approx(3.0 * np.sum(x * x))
    assert tangent == pytest.approx(6.0 * np.dot(x, v))
    w = np.array([0.4, 0.1, -0.7])
    eps = 1e-6
    numeric = (calls_decorated(x + eps * v, w) - calls_decorated(x - eps * v, w)) / (2 * eps)
    assert tad.jvp(calls_decorated)(x, w, v)[1] == pytest.approx(numeric, rel=1e-6)


def test_a_wrapper_that_reads_its_star_args_is_refused_at_its_line():
    def peek(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args) + args[0][0]
        return wrapper

    @peek
    def f(x):
        return np.sum(x * x)
    with pytest.raises(tad.UnsupportedSyntaxError, match="wrapper") as info:
        tad.grad(f)
    assert info.value.lineno == peek.__code__.co_firstlineno + 2
    assert "def wrapper(*args):" in str(info.value)
    assert "__wrapped__" in info.value.hint


def test_two_helpers_with_different_decorators_in_one_function(rng):
    # both wrappers' closure cells are named 'fn': the unit reads the second
    # under a name of its own (pipeline._merge)
    from tangent_ad.testing import check_grads
    args = (rng.normal(size=3), rng.normal(size=3))
    check_grads(calls_two_decorated, tad.grad(calls_two_decorated, wrt=(0, 1)), args,
                wrt=(0, 1))


# a random generator passed to a helper (autograd's mixture_variational_inference.py):
# `rs.randn(...)` in the helper is known to be a draw, with a zero derivative
_RS = np.random.RandomState(0)


def _draw(params, n, rs):
    return rs.randn(n, 2) * np.exp(params[2:]) + params[:2]


def _random_bound(params):
    return np.mean(_draw(params, 5, _RS) ** 2)


_EPS = np.random.RandomState(0).randn(5, 2)  # the draws _random_bound makes after a reseed


def _replayed(params):
    return np.mean((_EPS * np.exp(params[2:]) + params[:2]) ** 2)


def test_a_random_generator_passed_to_a_helper_in_every_mode():
    from tangent_ad.testing import check_grads, numerical_grad
    p, v = np.array([0.1, 0.2, -0.3, 0.4]), np.array([1.0, -0.5, 0.25, 2.0])
    gradient, forward, hvp = tad.grad(_random_bound), tad.jvp(_random_bound), tad.hvp(_random_bound)
    _RS.seed(0)
    check_grads(_replayed, lambda q: gradient(q), (p,))
    _RS.seed(0)
    assert forward(p, v)[1] == pytest.approx(numerical_grad(_replayed, (p,), 0) @ v, rel=1e-6)
    _RS.seed(0)
    want = (tad.grad(_replayed)(p + 1e-5 * v) - tad.grad(_replayed)(p - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(hvp(p, v), want, rtol=1e-5)


# a starred call of a function without source that takes *args (autograd's
# variational_autoencoder.py: rs.randn(*mean.shape)) passes the tuple as it is
def _draw_like(mean, log_std, rs):
    return rs.randn(*mean.shape) * np.exp(log_std) + mean


def _random_like(m):
    return np.sum(_draw_like(m, m * 0.5, _RS) ** 2)


_EPS22 = np.random.RandomState(0).randn(2, 2)


def _replayed_like(m):
    return np.sum((_EPS22 * np.exp(0.5 * m) + m) ** 2)


def test_a_starred_call_of_a_variadic_function_without_source():
    from tangent_ad.testing import check_grads, numerical_grad
    m, v = np.array([[0.1, 0.2], [0.3, -0.4]]), np.array([[1.0, -0.5], [0.25, 2.0]])
    gradient, forward = tad.grad(_random_like), tad.jvp(_random_like)
    _RS.seed(0)
    check_grads(_replayed_like, lambda q: gradient(q), (m,))
    _RS.seed(0)
    assert forward(m, v)[1] == pytest.approx(np.sum(numerical_grad(_replayed_like, (m,), 0) * v),
                                             rel=1e-6)


def test_a_starred_call_that_needs_an_adjoint_it_cannot_bind_is_refused():
    def spread_broadcast(xs):
        return np.sum(np.broadcast_arrays(*xs)[0])
    with pytest.raises(tad.TangentADError, match="broadcast_arrays"):
        tad.grad(spread_broadcast)([np.ones(2), np.ones(2)])


def test_empty_kwargs_passed_on_in_forward_mode_and_hvp():
    from call_functions import calls_symmetrized
    rng = np.random.default_rng(4)
    x, t = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    _, tangent = tad.jvp(calls_symmetrized)(x, 1.5, t)
    h = 1e-6
    expected = (calls_symmetrized(x + h * t, 1.5) - calls_symmetrized(x - h * t, 1.5)) / (2 * h)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6)
    g = tad.grad(calls_symmetrized)
    expected = (g(x + h * t, 1.5) - g(x - h * t, 1.5)) / (2 * h)
    np.testing.assert_allclose(tad.hvp(calls_symmetrized)(x, 1.5, t), expected,
                               rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", ["calls_with_keywords_through_a_wrapper",
                                  "keywords_into_kwargs"])
def test_keywords_into_kwargs_in_every_mode(name):
    """``@shifted`` forwards ``*args, **kwargs`` to a function with literal
    defaults, called with keywords: the wrapper takes the function's own
    parameters and defaults (frontend/wrappers.py). A closure that passes
    them on gets a pullback per set of keyword names, one parameter each
    (frontend/signatures.py)."""
    import call_functions
    from corpus import check_all_modes
    rng = np.random.default_rng(5)
    check_all_modes(getattr(call_functions, name), (rng.normal(size=3), rng.normal(size=3)),
                    wrt=(0, 1))


def test_a_pullback_is_made_per_set_of_keyword_names():
    from call_functions import keywords_into_kwargs
    source = tad.show_source(tad.grad(keywords_into_kwargs, wrt=(0, 1)))
    assert "def pullback_passed_dargs_scale_with_scale(args=(), scale=None):" in source
    assert "def pullback_passed_dargs_with_mode(args=(), mode=None):" in source
