"""A pullback returns no back on a way whose adjoint is zero (``ad/zero_backs.py``).

The base case of a recursion that does not depend on the differentiated
arguments returns ``(result, None)``, and callers skip the back. Each case
is checked against finite differences, staged and unstaged; the cases
that must keep their back (the base case reads an argument, the zero way
is not last) are checked to keep it.
"""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging import dispatch as staging
from tangent_ad.testing import check_grads, check_jvp


def tree(W, b, leaves, lo, hi):
    if hi - lo == 1:
        return leaves[lo]
    mid = (lo + hi) // 2
    left = tree(W, b, leaves, lo, mid)
    right = tree(W, b, leaves, mid, hi)
    return np.tanh(left @ W + right * b)


def tree_loss(W, b, leaves):
    return np.sum(tree(W, b, leaves, 0, len(leaves)) ** 2)


def leaf_last(W, leaves, lo, hi):
    if hi - lo > 1:  # the zero way is the else branch
        mid = (lo + hi) // 2
        return np.sin(leaf_last(W, leaves, lo, mid) @ W) + leaf_last(W, leaves, mid, hi)
    return leaves[lo]


def leaf_last_loss(W, leaves):
    return np.sum(leaf_last(W, leaves, 0, len(leaves)))


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def power_sum(x):
    total = 0.0
    for n in range(4):
        total = total + power(x, n)  # a back per step, saved in the loop
    return total


def base_reads_x(x, n):
    if n == 0:
        return x  # the base case's adjoint is not zero
    return np.sin(base_reads_x(x, n - 1))


def base_reads_x_loss(x):
    return base_reads_x(x, 3) * 2.0


def branch_then_more(x, n):
    if n == 0:
        y = 1.0
    else:
        y = branch_then_more(x, n - 1)
    return x * y  # the branch is not last: its back is always needed


def branch_then_more_loss(x):
    return branch_then_more(x, 3)


def _tree_args(rng, leaves=8, width=4, dtype=np.float64):
    return (rng.normal(size=(width, width)).astype(dtype) * 0.5,
            rng.normal(size=width).astype(dtype),
            rng.normal(size=(leaves, width)).astype(dtype))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("leaves", [1, 2, 5, 8])
def test_tree_gradient_matches_finite_differences(seed, leaves):
    args = _tree_args(np.random.default_rng(seed), leaves)
    check_grads(tree_loss, tad.grad(tree_loss, wrt=(0, 1)), args, wrt=(0, 1), seed=seed)


def test_the_base_case_returns_no_back_and_callers_skip_it():
    source = tad.show_source(tad.grad(tree_loss, wrt=(0, 1)))
    pullback = source[source.index("def pullback_tree"):]
    assert "return result, None" in pullback
    assert "stack" not in pullback
    assert "zeros_like" not in pullback
    assert pullback.count("is not None:") == 2


@pytest.mark.parametrize("leaves", [1, 3, 8])
def test_staged_tree_matches_the_general_derivative(leaves):
    args = _tree_args(np.random.default_rng(1), leaves)
    df = tad.grad(tree_loss, wrt=(0, 1))
    general = df(*args)
    for _ in range(3):  # the second call with the same kinds writes the staged copy
        staged = df(*args)
    assert staging.variants(df)
    for g, s in zip(general, staged):
        np.testing.assert_allclose(s, g, rtol=1e-12)


@pytest.mark.parametrize("leaves", [1, 4])
def test_float32_keeps_its_dtype_and_shape(leaves):
    args = _tree_args(np.random.default_rng(2), leaves, dtype=np.float32)
    df = tad.grad(tree_loss, wrt=(0, 1))
    for _ in range(3):
        gW, gb = df(*args)
        assert gW.dtype == np.float32 and gW.shape == args[0].shape
        assert gb.dtype == np.float32 and gb.shape == args[1].shape


@pytest.mark.parametrize("leaves", [1, 2, 7])
def test_a_zero_way_in_the_else_branch(leaves):
    rng = np.random.default_rng(3)
    args = (rng.normal(size=(3, 3)), rng.normal(size=(leaves, 3)))
    df = tad.grad(leaf_last_loss)
    check_grads(leaf_last_loss, df, args)
    assert "return result, None" in tad.show_source(df)


