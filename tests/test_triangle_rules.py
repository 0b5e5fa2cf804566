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
import zlib

import numpy as np
import pytest
import scipy.linalg

import tangent_ad as tad

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
    for f in (eigh_lower, cholesky_lower):
        assert tad.grad(f)(a).dtype == np.float32
