"""The normalize stage: Python's statement forms reduced to the core form,
differentiated in every mode (grad, jvp, hvp, optimized or not) against
central differences."""
import numpy as np
import pytest

import tangent_ad as tad
from corpus import check_all_modes

X = np.array([0.3, -0.8, 1.1])


# ---- unary operators on constants -----------------------------------------------------

def unary_plus_of_a_constant(x):
    t = +0.5
    return np.sum(t * x * x)


def unary_operators_of_constants(x):
    a = -(-1.5)
    b = +(-2.0)
    c = -(+4)
    return np.sum(x * a + b * x * x) + c * np.sum(x)


def test_unary_plus_of_a_constant_is_the_constant():
    np.testing.assert_allclose(tad.grad(unary_plus_of_a_constant)(X), X)  # d/dx 0.5 x^2


@pytest.mark.parametrize("func", [unary_plus_of_a_constant, unary_operators_of_constants])
def test_unary_operators_of_constants_in_every_mode(func):
    check_all_modes(func, (X,))


# ---- chained assignment: a = b = v -----------------------------------------------------

def chained(x):
    a = b = x * 2.0
    return np.sum(a * b)


def chained_rebinding_its_operand(x):
    x = y = np.sin(x)
    return np.sum(x * y)


def chained_in_a_loop_with_unpacking(x, n):
    s = t = 0.0
    p, q = r = (x * 2.0, x * 3.0)
    for i in range(n):
        s = u = s + np.sum(p * q)
        t = t + np.sum(u)
    return s + t + np.sum(r[0])


def chained_into_an_item(x):
    y = np.zeros(3)
    y[0] = z = np.sum(x * x)
    return np.sum(y) + z


def test_chained_assignment_gives_every_target_the_value():
    # sum((2x) * (2x)) = 4 sum(x^2): the gradient is 8x.
    np.testing.assert_allclose(tad.grad(chained)(X), 8.0 * X)


@pytest.mark.parametrize("func, args", [
    (chained, (X,)), (chained_rebinding_its_operand, (X,)),
    (chained_in_a_loop_with_unpacking, (X, 2)), (chained_into_an_item, (X,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_chained_assignment_in_every_mode(func, args):
    check_all_modes(func, args)


# ---- a, b = literal: each name bound to its item, no tuple built ------------------------

def swap_in_a_loop(x, y):
    for i in range(3):
        x, y = y * 1.5, x  # every item read before a name is bound
        x, y = y, x
    return np.sum(x * np.sin(y))


def pair_from_literal(x):
    a, b = x * 2.0, np.cos(x)
    return np.sum(a * b)


def test_unpacking_a_literal_reads_every_item_first():
    y = np.array([0.5, 0.1, -0.4])
    check_all_modes(swap_in_a_loop, (X, y))
    check_all_modes(pair_from_literal, (X,))
    source = tad.show_source(tad.grad(pair_from_literal))
    assert "[0]" not in source and "unindex" not in source

