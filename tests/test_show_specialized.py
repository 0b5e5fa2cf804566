"""show_source(g, *example_args): the code that a call with arguments of
those kinds runs (issue 18: what show_source prints is what runs)."""
import pytest
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


def oscillator_from_a_pair(k, c, n):
    x, v = 1.0, 0.0  # a tuple literal: t = 1.0, 0.0; x = t[0]; v = t[1]
    for i in range(n):
        a = -k * x - c * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return x * x + np.sin(v)


def test_names_unpacked_from_a_tuple_literal_have_their_items_kinds():
    g = tad.grad(oscillator_from_a_pair, wrt=(0, 1))
    shown = tad.show_source(g, 1.0, 0.1, 50)
    assert "unbroadcast" not in shown and "zeros_like" not in shown
    for k, c in [(1.0, 0.1), (0.4, 0.9)]:
        got = g(k, c, 50)
        want = [numerical_grad(oscillator_from_a_pair, (k, c, 50), i) for i in (0, 1)]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def rnn_from_shapes(Wx, Wh, xs):
    h = np.zeros((np.shape(xs)[1], Wh.shape[0]))  # sizes read from the arguments
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.mean(h ** 2)


def test_sizes_read_from_shapes_give_arrays_their_kinds():
    rng = np.random.default_rng(3)
    Wx, Wh, xs = rng.normal(size=(3, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5, \
        rng.normal(size=(6, 2, 3))
    g = tad.grad(rnn_from_shapes, wrt=(0, 1))
    shown = tad.show_source(g, Wx, Wh, xs)
    for helper in ("unbroadcast", "grad_matmul_lhs", "grad_matmul_rhs", "cast_like"):
        assert helper not in shown
    got = g(Wx, Wh, xs)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], numerical_grad(rnn_from_shapes, (Wx, Wh, xs), i),
                                   rtol=1e-6, atol=1e-9)


def softmax_loss(W, X, Y):
    logits = X @ W
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probs, axis=1))


def row_norms(x, y):
    s = np.sum(x * x, axis=1)
    return np.sum(np.sin(s) * np.sum(y, axis=1))


