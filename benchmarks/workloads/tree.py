"""Recursive binary-tree network: depth 6, so 64 leaf vectors of width 16.

Each inner node combines its children: h = tanh(left @ Wl + right @ Wr + b),
the same weights at every node. ``node`` recurses over index ranges of the
leaves; the loss is the squared distance of the root from a target.
Gradient w.r.t. Wl, Wr and b.
"""
import numpy as np

TITLE = "tree network"
SIZES = (6,)
QUICK_SIZES = SIZES
SMALL = 3  # for tests/test_benchmarks.py
WRT = (0, 1, 2)
WIDTH = 16


def node(Wl, Wr, b, leaves, lo, hi):
    if hi - lo == 1:
        return leaves[lo]
    mid = (lo + hi) // 2
    left = node(Wl, Wr, b, leaves, lo, mid)
    right = node(Wl, Wr, b, leaves, mid, hi)
    return np.tanh(left @ Wl + right @ Wr + b)


def loss(Wl, Wr, b, leaves, y):
    root = node(Wl, Wr, b, leaves, 0, len(leaves))
    return np.sum((root - y) ** 2)


def _forward(Wl, Wr, b, leaves, lo, hi):
    """Value of the subtree and a record of it for the backward pass."""
    if hi - lo == 1:
        return leaves[lo], None
    mid = (lo + hi) // 2
    left, left_rec = _forward(Wl, Wr, b, leaves, lo, mid)
    right, right_rec = _forward(Wl, Wr, b, leaves, mid, hi)
    h = np.tanh(left @ Wl + right @ Wr + b)
    return h, (left, right, h, left_rec, right_rec)


def _backward(Wl, Wr, rec, bh, grads):
    """Add the subtree's contributions, given its output adjoint bh, to grads."""
    left, right, h, left_rec, right_rec = rec
    bz = bh * (1.0 - h * h)
    grads[0] += np.outer(left, bz)
    grads[1] += np.outer(right, bz)
    grads[2] += bz
    if left_rec is not None:
        _backward(Wl, Wr, left_rec, Wl @ bz, grads)
    if right_rec is not None:
        _backward(Wl, Wr, right_rec, Wr @ bz, grads)


def grad_by_hand(Wl, Wr, b, leaves, y):
    root, rec = _forward(Wl, Wr, b, leaves, 0, len(leaves))
    grads = [np.zeros_like(Wl), np.zeros_like(Wr), np.zeros_like(b)]
    _backward(Wl, Wr, rec, 2.0 * (root - y), grads)
    return tuple(grads)


def make_inputs(depth, rng):
    scale = 1.0 / np.sqrt(2 * WIDTH)
    return (rng.normal(0.0, scale, (WIDTH, WIDTH)),
            rng.normal(0.0, scale, (WIDTH, WIDTH)),
            rng.normal(0.0, 0.1, WIDTH),
            rng.normal(size=(2 ** depth, WIDTH)),
            rng.normal(0.0, 0.5, WIDTH))


def _recursive(lib):
    """loss and node for a library whose tanh is lib.tanh."""
    def node(Wl, Wr, b, leaves, lo, hi):
        if hi - lo == 1:
            return leaves[lo]
        mid = (lo + hi) // 2
        left = node(Wl, Wr, b, leaves, lo, mid)
        right = node(Wl, Wr, b, leaves, mid, hi)
        return lib.tanh(left @ Wl + right @ Wr + b)

    def loss(Wl, Wr, b, leaves, y):
        root = node(Wl, Wr, b, leaves, 0, len(leaves))
        return lib.sum((root - y) ** 2)
    return loss


def for_autograd():
    import autograd.numpy as anp
    return _recursive(anp)


def for_torch(torch):
    return _recursive(torch)


def for_jax(jnp, lax):
    loss = _recursive(jnp)
    return loss, loss, False
