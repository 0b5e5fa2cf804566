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


GOLDEN = {
    "loop_branch": (loop_branch, (0,)),
    "rnn": (rnn, (0,)),
    "tanh_sum": (tanh_sum, (0,)),
    "mlp": (mlp, (0, 1, 2)),
    "overwrite": (overwrite, (0, 1)),
}
