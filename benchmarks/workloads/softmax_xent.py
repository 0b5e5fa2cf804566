"""Softmax cross-entropy of a linear classifier, stabilized with the row max.

N = 512 samples, D = 64 features, C = 10 classes, one-hot labels Y. The
log-softmax subtracts ``np.max(logits, axis=1, keepdims=True)`` first, as
users write it to avoid overflow; the loss is the mean negative
log-likelihood. Gradient w.r.t. the weights W and the bias b.

Written the way a user writes it, not for tangent_ad (issue 15).
"""
import numpy as np

TITLE = "softmax xent, keepdims"
SIZES = ((512, 64, 10),)
QUICK_SIZES = SIZES
SMALL = (12, 5, 4)  # for tests/test_benchmarks.py
WRT = (0, 1)


def loss(W, b, X, Y):
    logits = X @ W + b
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probs, axis=1))


def grad_by_hand(W, b, X, Y):
    logits = X @ W + b
    e = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    g = (e / np.sum(e, axis=1, keepdims=True) - Y) / X.shape[0]
    return X.T @ g, g.sum(axis=0)


def make_inputs(size, rng):
    n, d, c = size
    X = rng.normal(size=(n, d))
    Y = np.eye(c)[rng.integers(0, c, n)]
    return (rng.normal(0.0, 1.0 / np.sqrt(d), (d, c)), rng.normal(0.0, 0.1, c), X, Y)


def for_autograd():
    import autograd.numpy as anp

    def loss(W, b, X, Y):
        logits = X @ W + b
        shifted = logits - anp.max(logits, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(anp.sum(Y * log_probs, axis=1))
    return loss


def for_torch(torch):
    def loss(W, b, X, Y):
        logits = X @ W + b
        shifted = logits - torch.amax(logits, dim=1, keepdim=True)
        log_probs = shifted - torch.log(torch.sum(torch.exp(shifted), dim=1, keepdim=True))
        return -torch.mean(torch.sum(Y * log_probs, dim=1))
    return loss


def for_jax(jnp, lax):
    def loss(W, b, X, Y):
        logits = X @ W + b
        shifted = logits - jnp.max(logits, axis=1, keepdims=True)
        log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
        return -jnp.mean(jnp.sum(Y * log_probs, axis=1))
    return loss, loss, False
