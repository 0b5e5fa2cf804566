"""show_source(g, *example_args): the code that a call with arguments of
those kinds runs (issue 18: what show_source prints is what runs)."""
import numpy as np

import tangent_ad as tad
from tangent_ad.staging.dispatch import variants
from tangent_ad.testing import numerical_grad


def mlp_loss(W, b, x):
    h = np.tanh(x @ W + b)
    return np.mean(h ** 2)


def test_the_shown_copy_is_the_one_that_runs():
    rng = np.random.default_rng(0)
    W, b, x = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    g = tad.grad(mlp_loss)
    general = tad.show_source(g)
    shown = tad.show_source(g, W, b, x)
    assert shown.startswith("def dmlp_loss_dW(W, b, x, bresult=1.0):")
    assert len(shown.splitlines()) < len(general.splitlines())
    for helper in ("unbroadcast", "float_argument", "_tad_stage", "cast_like"):
        assert helper not in shown
    for _ in range(3):
        np.testing.assert_allclose(g(W, b, x), numerical_grad(mlp_loss, (W, b, x), 0),
                                   rtol=1e-6)
    # the calls ran the copy that was shown: no other was written
    assert list(variants(g).values()) == [shown]
    assert tad.show_source(g) == general


def test_other_kinds_show_another_copy_and_keywords_bind():
    g = tad.grad(mlp_loss)
    args64 = (np.ones((3, 2)), np.zeros(2), np.ones((4, 3)))
    args32 = tuple(a.astype(np.float32) for a in args64)
    before = len(variants(g))
    one, other = tad.show_source(g, *args64), tad.show_source(g, *args32)
    assert len(variants(g)) == before + 2  # one copy per kind (here with the same text)
    assert "unbroadcast" not in one and "unbroadcast" not in other
    assert tad.show_source(g, *args64, bresult=2.0) == one  # a float seed: the same kind
    np.testing.assert_allclose(g(*args32), g(*args64), rtol=1e-5)
    assert g(*args32).dtype == np.float32


def test_a_derivative_that_is_not_staged_shows_the_general_one():
    J = tad.jvp(mlp_loss)
    args = (np.ones((3, 2)), np.zeros(2), np.ones((4, 3)), np.ones((3, 2)))
    assert tad.show_source(J, *args) == tad.show_source(J)
