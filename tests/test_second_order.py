"""Reverse mode over a gradient: ``grad(grad(f))``, mixed partials, and
functions that call a gradient, against finite differences.

A gradient's reverse rule is a Hessian-vector product (forward over
reverse; ``tangent_ad/second_order.py``), so these tests also cover that
rule's binding: every argument, several ``wrt``, the seed.
"""
import inspect
import itertools
import linecache

import numpy as np
import pytest

import call_functions
import control_flow_functions
import tangent_ad as tad
from tangent_ad.testing import check_grads, numerical_grad

# cases whose differentiated argument is a scalar: grad of their gradient
SCALAR = [(t, n) for t, cases in (("control_flow", control_flow_functions.CASES),
                                  ("calls", call_functions.CASES))
          for n, (_, make, wrt) in sorted(cases.items())
          if wrt == (0,) and isinstance(make(np.random.default_rng(0))[0], float)]
TABLES = {"control_flow": control_flow_functions.CASES, "calls": call_functions.CASES}


def test_the_scalar_cases_include_loops_branches_and_recursion():
    names = {n for _, n in SCALAR}
    assert {"loop_branch", "while_convergence", "loop_with_break", "early_return",
            "power", "mutual"} <= names


@pytest.mark.parametrize("table, name", SCALAR)
@pytest.mark.parametrize("seed", range(2))
def test_grad_of_grad_matches_finite_differences(table, name, seed):
    func, make_args, _ = TABLES[table][name]
    args = make_args(np.random.default_rng(seed))
    gradient = tad.grad(func)
    check_grads(gradient, tad.grad(gradient), args, wrt=(0,))


def test_grad_of_grad_reads_as_a_hessian_vector_product():
    def cube(x):
        return x ** 3

    second = tad.grad(tad.grad(cube))
    assert second(2.0) == pytest.approx(12.0)
    source = tad.show_source(second)
    assert "hvp_cube_dx(x, 1.0, bresult)" in source
    assert "# Grad of: return dcube_dx(x)" in source


def _call_gradient(gradient, weights, params):
    """``def h(<params>): return np.sum(gradient(<params>) * weights)``,
    with readable source (the transformer reads it back)."""
    return _define(f"def h({', '.join(params)}):\n"
                   f"    return np.sum(gradient({', '.join(params)}) * weights)\n",
                   gradient=gradient, weights=weights)


_SOURCES = itertools.count()


def _define(source, **namespace):
    """The function `source` defines, readable by inspect.getsource."""
    filename = f"<test source {next(_SOURCES)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace["np"] = np
    exec(compile(source, filename, "exec"), namespace)
    return namespace[source.split("(")[0].split()[-1]]


ARRAY_CASES = [("control_flow", "conditional_expression"), ("control_flow", "rnn"),
               ("control_flow", "loop_over_tuple"), ("control_flow", "nested_loops"),
               ("calls", "net"), ("calls", "helper_in_loop"), ("calls", "same_helper_twice"),
               ("calls", "star_args")]


@pytest.mark.parametrize("table, name", ARRAY_CASES)
def test_gradient_of_a_function_that_calls_a_gradient(table, name):
    """h = <w, grad_k f>: its gradient with respect to argument j is the
    (j, k) block of the Hessian applied to w, for every pair in wrt."""
    func, make_args, wrt = TABLES[table][name]
    args = make_args(np.random.default_rng(3))
    params = list(inspect.signature(func).parameters)
    rng = np.random.default_rng(4)
    for k in wrt:
        weights = rng.normal(size=np.shape(args[k]))
        h = _call_gradient(tad.grad(func, wrt=(k,)), weights, params)
        check_grads(h, tad.grad(h, wrt=wrt), args, wrt=wrt)


def _call_jvp(forward, weights, params, tangents):
    """``h(<params>, <tangents>)``: a weighted sum of both outputs of the
    jvp `forward`, squared tangent included."""
    args = ", ".join(params + tangents)
    return _define(f"def h({args}):\n"
                   f"    value, slope = forward({args})\n"
                   f"    return np.sum(value * weights) + np.sum(slope ** 2)\n",
                   forward=forward, weights=weights)


