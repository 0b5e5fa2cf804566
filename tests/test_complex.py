"""Gradients with respect to complex arguments.

The convention: for a real-valued f of a complex z, ``tad.grad`` returns
df/dRe z + i df/dIm z, so that ``z - lr * grad`` descends (Zygote's and
PyTorch's convention, the conjugate of JAX's). The check below takes
central differences along the real and the imaginary part of every
element separately. ``tangent_ad.testing.check_grads`` handles real
arguments only, hence this file.

Inside a derivative, adjoints follow JAX's convention (holomorphic rules
multiply by f'(z), no conjugate); a gradient that went through a
non-holomorphic step conjugates its results once at the end. The first
functions pass through the complex parts only; the later ones have
holomorphic complex steps (products, exp, matmul, a loop, a call) that
end in a real value through real, imag, abs, angle, vdot or norm.
"""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging.dispatch import variants

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


C = np.array([0.5 - 1.0j, 2.0 + 0.5j, -0.3 + 0.8j])
A = np.array([[1.0 + 0.5j, -0.2 + 1.0j, 0.3 + 0.0j],
              [0.4 - 0.7j, 2.0 + 0.1j, -0.5 + 0.5j],
              [0.0 + 0.3j, 0.6 - 0.2j, 1.5 - 1.0j]])
B = np.array([[0.2 - 0.4j, 1.0 + 0.0j], [-0.7 + 0.3j, 0.5 + 0.5j],
              [0.1 + 0.9j, -1.0 + 0.2j]])


def real_of_square(z):
    return np.sum(np.real(z * z))


def product_with_a_constant(z):
    return np.sum(np.imag(z * C) * W)


def division(z):
    return np.sum(np.abs(C / (z + 2.0)) ** 2)


def exp_sin_log(z):
    return np.sum(np.real(np.exp(z) * W) + np.imag(np.sin(z)) + np.angle(np.log(z)))


def power_sqrt_tanh(z):
    return np.sum(np.abs(z ** 3 + np.sqrt(z) - np.tanh(z)))


def reductions(z):
    return np.real(np.mean(z * z)) + np.sum(np.abs(np.cumsum(z * C)))


def reshape_transpose(z):
    m = np.reshape(z, (3, 1)) * np.reshape(C, (1, 3))
    return np.sum(np.imag(np.transpose(m) * W))


def vdot_of_products(z):
    return np.real(np.vdot(z * z, C)) + np.imag(np.vdot(C, np.exp(z)))


def loop(z):
    y = z
    for i in range(3):
        y = y * z + C
    return np.sum(np.abs(y))


def branch(z):
    if np.sum(np.real(z)) > 0.0:
        y = z * z
    else:
        y = np.exp(z)
    return np.sum(np.real(y) * W)


def cube_plus(z):
    return z * z * z + 1j * z


def helper_call(z):
    return np.sum(np.imag(cube_plus(z)) * W)


def modulus_of(z):
    return np.abs(z)


def nonholomorphic_only_in_a_helper(z):
    return np.sum(modulus_of(z * C))


def sign_of_product(z):
    """sign(z) = z / |z| varies for complex z: not a zero derivative."""
    return np.sum(np.real(np.sign(z * C)) * W) + np.sum(np.imag(np.sign(z)) ** 2)


def variances(z):
    """var and std of complex entries: real, through |z - mean|^2."""
    rows = np.reshape(z, (1, 3)) * W[:, None]
    return np.var(z * C) + np.std(z, ddof=1) + np.sum(np.std(rows, axis=1) * W)


HOLOMORPHIC_STEPS = [real_of_square, product_with_a_constant, division, exp_sin_log,
                     power_sqrt_tanh, reductions, reshape_transpose, vdot_of_products,
                     loop, branch, helper_call, nonholomorphic_only_in_a_helper,
                     sign_of_product, variances]


def matmul(a):
    return np.linalg.norm(a @ B)


def dot(a):
    return np.sum(np.abs(np.dot(a, C)))


