"""L2-regularized logistic regression written with ``np.logaddexp``.

N = 1000 samples, D = 100 features, labels y in {-1, +1}. The loss of one
sample is log(1 + exp(-y z)) with z = X @ w + b, computed stably as
``np.logaddexp(0.0, -y * z)``; the bias b is a Python float. Gradient
w.r.t. w and b.

Written the way a user writes it, not for tangent_ad (issue 15).
"""
import numpy as np

TITLE = "logaddexp logistic reg."
SIZES = ((1000, 100),)
QUICK_SIZES = SIZES
SMALL = (30, 4)  # for tests/test_benchmarks.py
WRT = (0, 1)
LAM = 1e-3


def loss(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * LAM * np.sum(w ** 2)


def grad_by_hand(w, b, X, y):
    m = -y * (X @ w + b)
    bz = -y / (1.0 + np.exp(-m)) / y.size  # d/dm logaddexp(0, m) = sigmoid(m)
    return X.T @ bz + LAM * w, float(np.sum(bz))


def make_inputs(size, rng):
    n, d = size
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return (rng.normal(0.0, 0.3, d), 0.1, X, y)


def for_autograd():
    import autograd.numpy as anp

    def loss(w, b, X, y):
        z = X @ w + b
        return anp.mean(anp.logaddexp(0.0, -y * z)) + 0.5 * LAM * anp.sum(w ** 2)
    return loss


def for_torch(torch):
    def loss(w, b, X, y):
        z = X @ w + b
        return (torch.mean(torch.logaddexp(torch.zeros_like(z), -y * z))
                + 0.5 * LAM * torch.sum(w ** 2))
    return loss


def for_jax(jnp, lax):
    def loss(w, b, X, y):
        z = X @ w + b
        return jnp.mean(jnp.logaddexp(0.0, -y * z)) + 0.5 * LAM * jnp.sum(w ** 2)
    return loss, loss, False
