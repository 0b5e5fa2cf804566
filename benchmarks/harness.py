"""Timing and checking machinery shared by run.py, bench_loop.py and
peer_tangent.py. It needs NumPy only, so the PyPI tangent-ad peer can use it
from its own virtual environment.

How a time is measured
----------------------
* A *sample* runs one gradient function ``number`` times in a row and is
  timed with ``time.perf_counter``; ``number`` is calibrated beforehand so
  that a sample lasts about ``TARGET_SAMPLE`` seconds (at least one call).
  The garbage collector is off during a sample, as in ``timeit``.
* Before each sample the same function runs untimed for about half a
  sample (``warmup`` calls): on 2 cores the thread pools of the library
  timed just before (OpenMP in torch, XLA's in JAX, OpenBLAS) keep spinning
  for a while and would otherwise slow the next library's first calls.
* A *repeat* takes one sample of every library, in an order rotated by one
  place each repeat, so every library runs at every position equally often
  and slow drifts of the machine (frequency, other load) hit all alike.
* A library's time is the **median over repeats** of its per-call sample
  time; its ratio is that median divided by the hand-written gradient's.
"""
import gc
import os
import statistics
import time

# Thread counts must be fixed before NumPy, torch or JAX load, so every
# script imports this module first. Default: one thread everywhere. On the
# 2-core machine of docs/performance.md, two-threaded OpenBLAS is slower than
# one thread for these sizes, and the spinning thread pools of libraries
# timed one after another slowed each other down up to 45x.
THREADS = os.environ.get("BENCH_THREADS", "1")
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, THREADS)
if THREADS == "1":
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                          "intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

TARGET_SAMPLE = 2e-3  # seconds per sample
RTOL = 1e-6           # gradient check: relative tolerance ...
ATOL_SCALE = 1e-9     # ... and absolute tolerance, times the largest |entry|


class Contender:
    """One library's gradient for one workload instance.

    ``call()`` computes the gradient; ``to_numpy(result)`` turns its result
    into a tuple of NumPy values in WRT order, for the check.
    """

    def __init__(self, name, call, to_numpy=None, mark="", compile_time=None):
        self.name = name
        self.call = call
        self.to_numpy = to_numpy or as_tuple
        self.mark = mark                  # "*": a rewritten (lax) variant
        self.compile_time = compile_time  # seconds, for jit peers
        self.number = 1                   # calls per sample
        self.warmup = 0                   # untimed calls before a sample

    def __repr__(self):
        return f"Contender({self.name!r})"


def as_tuple(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def check(got, want):
    """None if the gradients `got` match `want` (tuples in WRT order), else
    a short description of the first mismatch."""
    if len(got) != len(want):
        return f"{len(got)} gradients, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        if g.shape != w.shape:
            return f"gradient {i}: shape {g.shape}, expected {w.shape}"
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL_SCALE * scale):
            err = float(np.max(np.abs(g - w)))
            return f"gradient {i}: max abs error {err:.3g} (max |entry| {scale:.3g})"
    return None


def sample(call, number):
    """Seconds per call, averaged over `number` back-to-back calls."""
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        elapsed = time.perf_counter() - start
    finally:
        if gc_was_on:
            gc.enable()
    return elapsed / number


def calibrate(contender, target=TARGET_SAMPLE):
    """Set contender.number so that one sample takes about `target` seconds."""
    number = 1
    while True:
        per_call = sample(contender.call, number)
        if per_call * number >= target / 4 or number >= 1 << 20:
            break
        number *= 4
    contender.number = max(1, round(target / per_call))
    slow = per_call > 5 * target  # a long call dilutes the disturbance itself
    contender.warmup = 0 if slow else max(1, contender.number // 2)
    return contender.number


def measure(contenders, repeats):
    """Median seconds per call of each contender, measured interleaved.

    Returns {name: median}. Each repeat samples every contender once; the
    starting position rotates by one each repeat.
    """
    times = {c.name: [] for c in contenders}
    k = len(contenders)
    for r in range(repeats):
        shift = r % k
        for c in contenders[shift:] + contenders[:shift]:
            if c.warmup:
                sample(c.call, c.warmup)
            times[c.name].append(sample(c.call, c.number))
    return {name: statistics.median(ts) for name, ts in times.items()}
