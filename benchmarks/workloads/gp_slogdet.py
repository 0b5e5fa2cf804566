"""The Gaussian-process likelihood of ``gp_nll.py``, written with
np.linalg.slogdet and np.linalg.solve instead of a Cholesky factor, as
many users write it (added in the twenty-first session, after the
specializer had been tuned on ``gp_nll``: it factored K four times per
gradient then).

The hand-written gradient is the closed form for this formulation: one
inverse of K, then ``dNLL/dK = (K^-1 - alpha alpha^T) / 2`` and the chain
rule through each log-hyperparameter.
"""
import numpy as np

from .gp_nll import DIM, make_inputs  # noqa: F401 (the same points and targets)

TITLE = "GP by slogdet + solve"
SIZES = (128,)
QUICK_SIZES = SIZES
SMALL = 7  # for tests/test_benchmark_workloads.py
WRT = (0,)


def loss(params, X, y):
    ell = np.exp(params[0])
    sf2 = np.exp(2.0 * params[1])
    sn2 = np.exp(2.0 * params[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet + 0.5 * len(y) * np.log(2.0 * np.pi)


def grad_by_hand(params, X, y):
    ell, sf2, sn2 = np.exp(params[0]), np.exp(2.0 * params[1]), np.exp(2.0 * params[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    Kse = sf2 * np.exp(-0.5 * sqdist / ell ** 2)
    Kinv = np.linalg.inv(Kse + sn2 * np.eye(len(y)))
    alpha = Kinv @ y
    bK = 0.5 * (Kinv - np.outer(alpha, alpha))
    return (np.array([np.sum(bK * Kse * sqdist) / ell ** 2,
                      2.0 * np.sum(bK * Kse),
                      2.0 * sn2 * np.trace(bK)]),)


def for_autograd():
    import autograd.numpy as anp

    def loss(params, X, y):
        ell = anp.exp(params[0])
        sf2 = anp.exp(2.0 * params[1])
        sn2 = anp.exp(2.0 * params[2])
        sqdist = anp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = sf2 * anp.exp(-0.5 * sqdist / ell ** 2) + sn2 * anp.eye(len(y))
        sign, logdet = anp.linalg.slogdet(K)
        return (0.5 * anp.dot(y, anp.linalg.solve(K, y)) + 0.5 * logdet
                + 0.5 * len(y) * anp.log(2.0 * anp.pi))
    return loss


def for_torch(torch):
    def loss(params, X, y):
        ell = torch.exp(params[0])
        sf2 = torch.exp(2.0 * params[1])
        sn2 = torch.exp(2.0 * params[2])
        sqdist = torch.sum((X[:, None, :] - X[None, :, :]) ** 2, dim=-1)
        K = (sf2 * torch.exp(-0.5 * sqdist / ell ** 2)
             + sn2 * torch.eye(len(y), dtype=X.dtype))
        sign, logdet = torch.linalg.slogdet(K)
        return (0.5 * torch.dot(y, torch.linalg.solve(K, y)) + 0.5 * logdet
                + 0.5 * len(y) * np.log(2.0 * np.pi))
    return loss


def for_jax(jnp, lax):
    def loss(params, X, y):
        ell = jnp.exp(params[0])
        sf2 = jnp.exp(2.0 * params[1])
        sn2 = jnp.exp(2.0 * params[2])
        sqdist = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = sf2 * jnp.exp(-0.5 * sqdist / ell ** 2) + sn2 * jnp.eye(len(y))
        sign, logdet = jnp.linalg.slogdet(K)
        return (0.5 * jnp.dot(y, jnp.linalg.solve(K, y)) + 0.5 * logdet
                + 0.5 * len(y) * jnp.log(2.0 * jnp.pi))
    return loss, loss, False
