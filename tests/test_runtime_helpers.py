"""The helpers of tangent_ad.runtime: their doctests, and the adjoints that
the table of rule specs cannot reach yet through tad.grad (einsum, whose
operands arrive as *args, and eigh, whose result is a pair), each checked
against central differences of the NumPy function itself; and the
tangents of the decompositions' adjoints on more shapes than the rule
table has (tall, wide, stacked), against central differences of the
adjoints.
"""
import doctest
import sys

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import runtime
from tangent_ad.testing import check_grads, check_jvp, numerical_grad


@pytest.mark.parametrize("module", runtime.MODULES, ids=lambda m: m.__name__)
def test_doctests(module):
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (2,)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("ij->", [(3, 2)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    ("ij,ij,i->j", [(3, 2), (3, 2), (3,)]),
    ("i j , j", [(3, 2), (2,)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUMS, ids=[s for s, _ in EINSUMS])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_grad_einsum(subscripts, shapes, dtype):
    rng = np.random.default_rng(7)
    arrays = [rng.uniform(-1, 1, shape).astype(dtype) for shape in shapes]
    weight = rng.uniform(-1, 1, np.shape(np.einsum(subscripts, *arrays))).astype(dtype)
    grads = runtime.grad_einsum(weight, (subscripts, *arrays))
    assert grads[0] is None
    for k, (x, g) in enumerate(zip(arrays, grads[1:])):
        def f(*args):
            return np.sum(np.einsum(subscripts, *args) * weight)
        want = numerical_grad(f, arrays, k)
        assert g.shape == x.shape and g.dtype == dtype
        tol = 1e-6 if dtype == np.float64 else 2e-3
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol)


def test_grad_eigh():
    """Perturbations of a symmetric matrix stay symmetric: a = s + s.T."""
    rng = np.random.default_rng(3)
    s = rng.uniform(-1, 1, (4, 4))
    gw, gv = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, (4, 4))

    def f(s):
        # squares: the sign of each eigenvector is arbitrary
        w, v = np.linalg.eigh(s + s.T)
        return np.sum(w * gw) + np.sum(v ** 2 * gv)

    w, v = np.linalg.eigh(s + s.T)
    ga = runtime.grad_eigh((gw, 2.0 * v * gv), (w, v))
    np.testing.assert_allclose(ga, ga.T)
    np.testing.assert_allclose(ga + ga.T, numerical_grad(f, (s,), 0), rtol=1e-5, atol=1e-7)
    only_w = runtime.grad_eigh((gw, None), (w, v))
    np.testing.assert_allclose(only_w, v @ np.diag(gw) @ v.T)


def test_grad_norm_ord_zero_has_a_zero_derivative():
    x = np.array([1.0, 0.0, -2.0])
    np.testing.assert_array_equal(runtime.grad_norm(1.0, 2.0, x, 0), np.zeros(3))


def test_unpad_refuses_modes_that_compute_values():
    with pytest.raises(NotImplementedError, match="not 'linear_ramp'"):
        runtime.unpad(np.ones(4), 1, "linear_ramp")


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap"])
def test_unpad_is_the_transpose_of_np_pad(mode):
    """<pad(x), g> == <x, unpad(g)> for random x and g."""
    rng = np.random.default_rng(0)
    x, widths = rng.normal(size=(3, 4)), ((4, 1), (0, 6))
    g = rng.normal(size=np.pad(x, widths, mode).shape)
    assert np.sum(np.pad(x, widths, mode) * g) == pytest.approx(
        np.sum(x * runtime.unpad(g, widths, mode)))


def test_digamma_matches_the_derivative_of_log_gamma():
    from math import lgamma
    for x in (-2.5, -0.3, 0.2, 1.0, 3.7, 40.0):
        slope = (lgamma(x + 1e-6) - lgamma(x - 1e-6)) / 2e-6
        assert runtime.digamma(x) == pytest.approx(slope, rel=1e-6)
    assert runtime.digamma(np.float32(2.0)).dtype == np.float32


# ---- tangents of the decompositions' adjoints, against central differences ------

def _slope(x, ord, axes):
    """The slope of a matrix norm, as its adjoint for g = 1 (keepdims)."""
    norm = np.linalg.norm(x, ord, axes, keepdims=True)
    return runtime.grad_norm(np.ones_like(norm), norm, x, ord, axes, True)


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
@pytest.mark.parametrize("shape, axes", [((3, 4), (0, 1)), ((4, 3), (0, 1)),
                                         ((3, 3), (1, 0)), ((3, 2, 4), (2, 0)),
                                         ((2, 4, 3), (-2, -1))],
                         ids=["wide", "tall", "square_transposed", "moved_axes", "stacked"])
def test_jvp_singular_slope(ord, shape, axes):
    x = np.random.default_rng(5).normal(size=shape)
    check_jvp(lambda x: _slope(x, ord, axes),
              lambda x, dx: (_slope(x, ord, axes),
                             runtime.jvp_singular_slope(dx, x, ord, axes)), (x,))
    t = runtime.jvp_singular_slope(np.ones(shape, np.float32), x.astype(np.float32), ord, axes)
    assert t.dtype == np.float32 and t.shape == shape


class _Subclass(np.ndarray):
    pass


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("k", [1, 2])
def test_product_triangle_is_a_triangle_of_the_product(lower, k):
    """A NumPy matrix is cleared in place; stacks and other arrays go
    through np.tril and np.triu. Columns (k = 1) multiply by broadcasting."""
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(4, k)), rng.normal(size=(3, k))
    expected = np.tril(a @ b.T) if lower else np.triu(a @ b.T)
    for x, y in ((a, b), (a[None], b[None]), (a.view(_Subclass), b)):
        got = runtime.product_triangle(x, y, lower)
        np.testing.assert_array_equal(np.reshape(got, expected.shape), expected)
    single = runtime.product_triangle(a.astype(np.float32), b.astype(np.float32), lower)
    assert single.dtype == np.float32
    square = rng.normal(size=(4, 3))
    for like, fortran in ((square, False), (square.T.T, False), (np.asfortranarray(square), True)):
        got = runtime.product_triangle(a, b, lower, like)
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=1e-15)
        assert got.flags.f_contiguous == fortran and got.flags.c_contiguous != fortran


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("stack", [(), (2,)])
def test_jvp_grad_cholesky(upper, stack):
    rng = np.random.default_rng(6)
    b = rng.normal(size=stack + (3, 4))
    a = b @ np.swapaxes(b, -1, -2) + 3.0 * np.eye(3)
    g = rng.normal(size=stack + (3, 3))

    def adjoint(a, g):
        return runtime.grad_cholesky(g, np.linalg.cholesky(a, upper=upper), upper)

    def tangent(a, g, da, dg):
        factor = np.linalg.cholesky(a, upper=upper)
        result = runtime.grad_cholesky(g, factor, upper)
        dfactor = runtime.jvp_cholesky(da, factor, upper)
        return result, runtime.jvp_grad_cholesky(dg, dfactor, result, g, factor, upper)
    check_jvp(adjoint, tangent, (a, g), wrt=(0, 1))


