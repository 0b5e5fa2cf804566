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
    """Reverse mode (grad), forward mode (jvp) and second order (hvp), each
    optimized and not, against central differences."""
    for optimized in (True, False):
        check_grads(func, tad.grad(func, wrt=wrt, optimized=optimized), args, wrt=wrt)
        check_jvp(func, tad.jvp(func, wrt=wrt, optimized=optimized), args, wrt=wrt)
        for k in wrt:
            gradient = tad.grad(func, wrt=(k,))
            product = tad.hvp(func, wrt=k, optimized=optimized)
            check_jvp(gradient, lambda *a: (gradient(*a[:-1]), product(*a)), args, wrt=(k,))