def einsum(a):
    return np.real(np.einsum("ij,jk->", a, B) * (1.0 + 2.0j))


def tensordot(a):
    return np.angle(np.sum(np.tensordot(a, B, axes=1)))


def solve(a):
    return np.sum(np.abs(np.linalg.solve(a, C)) ** 2)


def inverse(a):
    return np.sum(np.real(np.linalg.inv(a)) * np.imag(A))


def solve_matrix_and_vdot(a):
    x = np.linalg.solve(a, B)
    return np.real(np.vdot(x, a @ B))


MATRIX_FUNCTIONS = [matmul, dot, einsum, tensordot, solve, inverse, solve_matrix_and_vdot]


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


def check_complex_gradient(f, z):
    got = tad.grad(f)(z)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, complex_numerical_grad(f, z), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient_of_a_complex_argument(f):
    check_complex_gradient(f, Z)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_complex64_stays_complex64(f):
    z = Z.astype(np.complex64)
    got = tad.grad(f)(z)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, complex_numerical_grad(f, Z), rtol=2e-3, atol=2e-4)


@pytest.mark.parametrize("f", HOLOMORPHIC_STEPS, ids=lambda f: f.__name__)
def test_holomorphic_steps_of_a_complex_argument(f):
    check_complex_gradient(f, Z)


@pytest.mark.parametrize("f", MATRIX_FUNCTIONS, ids=lambda f: f.__name__)
def test_linear_algebra_of_a_complex_matrix(f):
    check_complex_gradient(f, A)


@pytest.mark.parametrize("f", [real_of_square, exp_sin_log, power_sqrt_tanh, helper_call,
                               sign_of_product, variances], ids=lambda f: f.__name__)
def test_complex64_stays_complex64_through_holomorphic_steps(f):
    got = tad.grad(f)(Z.astype(np.complex64))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, complex_numerical_grad(f, Z), rtol=2e-3, atol=2e-3)


def test_the_gradient_of_real_z_squared_is_twice_the_conjugate():
    np.testing.assert_allclose(tad.grad(real_of_square)(Z), 2 * np.conj(Z))


def test_two_complex_arguments():
    def f(z, w):
        return np.sum(np.abs(z * w + np.exp(w)))

    gz, gw = tad.grad(f, wrt=(0, 1))(Z, C)
    np.testing.assert_allclose(gz, complex_numerical_grad(lambda z: f(z, C), Z), rtol=1e-6)
    np.testing.assert_allclose(gw, complex_numerical_grad(lambda w: f(Z, w), C), rtol=1e-6)


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


def through_complex(x):
    return np.sum(np.abs(x * (1.0 + 2.0j)) + np.real(np.exp(1j * x)))


def test_real_argument_through_complex_steps_gets_a_real_gradient():
    x = np.array([0.5, -2.0, 1.5])
    got = tad.grad(through_complex)(x)
    assert got.dtype == np.float64
    expected = np.sqrt(5.0) * np.sign(x) - np.sin(x)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    got32 = tad.grad(through_complex)(x.astype(np.float32))
    assert got32.dtype == np.float32


def test_a_python_float_through_complex_steps_gets_a_float():
    def f(x):
        return abs(x * (1.0 + 2.0j))

    got = tad.grad(f)(-1.5)
    assert isinstance(got, float)
    assert got == pytest.approx(-np.sqrt(5.0))


def test_only_gradients_through_a_nonholomorphic_step_convert():
    """Real code is left as it was; the conversion comes once, at the end,
    also when the non-holomorphic step is in a called function."""
    def square(x):
        return np.sum(x * x)

    assert "conj_complex" not in tad.show_source(tad.grad(square))
    source = tad.show_source(tad.grad(nonholomorphic_only_in_a_helper))
    top, pullback = source.split("def pullback_modulus_of")
    assert top.count("conj_complex") == 1 and "conj_complex" not in pullback
    assert "bz = conj_complex(bz)\n    return cast_like(bz, z)" in top


