"""Tanh RNN over 50 steps, mean-squared loss on the last hidden state.

Batch 16, input width 32, hidden width 64. The loop runs over the rows
(time steps) of xs, shape (50, 16, 32). Gradient w.r.t. the input weights,
the recurrent weights and the bias.
"""
import numpy as np

TITLE = "RNN (tanh)"
SIZES = (50,)
QUICK_SIZES = SIZES
SMALL = 4  # for tests/test_benchmarks.py
WRT = (0, 1, 2)
BATCH, N_IN, N_HIDDEN = 16, 32, 64


def loss(Wx, Wh, b, h, xs, y):
    for x in xs:
        h = np.tanh(x @ Wx + h @ Wh + b)
    return np.mean((h - y) ** 2)


def grad_by_hand(Wx, Wh, b, h, xs, y):
    hs = [h]
    for x in xs:
        h = np.tanh(x @ Wx + h @ Wh + b)
        hs.append(h)
    bh = (h - y) * (2.0 / h.size)
    bWx = np.zeros_like(Wx)
    bWh = np.zeros_like(Wh)
    bb = np.zeros_like(b)
    for t in range(len(xs) - 1, -1, -1):
        bz = bh * (1.0 - hs[t + 1] ** 2)
        bWx += xs[t].T @ bz
        bWh += hs[t].T @ bz
        bb += bz.sum(axis=0)
        bh = bz @ Wh.T
    return bWx, bWh, bb


def make_inputs(steps, rng):
    return (rng.normal(0.0, 1.0 / np.sqrt(N_IN), (N_IN, N_HIDDEN)),
            rng.normal(0.0, 1.0 / np.sqrt(N_HIDDEN), (N_HIDDEN, N_HIDDEN)),
            rng.normal(0.0, 0.1, N_HIDDEN),
            np.zeros((BATCH, N_HIDDEN)),
            rng.normal(size=(steps, BATCH, N_IN)),
            rng.normal(0.0, 0.5, (BATCH, N_HIDDEN)))


def for_autograd():
    import autograd.numpy as anp

    def loss(Wx, Wh, b, h, xs, y):
        for x in xs:
            h = anp.tanh(x @ Wx + h @ Wh + b)
        return anp.mean((h - y) ** 2)
    return loss


def for_torch(torch):
    def loss(Wx, Wh, b, h, xs, y):
        for x in xs:
            h = torch.tanh(x @ Wx + h @ Wh + b)
        return torch.mean((h - y) ** 2)
    return loss


def for_jax(jnp, lax):
    def loss(Wx, Wh, b, h, xs, y):
        for x in xs:
            h = jnp.tanh(x @ Wx + h @ Wh + b)
        return jnp.mean((h - y) ** 2)
    return loss, loss, False
