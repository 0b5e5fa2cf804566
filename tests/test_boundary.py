"""A derivative's boundary: a gradient has its argument's type, structure,
shape and dtype, always; an integer argument is a point of the real line;
a bool argument and a complex or bool output are refused.

Every gradient here is compared with central differences taken in float64
(on float64 copies of the arguments), and its type, structure, shape and
dtype with the argument's exactly, on the general derivative and on the
staged copy (calls 2 and 3).
"""
import collections

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import runtime
from tangent_ad.staging import dispatch as staging

W = np.array([0.5, -1.5, 2.0])  # a float64 global


# ---- float32 arguments meeting float64 constants (issue 19, item 5) ----------

def times_global(x):
    return np.sum(np.sin(x) * W)


def plus_array_literal(x):
    return np.sum(np.tanh(x + np.array([0.5, 0.5, 0.5])))


def float_power(x):
    return np.sum(np.float_power(x, 2.0))


def minus_numpy_scalar(x):
    return np.sum((x - np.sum(1)) ** 2)


MIXED = [times_global, plus_array_literal, float_power, minus_numpy_scalar]
X = np.array([0.3, -0.7, 1.1])


def _float64(value):
    """float64 copies of the numbers and arrays in `value` (containers too)."""
    if isinstance(value, dict):
        return {k: _float64(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        items = [_float64(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return np.asarray(value, np.float64)


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for k in value for leaf in _leaves(value[k])]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _rebuilt(like, leaves):
    """`like`'s structure with its leaves taken from the iterator `leaves`."""
    if isinstance(like, dict):
        return {k: _rebuilt(v, leaves) for k, v in like.items()}
    if isinstance(like, (tuple, list)):
        items = [_rebuilt(v, leaves) for v in like]
        return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)
    return next(leaves)


def central_differences(f, args, argnum, eps=1e-6):
    """The gradient of scalar `f` w.r.t. ``args[argnum]`` (any structure of
    numbers and arrays), by central differences in float64, as a list of
    float64 arrays, one per leaf."""
    args = [_float64(a) for a in args]
    leaves = [np.array(leaf, np.float64) for leaf in _leaves(args[argnum])]
    grads = []
    for i, leaf in enumerate(leaves):
        g = np.zeros(leaf.shape)
        for j in np.ndindex(leaf.shape):
            values = []
            for step in (eps, -eps):
                moved = [np.array(v) for v in leaves]
                moved[i][j] += step
                point = _rebuilt(args[argnum], iter(
                    [float(m) if np.ndim(orig) == 0 and not isinstance(orig, np.ndarray)
                     else m for m, orig in zip(moved, _leaves(args[argnum]))]))
                values.append(float(np.real(np.reshape(
                    f(*args[:argnum], point, *args[argnum + 1:]), ()))))
            g[j] = (values[0] - values[1]) / (2 * eps)
        grads.append(g)
    return grads


def assert_like(g, x, float_dtype=None):
    """`g` has `x`'s type and structure; arrays its shape and dtype (float64
    for an integer `x`, or `float_dtype` when given)."""
    if isinstance(x, dict):
        assert type(g) is type(x) and list(g) == list(x), (g, x)
        for k in x:
            assert_like(g[k], x[k], float_dtype)
    elif isinstance(x, (tuple, list)):
        assert type(g) is type(x) and len(g) == len(x), (type(g), type(x))
        for gi, xi in zip(g, x):
            assert_like(gi, xi, float_dtype)
    elif isinstance(x, (int, float)):
        assert type(g) is float, (type(g), x)
    else:
        want = float_dtype or (x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64))
        assert type(g) is type(x), (type(g), type(x))
        assert np.shape(g) == np.shape(x) and g.dtype == want, (g, x)


def assert_gradient(f, g, args, argnum=0, rtol=None):
    """`g`, a gradient of `f` w.r.t. ``args[argnum]``, matches central
    differences and has the argument's type, structure, shape and dtype."""
    x = args[argnum]
    assert_like(g, x)
    dtypes = {np.asarray(leaf).dtype for leaf in _leaves(x)}
    rtol = rtol or (2e-3 if np.dtype(np.float32) in dtypes else 1e-5)
    for got, want in zip(_leaves(g), central_differences(f, args, argnum)):
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=rtol)


