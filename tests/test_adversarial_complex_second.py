"""An adversarial batch against complex arguments and second derivatives.

Part 1: for a real-valued f of complex z, ``tad.grad(f)(z)`` must be
df/dRe z + i df/dIm z, checked by central differences along the real and
the imaginary part of every element.

Part 2: ``tad.grad(tad.grad(f))``, mixed partials, functions that call a
gradient or a jvp, and ``tad.hessian``, checked by central differences of
the first derivative; unsupported compositions must raise a
``tad.TangentADError`` with a message and a hint.
"""
import math

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.errors import InternalError
from tangent_ad.testing import check_grads

W = np.array([0.3, -1.2, 0.7])
Z = np.array([1.0 + 2.0j, -0.5 + 0.3j, 0.2 - 1.0j])
V = np.array([0.4 - 0.6j, 1.1 + 0.2j, -0.8 - 0.5j])
M = np.array([[1.0 + 0.5j, -0.2 + 1.0j, 0.3 + 0.0j],
              [0.4 - 0.7j, 2.0 + 0.1j, -0.5 + 0.5j]])
THETA = np.array([0.3, -1.1, 2.0])


def numerical_complex_grad(f, z, eps=1e-6):
    """df/dRe z + i df/dIm z by central differences (z complex or real)."""
    is_complex = np.iscomplexobj(z)
    scalar = np.ndim(z) == 0
    z = np.array(z, dtype=np.complex128 if is_complex else np.float64)
    grad = np.zeros(z.shape, dtype=z.dtype)
    units = (1.0, 1.0j) if is_complex else (1.0,)
    for i in np.ndindex(z.shape):
        for unit in units:
            up, down = z.copy(), z.copy()
            up[i] += eps * unit
            down[i] -= eps * unit
            if scalar:
                up, down = up[()], down[()]
            grad[i] += unit * (f(up) - f(down)) / (2 * eps)
    return grad[()] if scalar else grad


