"""A loss summed sample by sample from ``0``: robust linear regression.

``total = 0`` and then ``total += ...`` in a loop over the rows of X, the
way a user writes a per-sample loss before vectorizing it (and the way
random programs write accumulators). The sum is a Python int before the
loop and an np.float64 after its first step. The per-sample term is a
pseudo-Huber loss of the residual, so the gradient is not a single matrix
product. Gradient w.r.t. the weights w and the bias b (a Python float).

Added in the twenty-third session, after counting the kinds joins that
lose over random programs: the int start made every adjoint of the loop
unknown to staging (issue 15, "Benchmarks that keep us honest").
"""
import numpy as np

TITLE = "per-sample sum from 0"
SIZES = (200,)
QUICK_SIZES = SIZES
SMALL = 6  # for tests/test_benchmark_workloads.py
WRT = (0, 1)
D, DELTA = 8, 0.5


def loss(w, b, X, y):
    total = 0
    for i in range(X.shape[0]):
        r = np.dot(X[i], w) + b - y[i]
        total += DELTA ** 2 * (np.sqrt(1.0 + (r / DELTA) ** 2) - 1.0)
    return total / X.shape[0]


def grad_by_hand(w, b, X, y):
    # d/dr of delta^2 (sqrt(1 + (r/delta)^2) - 1) is r / sqrt(1 + (r/delta)^2)
    n = X.shape[0]
    gw, gb = np.zeros_like(w), 0.0
    for i in range(n):
        r = np.dot(X[i], w) + b - y[i]
        slope = r / np.sqrt(1.0 + (r / DELTA) ** 2) / n
        gw += slope * X[i]
        gb += slope
    return gw, float(gb)


def make_inputs(n, rng):
    X = rng.normal(size=(n, D))
    y = X @ rng.normal(size=D) + 0.3 * rng.standard_t(3, size=n)
    return rng.normal(size=D) * 0.1, 0.2, X, y


def for_autograd():
    import autograd.numpy as anp

    def loss(w, b, X, y):
        total = 0
        for i in range(X.shape[0]):
            r = anp.dot(X[i], w) + b - y[i]
            total += DELTA ** 2 * (anp.sqrt(1.0 + (r / DELTA) ** 2) - 1.0)
        return total / X.shape[0]
    return loss


def for_torch(torch):
    def loss(w, b, X, y):
        total = 0
        for i in range(X.shape[0]):
            r = torch.dot(X[i], w) + b - y[i]
            total += DELTA ** 2 * (torch.sqrt(1.0 + (r / DELTA) ** 2) - 1.0)
        return total / X.shape[0]
    return loss


def for_jax(jnp, lax):
    def loss(w, b, X, y):
        total = 0
        for i in range(X.shape[0]):
            r = jnp.dot(X[i], w) + b - y[i]
            total += DELTA ** 2 * (jnp.sqrt(1.0 + (r / DELTA) ** 2) - 1.0)
        return total / X.shape[0]

    def jit_loss(w, b, X, y):
        def step(i, total):
            r = jnp.dot(X[i], w) + b - y[i]
            return total + DELTA ** 2 * (jnp.sqrt(1.0 + (r / DELTA) ** 2) - 1.0)
        return lax.fori_loop(0, X.shape[0], step, 0.0) / X.shape[0]
    return loss, jit_loss, True