@pytest.mark.parametrize("x", [0.7, -1.3])
def test_backs_saved_in_a_loop(x):
    df = tad.grad(power_sum)
    check_grads(power_sum, df, (x,))
    assert df(x) == pytest.approx(1.0 + 2 * x + 3 * x ** 2)
    assert "return 1.0, None" in tad.show_source(df)


def test_second_derivatives_through_a_pullback_with_no_back():
    check_grads(tad.grad(power_sum), tad.grad(tad.grad(power_sum)), (0.6,))
    assert tad.hvp(power_sum)(0.6, 1.0) == pytest.approx(2.0 + 6 * 0.6)
    check_jvp(power_sum, tad.jvp(power_sum), (0.6,))


def test_vjp_and_value_and_grad_of_a_tree():
    args = _tree_args(np.random.default_rng(4), 4)
    value, grads = tad.value_and_grad(tree_loss, wrt=(0, 1))(*args)
    assert value == pytest.approx(tree_loss(*args))
    check_grads(tree_loss, tad.grad(tree_loss, wrt=(0, 1)), args, wrt=(0, 1))
    np.testing.assert_allclose(grads[0], tad.grad(tree_loss, wrt=(0, 1))(*args)[0])


@pytest.mark.parametrize("func", [base_reads_x_loss, branch_then_more_loss])
def test_a_back_that_is_needed_stays(func):
    df = tad.grad(func)
    check_grads(func, df, (0.8,))
    assert "return result, None" not in tad.show_source(df)
    assert "is not None" not in tad.show_source(df)


def test_checkpointed_recursion():
    @tad.checkpoint
    def node(W, leaves, lo, hi):
        if hi - lo == 1:
            return leaves[lo]
        mid = (lo + hi) // 2
        return np.tanh(node(W, leaves, lo, mid) @ W + node(W, leaves, mid, hi))

    def loss(W, leaves):
        return np.sum(node(W, leaves, 0, len(leaves)) ** 2)

    rng = np.random.default_rng(5)
    for n in (1, 4):
        check_grads(loss, tad.grad(loss), (rng.normal(size=(3, 3)), rng.normal(size=(n, 3))))


def test_hessian_vector_product_and_grad_of_grad_of_a_tree():
    rng = np.random.default_rng(6)
    W, b, leaves = _tree_args(rng, 4)

    def loss_of_W(W):
        return tree_loss(W, b, leaves)

    def squared_gradient(W):
        return np.sum(tad.grad(loss_of_W)(W) ** 2)

    v = rng.normal(size=W.shape)
    g, eps = tad.grad(loss_of_W), 1e-6
    expected = (g(W + eps * v) - g(W - eps * v)) / (2 * eps)
    np.testing.assert_allclose(tad.hvp(loss_of_W)(W, v), expected, rtol=1e-6, atol=1e-8)
    check_grads(squared_gradient, tad.grad(squared_gradient), (W,))


def even(x, n):
    if n == 0:
        return np.ones_like(x)
    return np.sin(x) * odd(x, n - 1)


def odd(x, n):
    if n == 0:
        return np.zeros_like(x) + 2.0
    return np.cos(x) + even(x, n - 1)


def mutual(x):
    return np.sum(even(x, 5))


def pair(x, n):
    if n == 0:
        return 1.0, 2.0
    a, b = pair(x, n - 1)
    return a * x, b + np.sin(x)


def pair_loss(x):
    a, b = pair(x, 3)
    return np.sum(a * b)


@pytest.mark.parametrize("func", [mutual, pair_loss])
def test_mutual_recursion_and_a_pair_of_results(func):
    x = np.array([0.3, -0.7, 1.1])
    df = tad.grad(func)
    for _ in range(3):  # general, then staged
        check_grads(func, df, (x,))
    assert ", None" in tad.show_source(df)
    v = np.array([0.2, 0.5, -1.0])
    expected = (df(x + 1e-6 * v) - df(x - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(tad.hvp(func)(x, v), expected, rtol=1e-6, atol=1e-8)
