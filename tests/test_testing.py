"""Tests for tangent_ad.testing: the gradient checker must pass right gradients
and, just as importantly, fail wrong ones."""
import ast
import inspect

import numpy as np
import pytest

import tangent_ad.testing as tt
from tangent_ad.errors import TangentADError
from tangent_ad.testing import (GradientMismatch, check_grads, check_vjp_projection,
                                numerical_grad, random_args, tolerances)

SHAPES = [None, (), (1,), (4,), (2, 3), (2, 1, 3)]
DTYPES = [np.float64, np.float32]


def f_sin(x, y):
    return np.sum(np.sin(x) * y)


def df_sin(x, y):
    """Hand-written gradient of f_sin for x and y of the same shape."""
    return np.cos(x) * y, np.sin(x)


def args_for(shape, dtype, seed=0):
    # Keep values away from zero so a 1% error is visible at float32 tolerances.
    return random_args([shape, shape], dtype=dtype, seed=seed, low=0.3, high=1.3)


def wrong(df, how):
    def bad(*args):
        g, h = df(*args)
        if how == "scaled":
            return g * 1.01, h
        if how == "sign":
            return -g, h
        if how == "shape":
            return np.reshape(g, np.shape(g) + (1,)), h
        raise AssertionError(how)
    return bad


# ---- correct gradients pass -------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_correct_gradients_pass(shape, dtype):
    args = args_for(shape, dtype)
    check_grads(f_sin, df_sin, args, wrt=(0, 1))
    check_grads(f_sin, lambda x, y: df_sin(x, y)[0], args)            # single wrt
    check_grads(f_sin, lambda x, y: df_sin(x, y)[1], args, wrt=1)     # int wrt
    check_grads(f_sin, lambda x, y: df_sin(x, y)[::-1], args, wrt=(1, 0))


