"""One LU factorization for the solves, determinant and inverse of a
matrix in a specialized copy (``staging/shared_factors.py``, with the
helpers of ``runtime/shared_lu.py``): the helpers agree with NumPy's
functions, and a copy that shares the factors gives the general
derivative's gradient and finite differences'."""
import textwrap

import numpy as np
import pytest

scipy_linalg = pytest.importorskip("scipy.linalg")  # the rewrite needs SciPy imported

import tangent_ad as tad  # noqa: E402
from tangent_ad import emit, runtime  # noqa: E402
from tangent_ad.runtime import shared_lu  # noqa: E402
from tangent_ad.staging import dispatch as staging  # noqa: E402
from tangent_ad.staging import passes as staging_passes  # noqa: E402
from tangent_ad.staging import shared_factors  # noqa: E402
from tangent_ad.staging.kinds import kind_of  # noqa: E402
from test_optimize import functions  # noqa: E402


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_the_helpers_agree_with_numpy(dtype, tol):
    rng = np.random.default_rng(0)
    for trial in range(6):
        a = rng.normal(size=(7, 7)).astype(dtype)  # pivots, and determinants of both signs
        b, bs = rng.normal(size=7).astype(dtype), rng.normal(size=(7, 3)).astype(dtype)
        f = shared_lu.factored(a)
        for got, want in ((shared_lu.solve_factored(f, b), np.linalg.solve(a, b)),
                          (shared_lu.solve_factored(f, bs), np.linalg.solve(a, bs)),
                          (shared_lu.solve_factored(f, b, True), np.linalg.solve(a.T, b)),
                          (shared_lu.inv_factored(f), np.linalg.inv(a))):
            assert got.dtype == dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        sign, log = shared_lu.slogdet_factored(f)
        want_sign, want_log = np.linalg.slogdet(a)
        assert type(sign) is type(want_sign) and type(log) is type(want_log)
        assert sign == want_sign and abs(log - want_log) < tol * 10


def test_a_singular_matrix_fails_as_numpy_does():
    f = shared_lu.factored(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert tuple(shared_lu.slogdet_factored(f)) == (0.0, -np.inf)
    for call in (lambda: shared_lu.solve_factored(f, np.ones(2)), lambda: shared_lu.inv_factored(f)):
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            call()


def gp_by_determinant(params, X, y):
    d = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(params[0]) * np.exp(-0.5 * d / np.exp(params[1]) ** 2) + 0.1 * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_likelihood_factors_its_matrix_once(dtype):
    rng = np.random.default_rng(5)
    args = tuple(a.astype(dtype) for a in (np.array([0.2, -0.3]), rng.standard_normal((6, 2)),
                                           rng.standard_normal(6)))
    df = tad.grad(gp_by_determinant)
    for _ in range(3):
        got = df(*args)
    source = list(staging.variants(df).values())[-1]  # (the float64 copy is another)
    code = "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))
    assert code.count("factored(K)") == 1, source
    if dtype == np.float64:  # (np.eye makes float32's K float64: y's solve stays NumPy's)
        assert "np.linalg" not in code, source
    assert got.dtype == dtype
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(got, df.__wrapped__(*args), rtol=tol, atol=tol)
    if dtype == np.float64:
        step = 1e-6
        fd = [(gp_by_determinant(args[0] + step * e, *args[1:]) -
               gp_by_determinant(args[0] - step * e, *args[1:])) / (2 * step) for e in np.eye(2)]
        np.testing.assert_allclose(got, fd, rtol=1e-6)


def rewritten(body, **kinds):
    """The source of `body` (a function ``f``) specialized for `kinds`,
    with its result checked against the source's."""
    source = textwrap.dedent(body)
    tree = functions(source)[0]
    out = emit.run(staging_passes.optimize(tree, {k: kind_of(v) for k, v in kinds.items()}))
    namespace = {"np": np, **{h: getattr(runtime, h) for h in runtime.__all__}}
    exec(source, namespace)
    want = namespace["f"](**kinds)
    exec(out, namespace)
    for got, expected in zip(namespace["f"](**kinds), want):
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    return out


A = np.random.default_rng(1).normal(size=(5, 5)) + 5 * np.eye(5)
V = np.arange(5.0)


def test_two_uses_share_one_factorization():
    out = rewritten("""
        def f(a, v):
            k = a * 2.0
            x = np.linalg.solve(k, v)
            return x, np.linalg.slogdet(k)[1], np.linalg.inv(k)
    """, a=A, v=V)
    assert "k_lu = factored(k)" in out and "np.linalg" not in out


@pytest.mark.parametrize("body", [
    "return np.linalg.solve(k, v)",                                  # one use only
    "x = np.linalg.solve(k, v)\n    k += 1.0\n    return x, np.linalg.inv(k)",  # changed in place
    "x = np.linalg.solve(k, v)\n    g(k)\n    return x, np.linalg.inv(k)",  # read by anything
    "if v[0] > 0:\n        return np.linalg.solve(k, v), np.linalg.inv(k)\n    return v",
])
def test_matrices_that_keep_numpy(body):
    source = "def f(a, v):\n    k = a * 2.0\n    " + body + "\n"
    tree = functions(source)[0]
    out = emit.run(staging_passes.optimize(tree, {"a": kind_of(A), "v": kind_of(V)}))
    assert "factored" not in out, out


def test_a_solve_that_promotes_keeps_numpy():
    """A float32 matrix and a float64 right-hand side: NumPy's solve gives
    float64, LAPACK's float32 routines would not."""
    source = "def f(a, v):\n    return np.linalg.solve(a, v), np.linalg.inv(a)\n"
    out = emit.run(staging_passes.optimize(functions(source)[0],
                                           {"a": kind_of(A.astype(np.float32)), "v": kind_of(V)}))
    assert "solve_factored" not in out, out


@pytest.mark.parametrize("between", [
    "np.fill_diagonal(k, 1.0)",      # NumPy writes into it
    "np.add(v[0], 1.0, k)",          # a ufunc's output
    "kt = k.T\n    kt += 1.0",       # through a view
    "kt = np.transpose(k)\n    kt[0, 1] = 3.0",
    "kk = k\n    kk[0] = v",
])
def test_a_matrix_written_in_place_keeps_numpy(between):
    """The pass on its own (the general passes assume no such writes): a
    matrix that anything may change between its calls keeps them."""
    source = ("def f(a, v):\n    k = a * 2.0\n    x = np.linalg.solve(k, v)\n"
              f"    {between}\n    return x, np.linalg.inv(k)\n")
    params = {"a": kind_of(A), "v": kind_of(V)}
    out = emit.run(shared_factors.run(functions(source)[0], params))
    assert "factored" not in out, out
    clean = "def f(a, v):\n    k = a * 2.0\n    x = np.linalg.solve(k, v)\n    return x, np.linalg.inv(k)\n"
    assert "factored" in emit.run(shared_factors.run(functions(clean)[0], params))
