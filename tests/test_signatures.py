"""Helpers with *args and keyword-only parameters, called from a
differentiated function (frontend/signatures.py, ad/calls.py), in every
mode: grad, jvp and hvp against central differences, float32 kept."""
import numpy as np
import pytest

import tangent_ad as tad
import signature_functions as sig
from corpus import check_all_modes
from tangent_ad.testing import check_grads

CASES = ["calls_star_args", "calls_with_the_rest", "spreads_into_star_args",
         "calls_keyword_only"]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("seed", range(2))
def test_every_mode_matches_finite_differences(name, seed):
    w = np.random.default_rng(seed).uniform(-1.0, 1.0, size=3)
    check_all_modes(getattr(sig, name), (w,))


@pytest.mark.parametrize("name", CASES)
def test_float32_gradient_keeps_dtype_and_shape(name):
    w = np.random.default_rng(4).uniform(-1.0, 1.0, size=3).astype(np.float32)
    f = getattr(sig, name)
    g = tad.grad(f)(w)
    assert g.dtype == np.float32 and g.shape == (3,)
    check_grads(f, tad.grad(f), (w,))


def test_star_args_arrive_as_one_tuple():
    source = tad.show_source(tad.grad(sig.calls_star_args))
    assert "def pullback_total_dparts(parts=()):" in source
    assert "def pullback_weighted_da_rest(a, rest=(), scale=2.0):" in source


def kwonly_after_default(a, b=1.0, *, c):
    return a * b * c


def calls_kwonly_after_default(w):
    return np.sum(kwonly_after_default(w, c=2.0))


def takes_kwargs(a, **options):
    return a * 2.0


def calls_kwargs(w):
    return np.sum(takes_kwargs(w, scale=2.0))


def reads_kwargs(a, **options):
    return a * len(options)


def calls_reads_kwargs(w):
    return np.sum(reads_kwargs(w, scale=2.0))


@pytest.mark.parametrize("func, message", [
    (calls_kwonly_after_default, "keyword-only parameter 'c'"),
    (calls_reads_kwargs, r"\*\*options parameter other than to pass it on"),
])
def test_refused_with_the_line_and_a_hint(func, message):
    with pytest.raises(tad.UnsupportedSyntaxError, match=message) as info:
        tad.grad(func)
    assert info.value.lineno is not None and info.value.hint


def test_a_keyword_into_an_unused_kwargs_is_taken_and_left():
    w = np.array([0.5, -1.0])
    np.testing.assert_allclose(tad.grad(calls_kwargs)(w), [2.0, 2.0])


def test_the_differentiated_function_itself_may_take_star_args_and_keyword_only():
    # differentiated call by call (tangent_ad/variadic.py, tests/test_variadic.py)
    w, v = np.random.default_rng(5).uniform(-1.0, 1.0, size=(2, 3))
    np.testing.assert_allclose(tad.grad(sig.total, wrt=(0, 1))(w, v), (2 * w, 2 * v))
    np.testing.assert_allclose(tad.grad(sig.keyword_only)(w, j=2.0), np.full(3, 6.0))
    with pytest.raises(TypeError, match="'j'"):
        tad.grad(sig.keyword_only)(w)
