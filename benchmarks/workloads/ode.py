"""Lotka-Volterra predator-prey model, explicit Euler, 500 steps.

State: prey x and predators y, two Python floats updated in a ``for`` loop.
Loss: squared distance of the final state from a target. Gradient w.r.t.
the four rate parameters a (prey growth), b (predation), c (predator death)
and d (predator growth).
"""
import numpy as np

TITLE = "ODE (Lotka-Volterra)"
SIZES = (500,)
QUICK_SIZES = SIZES
SMALL = 30  # for tests/test_benchmarks.py
WRT = (0, 1, 2, 3)
DT = 0.01


def loss(a, b, c, d, x, y, dt, steps):
    for i in range(steps):
        dx = a * x - b * x * y
        dy = d * x * y - c * y
        x = x + dt * dx
        y = y + dt * dy
    return (x - 1.0) ** 2 + (y - 1.0) ** 2


def grad_by_hand(a, b, c, d, x, y, dt, steps):
    xs = []
    ys = []
    for i in range(steps):
        xs.append(x)
        ys.append(y)
        x, y = x + dt * (a * x - b * x * y), y + dt * (d * x * y - c * y)
    bx = 2.0 * (x - 1.0)
    by = 2.0 * (y - 1.0)
    ba = bb = bc = bd = 0.0
    for i in range(steps - 1, -1, -1):
        x = xs[i]
        y = ys[i]
        fx = bx * dt
        fy = by * dt
        ba += fx * x
        bb -= fx * x * y
        bc -= fy * y
        bd += fy * x * y
        bx, by = bx + fx * (a - b * y) + fy * d * y, by - fx * b * x + fy * (d * x - c)
    return ba, bb, bc, bd


def make_inputs(steps, rng):
    return (1.1, 0.4, 0.4, 0.1, 10.0, 10.0, DT, steps)


def for_autograd():
    return loss  # plain Python arithmetic: autograd needs no NumPy wrapper


def for_torch(torch):
    return loss  # operators only, so the same code runs on tensors


def for_jax(jnp, lax):
    def jit_loss(a, b, c, d, x, y, dt, steps):
        def step(i, state):
            x, y = state
            return (x + dt * (a * x - b * x * y), y + dt * (d * x * y - c * y))
        x, y = lax.fori_loop(0, steps, step, (x, y))
        return (x - 1.0) ** 2 + (y - 1.0) ** 2
    return loss, jit_loss, True
