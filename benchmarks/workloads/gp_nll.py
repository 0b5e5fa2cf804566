"""Negative log marginal likelihood of a Gaussian process regression.

N = 128 points in 3 dimensions, a squared-exponential kernel with three
log-hyperparameters (length scale, signal and noise standard deviation)
in one array ``params``. The likelihood goes through the Cholesky factor
L of K: two triangular solves give alpha = K^-1 y, and log det K is
2 sum(log diag L). Gradient w.r.t. params.

Written the way a user writes it (np.linalg.cholesky,
scipy.linalg.solve_triangular), not for tangent_ad (issue 15).
"""
import numpy as np
from scipy.linalg import solve_triangular

TITLE = "GP neg. log likelihood"
SIZES = (128,)
QUICK_SIZES = SIZES
SMALL = 7  # for tests/test_benchmarks.py
WRT = (0,)
DIM = 3


def loss(params, X, y):
    ell = np.exp(params[0])
    sf2 = np.exp(2.0 * params[1])
    sn2 = np.exp(2.0 * params[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
    return (0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(L)))
            + 0.5 * len(y) * np.log(2.0 * np.pi))


def grad_by_hand(params, X, y):
    # dNLL/dK = (K^-1 - alpha alpha^T) / 2, then the chain rule through each
    # hyperparameter: dK/dlog(ell) = Kse * sqdist / ell^2, dK/dlog(sf) = 2 Kse,
    # dK/dlog(sn) = 2 sn2 I.
    ell, sf2, sn2 = np.exp(params[0]), np.exp(2.0 * params[1]), np.exp(2.0 * params[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    Kse = sf2 * np.exp(-0.5 * sqdist / ell ** 2)
    L = np.linalg.cholesky(Kse + sn2 * np.eye(len(y)))
    alpha = solve_triangular(L.T, solve_triangular(L, y, lower=True), lower=False)
    Linv = solve_triangular(L, np.eye(len(y)), lower=True)
    bK = 0.5 * (Linv.T @ Linv - np.outer(alpha, alpha))
    return (np.array([np.sum(bK * Kse * sqdist) / ell ** 2,
                      2.0 * np.sum(bK * Kse),
                      2.0 * sn2 * np.trace(bK)]),)


def make_inputs(n, rng):
    X = rng.uniform(-2.0, 2.0, (n, DIM))
    y = np.sin(X.sum(axis=1)) + rng.normal(0.0, 0.1, n)
    return (np.array([0.0, 0.0, np.log(0.3)]), X, y)


def for_autograd():
    import autograd.numpy as anp
    from autograd.scipy.linalg import solve_triangular as solve

    def loss(params, X, y):
        ell = anp.exp(params[0])
        sf2 = anp.exp(2.0 * params[1])
        sn2 = anp.exp(2.0 * params[2])
        sqdist = anp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = sf2 * anp.exp(-0.5 * sqdist / ell ** 2) + sn2 * anp.eye(len(y))
        L = anp.linalg.cholesky(K)
        alpha = solve(L.T, solve(L, y, lower=True), lower=False)
        return (0.5 * anp.dot(y, alpha) + anp.sum(anp.log(anp.diag(L)))
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
        L = torch.linalg.cholesky(K)
        inner = torch.linalg.solve_triangular(L, y[:, None], upper=False)
        alpha = torch.linalg.solve_triangular(L.T, inner, upper=True)[:, 0]
        return (0.5 * torch.dot(y, alpha) + torch.sum(torch.log(torch.diagonal(L)))
                + 0.5 * len(y) * np.log(2.0 * np.pi))
    return loss


def for_jax(jnp, lax):
    from jax.scipy.linalg import solve_triangular as solve

    def loss(params, X, y):
        ell = jnp.exp(params[0])
        sf2 = jnp.exp(2.0 * params[1])
        sn2 = jnp.exp(2.0 * params[2])
        sqdist = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = sf2 * jnp.exp(-0.5 * sqdist / ell ** 2) + sn2 * jnp.eye(len(y))
        L = jnp.linalg.cholesky(K)
        alpha = solve(L.T, solve(L, y, lower=True), lower=False)
        return (0.5 * jnp.dot(y, alpha) + jnp.sum(jnp.log(jnp.diag(L)))
                + 0.5 * len(y) * jnp.log(2.0 * jnp.pi))
    return loss, loss, False
