"""Gradients with respect to complex arguments.

The convention: for a real-valued f of a complex z, ``tad.grad`` returns
df/dRe z + i df/dIm z, so that ``z - lr * grad`` descends (Zygote's and
PyTorch's convention, the conjugate of JAX's). The check below takes
central differences along the real and the imaginary part of every
element separately. ``tangent_ad.testing.check_grads`` handles real
arguments only, hence this file.

These functions pass through the complex parts (real, imag, conj,
angle, abs) only; the other operations act on real values.
"""
import numpy as np
import pytest

import tangent_ad as tad

W = np.array([0.3, -1.2, 0.7])
Z = np.array([1.0 + 2.0j, -0.5 + 0.3j, 0.2 - 1.0j])


def real_part(z):
    return np.sum(np.real(z) * W)


def imag_part(z):
    return np.sum(np.imag(z) * W)


def parts_as_attributes(z):
    return np.sum(z.real ** 2 * W + z.imag * z.real)


def modulus(z):
    return np.sum(np.abs(z) * W)


def squared_modulus(z):
    return np.sum(np.abs(z) ** 2)


def argument(z):
    return np.sum(np.angle(z) * W)


def conjugate(z):
    c = np.conj(z)
    return np.sum(np.real(c) * W + np.imag(c) ** 2)


def conjugate_method(z):
    return np.sum(np.imag(z.conj()) * W)


FUNCTIONS = [real_part, imag_part, parts_as_attributes, modulus,
             squared_modulus, argument, conjugate, conjugate_method]


def complex_numerical_grad(f, z, eps=1e-6):
    """df/dRe z + i df/dIm z by central differences, in complex128."""
    z = np.asarray(z, dtype=np.complex128)
    grad = np.zeros(z.shape, dtype=np.complex128)
    for i in np.ndindex(z.shape):
        for unit in (1.0, 1.0j):
            up, down = z.copy(), z.copy()
            up[i] += eps * unit
            down[i] -= eps * unit
            grad[i] += unit * (f(up) - f(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient_of_a_complex_argument(f):
    got = tad.grad(f)(Z)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, complex_numerical_grad(f, Z), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_complex64_stays_complex64(f):
    z = Z.astype(np.complex64)
    got = tad.grad(f)(z)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, complex_numerical_grad(f, Z), rtol=2e-3, atol=2e-4)


def test_the_convention_descends():
    """One step against the gradient lowers |z|^2."""
    z = Z - 0.1 * tad.grad(squared_modulus)(Z)
    assert squared_modulus(z) < squared_modulus(Z)
    np.testing.assert_allclose(tad.grad(squared_modulus)(Z), 2 * Z)


def test_real_argument_of_a_complex_part_gets_a_real_gradient():
    x = np.array([0.5, -2.0, 1.5])
    assert tad.grad(imag_part)(x).dtype == np.float64
    np.testing.assert_array_equal(tad.grad(imag_part)(x), np.zeros(3))
    np.testing.assert_array_equal(tad.grad(real_part)(x), W)
