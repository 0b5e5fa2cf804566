"""Shift invariance (analysis/invariance.py): the maximum a softmax or a
log-softmax subtracts gets no derivative, since the output does not
depend on it; a shift the analysis cannot prove harmless keeps its
derivative. Every case is checked against central differences."""
import sys
from pathlib import Path

import numpy as np
import pytest

import tangent_ad as tad
from corpus import check_all_modes
from tangent_ad.testing import check_grads, check_jvp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "workloads"))
import softmax_xent  # noqa: E402

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 3))
Y = np.eye(3)[[0, 2, 1, 2]]
W = RNG.normal(size=(4, 3))
Z = RNG.normal(size=(2, 4, 3))


def _max_rules(derivative):
    """How many times the derivative's source routes an adjoint or a
    tangent through a maximum (``unreduce_max``)."""
    return tad.show_source(derivative).count("unreduce_max")


# ---- shifts the output does not see ---------------------------------------------------

def log_softmax_rows(x, y):
    shifted = x - np.max(x, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(y * log_probs, axis=1))


def log_softmax_columns(x, y):
    shifted = x - np.max(x, axis=0, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=0, keepdims=True))
    return -np.sum(y * log_probs)


def log_softmax_last_axis(x, y):
    shifted = x - np.amax(x, axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return -np.sum(y * log_probs)


def log_softmax_of_all(x, y):
    shifted = x - np.max(x)
    return -np.sum(y * (shifted - np.log(np.sum(np.exp(shifted)))))


def softmax_rows(x, w):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * w)


def softmax_min_shift(x, w):
    e = np.exp(np.min(x, axis=1, keepdims=True) - x)  # the sign flips twice
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * w)


def logsumexp_by_hand(x, w):
    m = np.max(x, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    return np.sum(lse * w[:, :1])


OFFSETS = np.array([0.5, -0.5, 0.0])


def a_global_array_added(x, y):
    offsets = OFFSETS  # an array bound to a name: no function to look up
    s = x - np.max(x, axis=-1, keepdims=True) + offsets
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))))


def the_maximum_by_another_name(x, y):
    top = np.max  # a statement whose value is a function, not a call of one
    s = x - top(x, axis=1, keepdims=True)
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


INVARIANT = [(log_softmax_rows, (X, Y)), (log_softmax_columns, (X, Y)),
             (log_softmax_last_axis, (X, Y)), (log_softmax_of_all, (X, Y)),
             (softmax_rows, (X, W)), (softmax_min_shift, (X, W)),
             (logsumexp_by_hand, (X, W)), (a_global_array_added, (X, Y)),
             (the_maximum_by_another_name, (X, Y))]


@pytest.mark.parametrize("func, args", INVARIANT, ids=lambda v: getattr(v, "__name__", ""))
def test_an_invariant_shift_gets_no_derivative(func, args):
    check_all_modes(func, args)
    assert _max_rules(tad.grad(func)) == 0
    assert _max_rules(tad.jvp(func)) == 0


def test_ties_give_the_derivative_of_the_mathematical_function():
    x = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.5, -1.0, 0.5], [3.0, 1.0, 2.0]])
    p = np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True)
    want = (p - Y) / len(x)  # d/dx of the mean cross-entropy: softmax minus labels
    got = tad.grad(log_softmax_rows)(x, Y)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    check_grads(log_softmax_rows, tad.grad(log_softmax_rows), (x, Y))


def test_float32_arguments_keep_float32_gradients():
    x, w = X.astype(np.float32), W.astype(np.float32)
    for func, args in [(log_softmax_rows, (x, Y.astype(np.float32))), (softmax_rows, (x, w))]:
        df = tad.grad(func)
        check_grads(func, df, args)  # shapes and dtypes too
        assert df(*args).dtype == np.float32
        assert _max_rules(df) == 0


def test_the_softmax_workload_has_no_equality_mask():
    df = tad.grad(softmax_xent.loss, wrt=(0, 1))
    args = softmax_xent.make_inputs(softmax_xent.SMALL, np.random.default_rng(0))
    assert "==" not in tad.show_source(df) and _max_rules(df) == 0
    assert "==" not in tad.show_source(df, *args)  # the copy staged for these kinds
    check_grads(softmax_xent.loss, df, args, wrt=(0, 1))
    for got, want in zip(df(*args), softmax_xent.grad_by_hand(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)


def a_shift_of_a_wider_array(x, z):
    # c is constant along the last axis of z too: z's log-softmax does not
    # see x, whose only way to the output is the shift
    s = z - np.max(x, axis=-1, keepdims=True)
    return np.sum(z * (s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))))


def test_a_shift_that_is_the_only_path_of_an_argument_gives_it_zeros():
    df = tad.grad(a_shift_of_a_wider_array)
    np.testing.assert_array_equal(df(X, Z), np.zeros_like(X))
    check_grads(a_shift_of_a_wider_array, df, (X, Z))


