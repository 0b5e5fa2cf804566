"""Functions that pass functions around and use Python's lazy forms, for
tests/test_function_values.py. Each is differentiated in every mode."""
import functools

import numpy as np

import tangent_ad as tad
import function_value_factories as factories


def smooth(t):
    return t * np.tanh(t)


def apply_twice(fn, v):
    return fn(fn(v))


def passes_registered_functions(w):
    # np.sin and np.tanh are ufuncs, abs a builtin: each call specializes
    # the pullback of apply_twice to the function it passes
    return np.sum(apply_twice(np.sin, w) * apply_twice(np.tanh, w)) + apply_twice(abs, w[0])


def passes_a_user_function(w):
    return np.sum(apply_twice(smooth, w))


def loop_over_functions(w):
    s = 0.0
    for f in (np.sin, np.cos, smooth):
        s = s + np.sum(f(w) * w)
    return s


def comprehension_over_functions(w):
    parts = [f(w) for f in (np.sin, np.cos, smooth)]
    return np.sum(np.stack(parts) ** 2)


def generator_over_functions(w):
    return sum(np.sum(f(w)) for f in (np.sin, np.cos))


def dict_of_functions(w):
    fs = {"s": np.sin, "c": np.cos, "m": smooth}
    total = sum(np.sum(f(w)) for f in fs.values())
    for name, f in fs.items():
        if name != "c":
            total = total + np.sum(f(w * 2.0))
    return total + np.sum(fs["m"](w))


def aliased_function(w):
    act = np.tanh
    layers = (np.sin, smooth)
    h = act(w * 1.5)
    return np.sum(layers[0](h) + layers[-1](h))


def enumerate_functions(w):
    s = 0.0
    for i, f in enumerate([np.sin, smooth]):
        s = s + (i + 1.0) * np.sum(f(w))
    return s


def zip_functions_and_weights(w):
    s = 0.0
    for f, c in zip((np.sin, np.exp), (2.0, 0.5)):
        s = s + c * np.sum(f(w))
    return s


def nested_def_in_a_tuple(w):
    def bump(t):
        return t * t * w[0]
    return sum(np.sum(f(w)) for f in (bump, np.sin))


def generator_in_sum(w):
    return sum(np.sum(w * i) for i in range(3)) + sum(w[i] ** 2 for i in range(3))


def generator_in_max_and_tuple(w):
    parts = tuple(w * i for i in range(1, 3))
    return np.sum(parts[0] * parts[1]) + max(np.sum(p) for p in parts) * 0.0


def generator_in_list(w):
    parts = list(np.sin(w * i) for i in range(2))
    return np.sum(parts[0] + parts[1] * w)


def map_with_a_function(w):
    return sum(map(np.sum, [w, w * 2.0, np.sin(w)]))


def map_with_a_lambda(w):
    return sum(map(lambda a, b: np.sum(a * b), [w, w * 2.0], [np.cos(w), w]))


def _weighted_term(w, scale, x):
    return np.sum(np.sin(w * x)) * scale


def map_with_a_partial(w):
    """map(partial(g, a, b), xs) (autograd's hmm_em.py): g(a, b, x) per item."""
    return sum(map(functools.partial(_weighted_term, w, 2.0), [w * 0.5, np.cos(w), 1.5]))


def filter_with_a_lambda(w):
    return sum(np.sum(v) for v in filter(lambda a: a.shape[0] > 2, [w, w[:2], w * 3.0]))


def dict_comprehension_with_condition(w):
    d = {k: w * i for i, k in enumerate("abc") if k != "c"}
    return np.sum(d["a"] + d["b"] * w)


def reduce_with(a, _r=np.sum, act=np.tanh):
    return _r(act(a) * a)


def calls_with_function_defaults(w):
    return reduce_with(w) + reduce_with(w, np.mean) + reduce_with(w, act=np.sin)


def inner_loss(x):
    return np.sum(np.sin(x) * x)


def calls_a_derivative(w):
    return np.sum(tad.grad(inner_loss)(w) * w) + tad.grad(inner_loss, wrt=0)(w[0] * 2.0)


def _scaled(x, s=2.0, shift=0.0):
    return np.sum(np.sin(x) * s) + shift


def spreads_into_defaults(w):
    """fun(*args) into a function with defaults, the count known only
    when the code runs (autograd's symmetrize_matrix_arg does this)."""
    args = [w, w[0]] if w[0] > 10.0 else [w]
    return _scaled(*args) + _scaled(*tuple([w * 2.0, w[1]]))


def relaxation_of(a):
    return lambda x: x - 0.05 * (x ** 2 - a)


def _gradient_of_a_passed_factory(f, a, x):
    # the lambda reads f, a parameter bound to a known function: f(a) is
    # written out in the lifted lambda, whose gradient is made here
    return tad.grad(lambda y: np.sum(f(a)(y) * x))(x)


def gradient_through_a_passed_factory(w):
    return np.sum(_gradient_of_a_passed_factory(relaxation_of, w[0], w * w[1]))


def make_layer(W, act=np.tanh):
    def layer(x):
        return act(W @ x)
    return layer


def make_scaler(s):
    return lambda t: t * s


def factory_closures(W):
    x = np.ones(3) * 0.5
    h = make_layer(W)(x)
    first = make_layer(W * 2.0, np.sin)  # two instances of one closure
    second = make_layer(W)
    for _ in range(2):
        h = make_layer(W * 0.5)(h)
    return np.sum(second(first(h))) + make_scaler(W[2, 0])(2.0)


def factory_of_another_module(W):
    act = np.tanh  # the factory's own `act` is its module's np.sin
    layer = factories.make_layer(W)
    h = layer(np.ones(3) * 0.5)
    return np.sum(act(factories.make_layer(W * 2.0)(h))) + np.sum(factories.make_shift(W[0])(h))


def calls_a_rule_written_as_a_maker(W):
    """factories.softplus_sum has a rule that calls its vjp maker (a
    lambda), written out in the derivative and so differentiable again."""
    return factories.softplus_sum(W @ np.ones(3)) * W[1, 1]


def lambda_factory_instances(W):
    x = np.ones(3) * 0.5
    first = make_scaler(W[0, 0])  # a factory that returns a lambda, bound twice
    second = make_scaler(W[1, 1] * 2.0)
    return np.sum(second(first(W @ x)))


def lambda_capturing_a_differentiated_value(W):
    x = np.ones(3) * 0.5
    w = W[0]

    def bump(t):
        return t * W[1]
    return np.sum(apply_twice(lambda v: v * w, x)) + np.sum(apply_twice(bump, x))


class DenseLayer:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, h, W):
        return np.tanh(W @ h) * self.scale


class SumPoolLayer:
    def forward(self, h, W):
        return h * np.sum(W) + h[::-1]


def _make_network(layers):
    def network(W):
        h = np.ones(3) * 0.5
        for layer in layers:  # objects of several classes: unrolled
            h = layer.forward(h, W)
        return np.sum(h)
    return network


LAYERS = [DenseLayer(0.5), SumPoolLayer(), DenseLayer(2.0)]
network_of_mixed_layers = _make_network(LAYERS)


def network_through_indexed_layers(W):
    """layers[i] in a loop over range: each call is of a bound method
    known only when the code runs (call_value)."""
    h = np.ones(3) * 0.5
    for i in range(len(LAYERS)):
        h = LAYERS[i].forward(h, W)
    return np.sum(h)