@pytest.mark.parametrize("table, name", ARRAY_CASES)
def test_gradient_of_a_function_that_calls_a_jvp(table, name):
    """grad of <w, f> + |J t|^2 with respect to every argument of f and
    to the tangents: vjps, plus forward mode over a vjp."""
    func, make_args, wrt = TABLES[table][name]
    args = make_args(np.random.default_rng(5))
    params = list(inspect.signature(func).parameters)
    rng = np.random.default_rng(6)
    tangents = tuple(rng.normal(size=np.shape(args[k])) for k in wrt)
    weights = rng.normal(size=np.shape(func(*args)))
    h = _call_jvp(tad.jvp(func, wrt=wrt), weights, params, [f"t{k}" for k in wrt])
    every = tuple(wrt) + tuple(range(len(args), len(args) + len(wrt)))
    check_grads(h, tad.grad(h, wrt=every), tuple(args) + tangents, wrt=every)


@pytest.mark.parametrize("table, name", ARRAY_CASES)
def test_gradient_of_a_function_that_calls_a_vjp(table, name):
    """grad of |J^T c|^2 with respect to every argument of f and to the
    cotangent c: forward mode over vjps, and a jvp."""
    func, make_args, wrt = TABLES[table][name]
    args = make_args(np.random.default_rng(7))
    params = list(inspect.signature(func).parameters)
    cotangent = np.random.default_rng(8).normal(size=np.shape(func(*args)))
    back = tad.vjp(func, wrt=wrt)
    args_text = ", ".join(params + ["c"])
    pulled = "np.sum(back(" + args_text + ") ** 2)" if len(wrt) == 1 else \
        " + ".join(f"np.sum(back({args_text})[{i}] ** 2)" for i in range(len(wrt)))
    h = _define(f"def h({args_text}):\n    return {pulled}\n", back=back)
    every = tuple(wrt) + (len(args),)
    check_grads(h, tad.grad(h, wrt=every), tuple(args) + (cotangent,), wrt=every)


def test_vjp_of_a_vjp_with_respect_to_the_cotangent_is_a_jvp():
    def f(x, y):
        return np.sin(x) * y + x ** 2

    x, y, c, u = (np.array([0.3, 1.0]), np.array([2.0, -1.0]), np.array([1.0, 0.5]),
                  np.array([0.7, -0.2]))
    twice = tad.vjp(tad.vjp(f), wrt=2)
    np.testing.assert_allclose(twice(x, y, c, u), tad.jvp(f)(x, y, u)[1])
    assert "def vjp_vjp_f_dx_dcotangent(x, y, cotangent, bresult):" in tad.show_source(twice)


def test_grad_of_a_jvp_reads_as_vjps():
    def f(x, y):
        return np.sin(x) * y

    jf = tad.jvp(f)

    def slope_squared(x, y):
        value, slope = jf(x, y, 1.0)
        return slope ** 2

    d = tad.grad(slope_squared)
    assert d(0.3, 2.0) == pytest.approx(2 * np.cos(0.3) * 2.0 * -np.sin(0.3) * 2.0)
    # two contributions, added entry by entry (x might be a list: see test_containers)
    assert "bx = vjp_f_dx(x, y, bt[0])\n    bx = accumulate(bx, forward_vjp_f_dx_along_x(" \
        "x, y, bt[1], 1.0))" in tad.show_source(d)


def test_mixed_partial_derivatives():
    def f(x, y):
        return np.sin(x * y) + x ** 2 * y

    x, y = 0.3, 0.8
    expected = np.cos(x * y) - x * y * np.sin(x * y) + 2 * x
    assert tad.grad(tad.grad(f, wrt=0), wrt=1)(x, y) == pytest.approx(expected)
    assert tad.grad(tad.grad(f, wrt=1), wrt=0)(x, y) == pytest.approx(expected)
    both = tad.grad(tad.grad(f, wrt=0), wrt=(0, 1))(x, y)
    assert both[0] == pytest.approx(-y * y * np.sin(x * y) + 2 * y)
    assert both[1] == pytest.approx(expected)


