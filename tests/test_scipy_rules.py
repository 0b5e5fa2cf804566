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