def test_spread_reductions_become_broadcasting():
    rng = np.random.default_rng(5)
    W, X = rng.normal(size=(4, 3)), rng.normal(size=(6, 4))
    Y = np.eye(3)[rng.integers(0, 3, size=6)]
    g = tad.grad(softmax_loss)
    shown = tad.show_source(g, W, X, Y)
    assert "unreduce(" not in shown and "unbroadcast" not in shown
    assert "keepdims=True" in shown
    x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    h = tad.grad(row_norms)
    assert "np.expand_dims(" in tad.show_source(h, x, y)
    for _ in range(3):  # the general derivative, then the copies
        np.testing.assert_allclose(g(W, X, Y), numerical_grad(softmax_loss, (W, X, Y), 0),
                                   rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(h(x, y), numerical_grad(row_norms, (x, y), 0),
                                   rtol=1e-6, atol=1e-9)


def stacked(x, w):
    parts = [np.mean(x, axis=0), np.sum(x) * w + np.max(x, axis=0)]
    s = np.stack(parts)
    c = np.concatenate((s, s * 2.0), axis=1)
    d = np.copy(c)
    e = np.transpose(d) @ np.ones(np.shape(d)[0])
    return np.sum(np.tanh(e * w))


def written(x):
    y = np.copy(x)
    for i in range(3):
        y[i] = y[i] * x[i + 1]
    return np.sum(np.sin(y))


def test_calls_whose_kind_follows_from_their_arguments_kinds_are_specialized():
    # np.stack of a list literal, np.concatenate with axis=, np.copy, np.transpose
    # (staging/sampled.py), and the item writes' helpers (updated, zeroed, unindex)
    rng = np.random.default_rng(2)
    g = tad.grad(stacked, wrt=(0, 1))
    x, w = rng.normal(size=(4, 3)), 0.7
    shown, general = tad.show_source(g, x, w), tad.show_source(g)
    # e's kind comes from d's, d's from c's, c's from s's, s's from the list's
    assert "be = bt12 * w" in shown
    assert shown.count("unbroadcast(") < general.count("unbroadcast(")
    for _ in range(3):
        got = g(x, w)
        np.testing.assert_allclose(got[0], numerical_grad(stacked, (x, w), 0), rtol=1e-6)
        np.testing.assert_allclose(got[1], numerical_grad(stacked, (x, w), 1), rtol=1e-6)
    x32 = x.astype(np.float32)
    assert g(x32, w)[0].dtype == np.float32 and g(x32, w)[0].shape == (4, 3)
    h = tad.grad(written)
    v = rng.normal(size=5)
    assert "unbroadcast" not in tad.show_source(h, v)
    for _ in range(3):
        np.testing.assert_allclose(h(v), numerical_grad(written, (v,), 0), rtol=1e-6)


def joined(a, b, n):
    c = np.concatenate([a, b * 2.0])
    half = np.shape(c)[0] // 2 + n * 0
    return np.sum(np.sin(c) * c) + np.sum(c[:half])


def test_the_pieces_of_a_concatenations_adjoint_have_their_parts_kinds():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=3), rng.normal(size=2)
    g = tad.grad(joined, wrt=(0, 1))
    shown, general = tad.show_source(g, a, b, 1), tad.show_source(g)
    assert "cast_like" in general and "cast_like" not in shown
    for _ in range(3):
        got = g(a, b, 1)
        np.testing.assert_allclose(got[0], numerical_grad(joined, (a, b, 1), 0), rtol=1e-6)
        np.testing.assert_allclose(got[1], numerical_grad(joined, (a, b, 1), 1), rtol=1e-6)


def shifted_log_softmax(x, y):
    shifted = x - np.max(x, axis=1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(y * logp, axis=1)) + np.sum(np.max(x, axis=1, keepdims=True) ** 2)


def test_a_max_kept_along_an_axis_routes_its_adjoint_written_out():
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(5, 4)), rng.uniform(size=(5, 4))
    g = tad.grad(shifted_log_softmax)
    shown = tad.show_source(g, x, y)
    assert "unreduce_max" in tad.show_source(g) and "unreduce_max" not in shown
    for _ in range(3):
        np.testing.assert_allclose(g(x, y), numerical_grad(shifted_log_softmax, (x, y), 0),
                                   rtol=1e-6, atol=1e-8)
    tied = x.copy()
    tied[:, 1] = tied[:, 0] = np.max(x, axis=1) + 1.0  # two maxima per row share it
    general = tad.grad(shifted_log_softmax)
    np.testing.assert_allclose(g(tied, y), general.__wrapped__(tied, y), rtol=1e-12)
    x32 = x.astype(np.float32)  # float32: the helper stays (its dtype rule)
    assert g(x32, y.astype(np.float32)).dtype == np.float32


def split_halves(x, W):
    z = W @ np.concatenate([x, np.tanh(x)], axis=0)
    n = np.shape(z)[0] // 2
    cand, gate = np.split(z, [n])
    return np.sum(np.tanh(cand) / (1.0 + np.exp(-gate)))


def split_columns(x):
    a, b, c = np.split(x * 2.0, [1, 3], axis=1)
    joined = np.concatenate((np.sin(a), b * c[:, :2]), axis=1)
    return np.sum(joined[:, 1:] ** 2) + np.sum(np.split(x, 2)[1])


def _code(source):
    """`source` without its comment lines (which quote the user's code)."""
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


