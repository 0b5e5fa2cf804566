"""Scalar loop with a branch: ``loop_branch`` of tests/control_flow_functions.py.

The state is one float. Starting at 0.3 the first step takes the ``else``
branch and every later one the ``if`` branch (0.5 is a fixed point of
``x * 0.9 + 0.05`` approached from above), so the gradient is tiny for
large n; the comparison with the hand-written gradient is relative.
"""
import numpy as np

TITLE = "loop+branch"
SIZES = (10, 100, 1000)
QUICK_SIZES = (10, 1000)
SMALL = 10  # for tests/test_benchmarks.py
WRT = (0,)


def loss(x, n):
    for i in range(n):
        if x > 0.5:
            x = x * 0.9 + 0.05
        else:
            x = np.sin(x) + 0.3
    return x


def grad_by_hand(x, n):
    # Forward sweep records each step's local derivative, backward sweep
    # multiplies them in reverse order (reverse mode written out by hand).
    local = []
    for i in range(n):
        if x > 0.5:
            local.append(0.9)
            x = x * 0.9 + 0.05
        else:
            local.append(np.cos(x))
            x = np.sin(x) + 0.3
    bx = 1.0
    for factor in reversed(local):
        bx = bx * factor
    return (bx,)


def make_inputs(n, rng):
    return (0.3, n)


def for_autograd():
    import autograd.numpy as anp

    def loss(x, n):
        for i in range(n):
            if x > 0.5:
                x = x * 0.9 + 0.05
            else:
                x = anp.sin(x) + 0.3
        return x
    return loss


def for_torch(torch):
    def loss(x, n):
        for i in range(n):
            if x > 0.5:
                x = x * 0.9 + 0.05
            else:
                x = torch.sin(x) + 0.3
        return x
    return loss


def for_jax(jnp, lax):
    def loss(x, n):
        for i in range(n):
            if x > 0.5:
                x = x * 0.9 + 0.05
            else:
                x = jnp.sin(x) + 0.3
        return x

    def step(i, x):
        return lax.cond(x > 0.5, lambda v: v * 0.9 + 0.05,
                        lambda v: jnp.sin(v) + 0.3, x)

    def jit_loss(x, n):
        return lax.fori_loop(0, n, step, x)
    return loss, jit_loss, True
