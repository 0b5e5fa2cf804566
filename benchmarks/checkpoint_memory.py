"""Memory and time of a checkpointed loop against the plain loop (issue 7).

A 10,000-step loop over a state of about 1 MB (131,072 float64 values).
The plain derivative saves the state (and a temporary) every step, so its
stack would hold tens of GB at 10,000 steps; it is measured at a smaller
step count and its saved bytes per step are extrapolated (they are exactly
linear in the step count). The checkpointed derivative is measured at the
full 10,000 steps. Peak memory comes from tracemalloc; times are one run
each, in this process.

Run: python benchmarks/checkpoint_memory.py [--steps N] [--plain-steps M]
"""
import argparse
import time
import tracemalloc

import numpy as np

import tangent_ad as tad

STATE = 131_072  # float64 values: 1 MiB


def simulate(x, w, n):
    for i in tad.checkpointed(range(n)):
        x = x * w + np.sin(x) * 0.001
    return np.sum(x)


def simulate_plain(x, w, n):
    for i in range(n):
        x = x * w + np.sin(x) * 0.001
    return np.sum(x)


def measure(grad, x, w, n):
    """(peak bytes above the inputs, seconds) of one gradient call."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    grad(x, w, n)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--plain-steps", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=STATE), rng.uniform(0.99, 1.0, size=STATE)
    checkpointed = tad.grad(simulate, wrt=(0, 1))
    plain = tad.grad(simulate_plain, wrt=(0, 1))
    small = args.plain_steps
    for p, q in zip(checkpointed(x, w, small), plain(x, w, small)):
        assert np.allclose(p, q, rtol=1e-10, atol=0), "gradients differ"
    plain_peak, plain_time = measure(plain, x, w, small)
    ckpt_small_peak, ckpt_small_time = measure(checkpointed, x, w, small)
    ckpt_peak, ckpt_time = measure(checkpointed, x, w, args.steps)
    per_step = plain_peak / small
    plain_full = per_step * args.steps
    print(f"state: {STATE * 8 / 2**20:.1f} MiB, steps: {args.steps}")
    print(f"plain, {small} steps: peak {plain_peak / 2**20:.0f} MiB "
          f"({per_step / 2**20:.2f} MiB per step), {plain_time:.3f} s")
    print(f"plain, {args.steps} steps (extrapolated): peak {plain_full / 2**30:.1f} GiB")
    print(f"checkpointed, {args.steps} steps: peak {ckpt_peak / 2**20:.0f} MiB, "
          f"{ckpt_time:.2f} s")
    print(f"memory ratio: {ckpt_peak / plain_full:.2%} of the plain version "
          f"(target <= 5%)")
    print(f"time ratio at {small} steps: {ckpt_small_time / plain_time:.2f}x "
          f"(target <= 3x)")


if __name__ == "__main__":
    main()