def test_a_gradient_of_several_arguments_inside_a_function():
    def f(a, b):
        return np.sum(a ** 2 * b) + np.sum(np.exp(a))

    da_db = tad.grad(f, wrt=(0, 1))

    def h(a, b):
        ga, gb = da_db(a, b)
        return np.sum(ga * gb)

    rng = np.random.default_rng(0)
    check_grads(h, tad.grad(h, wrt=(0, 1)), (rng.normal(size=3), rng.normal(size=3)),
                wrt=(0, 1))


def test_the_seed_of_a_called_gradient_is_differentiated():
    def f(x):
        return np.sum(np.sin(x))

    df = tad.grad(f)

    def h(x, s):
        return np.sum(df(x, s) ** 2)

    args = (np.array([0.3, -0.7]), 1.7)
    check_grads(h, tad.grad(h, wrt=(0, 1)), args, wrt=(0, 1))


def test_newton_step_with_second_derivatives():
    def f(x):
        return x ** 4 - 3.0 * x ** 2 + x

    df, ddf = tad.grad(f), tad.grad(tad.grad(f))
    x = 2.0
    for _ in range(20):
        x = x - df(x) / ddf(x)
    assert abs(4 * x ** 3 - 6 * x + 1) < 1e-10


def test_grad_of_a_value_and_grad_says_its_output_is_a_pair():
    def f(x):
        return x ** 3

    with pytest.raises(tad.NonScalarOutputError, match="tuple of 2"):
        tad.grad(tad.value_and_grad(f))(1.5)


def _call_value_and_grad(both, weights, params):
    """``h(<params>)``: the value of `both` (a value_and_grad) and its
    gradient weighted, so that both outputs carry a cotangent."""
    args = ", ".join(params)
    return _define(f"def h({args}):\n"
                   f"    value, gradient = both({args})\n"
                   f"    return 0.7 * value + np.sum(gradient * weights)\n",
                   both=both, weights=weights)


@pytest.mark.parametrize("table, name", ARRAY_CASES)
def test_gradient_of_a_function_that_calls_value_and_grad(table, name):
    """The value's cotangent adds a vjp of f; the gradient's, a block of
    the Hessian: checked against central differences for every argument."""
    func, make_args, wrt = TABLES[table][name]
    args = make_args(np.random.default_rng(3))
    params = list(inspect.signature(func).parameters)
    rng = np.random.default_rng(5)
    for k in wrt:
        weights = rng.normal(size=np.shape(args[k]))
        h = _call_value_and_grad(tad.value_and_grad(func, wrt=(k,)), weights, params)
        check_grads(h, tad.grad(h, wrt=wrt), args, wrt=wrt)