@pytest.mark.parametrize("which", ["both", "values", "vectors"])
def test_jvp_grad_eigh(which):
    """Either adjoint of (w, v) may be None; `s + s.T` keeps the matrix
    symmetric along every direction."""
    rng = np.random.default_rng(8)
    s = rng.normal(size=(2, 3, 3))
    gw = rng.normal(size=(2, 3)) if which != "vectors" else None
    gv = rng.normal(size=(2, 3, 3)) if which != "values" else None

    def adjoint(s):
        return runtime.grad_eigh_pair((gw, gv), np.linalg.eigh(s + np.swapaxes(s, -1, -2)))

    def tangent(s, ds):
        a, da = (m + np.swapaxes(m, -1, -2) for m in (s, ds))
        eigen = np.linalg.eigh(a)
        deigen = runtime.jvp_eigh(da, eigen)
        return adjoint(s), runtime.jvp_grad_eigh((None, None), deigen, (gw, gv), eigen)
    check_jvp(adjoint, tangent, (s,))


def test_jvp_grad_eigh_is_linear_in_the_adjoints():
    rng = np.random.default_rng(9)
    s = rng.normal(size=(3, 3))
    eigen = np.linalg.eigh(s + s.T)
    gw, gv = rng.normal(size=3), rng.normal(size=(3, 3))
    still = (np.zeros(3), np.zeros((3, 3)))
    got = runtime.jvp_grad_eigh((gw, gv), still, (np.zeros(3), np.zeros((3, 3))), eigen)
    np.testing.assert_allclose(got, runtime.grad_eigh((gw, gv), eigen), rtol=1e-12, atol=1e-12)