def assert_complex_grad(got, f, z, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(got, numerical_complex_grad(f, z), rtol=rtol, atol=atol)


# ---- part 1: complex functions of one argument ---------------------------------

def literals(z):
    return np.sum(np.real(1j * z) * W) + np.sum(np.imag(z * (2 - 3j)) ** 2)


def conj_times_self(z):
    return np.sum(np.real(z.conj() * z) * W)


def abs_cubed(z):
    return np.sum(np.abs(z) ** 3)


def angle_of_product(z):
    return np.sum(np.angle(z * (0.5 + 2j)) * W)


def real_of_outer(z):
    return np.real(z @ z.conj().T)


def real_of_gram(m):
    return np.sum(np.real(m @ m.conj().T) * np.arange(4.0).reshape(2, 2))


def norm_of(z):
    return np.linalg.norm(z * (1 - 1j) + 2.0)


def real_attribute_of_sum(z):
    return np.sum(z ** 2).real


def imag_attribute_chain(z):
    return (z * z.conj() + 1j * z).imag.sum()


def loop_accumulating_complex(z):
    acc = 0j
    for i in range(3):
        acc = acc + z[i] * (1.0 + 1j * i)
    return np.abs(acc) ** 2


def loop_accumulating_array(z):
    acc = np.zeros(3, dtype=complex)
    for i in range(4):
        acc = acc * z + (i + 1j)
    return np.sum(np.abs(acc))


def while_loop_complex(z):
    y = z
    k = 0
    while k < 3:
        y = y * y * 0.5 + 1j
        k = k + 1
    return np.sum(np.real(y) * W)


def branch_on_modulus(z):
    if np.abs(z).sum() > 1:
        y = z * z.conj() * (1 + 1j)
    else:
        y = z * 3.0
    return np.sum(np.imag(y))


def rotate(z, angle):
    return z * np.exp(1j * angle)


def squared_distance(z, w):
    d = z - w
    return np.real(d * np.conj(d))


def helper_calls(z):
    r = rotate(z, 0.7)
    return np.sum(squared_distance(r, V) * W)


def modulus_squared_helper(z):
    return np.abs(z) ** 2


def nonholomorphic_only_in_helper(z):
    y = np.exp(z) * (2 - 1j) + z * z
    return np.sum(modulus_squared_helper(y))


def through_a_list(z):
    parts = [z * 2.0, z * z, np.conj(z)]
    total = 0.0
    for p in parts:
        total = total + np.sum(np.abs(p + 1j))
    return total


def square_of_abs_builtin(z):
    return abs(z * (1 + 2j)) ** 2


def reciprocal(z):
    return np.sum(np.real(1.0 / z) * W + np.imag(1.0 / (z + 1j)))


def vdot_with_itself(z):
    return np.real(np.vdot(z, z * (2 + 1j)))


def dot_conj(z):
    return np.dot(np.conj(z), z * W).real


def conj_function_and_mean(z):
    return np.mean(np.abs(np.conjugate(z) * z + z) ** 2)


ONE_COMPLEX_ARGUMENT = [literals, conj_times_self, abs_cubed, angle_of_product, real_of_outer,
                        norm_of, real_attribute_of_sum, imag_attribute_chain,
                        loop_accumulating_complex, loop_accumulating_array, while_loop_complex,
                        branch_on_modulus, helper_calls, nonholomorphic_only_in_helper,
                        through_a_list, reciprocal, vdot_with_itself, dot_conj,
                        conj_function_and_mean]


@pytest.mark.parametrize("f", ONE_COMPLEX_ARGUMENT, ids=lambda f: f.__name__)
def test_complex_gradient(f):
    got = tad.grad(f)(Z)
    assert got.dtype == np.complex128
    assert_complex_grad(got, f, Z)


def test_branch_on_modulus_other_side():
    z = Z * 0.1
    assert np.abs(z).sum() <= 1
    assert_complex_grad(tad.grad(branch_on_modulus)(z), branch_on_modulus, z)


def conjugate_spelled_out(z):
    return np.sum(np.real(z.conjugate() * z * W))


def angle_squared(z):
    return np.angle(z) ** 2


def matrix_norm(m):
    return np.linalg.norm(m @ m.conj().T)


def from_parts(x, y):
    return abs(complex(x, y)) ** 2


def test_conjugate_method_spelling():
    assert_complex_grad(tad.grad(conjugate_spelled_out)(Z), conjugate_spelled_out, Z)


def test_angle_of_a_python_complex():
    z = -0.4 + 1.2j
    assert_complex_grad(tad.grad(angle_squared)(z), angle_squared, z)


def test_norm_of_a_complex_matrix_product():
    assert_complex_grad(tad.grad(matrix_norm)(M), matrix_norm, M)


def test_complex_builtin_is_refused_cleanly():
    with pytest.raises(tad.TangentADError) as info:
        tad.grad(from_parts, wrt=(0, 1))(0.3, 0.4)
    _assert_clean_error(info)


def test_complex_matrix_gram():
    assert_complex_grad(tad.grad(real_of_gram)(M), real_of_gram, M)


def test_python_complex_scalar():
    z = 0.7 - 1.3j
    got = tad.grad(square_of_abs_builtin)(z)
    assert isinstance(got, complex)
    assert_complex_grad(got, square_of_abs_builtin, z)


@pytest.mark.parametrize("f", [literals, abs_cubed, norm_of, loop_accumulating_array,
                               helper_calls, nonholomorphic_only_in_helper, through_a_list],
                         ids=lambda f: f.__name__)
def test_complex64_is_kept(f):
    z = Z.astype(np.complex64)
    got = tad.grad(f)(z)
    assert got.dtype == np.complex64
    assert_complex_grad(got, f, Z, rtol=2e-3, atol=2e-3)


# ---- real arguments through complex steps ---------------------------------------

def phase_of_real(theta):
    return np.sum(np.real(np.exp(1j * theta) * V))


def phase_of_real_scalar(theta):
    return np.abs(np.exp(1j * theta) + 0.5) ** 2


def test_exp_of_i_theta_has_a_real_gradient():
    got = tad.grad(phase_of_real)(THETA)
    assert got.dtype == np.float64
    assert_complex_grad(got, phase_of_real, THETA)


def test_exp_of_i_theta_python_float():
    got = tad.grad(phase_of_real_scalar)(0.4)
    assert isinstance(got, float)
    assert got == pytest.approx(numerical_complex_grad(phase_of_real_scalar, 0.4), rel=1e-6)


# ---- several arguments ------------------------------------------------------------

def vdot_both_active(z, w):
    return np.real(np.vdot(z, w)) + np.imag(np.vdot(w, z * z)) ** 2


def real_and_complex(x, z):
    return np.sum(np.abs(x * z + 1j * x) ** 2) + np.sum(np.real(np.exp(1j * x) * z))


def test_vdot_with_both_arguments_complex_and_active():
    gz, gw = tad.grad(vdot_both_active, wrt=(0, 1))(Z, V)
    assert_complex_grad(gz, lambda z: vdot_both_active(z, V), Z)
    assert_complex_grad(gw, lambda w: vdot_both_active(Z, w), V)


def test_mixed_real_and_complex_wrt():
    gx, gz = tad.grad(real_and_complex, wrt=(0, 1))(THETA, Z)
    assert gx.dtype == np.float64 and gz.dtype == np.complex128
    assert_complex_grad(gx, lambda x: real_and_complex(x, Z), THETA)
    assert_complex_grad(gz, lambda z: real_and_complex(THETA, z), Z)


def test_mixed_real_and_complex_wrt_complex64_float32():
    x, z = THETA.astype(np.float32), Z.astype(np.complex64)
    gx, gz = tad.grad(real_and_complex, wrt=(0, 1))(x, z)
    assert gx.dtype == np.float32 and gz.dtype == np.complex64
    assert_complex_grad(gx, lambda x: real_and_complex(x, Z), THETA, rtol=2e-3, atol=2e-3)


def list_of_complex_arrays(zs):
    return np.sum(np.abs(zs[0] * zs[1])) + np.real(np.vdot(zs[1], zs[0]))


def test_list_of_complex_arrays():
    got = tad.grad(list_of_complex_arrays)([Z, V])
    assert_complex_grad(got[0], lambda a: list_of_complex_arrays([a, V]), Z)
    assert_complex_grad(got[1], lambda b: list_of_complex_arrays([Z, b]), V)


# ---- value_and_grad and staging --------------------------------------------------

def test_value_and_grad_of_complex():
    value, g = tad.value_and_grad(helper_calls)(Z)
    assert value == pytest.approx(helper_calls(Z))
    assert_complex_grad(g, helper_calls, Z)


@pytest.mark.parametrize("f", [abs_cubed, helper_calls, nonholomorphic_only_in_helper,
                               loop_accumulating_complex, literals],
                         ids=lambda f: f.__name__)
def test_repeated_calls_give_the_same_gradient(f):
    df = tad.grad(f)
    first = df(Z)
    for _ in range(3):
        np.testing.assert_array_equal(df(Z), first)
    assert_complex_grad(first, f, Z)


def test_repeated_calls_value_and_grad():
    vg = tad.value_and_grad(nonholomorphic_only_in_helper)
    v0, g0 = vg(Z)
    for _ in range(3):
        v, g = vg(Z)
        assert v == v0
        np.testing.assert_array_equal(g, g0)


def test_repeated_calls_mixed_wrt():
    df = tad.grad(real_and_complex, wrt=(0, 1))
    gx0, gz0 = df(THETA, Z)
    for _ in range(3):
        gx, gz = df(THETA, Z)
        np.testing.assert_array_equal(gx, gx0)
        np.testing.assert_array_equal(gz, gz0)


def test_switching_argument_kinds_after_staging():
    """Staged for complex, then called with real, then complex again."""
    df = tad.grad(abs_cubed)
    for _ in range(3):
        df(Z)
    x = np.array([0.5, -2.0, 1.5])
    np.testing.assert_allclose(df(x), 3 * x * np.abs(x))
    for _ in range(3):
        assert_complex_grad(df(Z), abs_cubed, Z)


def real_abs_program(x):
    return np.sum(np.abs(x) * W) + abs(np.sum(x)) ** 1.5


def test_real_program_with_abs():
    x = np.array([0.5, -2.0, 1.5])
    df = tad.grad(real_abs_program)
    for _ in range(4):
        check_grads(real_abs_program, df, (x,))


# ---- part 2: second derivatives ----------------------------------------------------

def numerical_derivative(g, x, eps=1e-5):
    return (g(x + eps) - g(x - eps)) / (2 * eps)


def poly(x):
    return x ** 4 - 3.0 * x ** 2 + x


def loop_product(x):
    y = 1.0
    for i in range(4):
        y = y * x + math.sin(x * i)
    return y


def while_halving(x):
    y = x
    while y > 0.1:
        y = y * 0.5
    return y * y * x


def branches(x):
    if x > 0:
        return np.tanh(x) ** 3
    return x ** 3 - x


def recursive_power(x, n=4):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def inner_helper(x):
    return math.sin(x) * x ** 2


def calls_helper(x):
    return inner_helper(x) * 2.0 + inner_helper(x * x)


def make_scaled(k):
    def scaled(x):
        return k * x ** 3 + np.tanh(k * x)
    return scaled


closure = make_scaled(1.5)


def with_abs_and_max(x):
    return abs(x) ** 3 + max(x, 0.5) ** 2


def real_through_complex(x):
    return np.abs(np.exp(1j * x) * (x + 2j)) ** 2


def fractional_power(x):
    return x ** 2.5 + 2.0 ** x


SCALAR_FUNCTIONS = [poly, loop_product, while_halving, branches, recursive_power,
                    calls_helper, closure, with_abs_and_max, fractional_power]


@pytest.mark.parametrize("f", SCALAR_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.9, 1.7])  # 0.8 is where while_halving's loop count jumps
def test_second_derivative(f, x):
    df = tad.grad(f)
    got = tad.grad(df)(x)
    assert got == pytest.approx(numerical_derivative(df, x), rel=1e-5, abs=1e-7)


