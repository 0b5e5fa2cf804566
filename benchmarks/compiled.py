"""Compiled derivatives (compile="numba") beside the interpreted ones and jax.jit.

    .venv/bin/python benchmarks/compiled.py              # the table in docs/compiled.md
    .venv/bin/python benchmarks/compiled.py --repeats 5  # quicker

The workloads of issue 16: a scalar loop with a branch (n = 1000), the
Lotka-Volterra ODE (500 and 5000 steps), a particle step loop, a recursive
tree network and an MLP (where compilation does not pay). Every gradient
is checked against the hand-written one first, then all are timed
interleaved (benchmarks/harness.py); each cell is median / median of the
hand-written NumPy gradient. Compile times are the first call's, reported
apart, as jax.jit's first call is.
"""
import harness  # noqa: I001 - first: it fixes thread counts before NumPy loads
import argparse
import os
import sys

import numpy as np

import peers
import run
from workloads import loop, mlp, ode, particle, tree

ROWS = ((loop, 1000), (ode, 500), (ode, 5000), (particle, 1000), (tree, 6), (mlp, 128))
COLUMNS = ("staged", "compiled", "hand numba", "jax.jit")


def bench(module, size, repeats, missing):
    """Cells {column: text} and compile seconds {column: s} of one row."""
    args = module.make_inputs(size, np.random.default_rng(0))
    want = module.grad_by_hand(*args)
    contenders, cells, compile_times = [peers.hand(module, args)], {}, {}
    for name in COLUMNS:
        if name in missing:
            cells[name] = "n/a"
            continue
        try:
            c = peers.BUILDERS[name](module, args)
            problem = harness.check(c.to_numpy(c.call()), want)
        except peers.Missing as exc:
            missing[name] = str(exc)
            cells[name] = "n/a"
            continue
        except peers.Unsupported as exc:
            cells[name] = f"refused: {exc}"
            continue
        if problem:
            cells[name] = f"FAIL ({problem})"
            continue
        contenders.append(c)
        if c.compile_time is not None:
            compile_times[name] = c.compile_time
    for c in contenders:
        c.call()
        harness.calibrate(c)
    times = harness.measure(contenders, repeats)
    for c in contenders[1:]:
        cells[c.name] = f"{times[c.name] / times['hand']:.3f}{c.mark}"
    cells["hand"] = f"{times['hand'] * 1e6:.1f}"
    return cells, compile_times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    opts = parser.parse_args(argv)
    print(run.describe_machine())
    missing, body, refusals = {}, [], []
    header = ["workload", "size", "hand µs", *COLUMNS, "compile s", "jit compile s"]
    for module, size in ROWS:
        print(f"{module.TITLE} {size} ...", file=sys.stderr, flush=True)
        cells, compile_times = bench(module, size, opts.repeats, missing)
        for name in COLUMNS:
            if cells[name].startswith("refused: "):
                refusals.append(f"{module.TITLE}, {name}: {cells[name][9:]}")
                cells[name] = "refused"
        body.append([module.TITLE, str(size), cells["hand"]] + [cells[c] for c in COLUMNS]
                    + [f"{compile_times[c]:.2f}" if c in compile_times else "-"
                       for c in ("compiled", "jax.jit")])
    print(f"\nper-call gradient time / hand-written NumPy gradient (median of "
          f"{opts.repeats} interleaved repeats)\n")
    print(run.format_table(header, body))
    print("\nstaged = tad.grad (interpreted, specialized to the arguments' kinds)"
          "\ncompiled = tad.grad(..., compile='numba'); compile s = its first call"
          "\nhand numba = numba.njit of the hand-written gradient"
          "\n* = jax.jit of a lax.fori_loop / lax.cond rewrite; jit compile s = its first call")
    for note in refusals + list(dict.fromkeys(missing.values())):
        print(f"note: {note}")
    print(f"note: 1-minute load average {os.getloadavg()[0]:.2f} after the run")


if __name__ == "__main__":
    main()
