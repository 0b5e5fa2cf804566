"""eigh, eigvalsh and cholesky read one triangle of their argument.

NumPy (and SciPy) build the matrix they decompose from one triangle of
the argument, mirrored: transposed for real matrices, conjugated and
with a real diagonal (Hermitian) for complex ones. The other triangle is
never read. Their derivatives must follow: for a matrix that is not
symmetric, the gradient is the derivative of what NumPy computes, zero
on the triangle it ignores. Before, the reverse rules returned the
symmetric gradient, which is wrong off the symmetric matrices (autograd's
test_eigvalh_* found it), and complex Cholesky transposed where it must
conjugate. Each case is checked against central differences in every
entry (and, for complex matrices, along the real and imaginary parts),
in reverse and forward mode.
"""
import sys
import zlib

import numpy as np
import pytest
import scipy.linalg

import tangent_ad as tad
from tangent_ad import runtime
from tangent_ad.runtime import triangles

D = 4
RNG = np.random.default_rng(7)
WEIGHT = RNG.normal(size=(D, D))
SCALES = RNG.normal(size=D)


def eigh_lower(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * SCALES) + np.sum(np.abs(v) * WEIGHT)


def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w ** 2 * SCALES) + np.sum(np.abs(v) * WEIGHT)


def eigvalsh_upper(a):
    return np.sum(np.linalg.eigvalsh(a, "U") * SCALES)


def cholesky_lower(a):
    return np.sum(np.abs(np.linalg.cholesky(a)) * WEIGHT)


def cholesky_upper(a):
    return np.sum(np.abs(np.linalg.cholesky(a, upper=True)) * WEIGHT)


def scipy_cholesky(a):
    return np.sum(np.abs(scipy.linalg.cholesky(a)) * WEIGHT)


def scipy_cholesky_lower(a):
    return np.sum(np.abs(scipy.linalg.cholesky(a, lower=True)) * WEIGHT)


CHOLESKY = (cholesky_lower, cholesky_upper, scipy_cholesky, scipy_cholesky_lower)
CASES = [(f, c) for f in (eigh_lower, eigh_upper, eigvalsh_upper, *CHOLESKY)
         for c in (False, True) if not (c and f is eigvalsh_upper)]


def _matrix(f, complex_values, rng):
    """A matrix that is not symmetric (nor Hermitian); positive definite in
    the triangle Cholesky reads."""
    def draw():
        m = rng.normal(size=(D, D))
        return m + 1j * rng.normal(size=(D, D)) if complex_values else m
    a = draw()
    if f in CHOLESKY:
        a = a @ np.conj(a.T) + 3.0 * np.eye(D) + 0.3 * draw()
    return a


def _central_gradient(f, a, step=1e-6):
    """df/dRe a + i df/dIm a, entry by entry."""
    grad = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = step
        grad[i] = (f(a + e) - f(a - e)) / (2 * step)
        if np.iscomplexobj(a):
            grad[i] += 1j * (f(a + 1j * e) - f(a - 1j * e)) / (2 * step)
    return grad


@pytest.mark.parametrize("f, complex_values", CASES,
                         ids=[f"{f.__name__}-{'complex' if c else 'real'}" for f, c in CASES])
def test_gradient_is_the_derivative_of_what_numpy_reads(f, complex_values):
    rng = np.random.default_rng(zlib.crc32(f"{f.__name__}{complex_values}".encode()))
    a = _matrix(f, complex_values, rng)
    expected = _central_gradient(f, a)
    grad = tad.grad(f)(a)
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-7)
    reads_upper = f in (eigh_upper, eigvalsh_upper, cholesky_upper, scipy_cholesky)
    ignored = np.tril(grad, -1) if reads_upper else np.triu(grad, 1)
    assert np.all(ignored == 0)
    if complex_values:  # only the real part of the diagonal is read
        assert np.all(np.diagonal(grad).imag == 0)
    direction = _matrix(eigh_lower, complex_values, rng)
    _, tangent = tad.jvp(f)(a, direction)
    along = np.sum(expected.real * direction.real + expected.imag * direction.imag)
    np.testing.assert_allclose(tangent, along, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [eigh_upper, cholesky_lower, scipy_cholesky])
