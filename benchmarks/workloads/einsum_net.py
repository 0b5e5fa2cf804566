"""A small attention-like network written with three kinds of einsum.

Batch 8 of sequences of 16 tokens of width 32. Queries and keys are
projections ``einsum('btd,dk->btk')``, the scores between tokens
``einsum('btk,bsk->bts')`` go through tanh and mix the tokens
``einsum('bts,bsd->btd')``, and a last projection maps to the targets;
mean squared error. Gradient w.r.t. the query, key and output weights.

Written the way a user writes it, not for tangent_ad (issue 15). The
hand-written gradient uses einsum too, the adjoint of each call written
as the einsum a person would write for it.
"""
import numpy as np

TITLE = "einsum network"
SIZES = ((8, 16, 32),)
QUICK_SIZES = SIZES
SMALL = (2, 3, 4)  # for tests/test_benchmarks.py
WRT = (0, 1, 2)


def loss(Wq, Wk, Wo, x, y):
    q = np.einsum("btd,dk->btk", x, Wq)
    k = np.einsum("btd,dk->btk", x, Wk)
    scores = np.tanh(np.einsum("btk,bsk->bts", q, k) / np.sqrt(np.shape(Wq)[1]))
    mixed = np.einsum("bts,bsd->btd", scores, x)
    out = np.einsum("btd,de->bte", mixed, Wo)
    return np.mean((out - y) ** 2)


def grad_by_hand(Wq, Wk, Wo, x, y):
    scale = 1.0 / np.sqrt(Wq.shape[1])
    q = np.einsum("btd,dk->btk", x, Wq)
    k = np.einsum("btd,dk->btk", x, Wk)
    scores = np.tanh(np.einsum("btk,bsk->bts", q, k) * scale)
    mixed = np.einsum("bts,bsd->btd", scores, x)
    out = np.einsum("btd,de->bte", mixed, Wo)
    bout = (out - y) * (2.0 / out.size)
    bWo = np.einsum("btd,bte->de", mixed, bout)
    bmixed = np.einsum("bte,de->btd", bout, Wo)
    bs = np.einsum("btd,bsd->bts", bmixed, x) * (1.0 - scores * scores) * scale
    bq = np.einsum("bts,bsk->btk", bs, k)
    bk = np.einsum("bts,btk->bsk", bs, q)
    return (np.einsum("btd,btk->dk", x, bq), np.einsum("btd,btk->dk", x, bk), bWo)


def make_inputs(size, rng):
    batch, tokens, width = size
    scale = 1.0 / np.sqrt(width)
    return (rng.normal(0.0, scale, (width, width)), rng.normal(0.0, scale, (width, width)),
            rng.normal(0.0, scale, (width, width)), rng.normal(size=(batch, tokens, width)),
            rng.normal(0.0, 0.5, (batch, tokens, width)))


def _network(lib, width_of):
    def loss(Wq, Wk, Wo, x, y):
        q = lib.einsum("btd,dk->btk", x, Wq)
        k = lib.einsum("btd,dk->btk", x, Wk)
        scores = lib.tanh(lib.einsum("btk,bsk->bts", q, k) / np.sqrt(width_of(Wq)))
        mixed = lib.einsum("bts,bsd->btd", scores, x)
        out = lib.einsum("btd,de->bte", mixed, Wo)
        return lib.mean((out - y) ** 2)
    return loss


def for_autograd():
    import autograd.numpy as anp
    return _network(anp, lambda W: anp.shape(W)[1])


def for_torch(torch):
    return _network(torch, lambda W: W.shape[1])


def for_jax(jnp, lax):
    loss = _network(jnp, lambda W: jnp.shape(W)[1])
    return loss, loss, False
