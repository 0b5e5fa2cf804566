"""How long tangent_ad takes to transform a function (issue 8, item 2).

    .venv/bin/python benchmarks/transform_time.py            # the numbers
    .venv/bin/python benchmarks/transform_time.py --profile  # plus cProfile's top 25
    .venv/bin/python benchmarks/transform_time.py --long     # the 200-line function too

Three numbers, each the median of several runs:

* *cached*: ``tad.grad(f, wrt=...)`` again, for a function already
  transformed with the same options: a cache lookup (target < 50 µs);
* *first*: the first transformation of ``model``, a 50-line function
  (below), after another function has loaded the rule tables (target
  < 50 ms). Each run transforms a fresh copy of ``model`` (same code,
  new function object), so the cache never answers;
* *cold*: the same in a fresh interpreter, rule tables and imports included.

The staging of ``staging/dispatch.py`` (a copy of the derivative for the
kinds of the arguments, written at the second call with those kinds) is
timed too, on the same function. ``--long`` adds the same two numbers
(first transformation, staging) for ``long_function.long_model``, a
199-line function with loops, branches and calls (issue 15: under
300 ms), and for its first half and first quarter of blocks, to show
how the time grows with the length.
"""
import argparse
import cProfile
import inspect
import pstats
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import long_function  # noqa: E402
import tangent_ad as tad  # noqa: E402
from tangent_ad.staging import dispatch as staging  # noqa: E402

WRT = (0, 1, 2, 3, 4)


def model(W1, b1, W2, b2, scale, x, y, steps):
    """A 50-line function: two layers, a recurrence, a branch, a loss."""
    h = x @ W1 + b1
    h = np.tanh(h)
    g = h @ W2 + b2
    g = np.maximum(g, 0.0)
    s = np.sum(g * g)
    if s > 1.0:
        g = g / np.sqrt(s)
    else:
        g = g * 1.5
    state = g
    for i in range(steps):
        pre = state @ W2 + b2
        act = np.tanh(pre)
        gate = 1.0 / (1.0 + np.exp(-pre))
        state = gate * act + (1.0 - gate) * state
        state = state * scale
    z = state - y
    sq = z * z
    mse = np.mean(sq)
    l1 = np.sum(np.abs(W1))
    l2 = np.sum(W2 * W2)
    reg = 0.01 * l1 + 0.001 * l2
    bias = np.sum(b1 ** 2) + np.sum(b2 ** 2)
    norm = np.sqrt(np.sum(state ** 2) + 1e-8)
    soft = np.exp(state - np.max(state))
    soft = soft / np.sum(soft)
    ent = -np.sum(soft * np.log(soft + 1e-12))
    a = mse + reg
    a = a + 0.1 * bias
    a = a + 0.01 * norm
    a = a + 0.001 * ent
    half = bias * 0.5
    a = a + 0.05 * half
    a = a - 0.01 * np.tanh(half)
    c = np.cos(scale) * 0.5
    d = np.sin(scale) ** 2
    e = c + d
    f = e * a
    k = f / (1.0 + scale * scale)
    m = np.log1p(k * k)
    n = m + k
    p = n * 0.5
    q = p + a
    r = q - 0.25 * m
    t = r * 2.0
    u = t / 2.0
    v = u + 0.0
    w = v * 1.0
    loss = w + e * 0.0
    return loss


def warm_up(x):
    return np.sum(np.sin(x))


def inputs(rng):
    return (rng.normal(0, 0.3, (8, 8)), rng.normal(0, 0.1, 8), rng.normal(0, 0.3, (8, 8)),
            rng.normal(0, 0.1, 8), 0.9, rng.normal(size=(4, 8)), rng.normal(size=(4, 8)), 3)


def fresh_copy(func):
    """A new function object with `func`'s code: the cache has never seen it."""
    return types.FunctionType(func.__code__, func.__globals__, func.__name__,
                              func.__defaults__, func.__closure__)


def median_time(action, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cold_time():
    """Seconds for the first transformation in a fresh interpreter."""
    code = ("import time, sys; sys.path.insert(0, %r); import transform_time as t; "
            "start = time.perf_counter(); t.tad.grad(t.model, wrt=t.WRT); "
            "print(time.perf_counter() - start)") % str(HERE)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip())