# Forward mode of abs of complex values (its tangent, and d sign(z) inside
# the adjoint of abs) was wrong once: hvp and grad(grad) through it.


@pytest.mark.parametrize("x", [0.8, 1.7])
def test_second_derivative_through_complex_abs(x):
    # |exp(ix) (x + 2i)|^2 = x^2 + 4: the second derivative is 2
    df = tad.grad(real_through_complex)
    assert df(x) == pytest.approx(2 * x)
    assert tad.grad(df)(x) == pytest.approx(2.0, rel=1e-6)


def modulus(z):
    return np.abs(z)


def test_jvp_of_complex_abs_is_real():
    z, dz = 3 + 4j, 1j
    _, slope = tad.jvp(modulus)(z, dz)
    assert slope == pytest.approx((abs(z + 1e-6 * dz) - abs(z - 1e-6 * dz)) / 2e-6)


def test_second_derivative_negative_branch():
    df = tad.grad(branches)
    assert tad.grad(df)(-0.6) == pytest.approx(-3.6, rel=1e-9)
    df = tad.grad(with_abs_and_max)
    assert tad.grad(df)(-0.6) == pytest.approx(6 * 0.6, rel=1e-9)


def two_args(x, y):
    return np.sin(x * y) * y ** 2 + x ** 3 * y


