"""Shared checks for the tables of test functions (CASES dicts).

Each table maps a name to (function, argument builder, wrt); the builders
take a seeded generator. The same two checks run on every table: the
gradient against central finite differences, and the optimized derivative
against the unoptimized one.
"""
import numpy as np

import tangent_ad as tad
from tangent_ad.testing import check_grads, check_jvp


def check_against_finite_differences(case, seed):
    func, make_args, wrt = case
    args = make_args(np.random.default_rng(seed))
    check_grads(func, tad.grad(func, wrt=wrt), args, wrt=wrt)


def check_optimizer_keeps_values(case, seed=5):
    func, make_args, wrt = case
    args = make_args(np.random.default_rng(seed))
    fast = tad.grad(func, wrt=wrt)(*args)
    slow = tad.grad(func, wrt=wrt, optimized=False)(*args)
    fast, slow = (fast, slow) if len(wrt) > 1 else ((fast,), (slow,))
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def check_all_modes(func, args, wrt=(0,)):
    """Check reverse (``grad``), forward (``jvp``) and second-order (``hvp``)
    derivatives of `func` at `args`, optimized and not, against central
    differences (``hvp`` against differences of the gradient, itself
    checked first). Each derivative is called three times, so that the
    copy staged for the arguments' kinds (``staging/dispatch.py``) is
    checked as well as the general one."""
    wrt = tuple(wrt)
    for optimized in (True, False):
        check_grads(func, _thrice(tad.grad(func, wrt=wrt, optimized=optimized)),
                    args, wrt=wrt)
        check_jvp(func, _thrice(tad.jvp(func, wrt=wrt, optimized=optimized)), args, wrt=wrt)
        for n in wrt:
            gradient = tad.grad(func, wrt=n, optimized=optimized)
            product = _thrice(tad.hvp(func, wrt=n, optimized=optimized))
            check_jvp(gradient, lambda *a: (gradient(*a[:-1]), product(*a)),
                      args, wrt=(n,))


def _thrice(derivative):
    """`derivative`, called three times per call: the results must agree."""
    def call(*args):
        results = [derivative(*args) for _ in range(3)]
        for other in results[1:]:
            for a, b in zip(_flat(results[0]), _flat(other)):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        return results[-1]
    return call


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flat(item)]
    return [value]