def test_staging_drops_the_conversion_for_real_arguments():
    df = tad.grad(modulus)
    x = np.array([0.5, -2.0, 1.5])
    for _ in range(3):
        np.testing.assert_array_equal(df(x), W * np.sign(x))
    (copy,) = variants(df).values()
    # W is a global whose kind the copy's guard checks too: no cast is left
    assert "conj" not in copy and "bz = bresult * W * np.sign(z)\n    return bz" in copy
    np.testing.assert_allclose(df(Z), complex_numerical_grad(modulus, Z), rtol=1e-6)


# ---- vjp of complex outputs ---------------------------------------------------
# With no non-holomorphic step, vjp returns ct * f'(z) (JAX's convention);
# through one, the gradient (grad's convention) of Re(sum(ct * f(z))).

def test_vjp_of_a_holomorphic_function_is_ct_times_the_derivative():
    ct = np.array([1.0 - 0.5j, 0.3 + 2.0j, -1.0 + 0.0j])

    def f(z):
        return z * z * C

    np.testing.assert_allclose(tad.vjp(f)(Z, ct), ct * 2 * Z * C)


def test_vjp_through_a_nonholomorphic_step_is_a_gradient_of_the_real_part():
    ct = np.array([1.0 - 0.5j, 0.3 + 2.0j, -1.0 + 0.0j])

    def f(z):
        return np.conj(z) * z * C

    got = tad.vjp(f)(Z, ct)
    expected = complex_numerical_grad(lambda z: np.sum(np.real(ct * f(z))), Z)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


# ---- forward mode: no convention, the directional derivative itself -----------

def modulus_cubed_builtin(z):
    return abs(z[0]) ** 3 + np.sum(np.absolute(z))


def norms(z):
    return np.linalg.norm(z) + np.linalg.norm(z, 1) + \
        np.linalg.norm(np.reshape(z, (1, 3)) * W[:, None], "fro")


def _directional(f, z, t, eps=1e-6):
    return (f(z + eps * t) - f(z - eps * t)) / (2 * eps)


@pytest.mark.parametrize("f", FUNCTIONS + HOLOMORPHIC_STEPS + [modulus_cubed_builtin, norms],
                         ids=lambda f: f.__name__)
def test_jvp_of_a_real_function_of_a_complex_argument(f):
    t = np.array([0.3 + 0.1j, -1.0j, 0.5 - 0.2j])
    value, tangent = tad.jvp(f)(Z, t)
    assert not np.iscomplexobj(tangent)  # the derivative of a real value is real
    np.testing.assert_allclose(tangent, _directional(f, Z, t), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS + HOLOMORPHIC_STEPS + [modulus_cubed_builtin, norms],
                         ids=lambda f: f.__name__)
def test_hvp_is_the_directional_derivative_of_the_gradient(f):
    t = np.array([0.3 + 0.1j, -1.0j, 0.5 - 0.2j])
    gradient = tad.grad(f)
    np.testing.assert_allclose(tad.hvp(f)(Z, t), _directional(gradient, Z, t),
                               rtol=1e-6, atol=1e-7)


# ---- forward over forward, forward over reverse, at complex points ------------

def sign_real(z):
    return np.real(np.sign(z) * (0.5 - 2.0j))


@pytest.mark.parametrize("f", [modulus_of, sign_real], ids=lambda f: f.__name__)
def test_jvp_of_jvp_at_a_complex_point(f):
    """The second directional derivative of |z| goes through the tangent of
    np.sign (the forward rule of abs reads conj(sign(z))): not zero."""
    z, dz, tz = 1.0 + 2.0j, 0.3 + 0.1j, 0.2 - 0.5j
    (value, tangent), (dvalue, dtangent) = tad.jvp(tad.jvp(f))(z, dz, tz)
    np.testing.assert_allclose(dtangent, _directional(lambda w: tad.jvp(f)(w, dz)[1], z, tz),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dvalue, _directional(f, z, tz), rtol=1e-6)