def test_mixed_partials():
    x, y = 0.4, -1.3
    dxy = tad.grad(tad.grad(two_args, wrt=0), wrt=1)(x, y)
    dx = tad.grad(two_args, wrt=0)
    expected = (dx(x, y + 1e-5) - dx(x, y - 1e-5)) / 2e-5
    assert dxy == pytest.approx(expected, rel=1e-5)
    dyx = tad.grad(tad.grad(two_args, wrt=1), wrt=0)(x, y)
    assert dyx == pytest.approx(expected, rel=1e-5)


def quartic_energy(x):
    return np.sum(x ** 4) / 4.0 + np.sum(np.sin(x) * x)


d_quartic_energy = tad.grad(quartic_energy)
WEIGHTS = np.array([0.5, -1.0, 2.0])


def calls_a_gradient(x):
    return np.sum(d_quartic_energy(x) * WEIGHTS)


def test_function_calling_a_gradient():
    x = np.array([0.3, -0.8, 1.1])
    check_grads(calls_a_gradient, tad.grad(calls_a_gradient), (x,))


def gradient_in_a_loop(x):
    y = x
    for _ in range(3):
        y = y - 0.1 * d_quartic_energy(y)
    return np.sum(y ** 2)


def test_gradient_called_in_a_loop():
    x = np.array([0.3, -0.8, 1.1])
    check_grads(gradient_in_a_loop, tad.grad(gradient_in_a_loop), (x,))


