"""Sums of whole products in a specialized copy (``staging/full_sums.py``):
numbers taken out of the sum, and two float64 arrays added up by their
dot product. Each case runs the specialized source against the source
it came from (equal to rounding: the sum is added in another order);
the cases that must keep ``np.sum`` are checked to."""
import textwrap

import numpy as np
import pytest
from scipy.linalg import solve_triangular

import tangent_ad as tad
from tangent_ad import emit, runtime
from tangent_ad.staging import passes as staging_passes
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging import staged
from tangent_ad.staging.kinds import kind_of
from test_optimize import functions


def _run(source, args):
    namespace = {"np": np, **{h: getattr(runtime, h) for h in runtime.__all__}}
    exec(source, namespace)
    return namespace["f"](*args)


def specialized(source, args, rtol=1e-13):
    """`source` (a function ``f``) specialized for the kinds of `args`;
    its result is checked against the source's: the same type and dtype,
    equal to `rtol`."""
    source = textwrap.dedent(source)
    tree = functions(source)[0]
    params = dict(zip([a.id for a in tree.args.args], map(kind_of, args)))
    out = emit.run(staging_passes.optimize(tree, params))
    got, want = _run(out, args), _run(source, args)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=rtol)
    return out


R = np.random.default_rng(0)
A, B, C = (R.normal(size=(5, 4)) for _ in range(3))


def test_two_arrays_are_a_dot_product_and_numbers_come_out():
    out = specialized("""
        def f(a, b, c, s, u):
            return float(np.sum(-(a * s * b) * c / u, axis=(0, 1))), np.sum(a * b), \
                np.sum(2.0 * a)
    """, (A, B, C, 1.3, 0.7))
    assert "float(-np.vdot(a * b, c) * s / u)" in out
    assert "np.vdot(a, b)" in out
    assert "np.sum(a) * 2.0" in out


def test_float32_keeps_np_sum_and_its_dtype():
    a, b = A.astype(np.float32), B.astype(np.float32)
    out = specialized("""
        def f(a, b, s):
            return np.sum(a * s * b)
    """, (a, b, 1.5), rtol=1e-5)
    assert "vdot" not in out and "np.sum(a * b) * s" in out


@pytest.mark.parametrize("body", [
    "np.sum(a * v)",                      # broadcast: v is a row
    "np.sum(a * b, axis=0)",              # not every axis
    "np.sum(a * b, axis=(0, 1), keepdims=True)",
    "np.sum(a * np.cos(s))",              # a number that is not a name or constant
    "np.sum(a * z)",                      # complex
    "np.sum(k * k)",                      # integers
    "np.sum(a * w)",                      # a float64 scalar with float32 arrays
])
def test_sums_that_stay(body):
    a32 = A.astype(np.float32)
    out = specialized(f"""
        def f(a, b, v, s, z, k, w, a32):
            a = a32 if w is not None and "w" in {body!r} else a
            return {body}
    """, (A, B, A[0], 0.4, A * 1j, np.arange(20).reshape(5, 4), np.float64(2.0), a32),
        rtol=1e-6)
    assert "vdot" not in out
    assert body.split("(", 1)[1].split(",")[0].rstrip(")") in out


def test_gaussian_process_gradient():
    """The adjoints of a kernel's scale factors (the GP benchmark's shape)
    are dot products in the staged copy, and the gradient matches the
    general one and central differences."""
    X = R.normal(size=(6, 2))
    y = R.normal(size=6)

    def nll(p, X, y):
        sf2 = np.exp(2.0 * p[0])
        ell = np.exp(p[1])
        d = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = sf2 * np.exp(-0.5 * d / ell ** 2) + 0.1 * np.eye(6)
        L = np.linalg.cholesky(K)
        alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
        return 0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(L)))

    p = np.array([0.2, -0.3])
    general = tad.grad(nll, wrt=(0,))(p, X, y)
    df = staged(tad.grad(nll, wrt=(0,)))
    for _ in range(3):
        got = df(p, X, y)
    np.testing.assert_allclose(got, general, rtol=1e-12)
    step = 1e-6
    fd = [(nll(p + step * e, X, y) - nll(p - step * e, X, y)) / (2 * step) for e in np.eye(2)]
    np.testing.assert_allclose(got, fd, rtol=1e-6)
    (source,) = staging.variants(df).values()
    assert source.count("np.vdot(") == 2, source
