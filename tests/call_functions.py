"""Functions that call other Python functions, for tests/test_calls.py."""
import functools

import numpy as np


def layer(W, x, scale=1.0):
    return np.tanh(W @ x) * scale


def net(W1, W2, x):
    h = layer(W1, x)
    h2 = layer(W2, h, scale=2.0)
    return np.sum(h2 ** 2)


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def use_power(x, n):
    return power(x, n)


def is_even(x, n):
    if n == 0:
        return x
    return is_odd(x * 1.1, n - 1)


def is_odd(x, n):
    if n == 0:
        return np.sin(x)
    return is_even(x + 0.1, n - 1)


def mutual(x, n):
    return is_even(x, n)


def helper_in_loop(W, x, n):
    s = 0.0
    for i in range(n):
        x = layer(W, x)
        s = s + np.sum(x) * i
    return s


def same_helper_twice(x, y):
    return np.sum(layer(x, y) + layer(y, x))


def tree_sum(w, depth):
    if depth == 0:
        return w
    left = tree_sum(w * 0.9, depth - 1)
    right = tree_sum(w * 1.1, depth - 1)
    return np.tanh(left + right)


def use_tree(w, depth):
    return np.sum(tree_sum(w, depth))


def inactive_argument_call(x, W):
    h = layer(W, x)
    return np.sum(h)


def scaled_product(a, b, c=2.0):
    return a * np.sin(b) * c


def product(a, b):
    return a * np.cos(b)


def star_args(x, y):
    pair = (x, y)
    return np.sum(product(*pair)) + np.sum(scaled_product(x, *[y])) + \
        np.sum(scaled_product(*(y, x, x)))


def settles(x, n):
    """Mutual recursion that passes a constant: `result` is active (the
    first branch returns x), but the call of `unsettled` reads constants."""
    if n <= 0:
        return x
    return unsettled(1.5, n - 1)


def unsettled(y, n):
    return settles(y, n - 1) * y


def mutual_with_constant(x, n):
    return np.sum(settles(x, n) * x) + np.sum(unsettled(x, n))


def scaled(fn):
    """A decorator that changes the value: what is called is 3 * fn(x)."""
    @functools.wraps(fn)
    def wrapper(x):
        return 3.0 * fn(x)
    return wrapper


def shifted(fn):
    """A decorator that forwards *args and **kwargs and changes the value."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return np.tanh(fn(*args, **kwargs)) + 1.0
    return wrapper


REGISTERED = []


def register(fn):
    """A registration decorator: returns the function itself."""
    REGISTERED.append(fn.__name__)
    return fn


@scaled
def scaled_square(x):
    return np.sum(x * x)


@scaled
def scaled_sine(x):
    # the same wrapper code as scaled_square, another closure cell: a cached
    # derivative of one must not be reused for the other
    return np.sum(np.sin(x))


@shifted
def shifted_product(x, w):
    return np.sum(np.sin(x) * w)


@shifted
def shifted_energy(x, scale=1.0, mode="sin"):
    """Defaults behind a forwarding wrapper, filled by keyword in calls."""
    return np.sum((np.sin(x) if mode == "sin" else np.cos(x)) * scale)


def calls_with_keywords_through_a_wrapper(x, w):
    return shifted_energy(x * w, scale=2.0) + shifted_energy(w, mode="cos") + shifted_energy(x)


@register
def registered_cube(x):
    return np.sum(x ** 3)


def calls_decorated(x, w):
    return scaled_square(x * w) * registered_cube(w)


def calls_two_decorated(x, w):
    return scaled_square(x * w) + shifted_product(x, w)


def _passing_on(fn):
    """A closure that passes *args and **kwargs on, changing the value
    (not a functools.wraps wrapper: a function of its own)."""
    def passed(*args, **kwargs):
        return fn(*args, **kwargs) * 2.0
    return passed


_doubled_energy = _passing_on(shifted_energy.__wrapped__)


def keywords_into_kwargs(x, w):
    """Calls that fill a callee's **kwargs with keywords, one of them
    differentiated: a pullback per set of keyword names."""
    return _doubled_energy(x, scale=w[0] * 3.0) + _doubled_energy(x * w, mode="cos") + \
        _doubled_energy(w)


def symmetrizing(fn, argnum):
    """autograd's test helper: a closure that takes *args and **kwargs,
    changes one argument and passes the rest on (kwargs empty here)."""
    def symmetrized(*args, **kwargs):
        args = list(args)
        args[argnum] = 0.5 * (args[argnum] + np.swapaxes(args[argnum], -1, -2))
        return fn(*args, **kwargs)
    return symmetrized


def _weighted_logdet(a, w):
    return np.linalg.slogdet(a)[1] * w + np.sum(a * a)


symmetric_logdet = symmetrizing(_weighted_logdet, 0)


def calls_symmetrized(x, w):
    return symmetric_logdet(x @ x.T + 3.0 * np.eye(3), w)


CASES = {
    "star_args": (star_args, lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "net": (net, lambda r: (r.normal(size=(3, 3)), r.normal(size=(3, 3)), r.normal(size=3)),
            (0, 1, 2)),
    "power": (use_power, lambda r: (float(r.uniform(0.5, 1.5)), int(r.integers(0, 6))), (0,)),
    "mutual": (mutual, lambda r: (float(r.uniform(0.1, 1.0)), int(r.integers(0, 6))), (0,)),
    "helper_in_loop": (helper_in_loop, lambda r: (r.normal(size=(3, 3)) * 0.5,
                                                  r.normal(size=3), int(r.integers(0, 4))),
                       (0, 1)),
    "same_helper_twice": (same_helper_twice,
                          lambda r: (r.normal(size=(3, 3)), r.normal(size=(3, 3))), (0, 1)),
    "tree_depth_8": (use_tree, lambda r: (r.normal(size=4) * 0.1, 8), (0,)),
    "mutual_with_constant": (mutual_with_constant,
                             lambda r: (r.normal(size=3), int(r.integers(0, 5))), (0,)),
    "inactive_argument_call": (inactive_argument_call,
                               lambda r: (r.normal(size=3), r.normal(size=(3, 3))), (0,)),
    "decorated_scaled": (scaled_square, lambda r: (r.normal(size=3),), (0,)),
    "decorated_scaled_too": (scaled_sine, lambda r: (r.normal(size=3),), (0,)),
    "decorated_forwarding": (shifted_product, lambda r: (r.normal(size=3), r.normal(size=3)),
                             (0, 1)),
    "decorated_keywords": (calls_with_keywords_through_a_wrapper,
                           lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "keywords_into_kwargs": (keywords_into_kwargs,
                             lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "decorated_registration": (registered_cube, lambda r: (r.normal(size=3),), (0,)),
    "calls_decorated": (calls_decorated, lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "empty_kwargs_passed_on": (calls_symmetrized,
                               lambda r: (r.normal(size=(3, 3)), float(r.uniform(0.5, 2.0))),
                               (0, 1)),
}
