"""Calls of function values known only when the code runs
(tangent_ad/runtime/function_values.py): the value's derivative is made
when the derivative runs, in every mode and to any order; a value that
depends on the differentiated arguments is refused at the user's line."""
import numpy as np
import pytest
from scipy import integrate

import tangent_ad as tad
from corpus import check_all_modes
from tangent_ad.testing import check_grads, check_jvp

X = np.array([0.3, -0.8, 1.1])
d = None  # the rule notation's d[x]; never run


def _smooth(v):
    return v * np.tanh(v)


def _pick(kind):
    return {"sin": np.sin, "smooth": _smooth}[kind]


def value_from_a_call(x):
    h = _pick("smooth")
    return np.sum(h(x) * np.cos(x))


def call_of_a_call(x):
    return np.sum(_pick("sin")(x) * x)


def _layers():
    return [np.tanh, _smooth, np.sin]


def loop_over_values_from_a_call(x):
    h = x
    for layer in _layers():
        h = layer(h) + 0.5 * h
    return np.sum(h * h)


def item_of_a_list_from_a_call(x):
    fs = _layers()
    return np.sum(fs[1](x) * fs[2](x))


def _inner(a):
    return np.sin(a) * a


def derivative_made_when_it_runs(x):
    inner_gradient = tad.grad(_inner)
    return inner_gradient(x) * x


def nested_def_as_a_value(x):
    def inner(y):  # reads nothing of the function: a value like a global one
        return y[0] * y[1]

    inner_gradient = tad.grad(inner)
    return np.sum(np.sin(np.array(inner_gradient((x, x * x)))))


def apply(fn, x):
    return np.sum(fn(x) * x)


def _reducer():
    return np.sum


def keyword_arguments_of_a_value(x):
    total = _reducer()
    m = np.outer(x, x)
    return np.sum(total(m, axis=0) * x) + total(np.sin(m), keepdims=True)[0, 0]


def a_value_given_a_star_tuple(x):
    h = _pick("smooth")
    args = (x * 2.0,)
    return np.sum(h(*args))


def a_method_of_a_local_random_state(x):
    rs = np.random.RandomState(0)
    noise = rs.randn(3)
    wide = rs.normal(size=(2, 3), scale=0.5)
    return np.sum(np.sin(x) * noise) + np.sum(wide @ x)


@pytest.mark.parametrize("func", [value_from_a_call, call_of_a_call, loop_over_values_from_a_call,
                                  item_of_a_list_from_a_call, keyword_arguments_of_a_value,
                                  a_value_given_a_star_tuple, a_method_of_a_local_random_state],
                         ids=lambda f: f.__name__)
def test_a_function_value_is_differentiated_in_every_mode(func):
    check_all_modes(func, (X,))


def test_a_derivative_made_in_the_code_has_derivatives_to_the_third_order():
    x = 0.7
    d2 = -np.sin(x) * x + 2 * np.cos(x)  # derivatives of sin(a) * a
    d3 = -np.cos(x) * x - 3 * np.sin(x)
    d4 = np.sin(x) * x - 4 * np.cos(x)
    first = tad.grad(derivative_made_when_it_runs)
    assert first(x) == pytest.approx(d2 * x + (np.cos(x) * x + np.sin(x)), rel=1e-12)
    assert tad.grad(first)(x) == pytest.approx(d3 * x + 2 * d2, rel=1e-12)
    assert tad.grad(tad.grad(first))(x) == pytest.approx(d4 * x + 3 * d3, rel=1e-12)
    assert tad.jvp(derivative_made_when_it_runs)(x, 1.0)[1] == pytest.approx(first(x), rel=1e-12)


def gradient_of_a_lambda_reading_x(x):
    inner = lambda y: x * np.sin(y)
    return x * tad.grad(inner)(2.0)


def gradient_of_an_inline_lambda(x):
    return np.sum(tad.grad(lambda y: np.sum(np.exp(y) * np.tanh(x[0])))(x[1:]))


def gradient_of_a_nested_def_reading_x(x):
    def inner(y):
        s = np.sin(y * x[0])
        return s * s + y * x[1]

    return tad.grad(inner)(0.3) * x[2] + inner(0.4)


