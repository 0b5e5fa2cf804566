"""Functions whose generated derivatives are pinned in tests/golden/."""
import numpy as np


def tanh_sum(x):
    return np.sum(np.tanh(x) * 2.0)


def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2
    return np.mean((out - y) ** 2)


def overwrite(x, y):
    x = x * y
    x = np.sin(x) + x
    return np.sum(x * 3)


def loop_branch(x, n):
    for i in range(n):
        if x > 0.5:
            x = x * 0.9 + 0.05
        else:
            x = np.sin(x) + 0.3
    return x


def rnn(W, xs, h):
    for t in range(len(xs)):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h)


def layer(W, x):
    return np.tanh(W @ x)


def two_layers(W1, W2, x):
    h = layer(W1, x)
    return np.sum(layer(W2, h) ** 2)


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def use_power(x):
    return power(x, 3)


GOLDEN = {
    "helper_call": (two_layers, (0, 1)),
    "recursion": (use_power, (0,)),
    "loop_branch": (loop_branch, (0,)),
    "rnn": (rnn, (0,)),
    "tanh_sum": (tanh_sum, (0,)),
    "mlp": (mlp, (0, 1, 2)),
    "overwrite": (overwrite, (0, 1)),
}
