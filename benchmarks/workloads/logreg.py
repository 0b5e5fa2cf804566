"""Logistic regression: mean log-loss of N=1000 samples with D=100 features.

Labels y are 0 or 1; with z = X @ w the loss of one sample is
log(1 + exp(z)) - y * z. Gradient w.r.t. the weights w only.
"""
import numpy as np

TITLE = "logistic regression"
SIZES = ((1000, 100),)
QUICK_SIZES = SIZES
SMALL = (40, 5)  # for tests/test_benchmarks.py
WRT = (0,)


def loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(z)) - y * z)


def grad_by_hand(w, X, y):
    e = np.exp(X @ w)
    return (X.T @ ((e / (1.0 + e) - y) / y.size),)


def make_inputs(size, rng):
    n, d = size
    X = rng.normal(size=(n, d))
    w = rng.normal(0.0, 0.3, d)
    y = (rng.random(n) < 0.5).astype(np.float64)
    return (w, X, y)


def for_autograd():
    import autograd.numpy as anp

    def loss(w, X, y):
        z = X @ w
        return anp.mean(anp.log1p(anp.exp(z)) - y * z)
    return loss


def for_torch(torch):
    def loss(w, X, y):
        z = X @ w
        return torch.mean(torch.log1p(torch.exp(z)) - y * z)
    return loss


def for_jax(jnp, lax):
    def loss(w, X, y):
        z = X @ w
        return jnp.mean(jnp.log1p(jnp.exp(z)) - y * z)
    return loss, loss, False