# ---- shifts that keep their derivative ------------------------------------------------

def squares_of_the_shift(x):
    s = x - np.max(x, axis=1, keepdims=True)
    return np.sum(s ** 2)


def axes_that_differ(x, y):
    s = x - np.max(x, axis=1, keepdims=True)
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=0, keepdims=True))))


def axes_equal_only_for_two_dimensions(x, y):
    # invariant for a 2-D x, but the analysis reads literal axes
    s = x - np.max(x, axis=1, keepdims=True)
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))))


def a_sum_without_keepdims(x, y):
    s = x - np.max(x, axis=1, keepdims=True)  # square x: the sum broadcasts along rows
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1))))


def a_max_without_keepdims(x, y):
    s = x - np.max(x, axis=1)  # square x: the max broadcasts along rows
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


def a_positional_axis(x, y):
    s = x - np.max(x, axis=1, keepdims=True)  # invariant, but only keywords are read
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), 1, keepdims=True))))


def a_positive_axis_of_a_wider_array(x, z):
    # axis 1 of z is not the axis x was reduced along
    s = z - np.max(x, axis=1, keepdims=True)
    return np.sum(z * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


def the_maximum_used_again(x, y):
    m = np.max(x, axis=1, keepdims=True)
    s = x - m
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True)))) + np.sum(m)


def the_shift_returned(x):
    return x - np.max(x, axis=1, keepdims=True)


def the_shift_written_into(x, y):
    s = x - np.max(x, axis=1, keepdims=True)
    s[0, 0] = 0.5
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


def the_shift_in_a_loop(x, y):
    # invariant, but a loop's reads are not followed
    s = x - np.max(x, axis=1, keepdims=True)
    total = 0.0
    for i in range(2):
        total = total - np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))
    return total


def _norms(v):
    return np.sum(v * v)


def the_shift_passed_to_a_function(x, y):
    s = x - np.max(x, axis=1, keepdims=True)
    return _norms(s) - np.sum(y * np.log(np.sum(np.exp(s), axis=1, keepdims=True)))


def the_shift_scaled(x, y):
    # invariant (a shift by 2c), but scaling is not among the rules
    s = 2.0 * (x - np.max(x, axis=1, keepdims=True))
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


def a_shift_parameter(x, m, y):
    s = x - m
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


SQUARE = RNG.normal(size=(3, 3))
KEPT = [(squares_of_the_shift, (X,)), (axes_that_differ, (X, Y)),
        (axes_equal_only_for_two_dimensions, (X, Y)), (a_sum_without_keepdims, (SQUARE, W[:3])),
        (a_max_without_keepdims, (SQUARE, W[:3])), (a_positional_axis, (X, Y)),
        (a_positive_axis_of_a_wider_array, (X, Z)), (the_maximum_used_again, (X, Y)),
        (the_shift_written_into, (X, Y)), (the_shift_in_a_loop, (X, Y)),
        (the_shift_passed_to_a_function, (X, Y)), (the_shift_scaled, (X, Y))]


@pytest.mark.parametrize("func, args", KEPT, ids=lambda v: getattr(v, "__name__", ""))
def test_a_shift_not_proven_invariant_keeps_its_derivative(func, args):
    df = tad.grad(func)
    check_grads(func, df, args)
    assert _max_rules(df) >= 1
    check_jvp(func, tad.jvp(func), args)


def test_a_returned_shift_keeps_its_derivative():
    check_jvp(the_shift_returned, tad.jvp(the_shift_returned), (X,))
    vjp = tad.vjp(the_shift_returned)
    g = RNG.normal(size=X.shape)
    want = g - (X == np.max(X, axis=1, keepdims=True)) * np.sum(g, axis=1, keepdims=True)
    np.testing.assert_allclose(vjp(X, g), want, rtol=1e-12)


def test_a_shift_given_as_an_argument_has_its_gradient():
    m = np.max(X, axis=1, keepdims=True)
    check_grads(a_shift_parameter, tad.grad(a_shift_parameter, wrt=(0, 1)), (X, m, Y),
                wrt=(0, 1))


def the_shift_seen_by_a_hook(x, y):
    s = x - np.max(x, axis=1, keepdims=True)
    with tad.insert_grad_code(s) as ds:
        ds = ds + 1.0
    return -np.sum(y * (s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))))


def test_a_hook_on_the_shift_sees_and_changes_the_exact_adjoint():
    df = tad.grad(the_shift_seen_by_a_hook)
    assert _max_rules(df) == 1
    x = X.copy()
    p = np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True)
    ds = p * np.sum(Y, axis=1, keepdims=True) - Y + 1.0  # the hook adds 1
    first = x == np.max(x, axis=1, keepdims=True)       # no ties in X
    want = ds - first * np.sum(ds, axis=1, keepdims=True)
    np.testing.assert_allclose(df(x, Y), want, rtol=1e-12, atol=1e-14)
