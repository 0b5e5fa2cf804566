"""Derivatives of Dask arrays, on a dask.distributed cluster.

The generated code calls NumPy functions, which dispatch to Dask: the
gradient of a Dask array is a lazy Dask array, computed when the user
asks, with the user's scheduler. Each workload is checked against the
same gradient on NumPy arrays. Dask and distributed are test extras;
without them this module is skipped.
"""
import numpy as np
import pytest

import tangent_ad as tad

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.filterwarnings("error::FutureWarning")  # Dask's "not implemented"


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def logistic(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) / X.shape[0]


def poisson_glm(w, X, y):
    eta = X @ w
    return np.sum(np.exp(eta) - y * eta)


def rnn(Wh, Wx, xs):
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + Wx @ xs[t])
    return np.sum(h ** 2)


def stencil(u0, c):
    u = u0
    for _ in range(3):
        u = u + c * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return np.sum(u ** 2)


def gather(x):
    return np.sum(np.take(np.pad(x, 1), [0, 2, 2, 3]) ** 2) + np.sum(np.repeat(x, 2) ** 3)


def _workloads():
    rng = np.random.default_rng(0)
    n = 120
    X = rng.normal(size=(n, 4))
    return {
        "mlp": (mlp, (0, 1, 2), [rng.normal(size=s) for s in [(4, 5), (5,), (5, 2)]] +
                [X, rng.normal(size=(n, 2))]),
        "logistic": (logistic, (0,), [rng.normal(size=4), X, (rng.random(n) > 0.5) * 1.0]),
        "poisson_glm": (poisson_glm, (0,), [0.1 * rng.normal(size=4), X,
                                            rng.poisson(2.0, n) * 1.0]),
        "rnn": (rnn, (0, 1), [0.3 * rng.normal(size=(3, 3)), 0.3 * rng.normal(size=(3, 2)),
                              rng.normal(size=(6, 2))]),
        "stencil": (stencil, (0,), [rng.normal(size=40), 0.2]),
        "gather": (gather, (0,), [rng.normal(size=5)]),
    }


WORKLOADS = _workloads()


def chunked(a):
    return da.from_array(a, chunks=max(1, a.shape[0] // 2)) if isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_gradients_of_dask_arrays_are_lazy_dask_arrays(name, client):
    f, wrt, args = WORKLOADS[name]
    want = tad.grad(f, wrt=wrt)(*args)
    g = tad.grad(f, wrt=wrt)
    for _ in range(3):  # the first calls, then the staged dispatcher
        got = g(*map(chunked, args))
        got, expected = (got, want) if len(wrt) > 1 else ((got,), (want,))
        assert all(isinstance(gi, da.Array) for gi in got)
    for gi, wi in zip(client.compute(list(got), sync=True), expected):
        np.testing.assert_allclose(gi, wi, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["mlp", "logistic", "stencil"])
def test_jvp_of_dask_arrays(name, client):
    f, wrt, args = WORKLOADS[name]
    tangents = [np.full_like(args[i], 0.5) if isinstance(args[i], np.ndarray) else 0.5
                for i in wrt]
    _, want = tad.jvp(f, wrt=wrt)(*args, *tangents)
    value, got = tad.jvp(f, wrt=wrt)(*map(chunked, args), *map(chunked, tangents))
    assert isinstance(got, da.Array)
    value, got = client.compute([value, got], sync=True)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)


def test_float32_dask_arrays_keep_their_dtype(client):
    f, wrt, args = WORKLOADS["mlp"]
    args32 = [a.astype(np.float32) for a in args]
    got = tad.grad(f, wrt=wrt)(*map(chunked, args32))
    for gi in got:
        assert isinstance(gi, da.Array) and gi.dtype == np.float32
    assert all(gi.dtype == np.float32 for gi in client.compute(list(got), sync=True))


def _refuse(*args, **kwargs):
    raise AssertionError("a Dask array was computed")


def test_a_gradient_computes_nothing_until_asked(client):
    # NumPy parameters, Dask data: the gradient is a lazy Dask array in the
    # parameter's shape and dtype, and nothing runs before it is computed
    f, wrt, args = WORKLOADS["logistic"]
    data = [args[0]] + [chunked(a) for a in args[1:]]
    g = tad.grad(f)
    with dask.config.set(scheduler=_refuse):
        for _ in range(3):
            got = g(*data)
    assert isinstance(got, da.Array) and got.shape == args[0].shape
    np.testing.assert_allclose(client.compute(got, sync=True), g(*args), rtol=1e-10)


def test_value_and_grad_on_a_cluster_computes_on_it(client):
    f, wrt, args = WORKLOADS["logistic"]
    value, g = client.compute(list(tad.value_and_grad(f)(*map(chunked, args))), sync=True)
    np.testing.assert_allclose(value, f(*args))
    np.testing.assert_allclose(g, tad.grad(f)(*args), rtol=1e-10)