@pytest.mark.parametrize("reduction", [np.std, np.var], ids=lambda f: f.__name__)
def test_jvp_of_vjp_of_a_complex_variance(reduction):
    def f(z):
        return reduction(z)

    back = tad.vjp(f)
    t = np.array([0.3 + 0.1j, -1.0j, 0.5 - 0.2j])
    value, tangent = tad.jvp(back)(Z, 1.0, t)
    np.testing.assert_allclose(value, complex_numerical_grad(f, Z), rtol=1e-6)
    np.testing.assert_allclose(tangent, _directional(lambda z: back(z, 1.0), Z, t),
                               rtol=1e-6, atol=1e-8)


# ---- a real value whose adjoint arrives complex (found by the fuzzer) ----
# In ``x / (np.abs(x) + 1.0)`` the real |x| meets a complex x, so the adjoint
# reaching |x| is complex; only its real part pairs with a change of |x|.

def _real_of_product(x):
    return np.sum(np.real(x * np.abs(x)))


def _real_of_quotient(x):
    return np.sum(np.real(x / (np.abs(x) + 1.0)))


def _std_times(x):
    return np.real(np.sum(x * np.std(x)))


def _norm_times(x):
    return np.real(np.sum(x * np.linalg.norm(x)))


def _angle_times(x):
    return np.sum(np.real(x * np.angle(x)))


def _builtin_abs_times(x):
    return np.real(x[0] * abs(x[1]))


@pytest.mark.parametrize("func", [_real_of_product, _real_of_quotient, _std_times,
                                  _norm_times, _angle_times, _builtin_abs_times],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_real_value_meeting_a_complex_one_gets_the_real_part_of_its_adjoint(func):
    rng = np.random.default_rng(3)
    z = rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))
    if func is _builtin_abs_times:
        z = z[0]
    expected = np.zeros_like(z)
    for i in np.ndindex(z.shape):
        e = np.zeros_like(z)
        e[i] = 1e-6
        expected[i] = (func(z + e) - func(z - e)) / 2e-6 + \
            1j * (func(z + 1j * e) - func(z - 1j * e)) / 2e-6
    g = tad.grad(func)
    for _ in range(3):  # general, then staged
        np.testing.assert_allclose(g(z), expected, rtol=1e-6, atol=1e-8)


def _complex_copy_written(x, s):
    c = np.copy(x) + 0j
    for i in range(2):
        c[i] = c[i] * (s + 1j * s)
    return np.sum(np.abs(c) ** 2)


def test_jvp_of_a_complex_write_into_a_copy_of_a_real_array_keeps_its_imaginary_part():
    # found by the fuzzer (seeds 3112, 3491): the tangent of ``x + 0j`` is
    # real, and writing a complex tangent into it dropped the imaginary part
    rng = np.random.default_rng(5)
    x, s = rng.normal(size=(2, 3)), 0.7
    tx, ts = rng.normal(size=(2, 3)), -0.4
    jvp = tad.jvp(_complex_copy_written, wrt=(0, 1))
    for _ in range(3):  # general, then staged
        _, tangent = jvp(x, s, tx, ts)
        expected = (_complex_copy_written(x + 1e-6 * tx, s + 1e-6 * ts) -
                    _complex_copy_written(x - 1e-6 * tx, s - 1e-6 * ts)) / 2e-6
        np.testing.assert_allclose(tangent, expected, rtol=1e-6)


def _abs_of(z):
    return np.abs(z)


def _slopes(fun, z, h=1e-6):
    """d/dRe z + i d/dIm z of the real `fun` at the complex scalar z."""
    return ((fun(z + h) - fun(z - h)) + 1j * (fun(z + 1j * h) - fun(z - 1j * h))) / (2 * h)


