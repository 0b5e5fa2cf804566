"""An adversarial batch against composed transforms.

``grad(grad(f))``, third derivatives, ``jvp`` of a second derivative,
``hessian`` against ``jacobian(grad(f))``, functions that call a gradient,
a jvp or a vjp, ``vjp`` of a gradient and of a vjp, repeated (staged)
calls, ``optimized=False``, the readability of ``show_source`` and the
refusals. Every value is checked against central finite differences of
a lower derivative, or against a closed form.
"""
import math

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.errors import InternalError

X3 = np.array([0.3, -0.8, 1.1])
V3 = np.array([0.5, 0.2, -0.7])
M23 = np.array([[0.4, -1.3, 0.9], [1.2, 0.2, -0.5]])


def numeric(f, x, eps=1e-5):
    """d f / d x by central differences: shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype=np.float64)
    out = np.asarray(f(x[()] if x.ndim == 0 else x), dtype=np.float64)
    result = np.zeros(out.shape + x.shape)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        if x.ndim == 0:
            up, down = up[()], down[()]
        diff = (np.asarray(f(up)) - np.asarray(f(down))) / (2 * eps)
        result[(Ellipsis,) + i] = diff
    return result


def close(got, want, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), want, rtol=rtol, atol=atol)


# ---- scalar functions: second and third derivatives ------------------------------

def poly(x):
    return x ** 4 - 3.0 * x ** 2 + x


def trig(x):
    return np.sin(2.0 * x) * np.cos(x)


def math_mix(x):
    return math.exp(math.sin(x)) + math.log(1.0 + x * x) * math.sqrt(2.0 + x)


def for_loop(x):
    y = x
    for i in range(3):
        y = y * np.sin(y) + x
    return y


def while_loop(x):
    y = x
    n = 0
    while n < 4:
        y = np.cos(y) * x
        n = n + 1
    return y


def branchy(x):
    if x > 0.5:
        y = x ** 3
    elif x > -0.5:
        y = np.exp(x) * x
    else:
        y = -x ** 2
    return y


def rec_power(x, n):
    if n == 0:
        return 1.0
    return x * rec_power(x, n - 1)


def rec_caller(x):
    return rec_power(np.sin(x), 4) + x


def helper(a, b):
    return a * np.exp(b)


def calls_helper(x):
    s = helper(x, x * 0.5)
    return helper(s, -x) + s ** 2


def with_lambda(x):
    sq = lambda t: t * t * x
    return sq(np.sin(x)) + sq(2.0)


def with_closure(x):
    def inner(t):
        return np.tanh(t * x)
    return inner(x) * inner(2.0)


def tuple_inside(x):
    pair = (x * 2.0, np.sin(x))
    d = {"a": pair[0], "b": pair[1] ** 2}
    parts = [d["a"], d["b"], x]
    return parts[0] * parts[1] + parts[2] ** 3


SCALAR_FUNCS = [for_loop, while_loop, branchy, rec_caller, calls_helper, with_lambda,
                with_closure, tuple_inside, math_mix, trig]


@pytest.mark.parametrize("func", SCALAR_FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, -0.3, -1.2])
def test_grad_of_grad(func, x):
    g = tad.grad(func)
    gg = tad.grad(g)
    close(g(x), numeric(func, x))
    close(gg(x), numeric(g, x))


@pytest.mark.parametrize("func", SCALAR_FUNCS, ids=lambda f: f.__name__)
def test_third_derivative(func):
    x = 0.45
    gg = tad.grad(tad.grad(func))
    ggg = tad.grad(gg)
    close(ggg(x), numeric(gg, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("func", SCALAR_FUNCS, ids=lambda f: f.__name__)
def test_jvp_of_second_derivative(func):
    x = 0.45
    gg = tad.grad(tad.grad(func))
    value, tangent = tad.jvp(gg)(x, 1.0, 2.0)  # a gradient's jvp takes the seed
    close(value, gg(x))
    close(tangent, 2.0 * numeric(gg, x), rtol=1e-5, atol=1e-6)


def test_closed_form_third_derivatives():
    d3 = tad.grad(tad.grad(tad.grad(poly)))
    d4 = tad.grad(d3)
    for x in (-1.5, 0.0, 2.0):
        close(d3(x), 24.0 * x)
        close(d4(x), 24.0)
    # trig = sin(2x) cos(x) = (sin 3x + sin x) / 2
    t3 = tad.grad(tad.grad(tad.grad(trig)))
    for x in (-0.4, 0.9):
        close(t3(x), (-27.0 * np.cos(3 * x) - np.cos(x)) / 2.0)


# ---- array functions: hessian, jacobian of the gradient, hvp ---------------------

def where_max(x):
    y = np.where(x > 0.0, x ** 3, np.sin(x))
    return np.sum(np.maximum(y, 0.1 * x) * x)


def norm_axis(x):
    m = np.outer(x, x) + M23.T @ M23
    return np.linalg.norm(np.sum(np.tanh(m), axis=0)) + np.sum(np.sum(m ** 2, axis=1) * x)


def loop_array(x):
    h = x
    for i in range(3):
        h = np.tanh(h * 1.3 + x[i])
    return np.sum(h ** 2)


def while_array(x):
    total = 0.0
    k = 0
    while k < len(x):
        total = total + np.exp(x[k]) * np.sum(x)
        k += 1
    return total


def rec_sum(x, n):
    if n == 0:
        return np.sum(x ** 2)
    return np.sum(np.sin(x)) * rec_sum(x * 0.5, n - 1)


def rec_array(x):
    return rec_sum(x, 2)


ARRAY_FUNCS = [where_max, norm_axis, loop_array, while_array, rec_array]


@pytest.mark.parametrize("func", ARRAY_FUNCS, ids=lambda f: f.__name__)
def test_hessian_vs_jacobian_of_gradient(func):
    g = tad.grad(func)
    h = tad.hessian(func)(X3)
    j = tad.jacobian(g)(X3)
    want = numeric(g, X3)
    close(h, want, rtol=1e-5, atol=1e-6)
    close(j, want, rtol=1e-5, atol=1e-6)
    close(tad.hvp(func)(X3, V3), want @ V3, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("func", ARRAY_FUNCS, ids=lambda f: f.__name__)
def test_vjp_of_gradient(func):
    g = tad.grad(func)
    got = tad.vjp(g)(X3, V3)  # the gradient's seed is not a parameter of its vjp
    close(got, numeric(g, X3).T @ V3, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("func", ARRAY_FUNCS, ids=lambda f: f.__name__)
def test_grad_of_directional_second_derivative(func):
    # x -> <v, H(x) v>, a scalar: its gradient is a third derivative
    def second(x):
        return V3 @ tad.hessian(func)(x) @ V3
    hv = tad.hvp(func)
    g = tad.grad(func)

    def h_dir(x):
        return np.sum(g(x) * V3)
    gh = tad.grad(h_dir)
    close(gh(X3), numeric(g, X3).T @ V3, rtol=1e-5, atol=1e-6)
    close(hv(X3, V3), numeric(g, X3) @ V3, rtol=1e-5, atol=1e-6)


# ---- several arguments, wrt by name and index, defaults and keywords -------------

def two_args(x, y, scale=2.0):
    return np.sum(np.sin(x * y) * scale) + np.sum(x ** 2) * y[0]


def test_mixed_partials_by_name_and_index():
    y = np.array([0.7, -0.2, 0.4])
    gx = tad.grad(two_args, wrt="x")
    gxy = tad.grad(lambda_free_dot_x, wrt=(0, 1))
    # d/dy <v, grad_x f(x, y)>
    got = tad.grad(gx_dot, wrt="y")(X3, y)
    close(got, numeric(lambda yy: gx_dot(X3, yy), y), rtol=1e-5, atol=1e-6)
    got_x, got_y = gxy(X3, y)
    close(got_x, numeric(lambda xx: lambda_free_dot_x(xx, y), X3), rtol=1e-5, atol=1e-6)
    close(got_y, numeric(lambda yy: lambda_free_dot_x(X3, yy), y), rtol=1e-5, atol=1e-6)
    assert gx is tad.grad(two_args, wrt=0)


GX = tad.grad(two_args, wrt="x")


def gx_dot(x, y):
    return np.sum(GX(x, y) * V3)


def lambda_free_dot_x(x, y):
    return np.sum(GX(x, y, 3.0) * np.cos(y))


def with_default(x, scale=1.5, power=3):
    return np.sum(scale * x ** power)


def test_second_derivative_with_defaults_and_keywords():
    g = tad.grad(with_default)
    h = tad.hessian(with_default)
    close(h(X3), np.diag(1.5 * 6 * X3))
    close(h(X3, 2.0), np.diag(2.0 * 6 * X3))
    close(h(X3, 2.0, 2), np.diag(2.0 * 2 * np.ones(3)))
    close(tad.jacobian(g)(X3, 2.0), np.diag(2.0 * 6 * X3))
    s = tad.grad(tad.grad(scalar_default))
    close(s(0.5), 2.0 * 6 * 0.5)
    close(s(0.5, 3.0), 3.0 * 6 * 0.5)
    close(s(0.5, k=3.0), 3.0 * 6 * 0.5)


def scalar_default(x, k=2.0):
    return k * x ** 3


# ---- functions that call a gradient, a jvp or a vjp -----------------------------

def energy(x, w):
    return np.sum(np.tanh(x * w) ** 2) + 0.5 * np.sum(x ** 2 * w)


def field(x, w):
    return np.sin(x) * w + x ** 2


FORCE = tad.grad(energy)
FORCE_BOTH = tad.grad(energy, wrt=(0, 1))
FIELD_JVP = tad.jvp(field)
FIELD_JVP_BOTH = tad.jvp(field, wrt=(0, 1))
FIELD_VJP = tad.vjp(field)
FIELD_VJP_W = tad.vjp(field, wrt="w")


def descent(x, w):
    for i in range(3):
        x = x - 0.1 * FORCE(x, w)
    return np.sum(x ** 2)


def descent_branch(x, w):
    total = 0.0
    for i in range(3):
        if i % 2 == 0:
            total = total + np.sum(FORCE(x, w) * w)
        else:
            gx, gw = FORCE_BOTH(x, w)
            total = total + np.sum(gx * gw)
        x = x * 0.9
    return total


def calls_jvp_unpacked(x, w):
    value, slope = FIELD_JVP(x, w, w)
    return np.sum(value * slope)


def calls_jvp_indexed(x, w):
    out = FIELD_JVP(x, w, np.ones(3))
    return np.sum(out[1] ** 2) + np.sum(out[0])


def calls_jvp_two_tangents(x, w):
    value, slope = FIELD_JVP_BOTH(x, w, x, w * 2.0)
    return np.sum(slope * value)


def calls_jvp_in_loop(x, w):
    s = 0.0
    k = 0
    while k < 2:
        s = s + np.sum(FIELD_JVP(x, w, x)[1] * w)
        x = np.sin(x)
        k += 1
    return s


def calls_vjp(x, w):
    return np.sum(FIELD_VJP(x, w, w) ** 2) + np.sum(FIELD_VJP_W(x, w, x) * x)


def calls_vjp_branch(x, w):
    if np.sum(x) > 0.0:
        b = FIELD_VJP(x, w, x * w)
    else:
        b = FIELD_VJP(x, w, w)
    return np.sum(b * np.cos(x))


W3 = np.array([0.9, -0.4, 1.3])
CALLERS = [descent, descent_branch, calls_jvp_unpacked, calls_jvp_indexed,
           calls_jvp_two_tangents, calls_jvp_in_loop, calls_vjp, calls_vjp_branch]


@pytest.mark.parametrize("func", CALLERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X3, -X3])
def test_gradient_of_a_caller_wrt_all_args(func, x):
    gx, gw = tad.grad(func, wrt=(0, 1))(x, W3)
    close(gx, numeric(lambda xx: func(xx, W3), x), rtol=1e-5, atol=1e-6)
    close(gw, numeric(lambda ww: func(x, ww), W3), rtol=1e-5, atol=1e-6)
    by_name = tad.grad(func, wrt=("w",))(x, W3)
    close(by_name, gw, rtol=1e-12, atol=0)


@pytest.mark.parametrize("func", [descent, descent_branch], ids=lambda f: f.__name__)
def test_hvp_of_a_caller(func):
    # callers of a jvp: refused (docs/modes.md, "Not yet")
    g = tad.grad(func)
    got = tad.hvp(func)(X3, W3, V3)
    close(got, numeric(lambda xx: g(xx, W3), X3) @ V3, rtol=1e-5, atol=1e-6)


def test_hvp_of_a_function_that_calls_a_gradient_of_two_arguments():
    # bug (fixed): the gradient's rule passed its cotangent as `*d[result]`,
    # which forward mode could not bind to the product's parameters:
    # UnsupportedSyntaxError "bad call to hvp_e_dx_w: missing ... 'dw'"
    def want(x):
        return numeric(lambda xx: tad.grad(descent_branch)(xx, W3), x) @ V3
    close(tad.hvp(descent_branch)(X3, W3, V3), want(X3), rtol=1e-5, atol=1e-6)
    third = tad.grad(tad.grad(tad.grad(scalar_pair)))
    close(third(0.7), numeric(tad.grad(tad.grad(scalar_pair)), 0.7), rtol=1e-5)


def pair_energy(x, y):
    return x ** 3 * np.sin(y) + y ** 2 * x


PAIR_GRAD = tad.grad(pair_energy, wrt=(0, 1))


def scalar_pair(x):
    gx, gy = PAIR_GRAD(x, 2.0 * x)
    return gx * gy


# ---- staged copies: repeated calls, float32, optimized=False ---------------------

def staged_cases():
    return [
        ("grad_grad", tad.grad(tad.grad(for_loop)), lambda t: (t(0.45),)),
        ("ggg", tad.grad(tad.grad(tad.grad(trig))), lambda t: (t(0.45),)),
        ("hvp", tad.hvp(where_max), lambda t: (t(X3), t(V3))),
        ("vjp_grad", tad.vjp(tad.grad(norm_axis)), lambda t: (t(X3), t(V3))),
        ("grad_caller", tad.grad(descent, wrt=(0, 1)), lambda t: (t(X3), t(W3))),
        ("grad_jvp_caller", tad.grad(calls_jvp_unpacked, wrt=(0, 1)), lambda t: (t(X3), t(W3))),
        ("grad_vjp_caller", tad.grad(calls_vjp, wrt=(0, 1)), lambda t: (t(X3), t(W3))),
        ("vjp_vjp", tad.vjp(tad.vjp(field), wrt=(0, 2)),
         lambda t: (t(X3), t(W3), t(V3), t(X3))),
        ("jacobian_grad", tad.jacobian(tad.grad(loop_array)), lambda t: (t(X3),)),
    ]


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _flat(v)]
    return [np.asarray(value)]


@pytest.mark.parametrize("index", range(9))
def test_repeated_calls_are_identical_and_keep_dtype(index):
    name, fn, make = staged_cases()[index]
    f64 = lambda v: np.float64(v) if np.ndim(v) == 0 else np.asarray(v, np.float64)
    f32 = lambda v: np.float32(v) if np.ndim(v) == 0 else np.asarray(v, np.float32)
    py = lambda v: float(v) if np.ndim(v) == 0 else np.asarray(v, np.float64)
    first = _flat(fn(*make(py)))
    for _ in range(5):
        again = _flat(fn(*make(py)))
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
    for _ in range(4):
        low = _flat(fn(*make(f32)))
        for a, b in zip(first, low):
            if np.ndim(b) > 0 or isinstance(b, np.ndarray) and b.dtype != object:
                assert b.dtype == np.float32, (name, b.dtype)
            np.testing.assert_allclose(b, a, rtol=2e-3, atol=2e-3)
    for _ in range(4):
        again = _flat(fn(*make(py)))
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("func", SCALAR_FUNCS[:6], ids=lambda f: f.__name__)
def test_unoptimized_second_and_third_derivatives_agree(func):
    fast = tad.grad(tad.grad(func))
    slow = tad.grad(tad.grad(func, optimized=False), optimized=False)
    close(slow(0.45), fast(0.45), rtol=1e-12, atol=1e-12)
    slow3 = tad.grad(slow, optimized=False)
    close(slow3(0.45), tad.grad(fast)(0.45), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("func", ARRAY_FUNCS, ids=lambda f: f.__name__)
def test_unoptimized_hessian_and_hvp_agree(func):
    close(tad.hessian(func, optimized=False)(X3), tad.hessian(func)(X3), rtol=1e-12, atol=1e-12)
    close(tad.vjp(tad.grad(func, optimized=False), optimized=False)(X3, V3),
          tad.hvp(func)(X3, V3), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("func", CALLERS, ids=lambda f: f.__name__)
def test_unoptimized_caller_gradients_agree(func):
    close(tad.grad(func, wrt=(0, 1), optimized=False)(X3, W3)[1],
          tad.grad(func, wrt=(0, 1))(X3, W3)[1], rtol=1e-12, atol=1e-12)


JF = tad.jvp(poly)


def slope_sq(x):
    value, slope = JF(x, 1.0)
    return slope ** 2


# ---- refusals ----------------------------------------------------------------------

JAC_FIELD = tad.jacobian(field)


def calls_jacobian(x):
    return np.sum(JAC_FIELD(x, W3) * M23[:, :3].T[:3, :3].sum())


def _refusal(call):
    with pytest.raises(tad.TangentADError) as info:
        call()
    assert not isinstance(info.value, InternalError)
    assert info.value.message and info.value.hint
    return info.value


@pytest.mark.parametrize("call", [
    lambda: tad.grad(tad.value_and_grad(poly))(0.5),  # its output is a pair
    lambda: tad.grad(tad.grad(where_max))(X3),
    lambda: tad.grad(tad.grad(tad.grad(poly)))(X3),
    lambda: tad.grad(tad.jvp(poly))(0.5, 1.0),
    lambda: tad.grad(tad.vjp(field))(X3, W3, V3),
    lambda: tad.hvp(field)(X3, W3, V3),
    lambda: tad.hessian(field)(X3, W3),
], ids=["grad_vag", "gg_vector", "ggg_vector", "grad_jvp_pair", "grad_vjp_vector",
        "hvp_vector_output", "hessian_vector_output"])
def test_refused_with_a_message_and_a_hint(call):
    _refusal(call)


def test_vjp_of_a_value_and_grad():
    # once refused: the cotangent (a, u) of (poly(x), poly'(x)) gives
    # a * poly'(x) + u * poly''(x)
    both = tad.vjp(tad.value_and_grad(poly))
    close(both(0.5, (1.0, 1.0)), tad.grad(poly)(0.5) + tad.grad(tad.grad(poly))(0.5))
    close(both(0.5, (2.0, -1.0)),
          2.0 * tad.grad(poly)(0.5) - tad.grad(tad.grad(poly))(0.5))


def test_third_derivative_of_a_caller_of_a_jvp():
    # once refused: the jvp's rule is now vjps plus forward mode over a vjp,
    # each generated code that forward mode can read
    second = tad.grad(tad.grad(slope_sq))
    close(tad.grad(second)(0.5), numeric(second, 0.5), rtol=1e-5, atol=1e-6)


def test_hvp_of_a_caller_of_a_jvp():
    g = tad.grad(calls_jvp_unpacked)
    got = tad.hvp(calls_jvp_unpacked)(X3, W3, V3)
    close(got, numeric(lambda xx: g(xx, W3), X3) @ V3, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda: tad.grad(tad.jacobian(poly))(0.5),
    lambda: tad.grad(tad.hessian(poly))(0.5),
    lambda: tad.grad(tad.hvp(poly))(0.5, 1.0),
    lambda: tad.jvp(tad.hvp(poly))(0.5, 1.0, 1.0),
    lambda: tad.grad(calls_jacobian)(X3),
], ids=["grad_jacobian", "grad_hessian", "grad_hvp", "jvp_hvp", "caller_of_jacobian"])
def test_the_dense_and_hvp_wrappers_are_refused_plainly(call):
    # bug (fixed): the wrappers carry the record of the jvp they call, so
    # grad(tad.jacobian(f)) took them for a jvp and failed inside the jvp's
    # rule (TypeError: cannot unpack non-iterable float object); the others
    # were refused at `def hessian_vector_product(*args)` in api.py
    error = _refusal(call)
    assert "tangent_ad.jacobian" in error.message
    assert "api.py" not in str(error)


def test_derivative_with_respect_to_a_gradients_seed():
    # bug (fixed): the seed was dropped from the gradient's caller, so the
    # derivative read an undefined name: NameError: 'cotangent'
    dd = tad.grad(tad.grad(poly), wrt="bresult")
    close(dd(0.5, 2.0), tad.grad(poly)(0.5))
    both = tad.grad(tad.grad(poly), wrt=(0, 1))(0.5, 2.0)
    close(both[0], 2.0 * (12 * 0.25 - 6.0))
    close(both[1], tad.grad(poly)(0.5))
    x_seed = tad.grad(tad.grad(where_max), wrt=(0, 1))
    with pytest.raises(tad.TangentADError):
        x_seed(X3, 2.0)  # a vector: not a scalar function


# fixed: the vjp's rule's jvp part is generated code (tangent only), so
# forward mode over it works
def test_hvp_of_a_function_that_calls_a_vjp():
    g = tad.grad(calls_vjp)
    got = tad.hvp(calls_vjp)(X3, W3, V3)
    close(got, numeric(lambda xx: g(xx, W3), X3) @ V3, rtol=1e-5, atol=1e-6)


def test_no_internal_names_in_composed_sources():
    fns = [tad.grad(tad.grad(for_loop)), tad.grad(tad.grad(tad.grad(trig))),
           tad.jvp(tad.grad(tad.grad(branchy))), tad.hvp(where_max),
           tad.vjp(tad.grad(norm_axis)), tad.vjp(tad.vjp(field), wrt=(0, 2)),
           tad.grad(descent_branch, wrt=(0, 1)), tad.grad(calls_jvp_indexed, wrt=(0, 1)),
           tad.grad(calls_vjp_branch, wrt=(0, 1)), tad.hessian(with_default),
           tad.jacobian(tad.grad(loop_array)), tad.hvp(descent), tad.grad(gx_dot, wrt="y")]
    for fn in fns:
        source = tad.show_source(fn)
        compile(source, "<show_source>", "exec")
        assert "__tad" not in source and "_tad_" not in source
        assert "* 1.0\n" not in source and "1.0 * " not in source
        assert "*bt" not in source  # cotangents of several arguments are spelled out
