"""Recursive gated tree network that concatenates its children and splits
the result: depth 6, so 64 leaf vectors of width 16.

Each inner node stacks its two children into one vector
(``np.concatenate([left, right], axis=0)``), applies one affine map to
width 2 * 16 and splits that in halves: a candidate and a gate,
h = tanh(z[:n]) * sigmoid(z[n:]) with n = np.shape(z)[0] // 2. The same
W and b at every node; the loss is the squared distance of the root from
a target. Gradient w.r.t. W and b.

Written the way a user writes it (list literal, keyword argument, shape
indexing, ``np.split``), not for tangent_ad (issue 15). The hand-written
gradient records each node and accumulates the weight gradient in one
batched product over all 63 inner nodes.
"""
import numpy as np

TITLE = "tree, concat+split"
SIZES = (6,)
QUICK_SIZES = SIZES
SMALL = 2  # for tests/test_benchmarks.py
WRT = (0, 1)
WIDTH = 16


def node(W, b, leaves, lo, hi):
    if hi - lo == 1:
        return leaves[lo]
    mid = (lo + hi) // 2
    left = node(W, b, leaves, lo, mid)
    right = node(W, b, leaves, mid, hi)
    x = np.concatenate([left, right], axis=0)
    z = W @ x + b
    n = np.shape(z)[0] // 2
    cand, gate = np.split(z, [n])
    return np.tanh(cand) / (1.0 + np.exp(-gate))


def loss(W, b, leaves, y):
    root = node(W, b, leaves, 0, len(leaves))
    return np.sum((root - y) ** 2)


def _forward(W, b, leaves, lo, hi, records):
    """Value of the subtree; appends (x, c, s, children) for each inner node."""
    if hi - lo == 1:
        return leaves[lo], None
    mid = (lo + hi) // 2
    left, lrec = _forward(W, b, leaves, lo, mid, records)
    right, rrec = _forward(W, b, leaves, mid, hi, records)
    x = np.concatenate([left, right], axis=0)
    z = W @ x + b
    cand, gate = np.split(z, [np.shape(z)[0] // 2])  # the primal's own calls
    c = np.tanh(cand)
    s = 1.0 / (1.0 + np.exp(-gate))
    records.append(x)
    return c * s, (len(records) - 1, c, s, lrec, rrec)


def _backward(W, rec, bh, bzs):
    """Store the pre-activation adjoint of each inner node in bzs."""
    index, c, s, lrec, rrec = rec
    bz = np.concatenate([bh * s * (1.0 - c * c), bh * c * s * (1.0 - s)])
    bzs[index] = bz
    if lrec is None and rrec is None:
        return
    bx = W.T @ bz
    n = bx.shape[0] // 2
    if lrec is not None:
        _backward(W, lrec, bx[:n], bzs)
    if rrec is not None:
        _backward(W, rrec, bx[n:], bzs)


def grad_by_hand(W, b, leaves, y):
    xs = []
    root, rec = _forward(W, b, leaves, 0, len(leaves), xs)
    bzs = [None] * len(xs)
    _backward(W, rec, 2.0 * (root - y), bzs)
    bz = np.array(bzs)
    return bz.T @ np.array(xs), bz.sum(axis=0)


def make_inputs(depth, rng):
    return (rng.normal(0.0, 1.0 / np.sqrt(2 * WIDTH), (2 * WIDTH, 2 * WIDTH)),
            rng.normal(0.0, 0.1, 2 * WIDTH),
            rng.normal(size=(2 ** depth, WIDTH)),
            rng.normal(0.0, 0.5, WIDTH))


def _recursive(concatenate, split, sigmoid, tanh, total):
    def node(W, b, leaves, lo, hi):
        if hi - lo == 1:
            return leaves[lo]
        mid = (lo + hi) // 2
        left = node(W, b, leaves, lo, mid)
        right = node(W, b, leaves, mid, hi)
        z = W @ concatenate([left, right]) + b
        cand, gate = split(z)
        return tanh(cand) * sigmoid(gate)

    def loss(W, b, leaves, y):
        return total((node(W, b, leaves, 0, len(leaves)) - y) ** 2)
    return loss


def for_autograd():
    import autograd.numpy as anp
    return _recursive(lambda xs: anp.concatenate(xs, axis=0),
                      lambda z: anp.split(z, [anp.shape(z)[0] // 2]),
                      lambda g: 1.0 / (1.0 + anp.exp(-g)), anp.tanh, anp.sum)


def for_torch(torch):
    return _recursive(lambda xs: torch.cat(xs, dim=0),
                      lambda z: torch.split(z, z.shape[0] // 2),
                      torch.sigmoid, torch.tanh, torch.sum)


def for_jax(jnp, lax):
    loss = _recursive(lambda xs: jnp.concatenate(xs, axis=0),
                      lambda z: jnp.split(z, [jnp.shape(z)[0] // 2]),
                      lambda g: 1.0 / (1.0 + jnp.exp(-g)), jnp.tanh, jnp.sum)
    return loss, loss, False
