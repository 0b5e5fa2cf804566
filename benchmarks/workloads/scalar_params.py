"""Scalar loop with two Python-float parameters: a driven, damped oscillator.

Semi-implicit Euler over ``steps`` steps (100 in the table) of
x'' = -k x - c x' + cos(w t). The stiffness ``k`` and the drive frequency
``w`` are Python floats, and so are the state and the step; ``np.cos``
returns an ``np.float64``, so from the first step on ``v`` and ``x`` (and
their adjoints) change type from float to np.float64, as they do in a
user's code. Loss: squared distance of the final position from a target
plus a little of the final velocity. Gradient w.r.t. k and w.

Written the way a user writes it, not for tangent_ad (issue 15,
"Benchmarks that keep us honest").
"""
import numpy as np

TITLE = "scalar loop, 2 params"
SIZES = (100,)
QUICK_SIZES = SIZES
SMALL = 12  # for tests/test_benchmarks.py
WRT = (0, 1)
C, DT, TARGET = 0.3, 0.05, 0.2


def loss(k, w, x, v, steps):
    for i in range(steps):
        a = -k * x - C * v + np.cos(w * i * DT)
        v = v + DT * a
        x = x + DT * v
    return (x - TARGET) ** 2 + 0.1 * v ** 2


def grad_by_hand(k, w, x, v, steps):
    # Forward sweep keeps each step's position; the backward sweep runs the
    # three updates in reverse with plain float arithmetic.
    xs = []
    for i in range(steps):
        xs.append(x)
        v = v + DT * (-k * x - C * v + np.cos(w * i * DT))
        x = x + DT * v
    bx = 2.0 * (x - TARGET)
    bv = 0.2 * v
    bk = bw = 0.0
    for i in range(steps - 1, -1, -1):
        t = i * DT
        bv = bv + DT * bx          # x_new = x + DT * v_new
        ba = DT * bv               # v_new = v + DT * a
        bk -= ba * xs[i]
        bw -= ba * np.sin(w * t) * t
        bx = bx - ba * k
        bv = bv - ba * C
    return bk, bw


def make_inputs(steps, rng):
    return (2.0, 1.5, 1.0, 0.0, steps)


def for_autograd():
    import autograd.numpy as anp

    def loss(k, w, x, v, steps):
        for i in range(steps):
            a = -k * x - C * v + anp.cos(w * i * DT)
            v = v + DT * a
            x = x + DT * v
        return (x - TARGET) ** 2 + 0.1 * v ** 2
    return loss


def for_torch(torch):
    def loss(k, w, x, v, steps):
        for i in range(steps):
            a = -k * x - C * v + torch.cos(w * i * DT)
            v = v + DT * a
            x = x + DT * v
        return (x - TARGET) ** 2 + 0.1 * v ** 2
    return loss


def for_jax(jnp, lax):
    def loss(k, w, x, v, steps):
        for i in range(steps):
            a = -k * x - C * v + jnp.cos(w * i * DT)
            v = v + DT * a
            x = x + DT * v
        return (x - TARGET) ** 2 + 0.1 * v ** 2

    def jit_loss(k, w, x, v, steps):
        def step(i, state):
            x, v = state
            v = v + DT * (-k * x - C * v + jnp.cos(w * i * DT))
            return x + DT * v, v
        x, v = lax.fori_loop(0, steps, step, (x, v))
        return (x - TARGET) ** 2 + 0.1 * v ** 2
    return loss, jit_loss, True
