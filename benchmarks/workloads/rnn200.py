"""Tanh RNN over 200 time steps with a linear readout of the last state.

Batch 16, input width 16, hidden width 32. The initial state is zeros
made inside the function from the input's shape, the loop runs over
``range(len(xs))`` and indexes ``xs[t]``; the loss is the mean squared
error of ``h @ Wo`` at the end. Gradient w.r.t. Wx, Wh, b and Wo.

Written the way a user writes it, not for tangent_ad (issue 15); the
project's own RNN workload (rnn.py, 50 steps) loops ``for x in xs``.
"""
import numpy as np

TITLE = "RNN, 200 steps"
SIZES = (200,)
QUICK_SIZES = SIZES
SMALL = 5  # for tests/test_benchmarks.py
WRT = (0, 1, 2, 3)
BATCH, N_IN, N_HIDDEN, N_OUT = 16, 16, 32, 4


def loss(Wx, Wh, b, Wo, xs, y):
    h = np.zeros((np.shape(xs)[1], np.shape(Wh)[0]))
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean((h @ Wo - y) ** 2)


def grad_by_hand(Wx, Wh, b, Wo, xs, y):
    hs = [np.zeros((xs.shape[1], Wh.shape[0]))]
    for t in range(len(xs)):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh + b))
    h = hs[-1]
    bout = (h @ Wo - y) * (2.0 / y.size)
    bWo = h.T @ bout
    bh = bout @ Wo.T
    bWx = np.zeros_like(Wx)
    bWh = np.zeros_like(Wh)
    bb = np.zeros_like(b)
    for t in range(len(xs) - 1, -1, -1):
        bz = bh * (1.0 - hs[t + 1] ** 2)
        bWx += xs[t].T @ bz
        bWh += hs[t].T @ bz
        bb += bz.sum(axis=0)
        bh = bz @ Wh.T
    return bWx, bWh, bb, bWo


def make_inputs(steps, rng):
    return (rng.normal(0.0, 1.0 / np.sqrt(N_IN), (N_IN, N_HIDDEN)),
            rng.normal(0.0, 1.0 / np.sqrt(N_HIDDEN), (N_HIDDEN, N_HIDDEN)),
            rng.normal(0.0, 0.1, N_HIDDEN),
            rng.normal(0.0, 1.0 / np.sqrt(N_HIDDEN), (N_HIDDEN, N_OUT)),
            rng.normal(size=(steps, BATCH, N_IN)),
            rng.normal(0.0, 0.5, (BATCH, N_OUT)))


def for_autograd():
    import autograd.numpy as anp

    def loss(Wx, Wh, b, Wo, xs, y):
        h = anp.zeros((anp.shape(xs)[1], anp.shape(Wh)[0]))
        for t in range(len(xs)):
            h = anp.tanh(xs[t] @ Wx + h @ Wh + b)
        return anp.mean((h @ Wo - y) ** 2)
    return loss


def for_torch(torch):
    def loss(Wx, Wh, b, Wo, xs, y):
        h = torch.zeros((xs.shape[1], Wh.shape[0]), dtype=xs.dtype)
        for t in range(len(xs)):
            h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
        return torch.mean((h @ Wo - y) ** 2)
    return loss


def for_jax(jnp, lax):
    def loss(Wx, Wh, b, Wo, xs, y):
        h = jnp.zeros((jnp.shape(xs)[1], jnp.shape(Wh)[0]))
        for t in range(len(xs)):
            h = jnp.tanh(xs[t] @ Wx + h @ Wh + b)
        return jnp.mean((h @ Wo - y) ** 2)
    return loss, loss, False
