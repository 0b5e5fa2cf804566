"""A user's global named like a helper the generated code calls
(``accumulate``, ``unbroadcast``, ``size_of``, a builtin): the derivative
reads it under another name (``_user_accumulate``), so the helper keeps
its meaning. Before, the user's function took the helper's place in the
derivative: a wrong gradient with no error (test_a_function_named_like_a_helper)."""
import numpy as np
import pytest

import tangent_ad as tad
from corpus import check_all_modes

X = np.array([0.3, -0.5, 1.2])
size_of = 2.0  # a data global named like a helper: changed by a test below


def accumulate(a, b):
    return a + 2.0 * b


def unbroadcast(a, b):
    return "not a number"


def uses_accumulate(x):
    y = accumulate(x, np.sin(x))
    return np.sum(y * x)


def calls_accumulate_as_a_value(x):
    return np.sum(tad.stop_gradient(accumulate(x, 1.0)) * x)


def uses_unbroadcast(x, y):
    return np.sum(x * y) + len(unbroadcast(1, 2))


def reads_size_of(x):
    return np.sum(x * x) * size_of


def test_a_function_named_like_a_helper():
    exact = (X + 2 * np.sin(X)) + X * (1 + 2 * np.cos(X))
    gradient = tad.grad(uses_accumulate)
    for _ in range(3):  # the general derivative, then the staged copy
        assert gradient(X) == pytest.approx(exact, rel=1e-12)
    assert "pullback_accumulate_da_b(" in tad.show_source(gradient)
    check_all_modes(uses_accumulate, (X,))


def test_a_function_named_like_a_helper_not_differentiated():
    gradient = tad.grad(calls_accumulate_as_a_value)
    assert "_user_accumulate(" in tad.show_source(gradient)
    for _ in range(3):
        assert gradient(X) == pytest.approx(X + 2.0, rel=1e-12)


def test_a_helper_the_derivative_calls_is_not_the_users():
    gradient = tad.grad(uses_unbroadcast, wrt=(0, 1))
    x, y = np.ones((3, 2)), np.arange(2.0)
    for _ in range(3):
        gx, gy = gradient(x, y)
        assert gx == pytest.approx(np.broadcast_to(y, x.shape)) and gy == pytest.approx([3, 3])


def test_a_data_global_named_like_a_helper_is_read_when_it_changes():
    global size_of
    gradient = tad.grad(reads_size_of)
    assert gradient(X) == pytest.approx(4.0 * X)
    try:
        size_of = 3.0
        for _ in range(3):
            assert gradient(X) == pytest.approx(6.0 * X)
    finally:
        size_of = 2.0


def nested_def_calls_accumulate(w, x):
    def step(h):  # lifted into a function of its own, which reads the global again
        a = accumulate(w * h, h)
        return accumulate(a, np.sin(a))
    return np.sum(step(x))


def test_a_nested_def_reads_a_global_named_like_a_helper():
    """The function around the nested def renames the global in the nested
    def's body too; the nested def, lifted, read ``_user_accumulate`` as an
    undefined name and was refused (autograd's lstm example, whose
    ``sigmoid`` is a runtime helper's name)."""
    w = 0.7
    gradient = tad.grad(nested_def_calls_accumulate)
    h = 1e-6
    numeric = (nested_def_calls_accumulate(w + h, X) - nested_def_calls_accumulate(w - h, X)) / (2 * h)
    for _ in range(3):  # the general derivative, then the staged copy
        assert gradient(w, X) == pytest.approx(numeric, rel=1e-7)
    check_all_modes(nested_def_calls_accumulate, (w, X))
