"""A one-layer model: the function the demo and the README differentiate.

    tangent-ad examples/model.py:loss --wrt W,b

``loss_example_args`` follows the CLI's ``--check`` convention: a function
named ``<FUNC>_example_args`` with no parameters, returning a tuple of
arguments for ``FUNC``.
"""
import numpy as np


def loss(W, b, x):
    h = np.tanh(x @ W + b)
    return np.mean(h ** 2)


def loss_example_args():
    rng = np.random.default_rng(0)
    return rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(5, 3))
