"""One tuple, list or dict handed to several of the user's own functions,
for tests/test_container_adjoints.py. Each function's adjoint receives one
contribution per helper, of the container's structure: they must add up
entry by entry (concatenating two lists is the bug this guards against)."""
import numpy as np


def first(p, x):
    return np.sum(np.tanh(p[0] * x))


def second(p, x):
    return np.sum(p[1] ** 2 * x)


def third(p, x):
    return np.sum(np.sin(p[0] * p[1]))


def two_helpers(p, x):
    return first(p, x) + second(p, x)


def three_helpers(p, x):
    return first(p, x) * second(p, x) + third(p, x)


def both(p, x):
    return first(p, x) + third(p, x) * p[1][0]


def nested_helpers(p, x):
    return both(p, x) * second(p, x)


def helper_in_loop(p, x):
    s = 0.0
    for i in range(3):
        s = s + first(p, x * i) + second(p, x)
    return s


def through_copy(p, x):
    q = p
    return first(q, x) + second(p, x)


def inside_literal(p, x):
    pair = (p, p)
    return np.sum(pair[0][0] * pair[1][1] * x)


def first_key(p, x):
    return np.sum(np.tanh(p["w"] * x))


def second_key(p, x):
    return np.sum(p["b"] ** 2 * x)


def third_key(p, x):
    return np.sum(np.sin(p["w"] * p["b"]))


def two_key_helpers(p, x):
    return first_key(p, x) + second_key(p, x)


def three_key_helpers(p, x):
    return first_key(p, x) * second_key(p, x) + third_key(p, x)


def both_keys(p, x):
    return first_key(p, x) + third_key(p, x) * p["b"][0]


def nested_key_helpers(p, x):
    return both_keys(p, x) * second_key(p, x)


def key_helper_in_loop(p, x):
    s = 0.0
    for i in range(3):
        s = s + first_key(p, x * i) + second_key(p, x)
    return s


def layer(params, h):
    return np.tanh(params["W"] @ h + params["b"])


def network(layers, x):
    """A layered network: a list of dicts, each passed to `layer`."""
    h = layer(layers[0], x)
    h = layer(layers[1], h)
    return np.sum(h ** 2)


def network_in_loop(layers, x):
    h = x
    for i in range(len(layers)):
        h = layer(layers[i], h)
    return np.sum(h ** 2)


def model(params, x):
    """Nested: a dict holding a list of (W, b) tuples and a scale."""
    h = x
    for i in range(2):
        h = np.tanh(affine(params["layers"][i], h))
    return np.sum(h * params["scale"]) + np.sum(params["layers"][0][1] ** 2)


def affine(wb, h):
    return wb[0] @ h + wb[1]


# ---- + and * of tuples and lists ------------------------------------------------

def tuple_concatenation(a, b):
    t = (a,) + (b,)
    return np.sum(t[0] * t[1])


def list_concatenation(a, b):
    t = [a] + [b]
    return np.sum(t[0] * t[1] + t[1])


def longer_concatenation(a, b):
    t = (a, b) + (a * b,)
    u = t + (b,)
    return np.sum(u[0] * u[2] - u[3] * u[1])


def tuple_repetition(a, b):
    t = (a, b) * 2
    return np.sum(t[0] * t[3] + t[2] ** 2)


def list_repetition(a, b):
    t = 3 * [a * b]
    return np.sum(t[0] * t[1] * t[2])


def concatenated_parameters(p, q):
    t = p + q
    return np.sum(t[0] * t[1])


def doubled_parameter(p):
    t = p + p
    return t[0] * t[1]


def repeated_parameter(p):
    t = p * 2
    return t[0] * t[1]


def returned_repetition(p):
    return p * 2
