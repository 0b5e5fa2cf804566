"""Functions as values and the lazy forms of Python, in every mode.

Each case is checked against central differences at random points: grad,
jvp and hvp, optimized and not (``corpus.check_all_modes``), and its
gradient keeps a float32 argument's dtype and shape.
"""
import numpy as np
import pytest

import tangent_ad as tad
import function_value_factories as factories
import function_value_functions as fv
from corpus import check_all_modes
from tangent_ad.testing import check_grads, check_jvp

CASES = [
    "passes_registered_functions", "passes_a_user_function", "loop_over_functions",
    "comprehension_over_functions", "generator_over_functions", "dict_of_functions",
    "aliased_function", "enumerate_functions", "zip_functions_and_weights",
    "nested_def_in_a_tuple", "generator_in_sum", "generator_in_max_and_tuple",
    "generator_in_list", "map_with_a_function", "map_with_a_lambda",
    "map_with_a_partial",
    "filter_with_a_lambda", "dict_comprehension_with_condition",
    "calls_with_function_defaults", "calls_a_derivative", "gradient_through_a_passed_factory",
    "spreads_into_defaults",
]
MATRIX_CASES = ["factory_closures", "lambda_factory_instances",
                "lambda_capturing_a_differentiated_value", "factory_of_another_module",
                "network_of_mixed_layers", "network_through_indexed_layers"]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("seed", range(2))
def test_every_mode_matches_finite_differences(name, seed):
    w = np.random.default_rng(seed).uniform(-1.0, 1.0, size=3)
    check_all_modes(getattr(fv, name), (w,))


@pytest.mark.parametrize("name", MATRIX_CASES)
@pytest.mark.parametrize("seed", range(2))
def test_closures_made_or_passed_in_every_mode(name, seed):
    W = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(3, 3))
    check_all_modes(getattr(fv, name), (W,))


@pytest.mark.parametrize("name", MATRIX_CASES)
def test_closures_made_or_passed_keep_float32(name):
    W = np.random.default_rng(8).uniform(-1.0, 1.0, size=(3, 3)).astype(np.float32)
    f = getattr(fv, name)
    assert tad.grad(f)(W).dtype == np.float32
    check_grads(f, tad.grad(f), (W,))


def test_a_function_default_is_checked_when_the_derivative_runs():
    w = np.array([0.3, -0.5, 0.7])
    check_grads(fv.reduce_with, tad.grad(fv.reduce_with), (w,))
    with pytest.raises(AssertionError, match="made for its default _r=np.sum"):
        tad.grad(fv.reduce_with)(w, np.mean)


def test_a_factory_is_written_out_in_the_caller():
    source = tad.show_source(tad.grad(fv.factory_closures))
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert any("pullback_layer" in line for line in code)
    assert not any("make_layer(" in line for line in code)  # only in the comments


@pytest.mark.parametrize("name", CASES)
def test_float32_gradient_keeps_dtype_and_shape(name):
    w = np.random.default_rng(7).uniform(-1.0, 1.0, size=3).astype(np.float32)
    f = getattr(fv, name)
    g = tad.grad(f)(w)
    assert g.dtype == np.float32 and g.shape == (3,)
    check_grads(f, tad.grad(f), (w,))


def test_a_factory_of_another_module_is_written_out_with_its_own_globals():
    source = tad.show_source(tad.grad(fv.factory_of_another_module))
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert not any("make_layer(" in line or "make_shift(" in line for line in code)
    # its module's globals, read through the module when the derivative runs
    assert any("function_value_factories.act(" in line for line in code)
    W = np.eye(3) * 0.3
    before = tad.grad(fv.factory_of_another_module)(W)
    factories.scale = 1.5
    try:
        after = tad.grad(fv.factory_of_another_module)(W)
        check_grads(fv.factory_of_another_module, tad.grad(fv.factory_of_another_module), (W,))
    finally:
        factories.scale = 0.5
    assert not np.allclose(before, after)


def test_a_rule_that_calls_its_vjp_maker_is_written_out_when_differentiated_again():
    """hvp over a rule of autograd's form (``maker(ans, x)(g)``): the
    gradient's call of the lambda the maker returns is written out, so
    forward mode sees through it (it was a call it could not see)."""
    W = np.random.default_rng(3).uniform(-1.0, 1.0, size=(3, 3))
    with tad.registry.REGISTRY.scoped():
        tad.adjoint(factories.softplus_sum)(factories.softplus_sum_adjoint)
        gradient = tad.grad(fv.calls_a_rule_written_as_a_maker)
        assert "softplus_sum_vjp(" in tad.show_source(gradient)
        check_all_modes(fv.calls_a_rule_written_as_a_maker, (W,))
        hessian = tad.hessian(fv.calls_a_rule_written_as_a_maker)(W)
        h = 1e-6
        for i, j in ((0, 0), (1, 1), (2, 1)):
            e = np.zeros_like(W)
            e[i, j] = h
            numeric = (gradient(W + e) - gradient(W - e)) / (2 * h)
            np.testing.assert_allclose(hessian[..., i, j], numeric, rtol=1e-6, atol=1e-8)


