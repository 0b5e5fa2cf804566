"""Functions written with Python's richer statements, for tests/test_syntax.py.
Each is differentiated in every mode."""
import functools
import operator

import numpy as np


def match_literals(w, n):
    match n:
        case 0:
            return np.sum(w)
        case 1 | 2:
            return np.sum(w * w) * n
        case k if k > 5:
            return np.sum(np.sin(w)) * k
        case _:
            return np.sum(w ** 3)


def match_without_return(w, mode):
    s = 0.0
    match mode:
        case "sq":
            s = np.sum(w * w)
        case "sin" | "cos":
            s = np.sum(np.sin(w))
    return s + np.sum(w)


def walrus_in_conditions(w):
    if (s := np.sum(w * w)) > 10.0:
        return s
    t = w
    count = 0
    while (n := np.sum(t * t)) > 0.01 and count < 20:
        t = t * 0.5
        count += 1
    return s * 2.0 + n


def star_unpacking(w):
    a, *rest = [w[0], w[1], w[2]]
    first, *middle, last = [w[0] * 2.0, w[1], w[2], np.sin(w[0])]
    *init, end = (w, w * 3.0)
    return a * rest[0] * rest[1] + first * middle[1] + last * len(middle) + np.sum(init[0] * end)


def nested_unpacking(w):
    (a, b), c = (w[0], w[1] * 2.0), w[2]
    [d, (e, f)] = [w[1], (w[2], w[0])]
    return a * b * c + d * e * f


def _three_parts(w):
    return w * 2.0, np.sin(w), [w[2], w[0], w[1]]


def zip_of_a_spread_call(w):
    """``for a, b, c in zip(*f(w))`` (autograd's gmm.py): the target counts
    the sequences."""
    total = 0.0
    for a, b, c in zip(*_three_parts(w)):
        total = total + a * b * c + np.cos(a)
    return total


def reduce_forms(w):
    product = functools.reduce(lambda a, b: a * b, [w[0], w[1], w[2]])
    total = functools.reduce(operator.add, [w, w * 2.0, np.cos(w)], 1.0)
    return product + np.sum(total * w) + functools.reduce(np.maximum, [w[0], w[2]])


def assert_and_del(w):
    assert w.ndim == 1, "a vector"
    t = w * 2.0
    u = np.sin(t)
    del t
    return np.sum(u)


def chained_comparison(w):
    s = np.sum(w)
    if -5.0 < s < 5.0 and not 9.0 <= w[0] < 10.0:
        s = s * w[1]
    return s + (0.0 < w[0] < 2.0) * w[0]


def raise_in_a_check(w):
    if np.any(np.abs(w) > 10.0):
        raise ValueError("w out of range")
    total = 0.0
    for i in range(3):
        if i > 5:
            raise RuntimeError("never")
        total = total + np.sum(np.sin(w) * (i + 1))
    return total


def raise_ends_a_path(w, mode):
    if mode == "sum":
        return np.sum(w ** 2)
    elif mode == "prod":
        return np.prod(np.cos(w))
    else:
        raise ValueError(f"unknown mode {mode!r}")


def f_strings_as_values(w):
    label = f"loss {w[0]:.2f}"  # a string: no derivative
    width = len(label + f" {w[1]:.3f} {{w}} {'k'!r} {len(w)}")
    return np.sum(w * w) * width + w[2]


def set_comprehension(w):
    picked = {i for i in range(3) if i != 1}
    return sum(w[i] * w[i] for i in sorted(picked)) * np.sum(w)
