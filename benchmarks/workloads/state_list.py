"""Tanh RNN whose states are collected in a list and stacked at the end.

``outs.append(h)`` at every step of ``for x in xs`` and ``np.stack(outs)``
after the loop, the way a user keeps a sequence model's states; the loss
is the mean square of the stacked states. 1,000 steps of one sequence,
hidden width 16, input width 8. Gradient w.r.t. W and U.

Added in the twenty-third session after a screening of list-building
loops found a list's gradient growing faster than its length: each step
copied the list (the forward ``appended``, the adjoint's slice and its
``accumulate_at``). The staged copy now counts and updates in place; this
row keeps that honest.
"""
import numpy as np

TITLE = "RNN states in a list"
SIZES = (1000,)
QUICK_SIZES = SIZES
SMALL = 5  # for tests/test_benchmark_workloads.py
WRT = (0, 1)
N_IN, N_HIDDEN = 8, 16


def loss(W, U, xs):
    h = np.zeros(W.shape[0])
    outs = []
    for x in xs:
        h = np.tanh(W @ h + U @ x)
        outs.append(h)
    H = np.stack(outs)
    return np.mean(H ** 2)


def grad_by_hand(W, U, xs):
    hs = [np.zeros(W.shape[0])]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + U @ x))
    H = np.stack(hs[1:])
    bH = H * (2.0 / H.size)
    bW, bU = np.zeros_like(W), np.zeros_like(U)
    bh = np.zeros(W.shape[0])
    for t in range(len(xs) - 1, -1, -1):
        bz = (bh + bH[t]) * (1.0 - hs[t + 1] ** 2)
        bW += np.outer(bz, hs[t])
        bU += np.outer(bz, xs[t])
        bh = W.T @ bz
    return bW, bU


def make_inputs(steps, rng):
    W = rng.normal(size=(N_HIDDEN, N_HIDDEN)) * 0.3
    U = rng.normal(size=(N_HIDDEN, N_IN)) * 0.3
    return W, U, rng.normal(size=(steps, N_IN))


def for_autograd():
    import autograd.numpy as anp

    def loss(W, U, xs):
        h = anp.zeros(W.shape[0])
        outs = []
        for x in xs:
            h = anp.tanh(W @ h + U @ x)
            outs.append(h)
        return anp.mean(anp.stack(outs) ** 2)
    return loss


def for_torch(torch):
    def loss(W, U, xs):
        h = torch.zeros(W.shape[0], dtype=W.dtype)
        outs = []
        for x in xs:
            h = torch.tanh(W @ h + U @ x)
            outs.append(h)
        return torch.mean(torch.stack(outs) ** 2)
    return loss


def for_jax(jnp, lax):
    def loss(W, U, xs):
        h = jnp.zeros(W.shape[0])
        outs = []
        for x in xs:
            h = jnp.tanh(W @ h + U @ x)
            outs.append(h)
        return jnp.mean(jnp.stack(outs) ** 2)

    def jit_loss(W, U, xs):
        def step(h, x):
            h = jnp.tanh(W @ h + U @ x)
            return h, h
        _, H = lax.scan(step, jnp.zeros(W.shape[0]), xs)
        return jnp.mean(H ** 2)
    return loss, jit_loss, True