def calls(df, *args):
    """Three calls of a derivative (the general one, then the staged copy)
    and one of the general derivative itself."""
    results = [df(*args) for _ in range(3)]
    return results + [getattr(df, "__wrapped__", df)(*args)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f", MIXED, ids=lambda f: f.__name__)
def test_gradient_keeps_the_dtype_of_its_argument(f, dtype):
    x = X.astype(dtype)
    for g in calls(tad.grad(f), x):
        assert_gradient(f, g, (x,))
    for value, g in calls(tad.value_and_grad(f), x):
        assert value == pytest.approx(f(x)) and assert_gradient(f, g, (x,)) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f", MIXED, ids=lambda f: f.__name__)
def test_vjp_jvp_and_hvp_keep_the_dtypes(f, dtype):
    x = X.astype(dtype)
    assert_like(tad.vjp(f)(x, 1.0), x)
    assert_gradient(f, tad.vjp(f)(x, 1.0), (x,))
    value, tangent = tad.jvp(f)(x, np.ones(3, dtype))
    assert type(tangent) is type(value) and np.result_type(tangent) == np.result_type(value)
    product = tad.hvp(f)(x, np.ones(3, dtype))
    assert_like(product, x)
    want = np.sum(tad.hessian(f)(x.astype(np.float64)), axis=1)
    np.testing.assert_allclose(product, want, rtol=2e-3 if dtype == np.float32 else 1e-9)


def vector_out(x):
    return x * W


def test_jvp_tangent_follows_the_output_value():
    x = X.astype(np.float32)
    value, tangent = tad.jvp(vector_out)(x, np.ones(3, np.float32))
    assert value.dtype == tangent.dtype == np.float64  # float32 * float64 is float64
    value, tangent = tad.jvp(vector_out)(np.array([1, 2, 3]), np.ones(3))
    assert tangent.dtype == np.float64
    np.testing.assert_array_equal(tangent, W)


# ---- integer and bool arguments (issue 12) ------------------------------------

def scaled_squares(x):
    return 0.1 * np.sum(x ** 2)


def first_entries(x):
    return x[0] * 0.5 + x[1] ** 2


def mean_of_slice(x):
    return np.mean(x[1:] * 0.5)


def fancy_index(x):
    return np.sum(x[np.array([0, 0, 2])] * 0.5)


def looped(x):
    s = 0.0
    for i in range(3):
        s = s + x[i] * 0.5
    return s


def square_root(x):
    return np.sum(np.sqrt(x))


INTEGER = [scaled_squares, first_entries, mean_of_slice, fancy_index, looped, square_root]


@pytest.mark.parametrize("x", [np.array([1, 2, 3]), np.array([1, 2, 3], np.int32),
                               np.array([4, 5, 6], np.uint8)], ids=lambda x: str(x.dtype))
@pytest.mark.parametrize("f", INTEGER, ids=lambda f: f.__name__)
def test_integer_array_argument_gets_a_float64_gradient(f, x):
    for g in calls(tad.grad(f), x):
        assert_gradient(f, g, (x,))


def python_square(x):
    return 0.1 * x ** 2


@pytest.mark.parametrize("x", [3, np.int64(3)], ids=["int", "np.int64"])
def test_integer_number_argument_gets_a_float_gradient(x):
    for g in calls(tad.grad(python_square), x):
        assert float(g) == pytest.approx(0.6)
        assert type(g) is (float if type(x) is int else np.float64)


def repeated(x, n):
    s = x
    for i in range(n):
        s = s * 2.0
    return s


def picked(x, index):
    return np.sum(x[index] ** 2)


def test_integer_read_as_a_count_or_an_index_stays_an_integer():
    """Its derivative is zero; converting it would break ``range`` and indexing."""
    assert tad.grad(repeated, wrt=(0, 1))(1.5, 3) == (8.0, 0.0)
    x, index = np.array([0.5, 1.0, 2.0]), np.array([0, 2])
    gx, gindex = tad.grad(picked, wrt=(0, 1))(x, index)
    np.testing.assert_array_equal(gx, [1.0, 0.0, 4.0])
    assert gindex.dtype == np.float64 and not gindex.any()


@pytest.mark.parametrize("x", [True, np.array([True, False])], ids=["bool", "bool array"])
def test_bool_argument_is_refused(x):
    with pytest.raises(tad.NonDifferentiableArgumentError, match="bool argument") as error:
        tad.grad(scaled_squares)(x)
    assert "wrt" in error.value.hint


# ---- complex and bool outputs (issue 12) --------------------------------------

def complex_times(x):
    return np.sum(x * (1.0 + 2.0j))


def imaginary_sum(x):
    return np.sum(x) * 1j


def complex_sum_of_squares(z):
    return np.sum(z ** 2)


def compared(x):
    return np.sum(x) > 0.0


def all_positive(x):
    return np.all(x > 0.0)


@pytest.mark.parametrize("f", [complex_times, imaginary_sum], ids=lambda f: f.__name__)
def test_complex_output_is_refused(f):
    with pytest.raises(tad.NonScalarOutputError, match="complex") as error:
        tad.grad(f)(X)
    assert "vjp" in error.value.hint and "np.real" in error.value.hint


def test_complex_output_of_complex_argument_is_refused():
    with pytest.raises(tad.NonScalarOutputError, match="complex"):
        tad.grad(complex_sum_of_squares)(np.array([1.0 + 1.0j, 2.0]))


@pytest.mark.parametrize("f", [compared, all_positive], ids=lambda f: f.__name__)
def test_bool_output_is_refused(f):
    with pytest.raises(tad.NonScalarOutputError, match="bool") as error:
        tad.grad(f)(X)
    assert "vjp" in error.value.hint


def squared_modulus(z):
    return np.sum(np.abs(z) ** 2)


def count_positive(x):
    return np.sum(x > 0.0) + np.sum(x * 0.5)


def real_part_sum(z):
    return np.sum(np.real(z * z)) * 2.0


def test_real_outputs_of_complex_or_bool_values_pass():
    z = np.array([1.0 + 2.0j, -0.5j])
    np.testing.assert_allclose(tad.grad(squared_modulus)(z), 2 * z)
    # 2 Re(z^2) = 2 (x^2 - y^2): gradient 4x - 4iy = 4 conj(z)
    np.testing.assert_allclose(tad.grad(real_part_sum)(z), 4 * np.conj(z))
    for f in (squared_modulus, real_part_sum):  # real by construction: no check
        assert "ensure" not in tad.show_source(tad.grad(f))
    for g in calls(tad.grad(count_positive), X):
        np.testing.assert_array_equal(g, np.full(3, 0.5))


def sum_of_cubes(x):
    return 0.5 * np.sum(x ** 3)


def test_staged_copy_drops_the_output_check_for_a_real_kind():
    df = tad.grad(sum_of_cubes)
    calls(df, X)
    (copy,) = staging.variants(df).values()
    assert "ensure_real" not in copy and "float_argument" not in copy
    assert "ensure_real(x)" in tad.show_source(df)


# ---- structures (issue 12) ------------------------------------------------------

def concatenated(t):
    return np.sum(np.concatenate(t) ** 2)


def stacked(t):
    return np.sum(np.stack(t) ** 3)


def vstacked(t):
    return np.sum(np.vstack(t) ** 2 * 0.5)


def hstacked(t):
    return np.sum(np.sin(np.hstack(t)))


def column_stacked(t):
    return np.sum(np.column_stack(t) ** 2)


def appended_to(xs):
    return np.sum(np.append(xs, 1.0) ** 2)


def squares(x):
    return np.sum(x ** 2)


def first_squared(x):
    return x[0] ** 2


def one_entry_difference(x):
    return x - np.sum(1)


def dict_of(p):
    return np.sum(p["w"] ** 2) * p["s"]


Pair = collections.namedtuple("Pair", "w b")


def pair_of(p):
    return np.sum(p[0] * 2.0) + p[1] ** 2


TWO = (np.array([0.5, -1.0]), np.array([2.0, 0.25]))
STRUCTURES = [
    (concatenated, TWO), (concatenated, list(TWO)),
    (concatenated, (np.array([0.5, -1.0]), np.array([2.0, 0.25, 3.0]))),
    (stacked, TWO), (stacked, list(TWO)), (vstacked, TWO), (hstacked, TWO),
    (vstacked, np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])),
    (hstacked, np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])),
    (column_stacked, np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])),
    (appended_to, [0.5, -1.5]), (appended_to, (0.5, -1.5)),
    (squares, np.array([1.5])), (first_squared, np.array([1.5])),
    (squares, np.array(1.5)), (squares, np.array([[1.5]])),
    (one_entry_difference, np.array([1.5])),
    (dict_of, {"w": np.array([0.5, 1.0]), "s": 3.0}),
    (pair_of, Pair(np.array([0.5, 1.0]), 3.0)), (pair_of, (np.array([0.5, 1.0]), 3.0)),
]


