"""SciPy rules that refuse: an argument without a closed-form derivative
(gammainc's a, a Bessel order); and scipy.stats' parameters passed by
position, which once were refused and now bind in SciPy's order. The
derivatives themselves are checked by the rule table
(tests/rule_specs_scipy.py)."""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.errors import NoDerivativeError, TangentADError

special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")


def gammainc_in_a(a, x):
    return np.sum(special.gammainc(a, x))


def bessel_in_order(v, x):
    return np.sum(special.jv(v, x))


def betainc_in_a(a, x):
    return np.sum(special.betainc(a, 2.0, x))


def betainc_in_b(b, x):
    return np.sum(special.betainc(2.0, b, x))


def norm_by_position(x, m):
    return np.sum(stats.norm.logpdf(x, m))


@pytest.mark.parametrize("make", [tad.grad, tad.jvp], ids=["grad", "jvp"])
@pytest.mark.parametrize("f", [gammainc_in_a, bessel_in_order])
def test_an_argument_without_a_closed_form_is_refused(f, make):
    with pytest.raises(NoDerivativeError) as info:
        make(f, wrt=(0,))
    assert "with respect to its argument 'x1'" in str(info.value)
    assert info.value.lineno is not None


@pytest.mark.parametrize("make", [tad.grad, tad.jvp], ids=["grad", "jvp"])
@pytest.mark.parametrize("f, param", [(betainc_in_a, "x1"), (betainc_in_b, "x2")])
def test_betainc_is_refused_in_its_shape_parameters(f, param, make):
    with pytest.raises(NoDerivativeError) as info:
        make(f, wrt=(0,))
    assert f"with respect to its argument '{param}'" in str(info.value)


def test_the_other_argument_is_differentiated():
    x = np.array([0.5, 1.5])
    expected = np.exp(1.5 * np.log(x) - x) / special.gamma(2.5)
    np.testing.assert_allclose(tad.grad(gammainc_in_a, wrt=(1,))(2.5, x), expected)


def test_stats_parameters_by_position_bind_in_scipys_order():
    x, m = np.array([0.3, -1.2]), np.array([0.5, 0.1])
    gx, gm = tad.grad(norm_by_position, wrt=(0, 1))(x, m)
    np.testing.assert_allclose(gx, -(x - m))  # d/dx of -(x - m)**2 / 2
    np.testing.assert_allclose(gm, x - m)


def gradient_with_spacing(y):
    return np.sum(np.gradient(y, 0.5) ** 2)


def test_a_numpy_function_keeps_its_own_star_args():
    # np.gradient(f, *varargs, axis=None, edge_order=1) has no **kwargs: its
    # spacings are not the rule's axis and edge_order (they were bound there
    # for one commit, and crashed inside the derivative)
    y = np.array([0.3, 0.5, 1.2, 2.0])
    try:
        got = tad.grad(gradient_with_spacing)(y)
    except TangentADError:
        return  # refused: fine
    h = 1e-6
    want = [(gradient_with_spacing(y + h * e) - gradient_with_spacing(y - h * e)) / (2 * h)
            for e in np.eye(4)]
    np.testing.assert_allclose(got, want, rtol=1e-6)


linalg = pytest.importorskip("scipy.linalg")


def lu_of_a_wide_matrix(a):
    return np.sum(linalg.lu_factor(a)[0])


def lu_solve_conjugate(a, b):
    return np.sum(linalg.lu_solve(linalg.lu_factor(a), b, trans=2))


def test_lu_factor_of_a_matrix_that_is_not_square_is_refused():
    a = np.arange(6.0).reshape(2, 3) + np.eye(2, 3)
    with pytest.raises(NoDerivativeError, match="square matrices only"):
        tad.grad(lu_of_a_wide_matrix)(a)
    with pytest.raises(NoDerivativeError, match="square matrices only"):
        tad.jvp(lu_of_a_wide_matrix)(a, np.ones_like(a))


def test_lu_solve_with_the_conjugate_transpose_is_refused():
    a, b = np.eye(2) * 2.0 + 0.5, np.ones(2)
    with pytest.raises(NoDerivativeError, match="trans=0 and trans=1"):
        tad.grad(lu_solve_conjugate, wrt=(0, 1))(a, b)


# ---- scipy.integrate.odeint: an adjoint ODE backwards, a sensitivity ODE forwards

integrate = pytest.importorskip("scipy.integrate")