def test_the_decompositions_tangents_at_complex_matrices():
    # the nuclear norm's slope conj(U V^H) moves as its differences say
    # (its phases cancel); Cholesky's tangent still refuses complex values
    rng = np.random.default_rng(1)
    x, dx = (rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2)) for _ in range(2))

    def slope(a):
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return np.conj(u @ vh)

    np.testing.assert_allclose(runtime.jvp_singular_slope(dx, x, "nuc", (0, 1)),
                               (slope(x + 1e-6 * dx) - slope(x - 1e-6 * dx)) / 2e-6,
                               rtol=1e-6, atol=1e-8)
    z = np.eye(2) * (1.0 + 1.0j)
    with pytest.raises(NotImplementedError, match="cholesky"):
        runtime.jvp_grad_cholesky(z, z, z, z, z)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_unbroadcast_of_a_scalar_adjoint_to_a_size_one_array(shape):
    """grad seeds a (1,)-shaped output with the float 1.0: its adjoint has
    fewer axes than the operand."""
    got = runtime.unbroadcast(2.0, np.ones(shape, np.float32))
    assert got.shape == shape and got.dtype == np.float32 and got.item() == 2.0


@pytest.mark.parametrize("shape, axis, kept", [
    ((1, 3), 1, (1, 1)), ((3, 1), 0, (1, 1)), ((1,), 0, (1,)), ((1, 1), (0, 1), (1, 1)),
    ((2, 1, 3), (0, 2), (1, 1, 1))])