def test_second_derivatives_read_the_same_triangle(f):
    rng = np.random.default_rng(3)
    a, v = _matrix(f, False, rng), rng.normal(size=(D, D))
    grad = tad.grad(f)
    expected = (grad(a + 1e-5 * v) - grad(a - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(tad.hvp(f)(a, v), expected, rtol=1e-5, atol=1e-6)

    def pulled(x):
        return np.sum(grad(x) * WEIGHT)
    np.testing.assert_allclose(tad.grad(pulled)(a), _central_gradient(pulled, a),
                               rtol=1e-5, atol=1e-6)


def test_float32_keeps_its_dtype():
    a = _matrix(cholesky_lower, False, np.random.default_rng(0)).astype(np.float32)
    for f in (eigh_lower, *CHOLESKY):
        assert tad.grad(f)(a).dtype == np.float32


# ---- real NumPy matrices: Cholesky's adjoint by BLAS, untriangle in one array ----

def _factor_and_adjoint(n, dtype, upper, rng):
    """A Cholesky factor of a well-conditioned n x n matrix and an adjoint
    for it that is not triangular (the rule reads one triangle only)."""
    b = rng.normal(size=(n, n + 2))
    factor = np.linalg.cholesky(b @ b.T + n * np.eye(n), upper=upper).astype(dtype)
    return factor, rng.normal(size=(n, n)).astype(dtype)


@pytest.mark.parametrize("n", [1, 5, 70])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_adjoint_of_a_matrix_agrees_with_the_stacked_path(n, dtype, upper):
    """A stack of one matrix takes the general path (np.linalg.solve), a
    matrix SciPy's BLAS; they agree, in the matrix's dtype, for C- and
    Fortran-ordered factors and strided adjoints, and so does the adjoint
    folded onto the triangle in one step (grad_cholesky_triangle)."""
    rng = np.random.default_rng(n)
    factor, g = _factor_and_adjoint(n, dtype, upper, rng)
    expected = runtime.grad_cholesky(g[None], factor[None], upper)[0]
    folded = runtime.untriangle(expected, upper)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    strided = np.repeat(g, 2, axis=1)[:, ::2]
    for f, gg in ((factor, g), (np.asfortranarray(factor), g), (factor, strided)):
        for got, want in ((runtime.grad_cholesky(gg, f, upper), expected),
                          (runtime.grad_cholesky_triangle(gg, f, upper), folded)):
            assert got.dtype == dtype and got.shape == (n, n)
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("upper", [False, True, "L", "U"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_untriangle_of_a_matrix_agrees_with_the_stacked_path(upper, dtype):
    s = np.random.default_rng(2).normal(size=(5, 5)).astype(dtype)
    got = runtime.untriangle(s, upper)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, runtime.untriangle(s[None], upper)[0])


def test_the_blas_path_is_for_real_numpy_matrices_of_one_dtype():
    class Subclass(np.ndarray):
        pass
    m = np.eye(3)
    assert triangles._real_blas(("trsm",), m, m) is not None
    assert triangles._real_blas(("trsm",), m.astype(np.float32), m.astype(np.float32)) is not None
    for other in (m[None], m.astype(complex), m.astype(np.float32), m.view(Subclass)):
        assert triangles._real_blas(("trsm",), m, other) is None


def test_cholesky_adjoint_without_scipy(monkeypatch):
    """Without SciPy the general path gives the same adjoint."""
    factor, g = _factor_and_adjoint(4, np.float64, False, np.random.default_rng(4))
    expected = runtime.grad_cholesky(g, factor)
    folded = runtime.grad_cholesky_triangle(g, factor)
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)
    assert triangles._real_blas(("trsm",), factor, g) is None
    np.testing.assert_allclose(runtime.grad_cholesky(g, factor), expected, rtol=1e-12)
    np.testing.assert_allclose(runtime.grad_cholesky_triangle(g, factor), folded, rtol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradient_of_a_larger_matrix(upper):
    """Central differences in every entry of a 9 x 9 matrix, which takes
    the BLAS path."""
    rng = np.random.default_rng(9)
    factor, weight = _factor_and_adjoint(9, np.float64, upper, rng)
    a = factor.T @ factor if upper else factor @ factor.T
    a += 0.3 * rng.normal(size=a.shape)  # not symmetric: one triangle is read

    def f(a):
        return np.sum(np.sin(np.linalg.cholesky(a, upper=upper)) * weight)
    np.testing.assert_allclose(tad.grad(f)(a), _central_gradient(f, a), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("block", [1, 2, 3])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_adjoint_by_blocks(monkeypatch, block, upper):
    """Large matrices take Cholesky's adjoint by halves (triangles._BLOCK):
    with tiny blocks, a 9 x 9 matrix recurses through uneven splits, and
    its gradient matches central differences and the three BLAS calls on
    the whole matrix."""
    rng = np.random.default_rng(11)
    factor, weight = _factor_and_adjoint(9, np.float64, upper, rng)
    a = factor.T @ factor if upper else factor @ factor.T
    a += 0.3 * rng.normal(size=a.shape)

    def f(a):
        return np.sum(np.sin(np.linalg.cholesky(a, upper=upper)) * weight)
    whole = tad.grad(f)(a)
    monkeypatch.setattr(triangles, "_BLOCK", block)
    by_blocks = tad.grad(f)(a)
    np.testing.assert_allclose(by_blocks, _central_gradient(f, a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(by_blocks, whole, rtol=1e-12, atol=1e-12 * np.abs(whole).max())
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-4)):
        g = rng.normal(size=(9, 9)).astype(dtype)
        lower = factor.astype(dtype)
        want = runtime.untriangle(runtime.grad_cholesky(g[None], lower[None], upper)[0], upper)
        for got in (runtime.grad_cholesky_triangle(g, lower, upper),
                    runtime.untriangle(runtime.grad_cholesky(g, lower, upper), upper)):
            assert got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
