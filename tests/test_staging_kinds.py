"""Kinds that follow what a program does with its numbers (``staging/kinds.py``).

A sum started at ``0`` holds a Python int before its loop and a float
after: its kind is a real scalar, as for one started at ``0.0``, so its
staged copy drops the same adjoint helpers (it kept every
``unbroadcast``, on their slow path, at 2.2x the time per call).
"""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging.kinds import kind_of
from tangent_ad.testing import numerical_grad


def sum_from_int(w, xs):
    s = 0
    for i in range(len(xs)):
        s = s + np.sin(w * xs[i]) * w
    return s


def sum_from_float(w, xs):
    s = 0.0
    for i in range(len(xs)):
        s = s + np.sin(w * xs[i]) * w
    return s


def rows_from_int(W, X):
    total = 0
    for i in range(X.shape[0]):
        total += np.sum(np.tanh(X[i] @ W) ** 2)
    return total


def _staged(df, args, calls=4):
    """The result of `df` at `args` and the source of its copy staged
    for their kinds (and the seed's, 1.0)."""
    for _ in range(calls):
        got = df(*args)
    return got, staging.variants(df)[tuple(map(kind_of, args + (1.0,)))]


@pytest.mark.parametrize("n", [0, 1, 6])
def test_a_sum_started_at_an_int_is_staged_as_a_real_scalar(n, monkeypatch):
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    xs = np.random.default_rng(n).normal(size=n)
    df = tad.grad(sum_from_int)
    got, source = _staged(df, (0.3, xs))
    assert type(got) is float
    assert got == getattr(df, "__wrapped__", df)(0.3, xs)  # the general copy's number
    np.testing.assert_allclose(got, numerical_grad(sum_from_int, (0.3, xs), 0), rtol=1e-7, atol=1e-12)
    assert "unbroadcast" not in source and "cast_like" not in source
    _, from_float = _staged(tad.grad(sum_from_float), (0.3, xs))
    assert source.replace("dsum_from_int", "dsum_from_float") == from_float


def test_rows_summed_from_an_int_keep_their_dtype(monkeypatch):
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    rng = np.random.default_rng(1)
    W, X = rng.normal(size=(4, 3)), rng.normal(size=(5, 4))
    df = tad.grad(rows_from_int)
    got, source = _staged(df, (W, X))
    np.testing.assert_allclose(got, numerical_grad(rows_from_int, (W, X), 0), rtol=1e-6)
    assert "unbroadcast(btotal" not in source
    W32, X32 = W.astype(np.float32), X.astype(np.float32)
    got32, _ = _staged(tad.grad(rows_from_int), (W32, X32))
    assert got32.dtype == np.float32 and got32.shape == W.shape
    np.testing.assert_allclose(got32, got, rtol=1e-4)



def weighted_sines(x):
    y = x * 2.0
    z = np.sin(y) + x
    return np.sum(z * x)


def test_an_integer_argument_has_the_converted_kind_after_the_boundary(monkeypatch):
    """``x = float_argument(x)`` rebinds an int array to float64 before
    anything reads it: the rest of the function sees float64, so the
    copy staged for an int argument is the float one after the
    conversion (its adjoint added in place: ``bx += bz``)."""
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    x = np.array([1, -2, 3])
    df = tad.grad(weighted_sines)
    got, source = _staged(df, (x,))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, numerical_grad(weighted_sines, (x * 1.0,), 0), rtol=1e-6)
    _, from_float = _staged(df, (x * 1.0,))
    lines = source.splitlines()
    assert lines[1].strip() == "x = float_argument(x)"
    assert lines[:1] + lines[2:] == from_float.splitlines()
    assert "bx += bz" in source


def test_a_kind_that_depends_on_what_a_real_scalar_is_is_unknown():
    """A real scalar is a Python int or float at some point and an
    np.float64 at another. NumPy 2 types the first two weakly: a float32
    array times 0.5 stays float32, times np.float64(0.5) becomes float64.
    So a result whose kind depends on which it is has none; one that does
    not (a float64 array times it) keeps its kind."""
    from test_optimize import kinds_of
    from tangent_ad.staging.kinds import Kind, REAL
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    names = kinds_of("""
        def f(z, w, s0, t, n, k):
            s = t
            for i in range(n):
                s = s0
            y = z * s
            u = w * s
            c = np.array([s, s])
            m = np.sum(s)
            v = s * 2.0
        """, z=Kind("array", (3,), f32), w=Kind("array", (3,), f64), s0=Kind("int"),
        t=Kind("scalar", (), f64), n=Kind("int"), k=Kind("int"))
    assert names["s"] == REAL and names["v"] == REAL
    assert names["u"] == Kind("array", (3,), f64)
    assert names["y"] is None  # float64 while s is t, float32 once it is 0
    assert names["c"] is None  # an int64 array when s is 0
    assert names["m"] is None  # np.sum(0) is an np.int64


def weak_after_loop(x, z, t, n):
    s = t
    for i in range(n):
        s = 0.5 * i
    y = z * s
    return np.sum(y * x)


def test_a_weakly_typed_scale_keeps_the_gradients_dtype(monkeypatch):
    """`s` is an np.float64 before the loop and a Python float in it: a
    float32 `z` times it is float32 after the loop. The copy once took it
    for float64 and dropped the cast, returning a float32 gradient for a
    float64 argument."""
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)
    x, z = np.linspace(0.5, 1.5, 3), np.full(3, 0.1, np.float32)
    df = tad.grad(weak_after_loop)
    got, _ = _staged(df, (x, z, np.float64(2.0), 3))
    want = getattr(df, "__wrapped__", df)(x, z, np.float64(2.0), 3)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)


def test_a_piece_of_a_stacked_lists_adjoint_has_the_items_kind():
    """``unstack(g, outs)[k]`` takes each piece like its item: the kind of
    every value appended to `outs`, when they share one (an inexact
    array), for any int `k`; otherwise unknown."""
    from test_optimize import kinds_of
    from tangent_ad.staging.kinds import Kind
    f64, f32 = np.dtype(np.float64), np.dtype(np.float32)
    names = kinds_of("""
        def f(g, v, w, k, n):
            outs = []
            mixed = []
            ints = []
            for i in range(n):
                t = appended(outs, v)
                outs = t
                mixed = appended(mixed, v)
                mixed = appended(mixed, w)
                ints = appended(ints, i)
            a = unstack(g, outs)[k]
            b = unstack(g, mixed)[k]
            c = unstack(g, ints)[k]
        """, g=Kind("array", (5, 3), f64), v=Kind("array", (3,), f64),
        w=Kind("array", (3,), f32), k=Kind("int"), n=Kind("int"))
    assert names["a"] == Kind("array", (3,), f64)
    assert names["b"] is None and names["c"] is None