def test_a_loop_over_layers_of_several_classes_is_unrolled_and_checked():
    source = tad.show_source(tad.grad(fv.network_of_mixed_layers))
    assert "for layer in" not in source
    assert "assert len(layers) == 3 and type(layers[0]) == DenseLayer" in source
    W = np.random.default_rng(4).uniform(-1.0, 1.0, size=(3, 3))
    fv.LAYERS.append(fv.SumPoolLayer())
    try:  # another list: another derivative, for its four layers
        check_grads(fv.network_of_mixed_layers, tad.grad(fv.network_of_mixed_layers), (W,))
    finally:
        fv.LAYERS.pop()


def test_a_passed_function_specializes_the_pullback():
    source = tad.show_source(tad.grad(fv.passes_registered_functions))
    assert "def pullback_apply_twice_dv_with_sin(fn, v):" in source
    assert "def pullback_apply_twice_dv_with_tanh(fn, v):" in source
    assert "bv = bt * np.cos(v)" in source


def test_an_item_of_a_tuple_of_functions_is_the_function_itself():
    source = tad.show_source(tad.grad(fv.aliased_function))
    assert "np.sin(" in source and "pullback_smooth" in source
    assert "call_value" not in source  # not a call of a value known when it runs


def test_a_loop_over_functions_is_unrolled_into_readable_calls():
    source = tad.show_source(tad.grad(fv.loop_over_functions))
    assert "np.sin(w)" in source and "np.cos(w)" in source
    assert "for f in" not in source


def test_redefining_a_written_out_factory_makes_a_new_derivative(tmp_path):
    """The factory's statements are in the caller's derivative: a new
    definition of the factory (a notebook cell run again) must not leave
    the old derivative in the cache."""
    import importlib.util
    import linecache
    text = (
        "import numpy as np\n\n\n"
        "def make(W):\n"
        "    def layer(x):\n"
        "        return np.tanh(W @ x)\n"
        "    return layer\n\n\n"
        "def f(W):\n"
        "    return np.sum(make(W)(np.ones(2)))\n")
    path = tmp_path / "factory_module.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("factory_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    W = np.eye(2) * 0.5
    before = tad.grad(module.f)(W)
    changed = text.replace("np.tanh(W @ x)", "np.sin(W @ x)")
    path.write_text(changed)
    linecache.checkcache()
    exec(compile(changed.split("def f")[0], str(path), "exec"), vars(module))
    after = tad.grad(module.f)(W)
    np.testing.assert_allclose(after, np.cos(W @ np.ones(2))[:, None] * np.ones((2, 2)))
    assert not np.allclose(before, after)


def comprehension_variable_named_like_an_alias(w):
    act = np.tanh
    ys = [act * 2.0 for act in [w, w * 3.0]]  # its own `act`, an array
    return np.sum(act(ys[1]))


def test_a_comprehension_variable_is_not_replaced_by_the_alias():
    w = np.array([0.3, -0.5, 0.7])
    check_grads(comprehension_variable_named_like_an_alias,
                tad.grad(comprehension_variable_named_like_an_alias), (w,))


def _smooth(v):
    return v * np.tanh(v)


def calls_functions_it_is_given(fs, w):
    return sum(np.sum(f(w)) for f in fs)


def test_functions_known_only_when_the_code_runs_are_differentiated_then():
    """`fs` is an argument: each f(w) is a call of a function value, whose
    derivative is made when the derivative runs (runtime/function_values.py)."""
    w = np.array([0.3, -0.5, 0.7])
    fs = [np.sin, np.cos, _smooth]
    gradient = tad.grad(calls_functions_it_is_given, wrt=1)
    check_grads(lambda v: calls_functions_it_is_given(fs, v), lambda v: gradient(fs, v), (w,))
    tangent = tad.jvp(calls_functions_it_is_given, wrt=1)
    check_jvp(lambda v: calls_functions_it_is_given(fs, v),
              lambda v, dv: tangent(fs, v, dv), (w,))
    product = tad.hvp(calls_functions_it_is_given, wrt=1)
    check_jvp(lambda v: gradient(fs, v), lambda v, t: (gradient(fs, v), product(fs, v, t)), (w,))
    assert "call_value(vjp_function(" in tad.show_source(gradient)