def test_vjp_and_hessian_through_a_value_and_grad():
    def f(x, y):
        return np.sum(np.sin(x) * x) * y

    x, y = np.array([0.3, 0.7, -1.1]), 1.3
    both = tad.value_and_grad(f, wrt=(0, 1))
    a, u = 0.7, (np.array([1.0, -2.0, 0.5]), 0.25)
    got = tad.vjp(both, wrt=(0,))(x, y, (a, u))  # (the seed stays 1.0, as a gradient's)
    reference = numerical_grad(
        lambda x: a * f(x, y) + np.sum(u[0] * tad.grad(f)(x, y)) +
        u[1] * tad.grad(f, wrt=(1,))(x, y), (x,), 0)
    np.testing.assert_allclose(got, reference, rtol=1e-6)
    h = _call_value_and_grad(tad.value_and_grad(f), np.array([0.5, 1.0, -1.0]), ["x", "y"])
    hessian = tad.hessian(h)(x, y)
    slope = tad.grad(h)
    numerical = np.array([(slope(x + 1e-6 * e, y) - slope(x - 1e-6 * e, y)) / 2e-6
                          for e in np.eye(3)]).T
    np.testing.assert_allclose(hessian, numerical, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("table, name", [("control_flow", "loop_branch"),
                                         ("control_flow", "while_convergence"),
                                         ("control_flow", "early_return"),
                                         ("calls", "power"), ("calls", "mutual")])
def test_third_derivative_matches_finite_differences(table, name):
    """grad of a second derivative: its rule runs forward mode over the
    second derivative's Hessian-vector product (forward over forward over
    reverse)."""
    func, make_args, _ = TABLES[table][name]
    args = make_args(np.random.default_rng(1))
    second = tad.grad(tad.grad(func))
    check_grads(second, tad.grad(second), args, wrt=(0,))


def test_third_and_fourth_derivatives_of_a_polynomial():
    def f(x):
        return x ** 5 - 2.0 * x ** 3

    third = tad.grad(tad.grad(tad.grad(f)))
    assert third(1.5) == pytest.approx(60 * 1.5 ** 2 - 12)
    assert tad.grad(third)(1.5) == pytest.approx(120 * 1.5)
    assert tad.jvp(tad.grad(tad.grad(f)))(1.5, 1.0, 1.0)[1] == pytest.approx(third(1.5))
    assert "hvp_df_dx_dx(x, 1.0, bresult)" in tad.show_source(third)


def test_vjp_of_a_gradient_is_the_hessian_vector_product():
    def f(x):
        return np.sum(np.sin(x) * x) + np.prod(x)

    x, u = np.array([0.3, -1.2, 0.5]), np.array([1.0, 2.0, -0.5])
    np.testing.assert_allclose(tad.vjp(tad.grad(f))(x, u), tad.hvp(f)(x, u), rtol=1e-12)
    value, second = tad.value_and_grad(tad.grad(lambda_free_cube))(2.0)
    assert (value, second) == (pytest.approx(12.0), pytest.approx(12.0))


def lambda_free_cube(s):
    return s ** 3


# ---- defaults that are not literals ---------------------------------------------
# A derivative keeps its function's defaults; one that names a global, or a
# closure's own variable, must be loadable in the generated code (it used
# to raise InternalError: NameError), and a call to a gradient may leave
# parameters with defaults out.

SCALE = 2.0


def scaled_cube(x, s=SCALE):
    return s * x ** 3


def calls_scaled_cube(x):
    return scaled_cube(x) + x


def _make_scaled_square(k):
    def scaled_square(x, k=k):
        return k * x ** 2
    return scaled_square


scaled_square = _make_scaled_square(3.0)


def with_defaults(x, scale=2.0, power=3):
    return scale * x ** power + np.exp(-x)


def recursive_power(x, n=4):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


d_with_defaults = tad.grad(with_defaults)
d_scaled_cube = tad.grad(scaled_cube)


def calls_gradient_with_a_keyword(x):
    return d_with_defaults(x, power=2) ** 2 + d_scaled_cube(x)


def test_a_default_that_names_a_global():
    assert tad.grad(scaled_cube)(1.0) == pytest.approx(6.0)
    assert tad.grad(calls_scaled_cube)(1.0) == pytest.approx(7.0)
    assert "s=SCALE" in tad.show_source(tad.grad(scaled_cube))


def test_a_default_that_names_a_closure_variable():
    assert tad.grad(scaled_square)(2.0) == pytest.approx(12.0)
    assert tad.grad(tad.grad(scaled_square))(2.0) == pytest.approx(6.0)


@pytest.mark.parametrize("func", [with_defaults, recursive_power, scaled_cube])
def test_grad_of_grad_of_a_function_with_defaults(func):
    check_grads(tad.grad(func), tad.grad(tad.grad(func)), (0.7,))


def test_grad_of_grad_with_keyword_arguments():
    got = tad.grad(tad.grad(with_defaults))(0.7, scale=0.5, power=4)
    assert got == pytest.approx(0.5 * 12 * 0.7 ** 2 + np.exp(-0.7))


def test_a_called_gradient_may_leave_defaults_out():
    check_grads(calls_gradient_with_a_keyword, tad.grad(calls_gradient_with_a_keyword), (0.7,))


def tuple_default(x, n=3, scale=SCALE, offsets=(0.5, 1.0)):
    return scale * x ** n + offsets[0] * x


def test_defaults_of_the_function_are_kept():
    assert tad.grad(tuple_default)(1.5) == pytest.approx(14.0)  # a global default
    second = tad.grad(tad.grad(tuple_default))
    assert second(1.5) == pytest.approx(2.0 * 6 * 1.5)
    assert second(1.5, 4) == pytest.approx(2.0 * 12 * 1.5 ** 2)
    assert "n=3, scale=SCALE" in tad.show_source(tad.grad(tuple_default))
    assert "n=3, scale=2.0, offsets=default_offsets" in tad.show_source(second)


WEIGHTS = np.array([0.5, -1.0, 2.0])


def through_arrays(x):
    v = np.array([x, x ** 2, 1.0])
    return np.mean(np.tanh(v * WEIGHTS + x) ** 2)


def test_third_derivative_through_array_helpers():
    """Forward mode over forward-mode code meets its helpers
    (broadcast_like, jvp_mean, tangent_array): they have rules too."""
    second = tad.grad(tad.grad(through_arrays))
    check_grads(second, tad.grad(second), (0.3,))


def test_grad_of_a_vector_gradient_is_refused_at_the_call():
    def f(x):
        return np.sum(x ** 3)

    second = tad.grad(tad.grad(f))
    assert "ensure_scalar" not in tad.show_source(second)  # the product checks instead
    with pytest.raises(tad.NonScalarOutputError, match="3 entries") as info:
        second(np.array([1.0, 2.0, 3.0]))
    assert "hessian" in info.value.hint
    assert second(np.array([2.0])) == pytest.approx(12.0)


def test_show_source_includes_the_functions_made_on_demand():
    def f(x):
        return x ** 3

    second = tad.grad(tad.grad(f))
    source = tad.show_source(second)
    assert source.index("def ddf_dx_dx(") < source.index("def hvp_f_dx(")
    assert source.count("def hvp_f_dx(") == 1


def test_grad_of_a_gradient_of_several_arguments_is_refused_as_non_scalar():
    def f(x, y):
        return x ** 2 * y

    both = tad.grad(f, wrt=(0, 1))
    with pytest.raises(tad.NonScalarOutputError):
        tad.grad(both)(1.0, 2.0)
    np.testing.assert_allclose(tad.vjp(both)(1.0, 2.0, (1.0, 0.0)), 4.0)


# ---- third order: every composition of grad, vjp and jvp (tests/test_compositions.py) ----

def cubic_sine(x):
    return np.sin(x) * x ** 2


def _derivatives_of_cubic_sine(x):
    """f = x² sin x and, by hand, f' = x² cos x + 2x sin x,
    f'' = -x² sin x + 4x cos x + 2 sin x, f''' = -x² cos x - 6x sin x + 6 cos x."""
    s, c = np.sin(x), np.cos(x)
    return (x * x * c + 2 * x * s, -x * x * s + 4 * x * c + 2 * s,
            -x * x * c - 6 * x * s + 6 * c)


def test_vjp_of_jvp_of_vjp_of_a_product():
    """V(a, b, c) = (bc, ac); F = jvp(V) adds the tangent (b dc + c db,
    a dc + c da); for the cotangent ((u1, u2), (w1, w2)) of F's output the
    adjoints are the partials of u1 bc + u2 ac + w1 (b dc + c db) + w2 (a dc + c da)."""
    def mul(a, b):
        return a * b

    F = tad.jvp(tad.vjp(mul, wrt=(0, 1)), wrt=(0, 1, 2))
    a, b, c, da, db, dc = 0.7, -1.3, 0.4, 1.1, -0.6, 2.0
    (u1, u2), (w1, w2) = (0.5, -0.8), (1.5, 0.3)
    adjoints = tad.vjp(F, wrt=tuple(range(6)))(a, b, c, da, db, dc, ((u1, u2), (w1, w2)))
    expected = (u2 * c + w2 * dc, u1 * c + w1 * dc, u1 * b + u2 * a + w1 * db + w2 * da,
                w2 * c, w1 * c, w1 * b + w2 * a)
    np.testing.assert_allclose(adjoints, expected, rtol=1e-12)


def test_vjp_of_vjp_of_vjp_is_the_third_derivative():
    # vjp(f)(x, c) = c f'(x), its vjp (x, c, u) -> u c f''(x), and so on
    third = tad.vjp(tad.vjp(tad.vjp(cubic_sine)))
    assert list(inspect.signature(third).parameters) == ["x", "cotangent", "cotangent2",
                                                         "bresult"]
    x, c, u, w = 0.8, 0.5, -1.5, 2.0
    assert third(x, c, u, w) == pytest.approx(w * u * c * _derivatives_of_cubic_sine(x)[2])


def test_vjp_of_jvp_of_a_gradient_passes_the_seed():
    # F = jvp(grad f): (x, s, dx) -> (s f', s f'' dx); for the cotangent (u, w)
    first, second, third = _derivatives_of_cubic_sine(0.8)
    F = tad.jvp(tad.grad(cubic_sine))
    x, s, dx, u, w = 0.8, 1.7, -0.4, 0.5, 1.5
    assert tad.vjp(F)(x, s, dx, (u, w)) == pytest.approx(
        u * s * second + w * s * third * dx)
    np.testing.assert_allclose(
        tad.vjp(F, wrt=(0, 1, 2))(x, s, dx, (u, w)),
        (u * s * second + w * s * third * dx, u * first + w * second * dx, w * s * second))


@pytest.mark.parametrize("contract", ["dot", "tensordot"])
def test_third_order_of_dot_and_tensordot(contract):
    """vjp(jvp(vjp(f))) of a bilinear f, against finite differences of the
    scalar <cotangent, jvp(vjp(f))(...)>."""
    def f(x, y):
        return np.dot(x, y)

    def g(x, y):
        return np.tensordot(x, y, axes=([1], [0]))

    func = f if contract == "dot" else g
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    c, dx, dy, dc = rng.normal(size=(2, 2)), x + 1, y - 1, rng.normal(size=(2, 2))
    F = tad.jvp(tad.vjp(func, wrt=(0, 1)), wrt=(0, 1, 2))
    args = (x, y, c, dx, dy, dc)
    value, tangent = F(*args)
    u = (rng.normal(size=x.shape), rng.normal(size=y.shape))
    w = (rng.normal(size=x.shape), rng.normal(size=y.shape))

    def pairing(*a):
        (vx, vy), (tx, ty) = F(*a)
        return np.sum(u[0] * vx + w[0] * tx) + np.sum(u[1] * vy + w[1] * ty)

    adjoints = tad.vjp(F, wrt=tuple(range(6)))(*args, (u, w))
    for i, adjoint in enumerate(adjoints):
        np.testing.assert_allclose(adjoint, numerical_grad(pairing, args, i), atol=1e-6)


def test_jvp_of_vjp_of_a_gradient_differentiates_its_seed_adjoint():
    # V = vjp(grad f, wrt=(x, s)): (x, s, u) -> (u s f'', u f'); along (dx, ds, du)
    first, second, third = _derivatives_of_cubic_sine(0.8)
    V = tad.vjp(tad.grad(cubic_sine), wrt=(0, 1))
    x, s, u, dx, ds, du = 0.8, 1.7, -0.4, 0.5, 1.5, -2.0
    value, tangent = tad.jvp(V, wrt=(0, 1, 2))(x, s, u, dx, ds, du)
    np.testing.assert_allclose(value, (u * s * second, u * first))
    np.testing.assert_allclose(tangent, (
        du * s * second + u * ds * second + u * s * third * dx,
        du * first + u * second * dx))


def test_a_gradients_callers_with_and_without_the_seed_keep_their_own_source():
    """grad(g) and grad(g, wrt=seed) differentiate two callers of g = grad(f)
    of different signatures; reading one back must not find the other's lines."""
    def f(x):
        return np.sin(x) * x ** 2

    g = tad.grad(f)
    second = tad.grad(g)
    by_seed = tad.grad(g, wrt="bresult")
    first, second_value, third = _derivatives_of_cubic_sine(0.8)
    assert by_seed(0.8, 2.0) == pytest.approx(first)
    assert tad.grad(second)(0.8) == pytest.approx(third)
    assert second(0.8) == pytest.approx(second_value)


def test_grad_of_a_tuple_of_arrays_is_refused_as_non_scalar():
    def f(A, B):
        return np.dot(A, B)

    A, B = np.ones((2, 2)), np.ones((2, 3))
    with pytest.raises(tad.NonScalarOutputError, match="tuple of 2 values"):
        tad.grad(tad.vjp(f, wrt=(0, 1)))(A, B, np.ones((2, 3)))
    with pytest.raises(tad.NonScalarOutputError):  # the seed alone of a vector gradient
        tad.grad(tad.grad(lambda_free_dot), wrt="bresult")(np.ones(3), np.ones(3), 1.0)


def lambda_free_dot(x, y):
    return np.dot(x, y)


def test_functions_made_on_demand_have_names_of_their_own():
    """One name, one function, in a show_source: the tangent-only forward
    function of a gradient along other arguments, of a vjp and of a user's
    function are each named after what they differentiate."""
    def f(x, y):
        return np.sin(x * y)

    source = tad.show_source(tad.vjp(tad.jvp(tad.vjp(f, wrt=(0, 1)), wrt=(0, 1, 2)),
                                     wrt=tuple(range(6))))
    names = [line.split("(")[0][4:] for line in source.splitlines() if line.startswith("def ")]
    bodies = {}
    for text in source.split("\n\n\n"):
        if text.startswith("def "):
            assert bodies.setdefault(text.split("(")[0], text) == text
    assert len(names) > 10
    # forward mode over: f itself, vjp(f, wrt=x) along x and y, and the vjp
    # of vjp(f, wrt=(x, y)) with respect to its cotangent along everything
    assert {"tangent_f_dx_y", "hvp_vjp_f_dx_dx_y",
            "hvp_vjp_vjp_f_dx_y_dcotangent_dx_y_cotangent"} <= set(names)
    mixed = tad.show_source(tad.grad(tad.grad(f, wrt=0), wrt=1))
    assert "by = hvp_df_dy_dx(x, y, 1.0, bresult)" in mixed
    assert "def hvp_df_dy_dx(x, y, bresult, dx):" in mixed  # over grad(f, wrt=y) along x


def _eigenvalues(x):
    w, v = np.linalg.eigh(x)
    return w


def test_reverse_and_forward_over_the_vjp_of_eigh_read_one_triangle():
    # eigh reads the lower triangle of its argument. Its adjoint used to be
    # symmetrized, so reverse mode over the vjp (built on forward mode over
    # it) gave a wrong number (autograd's test_eigvalh_lower found it); now
    # the adjoint is folded onto the triangle, and both orders are exact
    # along changes of either triangle
    rng = np.random.default_rng(0)
    m = rng.normal(size=(4, 4))
    h, c, u = m.T @ m, rng.normal(size=4), rng.normal(size=(4, 4))
    h[0, 3] += 0.5  # not symmetric: only the lower triangle counts
    vjp = tad.vjp(_eigenvalues)

    def pulled(x):
        return np.sum(vjp(x, c) * u)

    expected = np.zeros_like(h)
    for i in np.ndindex(h.shape):
        step = np.zeros_like(h)
        step[i] = 1e-6
        expected[i] = (pulled(h + step) - pulled(h - step)) / 2e-6
    adjoint = tad.vjp(vjp, wrt=(0,))(h, c, u)
    np.testing.assert_allclose(adjoint, expected, rtol=1e-5, atol=1e-8)
    assert np.all(np.triu(adjoint, 1) == 0)
    e = rng.normal(size=(4, 4))
    _, tangent = tad.jvp(vjp, wrt=(0,))(h, c, e)
    np.testing.assert_allclose(np.sum(tangent * u), np.sum(expected * e), rtol=1e-5)


SINE_WEIGHTED = lambda x: np.sum(np.sin(x) * x)  # noqa: E731 (a lambda is the point)


def test_derivatives_of_derivatives_of_a_lambda():
    # names made from a lambda's ``<lambda>`` were written into the rules'
    # source (``hvp_<lambda>_dx``): a SyntaxError reported as an
    # InternalError (autograd's test suite, which differentiates lambdas)
    rng = np.random.default_rng(4)
    x, t, u = rng.normal(size=(3, 3))
    grad = tad.grad(SINE_WEIGHTED)
    caller = lambda y: np.sum(grad(y) * u)  # noqa: E731
    np.testing.assert_allclose(tad.grad(caller)(x), numerical_grad(caller, (x,), 0),
                               rtol=1e-6, atol=1e-8)
    vjp = tad.vjp(SINE_WEIGHTED)  # (x, c) -> c grad f(x)
    pulled = tad.vjp(vjp, wrt=(0, 1))(x, 0.7, u)  # (0.7 H u, <grad f(x), u>)
    hessian_u = (grad(x + 1e-6 * u) - grad(x - 1e-6 * u)) / 2e-6
    np.testing.assert_allclose(pulled[0], 0.7 * hessian_u, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(pulled[1], np.sum(grad(x) * u), rtol=1e-10)
    jvp = tad.jvp(SINE_WEIGHTED)  # (x, t) -> (f(x), <grad f(x), t>)
    bx, bt = tad.vjp(jvp, wrt=(0, 1))(x, t, (0.3, 2.0))
    hessian_t = (grad(x + 1e-6 * t) - grad(x - 1e-6 * t)) / 2e-6
    np.testing.assert_allclose(bx, 0.3 * grad(x) + 2.0 * hessian_t, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(bt, 2.0 * grad(x), rtol=1e-10)


def test_a_value_and_grad_of_complex_arguments_through_a_conjugated_rule():
    """np.abs makes the gradient non-holomorphic (conjugated): the value's
    part and the gradient's keep their conventions (d/dRe + i d/dIm)."""
    def f(x):
        return np.sum(np.abs(x) ** 3 + np.real(x))

    h = _define("def h(x):\n"
                "    value, gradient = both(x)\n"
                "    return 0.7 * value + np.sum(np.real(gradient * np.conj(gradient)))\n",
                both=tad.value_and_grad(f))
    x = np.array([0.3 + 0.2j, -0.7j, 1.0 - 0.4j])
    got = tad.grad(h)(x)
    step = 1e-6
    expected = [(h(x + step * e) - h(x - step * e)) / (2 * step) +
                1j * (h(x + 1j * step * e) - h(x - 1j * step * e)) / (2 * step)
                for e in np.eye(3)]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _lifted_gradient(x, y):
    return tad.grad(lambda t: np.sin(t * x) * t)(y) * x


def test_no_text_tangent_ad_wrote_is_ever_parsed(monkeypatch):
    """Rules, callers and seed adjoints are built as trees and a lambda
    lifted out of a function keeps its tree: what is differentiated
    again is read from those trees, never from the texts printed for
    tracebacks and show_source (issue 15)."""
    import ast
    from tangent_ad import texts
    parsed, parse = [], ast.parse

    def recording_parse(source, *args, **kwargs):
        parsed.append(source)
        return parse(source, *args, **kwargs)
    monkeypatch.setattr(ast, "parse", recording_parse)

    def h(x, y):
        return np.sum(np.sin(x) * y ** 2 + x * np.cos(y))

    x, y = np.array([0.3, 0.5]), np.array([1.2, -0.4])
    second = tad.grad(lambda x: np.sum(tad.value_and_grad(h)(x, y)[1] * x))(x)
    fd = numerical_grad(lambda x: np.sum(tad.grad(h)(x, y) * x), (x,), 0)
    np.testing.assert_allclose(second, fd, rtol=1e-6)
    tad.vjp(tad.grad(h, wrt=("x", "y")))(x, y, (x, y))
    tad.vjp(tad.jvp(h))(x, y, x, (1.0, 2.0))
    tad.grad(tad.grad(tad.grad(lambda s: np.sin(s) ** 3)))(0.4)
    lifted = tad.grad(_lifted_gradient)(0.3, 0.7)
    assert lifted == pytest.approx(numerical_grad(_lifted_gradient, (0.3, 0.7), 0))
    written = {text for name, text in texts._TEXTS.items()
               if name.startswith("<tangent_ad ")
               and (" rule of " in name or " rule " not in name)}  # not a table's rows
    assert any("rule_of_" in text for text in written)
    assert any("_lifted" in text for text in written)
    assert not [text for text in parsed if text in written]
