"""The public transforms behave as ../shared/API.md promises."""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import check_grads


def loss(W, b, x):
    h = np.tanh(x @ W + b)
    return np.mean(h ** 2)


def reuse(x, y):
    x = x * y
    x = np.sin(x) + x
    z = x
    z -= 0.5 * y
    return np.sum(z * z)


def mixed_constants(x):
    a = 2 * x + 1
    b = -a / 3 + np.pi * x ** 2
    return np.sum(b * np.e)


def _inputs(rng):
    return rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(5, 3))


def test_grad_of_loss_matches_finite_differences(rng):
    args = _inputs(rng)
    check_grads(loss, tad.grad(loss, wrt=(0, 1)), args, wrt=(0, 1))


def test_wrt_by_name_equals_wrt_by_index(rng):
    args = _inputs(rng)
    by_index = tad.grad(loss, wrt=(0, 1))(*args)
    by_name = tad.grad(loss, wrt=("W", "b"))(*args)
    for a, b in zip(by_index, by_name):
        np.testing.assert_array_equal(a, b)


def test_single_wrt_returns_one_gradient_not_a_tuple(rng):
    args = _inputs(rng)
    dW = tad.grad(loss)(*args)
    assert isinstance(dW, np.ndarray) and dW.shape == (3, 4)


def test_value_and_grad_returns_value_and_gradients(rng):
    args = _inputs(rng)
    value, (dW, db) = tad.value_and_grad(loss, wrt=(0, 1))(*args)
    assert value == pytest.approx(loss(*args))
    check_grads(loss, tad.grad(loss, wrt=(0, 1)), args, wrt=(0, 1))
    np.testing.assert_allclose(dW, tad.grad(loss)(*args))


def test_autodiff_reverse_takes_an_output_adjoint(rng):
    args = _inputs(rng)
    df = tad.autodiff(loss, mode="reverse", wrt=(0,))
    np.testing.assert_allclose(df(*args, 3.0), 3.0 * tad.grad(loss)(*args))


def test_decorator_forms(rng):
    @tad.grad
    def f(x):
        return np.sum(np.sin(x))

    @tad.grad(wrt=(0, 1))
    def g(x, y):
        return np.sum(x * y)

    x, y = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(f(x), np.cos(x))
    gx, gy = g(x, y)
    np.testing.assert_allclose(gx, y)
    np.testing.assert_allclose(gy, x)


@pytest.mark.parametrize("func, shapes, wrt", [
    (reuse, [(4,), (4,)], (0, 1)),
    (mixed_constants, [(2, 3)], (0,)),
])
def test_overwriting_and_constants(rng, func, shapes, wrt):
    args = tuple(rng.normal(size=s) for s in shapes)
    check_grads(func, tad.grad(func, wrt=wrt), args, wrt=wrt)


def test_python_float_argument_gives_python_float():
    def f(x):
        return x * x * 3.0 + 1.0
    g = tad.grad(f)(2.0)
    assert isinstance(g, float) and g == pytest.approx(12.0)


def test_float32_stays_float32(rng):
    args = tuple(a.astype(np.float32) for a in _inputs(rng))
    dW, db = tad.grad(loss, wrt=(0, 1))(*args)
    assert dW.dtype == np.float32 and db.dtype == np.float32
    assert dW.shape == (3, 4) and db.shape == (4,)


def test_inactive_arguments_get_no_adjoint():
    source = tad.show_source(tad.grad(loss, wrt=(0, 1)))
    assert "bx =" not in source and "bx," not in source


def test_output_not_depending_on_wrt_gives_zeros(rng):
    def f(x, y):
        return np.sum(y * 2.0)
    x = rng.normal(size=(2, 2))
    g = tad.grad(f)(x, rng.normal(size=3))
    np.testing.assert_array_equal(g, np.zeros_like(x))


def test_show_source_and_verbose(capsys):
    def f(x):
        return np.sum(np.tanh(x) * 2.0)
    df = tad.grad(f, verbose=1)
    printed = capsys.readouterr().out
    assert printed.strip() == tad.show_source(df).strip()
    assert "# Grad of: return np.sum(np.tanh(x) * 2.0)" in printed


def test_generated_code_is_in_linecache():
    import inspect
    df = tad.grad(loss)
    assert inspect.getsource(df) == tad.show_source(df)


def test_transform_is_cached():
    assert tad.grad(loss, wrt=(0, 1)) is tad.grad(loss, wrt=(0, 1))
    assert tad.grad(loss, wrt=(0, 1)) is not tad.grad(loss, wrt=(0, 1), optimized=False)


def test_unoptimized_gives_the_same_numbers(rng):
    args = _inputs(rng)
    fast = tad.grad(loss, wrt=(0, 1))(*args)
    slow = tad.grad(loss, wrt=(0, 1), optimized=False)(*args)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_non_scalar_output_raises_and_names_vjp(rng):
    def f(x):
        return x * 2.0
    with pytest.raises(tad.NonScalarOutputError, match="vjp"):
        tad.grad(f)(rng.normal(size=3))


def test_bad_wrt_is_a_clear_error():
    with pytest.raises(ValueError, match="not a parameter"):
        tad.grad(loss, wrt=("nope",))
    with pytest.raises(ValueError, match="out of range"):
        tad.grad(loss, wrt=(7,))


def test_generated_source_is_deterministic():
    def f(x, y):
        return np.sum(np.sin(x * y) / (1.0 + y ** 2))
    from tangent_ad import pipeline
    a = tad.show_source(pipeline.transform(f, wrt=("x", "y")))
    b = tad.show_source(pipeline.transform(f, wrt=("x", "y")))
    assert a == b


def test_asserts_and_calls_for_effect_run_in_the_forward_sweep(tmp_path, capsys):
    import importlib.util
    path = tmp_path / "effects.py"
    path.write_text(
        "import numpy as np\n\n"
        "def f(x):\n"
        "    assert x.ndim == 1, 'a vector'\n"
        "    print(f'norm {np.sum(x * x):.1f}')\n"
        "    return np.sum(x ** 3)\n")
    spec = importlib.util.spec_from_file_location("effects", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = tad.grad(module.f)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [3.0, 12.0])
    assert "norm 5.0" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="a vector"):
        tad.grad(module.f)(np.ones((2, 2)))
