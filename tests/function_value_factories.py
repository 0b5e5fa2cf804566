"""Factories and a vjp maker of their own module, called from
function_value_functions.py (inlining across modules): ``act`` and
``scale`` are globals here that the caller's names do not denote."""
import numpy as np

d = None  # d[x] is the adjoint of x in a template; never run

act = np.sin
scale = 0.5


def make_layer(W):
    def layer(x):
        return act(W @ x) * scale
    return layer


def make_shift(c):
    return lambda t: t + c * scale


def softplus_sum(x):
    """A function with a rule of its own (in test_function_values.py)."""
    return np.sum(np.log1p(np.exp(x)))


def softplus_sum_vjp(ans, x):
    """autograd's form of a rule: a maker that returns the vjp as a lambda."""
    slope = 1.0 / (1.0 + np.exp(-x))
    return lambda g: g * slope


def softplus_sum_adjoint(result, x):
    """The rule's template (registered by the test that uses it)."""
    d[x] = softplus_sum_vjp(result, x)(d[result])