def test_reverse_over_a_conjugated_vjp_at_complex_values():
    # found by autograd's test suite (benchmarks/peer_suites): a vjp that went
    # through a non-holomorphic step conjugates its result, so it is not the
    # transpose J^T c its derived rule is built from; once that gave
    # d/dc Re(w * vjp(z, c)) = Re(w * conj(z / |z|)) instead of Re(w * z / |z|),
    # then it was refused; now the rule conjugates the cotangent on the way in
    vjp = tad.vjp(_abs_of)
    outer = tad.vjp(vjp, wrt=(0, 1))
    z, c, w = 1.1 + 1.2j, -0.28, 0.3 - 0.4j
    bz, bc = outer(z, c, w)
    np.testing.assert_allclose(bc, np.real(w * z / abs(z)), rtol=1e-12)
    np.testing.assert_allclose(bz, _slopes(lambda v: np.real(w * vjp(v, c)), z), rtol=1e-7)
    # a complex cotangent of the inner vjp, read by the outer one
    c = 0.7 - 0.2j
    bz, bc = outer(z, c, w)
    np.testing.assert_allclose(bz, _slopes(lambda v: np.real(w * vjp(v, c)), z), rtol=1e-7)
    np.testing.assert_allclose(bc, _slopes(lambda v: np.real(w * vjp(z, v)), c), rtol=1e-7)
    # forward mode over the same vjp agrees
    _, tangent = tad.jvp(vjp, wrt=(1,))(z, 0.5, 1.0)
    np.testing.assert_allclose(tangent, z / abs(z), rtol=1e-12)
    # and at real values: d/dc (c * sign(x)) = sign(x)
    np.testing.assert_allclose(outer(-1.5, -0.28, 0.5)[1], -0.5)


def test_second_derivatives_through_non_holomorphic_steps_at_complex_values():
    def f(x):
        return np.sum(np.abs(x) ** 2 * np.real(x) + np.imag(x * x) * np.abs(x))

    rng = np.random.default_rng(3)
    x = rng.normal(size=3) + 1j * rng.normal(size=3)
    u = rng.normal(size=3) + 1j * rng.normal(size=3)
    g = tad.grad(f)

    def along(v):
        return np.sum(np.real(g(v) * u))

    got = tad.grad(along)(x)
    for i in range(3):
        e = np.eye(3)[i]
        want = _slopes(lambda s: along(x + (s - x[i]) * e), x[i])
        np.testing.assert_allclose(got[i], want, rtol=1e-6)
    # reverse over a jvp of the same non-holomorphic map
    jvp = tad.jvp(lambda v: np.abs(v) * v)
    t = rng.normal(size=3) + 1j * rng.normal(size=3)

    def tangent_part(v):
        value, tangent = jvp(v, t)
        return np.sum(np.real(tangent * u) + np.imag(value))

    got = tad.grad(tangent_part)(x)
    for i in range(3):
        e = np.eye(3)[i]
        want = _slopes(lambda s: tangent_part(x + (s - x[i]) * e), x[i])
        np.testing.assert_allclose(got[i], want, rtol=1e-6)


# ---- np.linalg.svd of complex matrices: the vectors up to their phases ------------
# (autograd's test_svd_*_complex; runtime/svd_formulas.py)

def _svd_phase_free(x, w1, w2, w3):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.sum(np.abs(u) * w1) + np.sum(s * w2) + np.sum(np.abs(vh) * w3)


def _svd_values(x, w2):
    return np.sum(np.linalg.svd(x, compute_uv=False) * w2)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (2, 3, 4)])