def sin_times(x, y):
    return np.sin(x) * y


jvp_sin_times = tad.jvp(sin_times)


def calls_a_jvp(x, y):
    value, slope = jvp_sin_times(x, y, 1.0)
    return value * slope + slope ** 2


def test_function_calling_a_jvp():
    check_grads(calls_a_jvp, tad.grad(calls_a_jvp, wrt=(0, 1)), (0.3, 1.7), wrt=(0, 1))


def with_defaults(x, scale=2.0, power=3):
    return scale * x ** power + np.exp(-x)


def test_second_derivative_with_defaults():
    df = tad.grad(with_defaults)
    ddf = tad.grad(df)
    assert ddf(0.7) == pytest.approx(numerical_derivative(df, 0.7), rel=1e-5)


def test_second_derivative_with_keyword_arguments():
    df = tad.grad(with_defaults)
    ddf = tad.grad(df)
    got = ddf(0.7, scale=0.5, power=4)
    expected = numerical_derivative(lambda x: df(x, scale=0.5, power=4), 0.7)
    assert got == pytest.approx(expected, rel=1e-5)


d_with_defaults = tad.grad(with_defaults)


def calls_gradient_with_keyword(x):
    return d_with_defaults(x, power=2) ** 2


def test_function_calling_a_gradient_with_a_keyword():
    check_grads(calls_gradient_with_keyword, tad.grad(calls_gradient_with_keyword), (0.7,))


def pair(a, b):
    return np.sum(a ** 2 * b) + np.sum(np.exp(a) * np.cos(b))


d_pair = tad.grad(pair, wrt=(0, 1))


def unpacks_two_gradients(a, b):
    ga, gb = d_pair(a, b)
    return np.sum(ga * gb) + np.sum(ga ** 2)


def test_gradient_of_several_wrt_unpacked():
    rng = np.random.default_rng(1)
    args = (rng.normal(size=3), rng.normal(size=3))
    check_grads(unpacks_two_gradients, tad.grad(unpacks_two_gradients, wrt=(0, 1)), args,
                wrt=(0, 1))


def array_function(x):
    return np.sum(np.tanh(x) * x[::-1]) + np.prod(x) + np.sum(x ** 3)


def test_hessian_matches_jacobian_of_gradient():
    x = np.array([0.3, -0.8, 1.1])
    h = tad.hessian(array_function)(x)
    j = tad.jacobian(tad.grad(array_function))(x)
    np.testing.assert_allclose(h, j, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-12)
    df = tad.grad(array_function)
    numeric = np.stack([(df(x + e) - df(x - e)) / 2e-5 for e in np.eye(3) * 1e-5], axis=1)
    np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-7)


def test_second_derivative_repeated_calls():
    ddf = tad.grad(tad.grad(loop_product))
    first = ddf(0.8)
    for _ in range(3):
        assert ddf(0.8) == first


def cube(x):
    return x ** 3


def _assert_clean_error(excinfo):
    assert isinstance(excinfo.value, tad.TangentADError)
    assert not isinstance(excinfo.value, InternalError)
    assert excinfo.value.message and excinfo.value.hint


def test_third_order_of_a_cube_is_six():
    assert tad.grad(tad.grad(tad.grad(cube)))(1.0) == pytest.approx(6.0)


def test_grad_of_value_and_grad_is_refused_with_a_hint():
    with pytest.raises(tad.TangentADError) as info:
        tad.grad(tad.value_and_grad(cube))(1.0)
    _assert_clean_error(info)