def _network_rhs(y, t, params):
    for W, b in params:
        y = np.tanh(W @ y + b)
    return y - 0.2 * t * y


def _ode_loss(y0, params):
    ys = integrate.odeint(_network_rhs, y0, np.linspace(0.0, 0.5, 4), tuple((params,)),
                rtol=1e-11, atol=1e-11)
    return np.sum(ys[-1] ** 2) + np.sum(ys[1])


def test_odeint_of_a_linear_ode_matches_the_closed_form():
    ts = np.array([0.0, 0.5, 1.0])

    def loss(y0, a):
        return np.sum(integrate.odeint(_linear_decay, y0, ts, args=(a,), rtol=1e-12, atol=1e-12))

    y0, a = np.array([1.0, 2.0]), 0.7
    gy, ga = tad.grad(loss, wrt=(0, 1))(y0, a)
    np.testing.assert_allclose(gy, np.sum(np.exp(-a * ts)) * np.ones(2), rtol=1e-9)
    assert ga == pytest.approx(np.sum(y0) * np.sum(-ts * np.exp(-a * ts)), rel=1e-9)
    assert isinstance(ga, float)
    g32 = tad.grad(loss)(y0.astype(np.float32), a)
    assert g32.dtype == np.float32


def _linear_decay(y, t, a):
    return -a * y


def test_odeint_with_a_list_of_layers_as_args():
    pytest.importorskip("scipy.integrate")
    rng = np.random.default_rng(2)
    params = [(rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3) * 0.1) for _ in range(2)]
    y0 = rng.normal(size=3)
    gy0, gparams = tad.grad(_ode_loss, wrt=(0, 1))(y0, params)
    h = 1e-4  # (the solver's adaptive steps make differences noisy below that)
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        numeric = (_ode_loss(y0 + e, params) - _ode_loss(y0 - e, params)) / (2 * h)
        assert gy0[i] == pytest.approx(numeric, rel=1e-5, abs=1e-7)
    W = params[0][0]
    for i, j in ((0, 0), (1, 2)):
        e = np.zeros_like(W)
        e[i, j] = h
        up = [(W + e, params[0][1]), params[1]]
        down = [(W - e, params[0][1]), params[1]]
        numeric = (_ode_loss(y0, up) - _ode_loss(y0, down)) / (2 * h)
        assert gparams[0][0][i, j] == pytest.approx(numeric, rel=1e-5, abs=1e-7)
    value, tangent = tad.jvp(_ode_loss, wrt=(0,))(y0, params, np.ones(3))
    assert tangent == pytest.approx(np.sum(gy0), rel=1e-6)


def _decay(y, t):
    return -y


def _ode_in_time(t1):
    return np.sum(integrate.odeint(_decay, np.ones(2), np.array([0.0, t1])))


def test_odeint_refuses_the_times():
    pytest.importorskip("scipy.integrate")
    with pytest.raises(tad.NoDerivativeError, match="'t'"):
        tad.grad(_ode_in_time)(0.5)


def _decay_at_one(a):
    ys = integrate.odeint(_linear_decay, np.array([2.0]), np.array([0.0, 1.0]), (a,),
                          rtol=1e-12, atol=1e-12)
    return ys[1, 0]


def test_odeint_second_derivatives_in_the_args_match_the_closed_form():
    """y(1) = 2 exp(-a): its second derivative in a is 2 exp(-a), reverse
    over reverse and forward over reverse (unodeint's tangent)."""
    pytest.importorskip("scipy.integrate")
    a = 0.7
    exact = 2.0 * np.exp(-a)
    assert tad.grad(tad.grad(_decay_at_one))(a) == pytest.approx(exact, rel=1e-7)
    assert tad.hvp(_decay_at_one)(a, 1.0) == pytest.approx(exact, rel=1e-7)


def test_odeint_hessian_vector_product_with_a_list_of_layers_as_args():
    pytest.importorskip("scipy.integrate")
    rng = np.random.default_rng(5)
    params = [(rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3) * 0.1) for _ in range(2)]
    y0, v = rng.normal(size=3), rng.normal(size=3)
    product = tad.hvp(_ode_loss)(y0, params, v)
    gradient = tad.grad(_ode_loss)
    h = 1e-4
    numeric = (gradient(y0 + h * v, params) - gradient(y0 - h * v, params)) / (2 * h)
    assert product == pytest.approx(numeric, rel=1e-5, abs=1e-7)
