"""MLP: two tanh layers of width n, mean-squared loss.

Batch of 16 rows; input width = hidden width = output width = n, so both
weight matrices are n x n. Gradient w.r.t. both weights and both biases.
"""
import numpy as np

TITLE = "MLP"
SIZES = (8, 32, 128, 512, 2048)
QUICK_SIZES = (8, 128)
SMALL = 8  # for tests/test_benchmarks.py
WRT = (0, 1, 2, 3)
BATCH = 16


def loss(W1, b1, W2, b2, x, y):
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    return np.mean((h2 - y) ** 2)


def grad_by_hand(W1, b1, W2, b2, x, y):
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    g2 = (h2 - y) * (2.0 / h2.size) * (1.0 - h2 * h2)
    g1 = (g2 @ W2.T) * (1.0 - h1 * h1)
    return x.T @ g1, g1.sum(axis=0), h1.T @ g2, g2.sum(axis=0)


def jvp_by_hand(W1, b1, W2, b2, x, y, dW1, db1=None, dW2=None, db2=None):
    """(loss, its directional derivative) along tangents of W1 and,
    optionally, of b1, W2 and b2: the reference for benchmarks/modes.py."""
    t1 = x @ dW1 if db1 is None else x @ dW1 + db1
    h1 = np.tanh(x @ W1 + b1)
    dh1 = t1 * (1.0 - h1 * h1)
    t2 = dh1 @ W2 if dW2 is None else dh1 @ W2 + h1 @ dW2
    if db2 is not None:
        t2 = t2 + db2
    h2 = np.tanh(h1 @ W2 + b2)
    r = h2 - y
    return np.mean(r * r), 2.0 * np.mean(r * (t2 * (1.0 - h2 * h2)))


def make_inputs(n, rng):
    scale = 1.0 / np.sqrt(n)
    return (rng.normal(0.0, scale, (n, n)), rng.normal(0.0, 0.1, n),
            rng.normal(0.0, scale, (n, n)), rng.normal(0.0, 0.1, n),
            rng.normal(size=(BATCH, n)), rng.normal(0.0, 0.5, (BATCH, n)))


def for_autograd():
    import autograd.numpy as anp

    def loss(W1, b1, W2, b2, x, y):
        h1 = anp.tanh(x @ W1 + b1)
        h2 = anp.tanh(h1 @ W2 + b2)
        return anp.mean((h2 - y) ** 2)
    return loss


def for_torch(torch):
    def loss(W1, b1, W2, b2, x, y):
        h1 = torch.tanh(x @ W1 + b1)
        h2 = torch.tanh(h1 @ W2 + b2)
        return torch.mean((h2 - y) ** 2)
    return loss


def for_jax(jnp, lax):
    def loss(W1, b1, W2, b2, x, y):
        h1 = jnp.tanh(x @ W1 + b1)
        h2 = jnp.tanh(h1 @ W2 + b2)
        return jnp.mean((h2 - y) ** 2)
    return loss, loss, False
