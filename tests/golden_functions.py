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


GOLDEN = {
    "tanh_sum": (tanh_sum, (0,)),
    "mlp": (mlp, (0, 1, 2)),
    "overwrite": (overwrite, (0, 1)),
}