def test_unreduce_of_a_scalar_adjoint_of_a_size_one_reduction(shape, axis, kept):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    for g in (2.0, np.full(np.shape(np.sum(x, axis=axis)), 2.0)):
        got = runtime.unreduce(g, x, axis)
        np.testing.assert_array_equal(got, np.full(shape, 2.0))
    np.testing.assert_array_equal(runtime.unreduce_var(2.0, x, axis),
                                  2.0 * 2.0 * (x - np.mean(x, axis, keepdims=True))
                                  / (x.size // np.prod(kept)))


def test_unreduce_of_a_0d_sum_along_axis_0():
    # NumPy lets np.sum(a, axis=0) take a 0-d `a` (it returns `a`); the
    # adjoint spread it with `axis % ndim`: ZeroDivisionError
    def twice(x):
        s = np.sum(x, axis=0)
        return np.sum(s * s, axis=0)

    check_grads(twice, tad.grad(twice), (np.array([0.3, -0.2, 0.5]),))
    assert runtime.unreduce(2.0, np.float64(3.0), axis=0) == 2.0


def test_abs_slope_curvature_is_the_tangent_of_jvp_abs_slope():
    from tangent_ad.runtime.tangents import abs_slope_curvature, jvp_abs_slope
    rng = np.random.default_rng(3)
    x = rng.normal(size=4) + 1j * rng.normal(size=4)
    t = rng.normal(size=4) + 1j * rng.normal(size=4)
    u = rng.normal(size=4) + 1j * rng.normal(size=4)
    h = 1e-5
    numeric = (jvp_abs_slope(t, x + h * u) - jvp_abs_slope(t, x - h * u)) / (2 * h)
    np.testing.assert_allclose(abs_slope_curvature(t, x, u), numeric, rtol=1e-6, atol=1e-8)
    assert np.all(abs_slope_curvature(t.real, x.real, u.real) == 0.0)


def _sin_of_abs(x):
    return np.sin(np.abs(x)) * x


def test_third_derivative_through_abs():
    third = tad.grad(tad.grad(tad.grad(_sin_of_abs)))
    for x in (0.7, -1.3):
        second = tad.grad(tad.grad(_sin_of_abs))
        h = 1e-5
        numeric = (second(x + h) - second(x - h)) / (2 * h)
        assert third(x) == pytest.approx(numeric, rel=1e-6)


def test_tetragamma_is_the_slope_of_trigamma():
    from tangent_ad.runtime.tangents import tetragamma, trigamma
    x = np.array([-2.7, -0.3, 0.2, 0.6, 1.0, 3.3, 12.0])  # (not at trigamma's switch, 0.5)
    h = 1e-6
    np.testing.assert_allclose(tetragamma(x), (trigamma(x + h) - trigamma(x - h)) / (2 * h),
                               rtol=1e-6)
    assert tetragamma(np.float32(2.0)).dtype == np.float32


def test_third_derivative_of_log_gamma():
    scipy_special = pytest.importorskip("scipy.special")

    def f(x):
        return scipy_special.gammaln(x) * 2.0

    third = tad.grad(tad.grad(tad.grad(f)))
    assert third(2.5) == pytest.approx(2.0 * scipy_special.polygamma(2, 2.5), rel=1e-9)


def test_sigmoid_is_the_slope_of_logaddexp_without_overflow():
    x = np.array([-1000.0, -30.0, -1.5, 0.0, 2.0, 40.0, 1000.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow
        s = runtime.sigmoid(x)
    exact = np.exp(x - np.logaddexp(0.0, x))
    np.testing.assert_allclose(s, exact, rtol=4e-15, atol=0)
    assert runtime.sigmoid(x.astype(np.float32)).dtype == np.float32
    with np.errstate(over="raise"):  # numbers take the same way as arrays
        assert runtime.sigmoid(-1000.0) == 0.0 and runtime.sigmoid(1000.0) == 1.0
        assert runtime.sigmoid(np.float32(-2.0)).dtype == np.float32
        assert runtime.sigmoid(-30.0) == pytest.approx(np.exp(-30.0 - np.logaddexp(0.0, -30.0)),
                                                       rel=4e-15)
    # its forward rule: the second derivative of logaddexp, against differences
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=4), rng.normal(size=4)

    def f(a, b):
        return np.sum(np.logaddexp(a, b) * b)
    hvp = tad.jvp(tad.grad(f, wrt=(1,)), wrt=(1,))
    v = rng.normal(size=4)
    got = hvp(a, b, 1.0, v)
    got = got[-1] if isinstance(got, tuple) else got
    step = 1e-6
    grad = tad.grad(f, wrt=(1,))
    expected = (grad(a, b + step * v) - grad(a, b - step * v)) / (2 * step)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_digamma_gives_the_same_with_scipy_loaded_or_not(monkeypatch):
    """With scipy.special loaded, digamma is its ``psi``; without, the
    NumPy series: the two agree, in value, type and dtype."""
    special = pytest.importorskip("scipy.special")
    x = np.array([-2.5, -0.3, 0.2, 0.7, 1.0, 3.7, 40.0])
    cases = [x, x.astype(np.float32), 1.5, np.float64(0.3)]
    with_scipy = [runtime.digamma(c) for c in cases]
    np.testing.assert_array_equal(with_scipy[0], special.psi(x))
    monkeypatch.delitem(sys.modules, "scipy.special")
    for case, fast in zip(cases, with_scipy):
        alone = runtime.digamma(case)
        assert type(alone) is type(fast) and np.shape(alone) == np.shape(case)
        assert getattr(alone, "dtype", None) == getattr(fast, "dtype", None)
        np.testing.assert_allclose(alone, fast, rtol=2e-6 if np.ndim(case) and
                                   case.dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("low", [0.5, -3.0])  # no entry reflected, and some
def test_the_polygammas_match_scipy(low):
    special = pytest.importorskip("scipy.special")
    from tangent_ad.runtime.tangents import tetragamma, trigamma
    x = np.random.default_rng(4).uniform(low, 30.0, 400)
    x = x[np.abs(x - np.round(x)) > 1e-2]  # away from the poles
    np.testing.assert_allclose(trigamma(x), special.polygamma(1, x), rtol=1e-9)
    np.testing.assert_allclose(tetragamma(x), special.polygamma(2, x), rtol=1e-8)
    assert trigamma(float(x[0])) == pytest.approx(float(special.polygamma(1, x[0])), rel=1e-9)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4)])
def test_unbroadcast_of_an_array_to_a_real_number_is_its_float_sum(shape):
    g = np.random.default_rng(5).normal(size=shape)
    for x in (1.5, np.float64(1.5)):
        got = runtime.unbroadcast(g, x)
        assert type(got) is float
        assert got == float(np.sum(g, axis=tuple(range(g.ndim))))
