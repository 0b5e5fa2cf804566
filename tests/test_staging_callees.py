"""Staging knows the functions a derivative calls by object, not by the
names printed for them (``tangent_ad/staging/callees.py``)."""
import builtins
import textwrap

import gast
import pytest
import numpy
import numpy as onp
from numpy import concatenate as cat
from numpy import tanh

import tangent_ad as tad
from tangent_ad import runtime
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging.callees import Callees, for_function
from tangent_ad.testing import check_grads


def _expr(source):
    return gast.parse(source).body[0].value


def test_names_and_module_attributes_resolve_in_the_namespace():
    callees = Callees({"onp": numpy, "cat": numpy.concatenate, "unbroadcast": runtime.unbroadcast,
                       "data": numpy.ones(3), "__builtins__": builtins})
    assert callees.of(_expr("onp.linalg.cholesky")) is numpy.linalg.cholesky
    assert callees.of(_expr("cat")) is numpy.concatenate
    assert callees.of(_expr("unbroadcast")) is runtime.unbroadcast
    assert callees.of(_expr("len")) is len  # a builtin
    assert callees.of(_expr("data")) is None  # an array is no function
    assert callees.of(_expr("np.sum")) is None  # not in this namespace
    assert callees.of(_expr("cat.attr")) is None  # attributes of modules only
    assert callees.of(_expr("f(x).g")) is None


def test_a_name_the_function_binds_is_not_the_global():
    fdef = gast.parse(textwrap.dedent("""
        def f(x):
            unbroadcast = x
            return unbroadcast(x, x)
    """)).body[0]
    callees = for_function(fdef)
    assert callees.of(_expr("unbroadcast")) is None
    assert callees.of(_expr("zeros_like")) is runtime.zeros_like  # the standard namespace


def aliased(w, x):
    h = cat([onp.tanh(x @ w), x], axis=1)
    return onp.sum(h ** 2)


def from_imported(w, x):
    return onp.sum(tanh(x @ w) ** 2)


def _staged(f, args):
    df = tad.grad(f)
    for _ in range(3):
        got = df(*args)
    sources = list(staging.variants(df).values())
    assert len(sources) == 1
    return df, got, sources[0]


def test_numpy_under_other_names_is_specialized():
    """``import numpy as onp`` and ``from numpy import concatenate as cat``:
    the copy has no helper left, the piece of g it keeps is one slice, and
    the gradient is the general one's and finite differences'."""
    rng = onp.random.default_rng(0)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    df, got, source = _staged(aliased, (w, x))
    for helper in ("unconcatenate", "grad_matmul_rhs", "cast_like", "float_argument", "]["):
        assert helper not in source, source
    onp.testing.assert_allclose(got, df.__wrapped__(w, x), rtol=1e-13)
    check_grads(aliased, df, (w, x))
    df, got, source = _staged(from_imported, (w, x))
    assert "grad_matmul_rhs" not in source and "unbroadcast" not in source, source
    check_grads(from_imported, df, (w, x))


def concatenates_in_a_loop(w, x):
    total = 0.0
    for _ in range(3):
        h = cat([onp.tanh(x @ w), x], axis=1)
        w = w * 0.5
        total = total + onp.sum(h ** 2)
    return total


def test_a_piece_picked_in_a_loop_matches_finite_differences():
    rng = onp.random.default_rng(1)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    df, got, _ = _staged(concatenates_in_a_loop, (w, x))
    onp.testing.assert_allclose(got, df.__wrapped__(w, x), rtol=1e-13)
    check_grads(concatenates_in_a_loop, df, (w, x))


try:  # SciPy is optional
    from scipy.linalg import solve_triangular
except ImportError:
    solve_triangular = None


def gp_like(params, X, y):
    K = onp.exp(params[0]) * (X @ X.T) + onp.exp(params[1]) * onp.eye(len(y))
    L = onp.linalg.cholesky(K)
    alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
    return 0.5 * onp.dot(y, alpha) + onp.sum(onp.log(onp.diag(L)))


def test_factorizations_and_solves_have_kinds():
    """np.linalg.cholesky, SciPy's solve_triangular, len(y) as a size and
    the adjoints of linear algebra (``factor_rules.py``): the copy keeps no
    unbroadcast, and its gradient matches the general one and finite
    differences, in float64 and float32 (whose dtype it keeps)."""
    if solve_triangular is None:
        pytest.skip("needs scipy")
    rng = onp.random.default_rng(2)
    args = (onp.array([0.1, -1.0]), rng.standard_normal((6, 2)), rng.standard_normal(6))
    df, got, source = _staged(gp_like, args)
    assert "unbroadcast" not in source and "cast_like" not in source, source
    onp.testing.assert_allclose(got, df.__wrapped__(*args), rtol=1e-12)
    check_grads(gp_like, df, args)
    _staged_in_float32_agrees(gp_like, args, got)


def _staged_in_float32_agrees(func, args, got):
    """The staged float32 gradient keeps the dtype and shape, and agrees
    with the float64 one `got` to float32's precision."""
    single = tuple(a.astype(onp.float32) for a in args)
    df32 = tad.grad(func)
    for _ in range(3):
        got32 = df32(*single)
    assert got32.dtype == onp.float32 and got32.shape == got.shape
    onp.testing.assert_allclose(got32, got, rtol=2e-3, atol=1e-4)


def solves(params, A, y):
    K = onp.exp(params[0]) * (A @ A.T) + onp.exp(params[1]) * onp.eye(len(y))
    return 0.5 * onp.dot(y, onp.linalg.solve(K, y)) + onp.sum(onp.linalg.inv(K) * (A @ A.T))


def test_solve_and_inverse_have_kinds():
    """np.linalg.solve and np.linalg.inv, and the adjoints of a solve
    (grad_solve_rhs, grad_solve_lhs): the copy keeps no unbroadcast of
    the matrix's adjoint, and the gradient matches the general one and
    finite differences; float32 keeps its dtype."""
    rng = onp.random.default_rng(3)
    args = (onp.array([0.1, -1.0]), rng.standard_normal((5, 2)), rng.standard_normal(5))
    df, got, source = _staged(solves, args)
    assert "grad_solve_lhs(" in source and "unbroadcast(bK" not in source, source
    onp.testing.assert_allclose(got, df.__wrapped__(*args), rtol=1e-12)
    check_grads(solves, df, args)
    _staged_in_float32_agrees(solves, args, got)


def gp_by_determinant(params, X, y):
    d = onp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = onp.exp(params[0]) * onp.exp(-0.5 * d / onp.exp(params[1]) ** 2) + 0.1 * onp.eye(len(y))
    sign, logdet = onp.linalg.slogdet(K)
    return 0.5 * y @ onp.linalg.solve(K, y) + 0.5 * logdet


def test_a_likelihood_by_slogdet_and_solve_is_specialized():
    """A Gaussian process written with slogdet and solve (not cholesky):
    every adjoint has a kind, so the copy keeps no unbroadcast; the
    gradient matches the general one and finite differences."""
    rng = onp.random.default_rng(4)
    args = (onp.array([0.2, -0.3]), rng.standard_normal((6, 2)), rng.standard_normal(6))
    df, got, source = _staged(gp_by_determinant, args)
    assert "unbroadcast" not in source and "accumulate(" not in source, source
    onp.testing.assert_allclose(got, df.__wrapped__(*args), rtol=1e-12)
    check_grads(gp_by_determinant, df, args)
