"""Gradient-descent optimizers with autograd's signatures: ``opt(grad, x0,
callback=None, num_iters=..., step_size=..., ...)``, ``grad(x, i)`` the
gradient at iteration ``i``, ``callback(x, i, g)``. They are plain NumPy
(nothing to differentiate): the structure `x0` (arrays in tuples, lists,
dicts) is flattened to one vector, updated, and unflattened."""
import functools

import numpy as np

from autograd.misc.flatten import flatten


def _on_vectors(update):
    """Run `update(grad, x, callback, ...)`, written for a 1-D x, on a
    structure of arrays."""
    @functools.wraps(update)
    def optimizer(grad, x0, callback=None, *args, **kwargs):
        x, unflatten = flatten(x0)

        def flat_grad(vector, i):
            return flatten(grad(unflatten(vector), i))[0]

        flat_callback = None
        if callback:
            def flat_callback(vector, i, g):
                return callback(unflatten(vector), i, unflatten(g))
        return unflatten(update(flat_grad, x, flat_callback, *args, **kwargs))
    return optimizer


@_on_vectors
def sgd(grad, x, callback=None, num_iters=200, step_size=0.1, mass=0.9):
    """Gradient descent with momentum `mass`."""
    velocity = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@_on_vectors
def rmsprop(grad, x, callback=None, num_iters=100, step_size=0.1, gamma=0.9, eps=1e-8):
    """Steps scaled by a running root-mean-square of the gradient."""
    mean_square = np.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        mean_square = gamma * mean_square + (1 - gamma) * g ** 2
        x = x - step_size * g / (np.sqrt(mean_square) + eps)
    return x


@_on_vectors
def adam(grad, x, callback=None, num_iters=100, step_size=0.001, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba, 2014): momentum and RMS scaling, each with its
    bias correction for the zero start."""
    first = np.zeros(len(x))
    second = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        first = b1 * first + (1 - b1) * g
        second = b2 * second + (1 - b2) * g ** 2
        corrected_first = first / (1 - b1 ** (i + 1))
        corrected_second = second / (1 - b2 ** (i + 1))
        x = x - step_size * corrected_first / (np.sqrt(corrected_second) + eps)
    return x