@pytest.mark.parametrize("scalar_type", [np.float64, np.float32])
def test_numpy_scalar_arguments(scalar_type):
    x, y = scalar_type(0.7), scalar_type(-1.2)
    check_grads(f_sin, df_sin, (x, y), wrt=(0, 1))
    with pytest.raises(GradientMismatch):
        check_grads(f_sin, lambda x, y: (1.01 * np.cos(x) * y, np.sin(x)), (x, y), wrt=(0, 1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_and_python_float_mixed(dtype):
    x, s = random_args([(3, 2), None], dtype=dtype, seed=3)
    df = lambda x, s: (np.cos(x) * s, float(np.sum(np.sin(x))))  # noqa: E731
    check_grads(f_sin, df, (x, s), wrt=(0, 1))
    check_vjp_projection(f_sin, df, (x, s), wrt=(0, 1))


def test_non_differentiated_arguments_may_be_anything():
    def f(x, n, name):
        assert isinstance(n, int) and name == "label"
        return np.sum(x ** n)
    x = np.array([0.5, -1.5, 2.0])
    check_grads(f, lambda x, n, name: n * x ** (n - 1), (x, 3, "label"))


# ---- wrong gradients fail ---------------------------------------------------

@pytest.mark.parametrize("how", ["scaled", "sign", "shape"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_wrong_gradients_fail(shape, dtype, how):
    args = args_for(shape, dtype)
    with pytest.raises(GradientMismatch, match=r"argument 0 \('x'\)"):
        check_grads(f_sin, wrong(df_sin, how), args, wrt=(0, 1))


@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
def test_float64_gradient_for_float32_input_fails(shape):
    x, y = args_for(shape, np.float32)
    df64 = lambda x, y: tuple(np.asarray(g, np.float64) for g in df_sin(x, y))  # noqa: E731
    with pytest.raises(GradientMismatch, match="dtype float64 but the argument has dtype float32"):
        check_grads(f_sin, df64, (x, y), wrt=(0, 1))
    check_grads(f_sin, df64, (x, y), wrt=(0, 1), check_dtype=False)


def test_python_float_argument_needs_a_float_gradient():
    with pytest.raises(GradientMismatch, match="expected a float"):
        check_grads(lambda s: s * s, lambda s: np.array([2 * s]), (1.5,))
    with pytest.raises(GradientMismatch, match="expected a float"):
        check_grads(lambda s: s * s, lambda s: "3.0", (1.5,))
    check_grads(lambda s: s * s, lambda s: 2 * s, (1.5,))
    check_grads(lambda s: s * s, lambda s: np.array(2 * s), (1.5,))  # 0-d is float-like


def test_mismatch_is_an_assertion_error_and_a_tangent_ad_error():
    assert issubclass(GradientMismatch, AssertionError)
    assert issubclass(GradientMismatch, TangentADError)


def test_message_names_argument_errors_and_worst_index():
    x = np.linspace(0.1, 1.2, 12).reshape(3, 4)

    def df(x):
        g = 2 * x
        g[1, 2] += 0.5
        g[2, 3] += 0.1
        return g

    with pytest.raises(GradientMismatch) as info:
        check_grads(lambda x: np.sum(x ** 2), df, (x,))
    msg = str(info.value)
    assert "argument 0 ('x')" in msg
    assert "2 of 12 elements fail" in msg
    assert "max abs error 0.5" in msg
    assert "max rel error" in msg
    assert "worst at index (1, 2)" in msg


def test_all_failing_arguments_are_reported():
    x, y = args_for((3,), np.float64)
    with pytest.raises(GradientMismatch) as info:
        check_grads(f_sin, lambda x, y: (-np.cos(x) * y, 2 * np.sin(x)), (x, y), wrt=(0, 1))
    assert "argument 0 ('x')" in str(info.value) and "argument 1 ('y')" in str(info.value)


def test_nan_gradient_fails():
    x = np.array([0.3, 0.4])
    with pytest.raises(GradientMismatch, match=r"index \(1,\)"):
        check_grads(lambda x: np.sum(np.sin(x)), lambda x: np.array([np.cos(0.3), np.nan]), (x,))


def test_wrong_number_of_gradients_fails():
    x, y = args_for((2,), np.float64)
    with pytest.raises(GradientMismatch, match="tuple of 2 gradients"):
        check_grads(f_sin, lambda x, y: np.cos(x) * y, (x, y), wrt=(0, 1))


def test_criterion_is_atol_plus_rtol_times_numerical():
    # d/dx sum(x**2) at x = 0 is exactly 0: only atol can absorb an error there.
    zero = np.zeros(3)
    check_grads(lambda x: np.sum(x ** 2), lambda x: x + 5e-7, (zero,))
    with pytest.raises(GradientMismatch):
        check_grads(lambda x: np.sum(x ** 2), lambda x: x + 5e-6, (zero,))
    check_grads(lambda x: np.sum(x ** 2), lambda x: x + 5e-6, (zero,), atol=1e-5)
    # Large gradient (2e4): the relative part scales with the numerical value.
    big = np.full(2, 1e4)
    check_grads(lambda x: np.sum(x ** 2), lambda x: 2 * x * (1 + 5e-6), (big,))
    with pytest.raises(GradientMismatch):
        check_grads(lambda x: np.sum(x ** 2), lambda x: 2 * x * (1 + 5e-5), (big,))
    check_grads(lambda x: np.sum(x ** 2), lambda x: 2 * x * (1 + 5e-5), (big,), rtol=1e-4)

    # The scale is |numerical| (the reference), never |analytic|: numerical gradient is 1.
    ones = np.ones(3)
    check_grads(np.sum, lambda x: np.full_like(x, 0.6), (ones,), rtol=0.5, atol=0.0)
    with pytest.raises(GradientMismatch):  # would pass if scaled by |analytic| = 1.8
        check_grads(np.sum, lambda x: np.full_like(x, 1.8), (ones,), rtol=0.5, atol=0.0)


# ---- projection check -------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(300, 200)])
def test_projection_passes_right_gradients(shape, dtype, seed):
    args = args_for(shape, dtype, seed=seed)
    check_vjp_projection(f_sin, df_sin, args, wrt=(0, 1), seed=seed)


@pytest.mark.parametrize("how", ["scaled", "sign", "shape"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(300, 200)])
def test_projection_fails_wrong_gradients(shape, dtype, how):
    args = args_for(shape, dtype)
    with pytest.raises(GradientMismatch, match=r"argument 0 \('x'\)"):
        check_vjp_projection(f_sin, wrong(df_sin, how), args, wrt=(0, 1))


def test_projection_calls_f_twice_per_argument_and_is_seeded():
    calls = []

    def f(x):
        calls.append(x.dtype)
        return np.sum(x ** 3)

    x = random_args([(50, 40)], dtype=np.float32)[0]
    check_vjp_projection(f, lambda x: 3 * x ** 2, (x,))
    assert calls == [np.float64, np.float64]
    messages = []
    for _ in range(2):
        with pytest.raises(GradientMismatch) as info:
            check_vjp_projection(f, lambda x: 3 * x, (x,), seed=5)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "seed=5" in messages[0]


# ---- numerical_grad ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_numerical_grad_matches_analytic(shape, dtype):
    x, y = args_for(shape, dtype)
    gx, gy = numerical_grad(f_sin, (x, y), 0), numerical_grad(f_sin, (x, y), 1)
    for num, exact, arg in [(gx, np.cos(np.float64(x)) * np.float64(y), x),
                            (gy, np.sin(np.float64(x)), y)]:
        if shape is None:
            assert type(num) is float
        else:
            assert isinstance(num, np.ndarray) and num.dtype == np.float64
            assert num.shape == np.shape(arg)
        np.testing.assert_allclose(num, exact, rtol=1e-8, atol=1e-9)


def test_numerical_grad_of_numpy_scalar_and_int_valued_float():
    g = numerical_grad(lambda x: x ** 3, (np.float32(2.0),), 0)
    assert isinstance(g, np.ndarray) and g.shape == () and g.dtype == np.float64
    assert abs(float(g) - 12.0) < 1e-7
    assert abs(numerical_grad(lambda x: x ** 3, (2.0,), 0) - 12.0) < 1e-7
    assert abs(numerical_grad(lambda x: x ** 3, (2,), 0) - 12.0) < 1e-7


def test_numerical_grad_evaluates_in_float64_and_leaves_inputs_alone():
    seen = []

    def f(x, y, s):
        seen.append((x.dtype, y.dtype, type(s)))
        return np.sum(x * y) * s

    x, y = random_args([(2, 2), (2, 2)], dtype=np.float32)
    x_before = x.copy()
    g = numerical_grad(f, (x, y, np.float32(2.0)), 0)
    assert all(s == (np.float64, np.float64, np.float64) for s in seen)
    assert np.array_equal(x, x_before) and x.dtype == np.float32
    np.testing.assert_allclose(g, 2 * y.astype(np.float64), rtol=1e-8)


def test_numerical_grad_accepts_size_one_outputs_and_rejects_others():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(numerical_grad(lambda x: np.sum(x ** 2).reshape(1, 1), (x,), 0),
                               [2.0, 4.0], rtol=1e-8)
    with pytest.raises(ValueError, match="scalar"):
        numerical_grad(lambda x: x ** 2, (x,), 0)


def test_numerical_grad_eps_is_relative_to_magnitude():
    # Without the max(1, |x|) scaling, x = 1e8 would be perturbed below resolution.
    big = np.array([1e8, -3e7])
    np.testing.assert_allclose(numerical_grad(lambda x: np.sum(x ** 2), (big,), 0), 2 * big,
                               rtol=1e-6)


# ---- tolerances, random_args, module hygiene --------------------------------

def test_tolerances():
    r64, a64 = tolerances(np.float64)
    r32, a32 = tolerances(np.float32)
    assert r64 <= 1e-5 and a64 <= 1e-5 and r64 < r32 and a64 < a32
    assert (r32, a32) == pytest.approx((2e-3, 2e-4))
    assert tolerances(float) == (r64, a64)
    assert tolerances(np.float16)[0] > r32
    with pytest.raises(TypeError):
        tolerances(np.int64)


def test_random_args():
    a = random_args([(2, 3), None, (), 4], dtype=np.float32, seed=4, low=2.0, high=3.0)
    assert [np.shape(v) for v in a] == [(2, 3), (), (), (4,)]
    assert type(a[1]) is float
    assert a[0].dtype == a[2].dtype == a[3].dtype == np.float32
    assert isinstance(a[2], np.ndarray)
    assert all(np.all((2.0 <= np.asarray(v)) & (np.asarray(v) <= 3.0)) for v in a)
    b = random_args([(2, 3), None, (), 4], dtype=np.float32, seed=4, low=2.0, high=3.0)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    c = random_args([(2, 3)], dtype=np.float32, seed=5, low=2.0, high=3.0)
    assert not np.array_equal(a[0], c[0])


def test_module_is_a_leaf():
    tree = ast.parse(inspect.getsource(tt))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {m for m in imported if m.startswith("tangent_ad")} <= {"tangent_ad.errors"}


def test_wrt_indices_and_labels():
    x, y = args_for((3,), np.float64)
    check_grads(f_sin, lambda x, y: np.sin(x), (x, y), wrt=-1)
    with pytest.raises(IndexError):
        check_grads(f_sin, lambda x, y: np.sin(x), (x, y), wrt=2)

    def f_var(*xs):
        return np.sum(xs[0] * xs[1])
    with pytest.raises(GradientMismatch, match=r"argument 1: "):
        check_grads(f_var, lambda a, b: 2 * a, (x, y), wrt=1)