def _cast(value, dtype):
    if isinstance(value, dict):
        return {k: _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        items = [_cast(v, dtype) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value.astype(dtype) if isinstance(value, np.ndarray) else value


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f, x", STRUCTURES, ids=[
    f"{f.__name__}-{type(x).__name__}{np.shape(x) if isinstance(x, np.ndarray) else ''}"
    for f, x in STRUCTURES])
def test_gradient_has_the_structure_of_its_argument(f, x, dtype):
    x = _cast(x, dtype)
    for g in calls(tad.grad(f), x):
        assert_gradient(f, g, (x,))
    assert_gradient(f, tad.vjp(f)(x, 1.0), (x,))


# ---- the runtime helpers ----------------------------------------------------------

def test_cast_like_rebuilds_structures_and_dtypes():
    assert runtime.cast_like([np.ones(2), 2.0], (np.zeros(2, np.float32), 1.0))[0].dtype \
        == np.float32
    assert runtime.cast_like(np.array([1.0, 2.0]), [0.0, 0.0]) == [1.0, 2.0]
    got = runtime.cast_like([np.ones(3), np.ones(3)], np.zeros((2, 3)))
    assert type(got) is np.ndarray and got.shape == (2, 3)
    assert runtime.cast_like(np.array(2.0), np.zeros(1)).shape == (1,)
    assert type(runtime.cast_like(np.array([2.0]), 1.0)) is float
    assert runtime.cast_like({"a": None}, {"a": np.ones(2)})["a"].tolist() == [0.0, 0.0]
    assert runtime.cast_like(np.array([1.5, 2], dtype=object), np.zeros(2)).dtype == np.float64
    assert runtime.cast_like(np.ones((1, 3)), np.zeros(3)).shape == (3,)
    for wrong in (np.ones(3), np.ones((3, 2))):  # a reshape would move entries
        with pytest.raises(tad.InternalError):
            runtime.cast_like(wrong, np.zeros((2, 3)) if wrong.ndim == 2 else np.zeros(2))


