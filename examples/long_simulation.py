"""Differentiate a 20,000-step simulation with loop checkpointing.

A damped oscillator array is integrated with 20,000 explicit steps. The
gradient of the final energy with respect to the damping coefficients
uses ``tad.checkpointed``. The derivative then keeps about sqrt(n) snapshots
of the state and recomputes each segment, instead of saving every step.
The script prints the peak memory of both versions.

Run: python examples/long_simulation.py
"""
import tracemalloc

import numpy as np

import tangent_ad as tad


def energy(damping, x, v, steps):
    dt = 0.001
    for i in tad.checkpointed(range(steps)):
        a = -x - damping * v
        x = x + dt * v
        v = v + dt * a
    return np.sum(x * x + v * v)


def energy_plain(damping, x, v, steps):
    dt = 0.001
    for i in range(steps):
        a = -x - damping * v
        x = x + dt * v
        v = v + dt * a
    return np.sum(x * x + v * v)


def peak_memory(fn, *args):
    tracemalloc.start()
    result = fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, peak


def main():
    rng = np.random.default_rng(0)
    n = 2000
    damping = rng.uniform(0.1, 0.5, size=n)
    x, v = rng.normal(size=n), rng.normal(size=n)
    steps = 20_000
    grad, peak = peak_memory(tad.grad(energy), damping, x, v, steps)
    grad_plain, peak_plain = peak_memory(tad.grad(energy_plain), damping, x, v, steps)
    print(f"checkpointed: peak {peak / 2**20:6.1f} MiB")
    print(f"plain:        peak {peak_plain / 2**20:6.1f} MiB")
    print("same gradient:", np.allclose(grad, grad_plain, rtol=1e-10, atol=0))


if __name__ == "__main__":
    main()