def test_complex_svd_vectors_in_every_mode(shape):
    rng = np.random.default_rng(sum(shape))
    k = min(shape[-2:])
    w1 = rng.normal(size=shape[:-1] + (k,))
    w2 = rng.normal(size=shape[:-2] + (k,))
    w3 = rng.normal(size=shape[:-2] + (k, shape[-1]))
    x, t, u = (rng.normal(size=shape) + 1j * rng.normal(size=shape) for _ in range(3))
    f = lambda z: _svd_phase_free(z, w1, w2, w3)  # noqa: E731
    g = tad.grad(_svd_phase_free)
    np.testing.assert_allclose(g(x, w1, w2, w3), complex_numerical_grad(f, x),
                               rtol=1e-6, atol=1e-7)
    _, tangent = tad.jvp(_svd_phase_free)(x, w1, w2, w3, t)
    h = 1e-6
    np.testing.assert_allclose(tangent, (f(x + h * t) - f(x - h * t)) / (2 * h), rtol=1e-6)
    np.testing.assert_allclose(
        tad.hvp(_svd_phase_free)(x, w1, w2, w3, t),
        (g(x + h * t, w1, w2, w3) - g(x - h * t, w1, w2, w3)) / (2 * h), rtol=1e-5, atol=1e-6)

    def along(z):
        return np.sum(np.real(g(z, w1, w2, w3) * u))

    np.testing.assert_allclose(tad.grad(along)(x), complex_numerical_grad(along, x, 1e-5),
                               rtol=1e-5, atol=1e-6)
    gs = tad.grad(_svd_values)
    np.testing.assert_allclose(
        tad.hvp(_svd_values)(x, w2, t),
        (gs(x + h * t, w2) - gs(x - h * t, w2)) / (2 * h), rtol=1e-5, atol=1e-6)


# ---- second derivatives of eigh and of norms at complex matrices ----------------
# (autograd's test_eigvalh_*_complex, test_norm_nuclear_complex,
# test_vector_norm_ord_complex: runtime/linalg_tangents.py, runtime/tangents.py)

def _eigh_phase_free(x, w1, w2):
    w, v = np.linalg.eigh(x)
    return np.sum(w * w1) + np.sum(np.abs(v) * w2)


def _eigh_upper_phase_free(x, w1, w2):
    w, v = np.linalg.eigh(x, "U")
    return np.sum(w * w1) + np.sum(np.abs(v) * w2)


def _norm_nuc(x):
    return np.linalg.norm(x, ord="nuc")


def _norm_2(x):
    return np.linalg.norm(x, ord=2)


def _norm_minus_2(x):
    return np.linalg.norm(x, ord=-2)


def _vector_norm_3(x):
    return np.linalg.norm(x, ord=3)


def _vector_norm_4_rows(x):
    return np.sum(np.linalg.norm(x, ord=4, axis=1))


def _second_order_checks(f, args, x, rng):
    """hvp against differences of the gradient, and reverse over reverse
    against complex differences of <u, grad>."""
    t, u = (rng.normal(size=x.shape) + 1j * rng.normal(size=x.shape) for _ in range(2))
    h = 1e-6
    g = tad.grad(f)
    np.testing.assert_allclose(tad.hvp(f)(x, *args, t),
                               (g(x + h * t, *args) - g(x - h * t, *args)) / (2 * h),
                               rtol=1e-5, atol=1e-6)
    if args:
        w1, w2 = args
        f1 = f

        def f(z):
            return f1(z, w1, w2)
    g = tad.grad(f)

    def along(z):
        return np.sum(np.real(g(z) * u))

    np.testing.assert_allclose(tad.grad(along)(x), complex_numerical_grad(along, x, 1e-5),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [_eigh_phase_free, _eigh_upper_phase_free])
def test_complex_eigh_second_derivatives(f):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    _second_order_checks(f, (rng.normal(size=4), rng.normal(size=(4, 4))), x, rng)


@pytest.mark.parametrize("f, shape", [(_norm_nuc, (5, 4)), (_norm_2, (3, 4)),
                                      (_norm_minus_2, (4, 4)), (_vector_norm_3, (6,)),
                                      (_vector_norm_4_rows, (3, 4))])
def test_complex_norm_second_derivatives(f, shape):
    rng = np.random.default_rng(len(shape) + shape[0])
    x = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    np.testing.assert_allclose(tad.grad(f)(x), complex_numerical_grad(f, x), rtol=1e-6)
    _second_order_checks(f, (), x, rng)