def test_float_argument_converts_integers_only():
    x = np.ones(2, np.float32)
    assert runtime.float_argument(x) is x
    assert runtime.float_argument(2) == 2.0 and type(runtime.float_argument(2)) is float
    converted = runtime.float_argument({"w": np.array([1, 2]), "n": 3, "name": "a"})
    assert converted["w"].dtype == np.float64 and converted["n"] == 3
    assert converted["name"] == "a"


def _int_tangent_model(x0, x1):
    c = np.copy(x0)  # of an integer x0: a write of floats truncates
    c[0] = c[0] * 2.5 + x1
    return np.sum(np.sin(c) * x0)


def test_jvp_of_an_integer_argument_is_taken_at_the_float_point():
    # found by the fuzzer: jvp took an integer argument as it came, so its value
    # and tangent were those of integer code, unlike grad's (the float point)
    x0, x1 = np.array([1, 2, 3]), 0.7
    t = np.array([0.5, -1.0, 2.0])
    value, tangent = tad.jvp(_int_tangent_model)(x0, x1, t)
    assert value == pytest.approx(_int_tangent_model(x0.astype(float), x1))
    assert tangent == pytest.approx(tad.grad(_int_tangent_model)(x0, x1) @ t)
    eps = 1e-6
    x = x0.astype(float)
    fd = (_int_tangent_model(x + eps * t, x1) - _int_tangent_model(x - eps * t, x1)) / (2 * eps)
    assert tangent == pytest.approx(fd, rel=1e-6)


def _float_write_into_int_copy(x0, x1):
    c = np.copy(x0)  # x0 is an integer array and not differentiated
    c[0] = c[0] * x1  # NumPy truncates: piecewise constant in x1
    return np.sum(np.sin(c)) + x1 * x1


@pytest.mark.parametrize("transform", ["grad", "jvp", "hvp"])
def test_a_float_written_into_an_integer_array_is_refused_not_truncated(transform):
    # found by the fuzzer: grad, jvp and hvp disagreed through the truncation
    x0, x1 = np.array([1, 2, 3]), 0.7
    if transform == "grad":
        call = lambda: tad.grad(_float_write_into_int_copy, wrt=(1,))(x0, x1)  # noqa: E731
    elif transform == "jvp":
        call = lambda: tad.jvp(_float_write_into_int_copy, wrt=(1,))(x0, x1, 1.0)  # noqa: E731
    else:
        call = lambda: tad.hvp(_float_write_into_int_copy, wrt=1)(x0, x1, 1.0)  # noqa: E731
    with pytest.raises(tad.UnsupportedSyntaxError, match="truncates"):
        for _ in range(3):  # general and staged
            call()