@pytest.mark.parametrize("func,x", [(gradient_of_a_lambda_reading_x, 1.3),
                                    (gradient_of_an_inline_lambda, X),
                                    (gradient_of_a_nested_def_reading_x, X)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_a_derivative_of_a_closure_over_the_functions_variables(func, x):
    """tad.grad(lambda y: f(x, y))(y0) in the function: the lambda is lifted
    (frontend/transforms_in_code.py) and its gradient called with x too."""
    check_all_modes(func, (x,))


def test_a_nested_def_that_reads_nothing_is_a_value():
    check_all_modes(nested_def_as_a_value, (0.7,))


def test_a_function_argument_of_the_transformed_function():
    gradient = tad.grad(apply, wrt=1)
    for fn in (np.sin, _smooth):
        check_grads(lambda v: apply(fn, v), lambda v: gradient(fn, v), (X,))
    value, tangent = tad.jvp(apply, wrt=1)(np.cos, X, np.ones(3))
    assert tangent == pytest.approx(np.sum(np.cos(X) - X * np.sin(X)), rel=1e-12)


def test_float32_stays_float32():
    x = X.astype(np.float32)
    gradient = tad.grad(value_from_a_call)(x)
    assert gradient.dtype == np.float32 and gradient.shape == x.shape


def test_the_generated_code_shows_the_call():
    source = tad.show_source(tad.grad(value_from_a_call, optimized=False))
    assert "call_value(h, " in source
    assert "call_value(vjp_function(h, " in source


def _closure_over(w):
    out = None
    for _ in range(2):  # not written out in the caller (frontend/inline.py)
        out = lambda v: np.tanh(w * v)
    return out


def closure_over_a_differentiated_value(w, x):
    h = _closure_over(w)
    return np.sum(h(x))


def local_lambda_as_a_value(x):
    scale = lambda v: v * x
    g = tad.grad(scale)
    return g(2.0)


def keywords_into_a_value(x):
    options = {"axis": 0}
    h = _pick("sin")
    return np.sum(h(x, **options))


def value_without_a_derivative(x):
    return np.sum(np.vectorize(np.sin)(x))


def _square(y):
    return y * y


def _cube(y):
    return y ** 3


def gradient_in_a_nested_def_of_its_parameter(x):
    def through(_square, v):  # the parameter, not the global of that name
        return tad.grad(_square)(v)

    return through(_cube, x) * x


def _step_maker(pair):
    a, b = pair
    return lambda w: tad.grad(lambda y: a * np.sin(y) * w)(b)


def gradient_in_a_lambda_reading_a_nested_local(x):
    return _step_maker((x, 2.0 * x))(x)


def test_a_derivative_made_in_a_nested_function_reads_its_scope():
    """``tad.grad(g)(v)`` inside a nested def or lambda names what the
    nested scope binds: made when that function is transformed (it was
    once made with the enclosing function's names, a wrong gradient here:
    8.0 for 36.0)."""
    assert tad.grad(gradient_in_a_nested_def_of_its_parameter)(2.0) == \
        pytest.approx(36.0, rel=1e-12)
    check_grads(gradient_in_a_nested_def_of_its_parameter,
                tad.grad(gradient_in_a_nested_def_of_its_parameter), (0.7,))
    value, tangent = tad.jvp(gradient_in_a_nested_def_of_its_parameter)(0.7, 1.0)
    assert tangent == pytest.approx(9 * 0.7 ** 2, rel=1e-12)
    func = gradient_in_a_lambda_reading_a_nested_local
    check_grads(func, tad.grad(func), (0.6,))
    check_jvp(func, tad.jvp(func), (0.6,))


def _fixed_point(step, x0):
    x = x0
    for _ in range(40):
        x = step(x)
    return x


def _fixed_point_rule(result, step, x0):
    d[x0] = d[result] * 0.0


def nested_def_of_known_functions_passed_to_a_rule(x, f):
    def step(v):
        return 0.5 * f(v)

    return _fixed_point(step, x) + x


def _calls_with_a_known_function(x):
    return nested_def_of_known_functions_passed_to_a_rule(x, np.sin)


def test_a_nested_function_reading_known_functions_is_passed_to_a_rule():
    """A nested def that reads only functions its caller bound, passed to a
    function with a rule, is passed with them bound (functools.partial):
    the rule's function calls it as written."""
    with tad.registry.REGISTRY.scoped():
        tad.adjoint(_fixed_point)(_fixed_point_rule)
        value, gradient = tad.value_and_grad(_calls_with_a_known_function)(0.3)
        assert value == pytest.approx(_calls_with_a_known_function(0.3), rel=1e-12)
        assert gradient == pytest.approx(1.0)
        source = tad.show_source(tad.grad(_calls_with_a_known_function))
        assert "functools.partial(step, f=f)" in source


def nested_def_reading_x_passed_to_odeint(a):
    def rhs(y, t):
        return -a * y

    return integrate.odeint(rhs, 1.0, np.array([0.0, 1.0]))[-1, 0]


@pytest.mark.parametrize("func,args,message", [
    (closure_over_a_differentiated_value, (1.5, X), "made from the differentiated arguments"),
    (nested_def_reading_x_passed_to_odeint, (0.5,), "rhs reads a of this function"),
    (local_lambda_as_a_value, (0.5,), "made from a function defined in this function"),
    (keywords_into_a_value, (X,), "kwargs in calls are not supported"),
    (value_without_a_derivative, (X,), "has no derivative"),
], ids=lambda v: getattr(v, "__name__", None))
def test_refused_at_the_users_line(func, args, message):
    with pytest.raises(tad.TangentADError, match=message) as info:
        tad.grad(func, wrt=tuple(range(len(args))))(*args)
    first = func.__code__.co_firstlineno
    assert info.value.filename == __file__
    assert first <= info.value.lineno <= first + 4
    assert info.value.hint