def staging_time(rng):
    """Seconds of the call that writes the specialized copy, minus a plain call."""
    args = inputs(rng)
    df = staging.staged(tad.grad(fresh_copy(model), wrt=WRT))
    df(*args)
    start = time.perf_counter()
    df(*args)
    staged = time.perf_counter() - start
    return staged - median_time(lambda: df(*args), 20)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="store_true",
                        help="also print cProfile's top functions of a first transformation")
    parser.add_argument("--long", action="store_true",
                        help="also time the 200-line function of long_function.py")
    opts = parser.parse_args(argv)
    lines = len(inspect.getsource(model).splitlines())
    tad.grad(warm_up)  # load the rule tables first
    df = tad.grad(model, wrt=WRT)
    cached = median_time(lambda: tad.grad(model, wrt=WRT), 2000)
    first = median_time(lambda: tad.grad(fresh_copy(model), wrt=WRT), 15)
    assert tad.grad(model, wrt=WRT) is df
    cold = statistics.median(cold_time() for _ in range(3))
    stage = statistics.median(staging_time(np.random.default_rng(i)) for i in range(5))
    print(f"function: model, {lines} lines with its def and docstring, "
          f"gradient w.r.t. {len(WRT)} arguments")
    print(f"cached transformation (same function, same options): {cached * 1e6:8.1f} µs "
          f"(target < 50 µs)")
    print(f"first transformation (rule tables loaded):           {first * 1e3:8.1f} ms "
          f"(target < 50 ms)")
    print(f"first transformation in a fresh interpreter:         {cold * 1e3:8.1f} ms")
    print(f"staging (the copy for the arguments' kinds):         {stage * 1e3:8.1f} ms")
    print("\nwhere the first transformation goes (cProfile, scaled to the time above):")
    stats = profile_one()
    for label, share in stage_shares(stats):
        print(f"  {label:34s} {share * first * 1e3:6.1f} ms")
    if opts.profile:
        stats.sort_stats("cumulative").print_stats(25)
    if opts.long:
        print("\nthe long function, and its first blocks alone (first transformation, staging):")
        for blocks in (3, 6, 12):
            func = long_function.with_blocks(blocks)
            lines = len(inspect.getsource(func).splitlines())
            first = median_time(lambda: tad.grad(fresh_copy(func), wrt=WRT), 5)
            stage = statistics.median(
                _staging_of(func, np.random.default_rng(i)) for i in range(3))
            print(f"  {blocks:2d} blocks, {lines:3d} lines: first {first * 1e3:8.1f} ms, "
                  f"staging {stage * 1e3:8.1f} ms")


def _staging_of(func, rng):
    args = long_function.inputs(rng)
    df = tad.grad(fresh_copy(func), wrt=WRT)
    df(*args)
    start = time.perf_counter()
    df(*args)
    return time.perf_counter() - start


STAGES = [("frontend (parse ... activity)", "frontend/source.py", "parse_function"),
          ("frontend (parse ... activity)", "frontend/validate.py", "run"),
          ("frontend (parse ... activity)", "frontend/resolve.py", "run"),
          ("frontend (parse ... activity)", "frontend/normalize.py", "run"),
          ("frontend (parse ... activity)", "frontend/exits.py", "run"),
          ("frontend (parse ... activity)", "analysis/activity.py", "run"),
          ("reverse", "ad/reverse.py", "run"),
          ("optimize", "optimize/fixed_point.py", "run"),
          ("  simplify", "optimize/simplify.py", "run"),
          ("  propagate", "optimize/propagate.py", "run"),
          ("  dce", "optimize/dce.py", "run"),
          ("emit", "tangent_ad/emit.py", "run"),
          ("load", "tangent_ad/loader.py", "run")]


def profile_one():
    profile = cProfile.Profile()
    profile.enable()
    tad.grad(fresh_copy(model), wrt=WRT)
    profile.disable()
    return pstats.Stats(profile)


def stage_shares(stats):
    """[(stage, share of the profiled transformation)], from the cumulative
    time of each stage's entry point."""
    total = max(ct for (_, _, func), (_, _, _, ct, _) in stats.stats.items()
                if func == "grad")
    shares = {}
    for label, path, func in STAGES:
        for (filename, _, name), (_, _, _, ct, _) in stats.stats.items():
            if filename.endswith(path) and name == func:
                shares[label] = shares.get(label, 0.0) + ct / total
    return list(shares.items())


if __name__ == "__main__":
    main()
