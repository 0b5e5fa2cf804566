"""Derivatives of arrays that are not NumPy's: the dispatch path that Dask
and CuPy arrays take, checked on a strict stand-in (``strict_array.py``)
that fails on every implicit conversion to a NumPy array.

Every rule of the table (``rule_specs.py``), in reverse and forward mode,
must give the derivative it gives on NumPy arrays, as a StrictArray of the
argument's dtype: so no helper of the runtime called ``np.asarray`` on an
operand or allocated a NumPy array where the operand's library should
have. The table runs in float32, where a dtype that is lost shows
(``TANGENT_AD_ALL_DTYPES=1`` adds float64; the values on NumPy arrays are
checked against central differences in both, in test_numpy_rules.py). The Dask tests on a cluster are in
``test_dask.py``.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import tangent_ad as tad
from rule_specs import SPECS
from strict_array import ImplicitConversion, StrictArray, unwrap
from test_numpy_rules import rule_functions, sample  # noqa: F401 (a fixture)



DTYPES = [np.float32] + ([np.float64] if os.environ.get("TANGENT_AD_ALL_DTYPES") else [])


def strict(value):
    return StrictArray(value) if isinstance(value, np.ndarray) else value


def specs(dtype):
    return [pytest.param(spec, id=spec.id) for spec in SPECS if not spec.xfail_reason(dtype)]


def strict_args(spec, f, dtype):
    """The spec's arguments as strict arrays; skip when the function itself
    converts its argument to NumPy (``np.array(x)`` of a CuPy array fails
    in the user's own code, before any derivative)."""
    args = sample(spec, dtype)
    try:
        f(*map(strict, args))
    except ImplicitConversion:
        pytest.skip("the function itself converts its argument to a NumPy array")
    return args


def same(got, want, dtype):
    assert isinstance(got, StrictArray), f"a {type(got).__name__} came out, not a StrictArray"
    assert got.dtype == want.dtype == dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(unwrap(got), want, rtol=1e-6 if dtype == np.float32 else 1e-10,
                               atol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("spec", specs(np.float64))
def test_reverse_mode_follows_the_arrays(spec, dtype, rule_functions):
    if spec.xfail_reason(dtype):
        pytest.skip("the rule is a known failure in this dtype (rule_specs.py)")
    f = rule_functions[spec.id]
    args = strict_args(spec, f, dtype)
    wrt = tuple(range(len(spec.shapes)))
    want = tad.grad(f, wrt=wrt)(*args)
    got = tad.grad(f, wrt=wrt)(*map(strict, args))
    want, got = (want, got) if len(wrt) > 1 else ((want,), (got,))
    for x, g, w in zip(args, got, want):
        if isinstance(x, np.ndarray):
            same(g, w, dtype)
        else:
            assert isinstance(g, float) and np.isclose(g, w, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("spec", specs(np.float64))
def test_forward_mode_follows_the_arrays(spec, dtype, rule_functions):
    if spec.xfail_reason(dtype):
        pytest.skip("the rule is a known failure in this dtype (rule_specs.py)")
    f = rule_functions[spec.id]
    args = strict_args(spec, f, dtype)
    wrt = tuple(range(len(spec.shapes)))
    tangents = [np.full_like(a, 0.7) if isinstance(a, np.ndarray) else 0.7
                for a in args[:len(wrt)]]
    want = tad.jvp(f, wrt=wrt)(*args, *tangents)[1]
    got = tad.jvp(f, wrt=wrt)(*map(strict, args), *map(strict, tangents))[1]
    if isinstance(want, np.ndarray):
        same(got, want, dtype)
    else:
        np.testing.assert_allclose(np.asarray(unwrap(got)), want,
                                   rtol=1e-5 if dtype == np.float32 else 1e-10)


def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def test_staged_calls_follow_the_arrays():
    # the dispatcher stages a copy after repeated calls: its guards check
    # for NumPy arrays, so the strict arrays keep running the general one
    rng = np.random.default_rng(0)
    args = [rng.normal(size=s) for s in [(4, 5), (5,), (5, 2), (6, 4), (6, 2)]]
    g = tad.grad(mlp, wrt=(0, 1, 2))
    want = g(*args)
    for _ in range(4):
        got = g(*map(strict, args))
        for gi, wi in zip(got, want):
            same(gi, wi, np.float64)
    for gi, wi in zip(g(*args), want):  # and NumPy arrays still run the staged copy
        np.testing.assert_allclose(gi, wi)


def test_the_stand_in_is_strict():
    with pytest.raises(ImplicitConversion):
        np.asarray(StrictArray(np.ones(2)))


def test_importing_the_runtime_loads_no_transformer():
    # generated code and the files the CLI writes import tangent_ad.runtime
    code = ("import sys, tangent_ad.runtime\n"
            "loaded = [m for m in ('gast', 'astor', 'tangent_ad.api', 'tangent_ad.pipeline')"
            " if m in sys.modules]\n"
            "print(','.join(loaded))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _cupy_or_skip():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (it needs a GPU)")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means: no GPU here
        pytest.skip(f"CuPy has no GPU to run on here: {exc}")
    return cupy


def test_cupy():
    """Where CuPy and a GPU exist: gradients of CuPy arrays are CuPy arrays,
    equal to the NumPy ones (no transfer to the host on the way)."""
    cupy = _cupy_or_skip()
    rng = np.random.default_rng(0)
    args = [rng.normal(size=s) for s in [(4, 5), (5,), (5, 2), (6, 4), (6, 2)]]
    want = tad.grad(mlp, wrt=(0, 1, 2))(*args)
    got = tad.grad(mlp, wrt=(0, 1, 2))(*map(cupy.asarray, args))
    for gi, wi in zip(got, want):
        assert isinstance(gi, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(gi), wi, rtol=1e-10)
