"""The helpers of tangent_ad.runtime: their doctests, and the adjoints that
the table of rule specs cannot reach yet through tad.grad (einsum, whose
operands arrive as *args, and eigh, whose result is a pair), each checked
against central differences of the NumPy function itself.
"""
import doctest

import numpy as np
import pytest

from tangent_ad import runtime
from tangent_ad.testing import numerical_grad


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