def test_splits_and_their_adjoints_become_slices():
    # staging/pieces.py: np.split -> a list of slices, the item-by-item adjoint
    # of its pieces -> one np.concatenate, unconcatenate -> slices of g
    rng = np.random.default_rng(8)
    x, W = rng.normal(size=4), rng.normal(size=(6, 8))
    g = tad.grad(split_halves, wrt=(0, 1))
    shown, general = _code(tad.show_source(g, x, W)), _code(tad.show_source(g))
    for helper in ("np.split(", "unindex(", "accumulate_at(", "unconcatenate("):
        assert helper in general and helper not in shown, helper
    assert "cand = z[0:3]" in shown and "gate = z[3:6]" in shown  # each piece picked
    for _ in range(3):
        got = g(x, W)
        np.testing.assert_allclose(got[0], numerical_grad(split_halves, (x, W), 0), rtol=1e-6)
        np.testing.assert_allclose(got[1], numerical_grad(split_halves, (x, W), 1), rtol=1e-6)
    x2 = rng.normal(size=(4, 5))
    h = tad.grad(split_columns)
    shown = _code(tad.show_source(h, x2))
    assert "unconcatenate(" not in shown and "np.split(" not in shown
    for _ in range(3):
        np.testing.assert_allclose(h(x2), numerical_grad(split_columns, (x2,), 0), rtol=1e-6)
    x32 = x2.astype(np.float32)
    assert h(x32).dtype == np.float32 and h(x32).shape == (4, 5)
    with pytest.raises(ValueError):  # unequal parts: the copy still refuses them
        h(rng.normal(size=(5, 5)))


def shifted(w, b, X):
    return np.sum(np.tanh(X @ w + b))


def test_an_array_adjoint_of_a_python_float_is_its_sum_as_a_float():
    rng = np.random.default_rng(9)
    w, X = rng.normal(size=3), rng.normal(size=(6, 3))
    g = tad.grad(shifted, wrt=(0, 1))
    shown = _code(tad.show_source(g, w, 0.5, X))
    assert "float(np.sum(" in shown and "unbroadcast" not in shown
    for _ in range(3):
        got = g(w, 0.5, X)
        assert type(got[1]) is float
        np.testing.assert_allclose(got[1], numerical_grad(shifted, (w, 0.5, X), 1), rtol=1e-6)
        np.testing.assert_allclose(got[0], numerical_grad(shifted, (w, 0.5, X), 0), rtol=1e-6)


def log_softmax_rows(x, y):
    return np.sum(y * (x - np.log(np.sum(np.exp(x), axis=1, keepdims=True))))


def test_a_sum_of_negations_is_the_negated_sum():
    rng = np.random.default_rng(10)
    x, y = rng.normal(size=(5, 4)), rng.uniform(size=(5, 4))
    g = tad.grad(log_softmax_rows)
    general, shown = _code(tad.show_source(g)), _code(tad.show_source(g, x, y))
    assert "-np.sum(" in shown and "np.sum(-" not in shown
    for _ in range(3):
        np.testing.assert_allclose(g(x, y), numerical_grad(log_softmax_rows, (x, y), 0),
                                   rtol=1e-6)


def cosine_steps(x, n):
    for i in range(n):
        x = np.cos(x) + 0.1 * x
    return x


def test_a_python_float_argument_keeps_its_kind_at_the_boundary():
    # ``x_arg = x`` copies the argument before the loop makes x an np.float64:
    # its kind is the argument's, so the result is float(bx), not cast_like
    g = tad.grad(cosine_steps)
    general, shown = _code(tad.show_source(g)), _code(tad.show_source(g, 0.3, 5))
    assert "cast_like(" in general and "cast_like(" not in shown
    assert "return float(bx)" in shown and "x_arg" not in shown
    for _ in range(3):
        got = g(0.3, 5)
        assert type(got) is float
        np.testing.assert_allclose(got, numerical_grad(cosine_steps, (0.3, 5), 0), rtol=1e-7)
    assert type(g(np.float64(0.3), 5)) is np.float64  # another kind: another copy
    np.testing.assert_allclose(g(np.float64(0.3), 5), g(0.3, 5), rtol=1e-15)
