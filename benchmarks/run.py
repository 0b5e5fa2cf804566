"""Gradient time of tangent_ad and its peers, as ratios to hand-written NumPy.

    .venv/bin/python benchmarks/run.py            # full run (docs/performance.md)
    .venv/bin/python benchmarks/run.py --quick    # fewer repeats and sizes

For each workload (benchmarks/workloads/) and size, every library's gradient
is first checked against the hand-written one (harness.check); a mismatch is
printed as FAIL instead of a time. The libraries that pass are then timed
interleaved in this process (harness.measure: median over repeats, order
rotated each repeat) and each cell shows median(library) / median(hand).
Peers that are not installed are skipped with a note. The PyPI tangent-ad
package runs in its own virtual environment (peer_tangent.py), so its ratio
is to the hand-written gradient timed in that subprocess.
"""
import harness  # noqa: I001 - first: it fixes thread counts before NumPy loads
import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

import peers
import workloads

HERE = Path(__file__).resolve().parent
TANGENT_PYTHON = Path(os.environ.get(
    "TANGENT_PEER_PYTHON", HERE.parent / ".venv-peers-tangent" / "bin" / "python"))
COLUMNS = ("tangent_ad", "staged", "autograd", "torch", "jax", "jax.jit", "tangent (PyPI)")


def bench_row(module, size, columns, repeats, missing):
    """Check and time one workload instance.

    Returns (cells, ratios, compile_time): the table cells {column: text},
    the measured ratios {column: float} and jax.jit's first-call time (or
    None). `missing` maps a column to the note about its absent library;
    columns found missing here are added to it. The "staged" column's
    staging time goes in cells["stage ms"].
    """
    args = module.make_inputs(size, np.random.default_rng(0))
    want = module.grad_by_hand(*args)
    hand = peers.hand(module, args)
    contenders, cells = [hand], {}
    for name in columns:
        if name in missing:
            cells[name] = "n/a"
            continue
        try:
            c = peers.BUILDERS[name](module, args)
            problem = harness.check(c.to_numpy(c.call()), want)
        except peers.Missing as exc:
            missing[name] = str(exc)
            cells[name] = "n/a"
        except peers.Unsupported as exc:
            cells[name] = f"unsupported: {exc}"
        except Exception as exc:  # noqa: BLE001 - a peer's crash is a result too
            cells[name] = f"error: {type(exc).__name__}: {peers.first_line(exc)}"
        else:
            if problem:
                cells[name] = f"FAIL ({problem})"
            else:
                contenders.append(c)
    for c in contenders:
        c.call()  # a second call: a first call may differ (staging, caches)
        harness.calibrate(c)
    times = harness.measure(contenders, repeats)
    compile_time, ratios = None, {}
    for c in contenders[1:]:
        ratios[c.name] = times[c.name] / times["hand"]
        cells[c.name] = f"{ratios[c.name]:.2f}{c.mark}"
        compile_time = c.compile_time or compile_time
    cells["hand"] = f"{times['hand'] * 1e6:.1f}"
    stage = [getattr(c, "stage_time", None) for c in contenders if c.name == "staged"]
    cells["stage ms"] = f"{stage[0] * 1e3:.0f}" if stage else "-"
    return cells, ratios, compile_time


def size_label(size):
    return "x".join(map(str, size)) if isinstance(size, tuple) else str(size)


def tangent_pypi(rows, repeats, notes):
    """Cells of the PyPI tangent-ad column, from the subprocess; None if absent."""
    if not TANGENT_PYTHON.exists():
        notes.append(f"tangent (PyPI): skipped, no interpreter at {TANGENT_PYTHON} "
                     "(see benchmarks/peer_tangent.py to set one up)")
        return None
    spec = json.dumps({"rows": [[m.__name__.rsplit(".", 1)[-1], s] for m, s in rows],
                       "repeats": repeats})
    print("tangent (PyPI): measuring in a subprocess ...", file=sys.stderr, flush=True)
    proc = subprocess.run([str(TANGENT_PYTHON), str(HERE / "peer_tangent.py"), spec],
                          capture_output=True, text=True, cwd=HERE)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        notes.append(f"tangent (PyPI): skipped, the subprocess failed: {err}")
        return None
    result = json.loads(lines[-1])
    notes.append(f"tangent (PyPI): tangent-ad {result['version']} with numpy "
                 f"{result['numpy']}, in {TANGENT_PYTHON.parent.parent.name}; "
                 "ratios to the hand-written gradient timed in that subprocess")
    return [r["cell"] for r in result["rows"]]


def format_table(header, body):
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    line = lambda row: "  ".join(  # noqa: E731
        (cell.ljust(w) if i < 2 else cell.rjust(w)) for i, (cell, w) in
        enumerate(zip(row, widths)))
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule] + [line(row) for row in body])


def describe_machine():
    model = platform.processor() or "unknown CPU"
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                model = text.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    found = peers.versions()
    libs = ", ".join(f"{k} {v}" for k, v in found.items())
    return (f"machine: {model}, {os.cpu_count()} cores; Python {platform.python_version()}; "
            f"{harness.THREADS} thread(s) per library (BENCH_THREADS)"
            f"\nversions: {libs}\ntangent_ad: {source_state()}")


def source_state():
    """The commit of this checkout, and whether tangent_ad's code differs."""
    def git(*args):
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=HERE.parent).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "tangent_ad", "templates")
    except OSError:
        return "not a git checkout"
    if not commit:
        return "not a git checkout"
    return f"commit {commit}" + (" with uncommitted changes" if dirty else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 repeats and fewer sizes")
    parser.add_argument("--repeats", type=int, help="repeats per row "
                        "(default 15, or 3 with --quick)")
    parser.add_argument("--only", nargs="+", choices=sorted(workloads.EVERY_BY_NAME),
                        help="run these workloads only")
    opts = parser.parse_args(argv)
    repeats = opts.repeats or (3 if opts.quick else 15)
    chosen = ([workloads.EVERY_BY_NAME[n] for n in opts.only] if opts.only
              else workloads.EVERY)
    rows = [(m, s) for m in chosen for s in (m.QUICK_SIZES if opts.quick else m.SIZES)]

    print(describe_machine())
    load_before = os.getloadavg()[0]
    notes, missing = [], {}
    pypi_cells = tangent_pypi(rows, repeats, notes)
    header = ["workload", "size", "hand µs", *COLUMNS, "jit compile s", "stage ms"]
    body = []
    for module, size in rows:
        print(f"{module.TITLE} {size_label(size)} ...", file=sys.stderr, flush=True)
        cells, _, compile_time = bench_row(module, size, COLUMNS[:-1], repeats, missing)
        cells["tangent (PyPI)"] = pypi_cells[len(body)] if pypi_cells else "n/a"
        body.append([module.TITLE, size_label(size), cells["hand"]]
                    + [cells[c] for c in COLUMNS]
                    + [f"{compile_time:.2f}" if compile_time else "-", cells["stage ms"]])
    notes.extend(dict.fromkeys(missing.values()))  # jax and jax.jit share one note
    torch_version = peers.versions().get("torch", peers.TORCH_PIN)
    if not torch_version.startswith(peers.TORCH_PIN):
        notes.append(f"torch {torch_version} measured; the documented numbers pin "
                     f"torch=={peers.TORCH_PIN}")
    print(f"\nper-call gradient time / hand-written NumPy gradient "
          f"(median of {repeats} interleaved repeats; ~{harness.TARGET_SAMPLE * 1e3:.0f} ms "
          "per sample)\n")
    print(format_table(header, body))
    print("\n* = jax.jit of a lax.fori_loop / lax.cond rewrite of the loop"
          "\nFAIL = gradient differs from the hand-written one "
          f"(np.allclose, rtol={harness.RTOL:g}, atol={harness.ATOL_SCALE:g} x max|entry|)"
          "\njit compile s = first call of jax.jit(jax.grad(...)): trace + compile + run"
          "\nstaged = tangent_ad's gradient behind tangent_ad.staging.staged "
          "(a copy specialized for the arguments' kinds; docs/performance.md)"
          "\nstage ms = the first two calls of the staged gradient, which write that copy")
    notes.append(f"1-minute load average {load_before:.2f} before the run, "
                 f"{os.getloadavg()[0]:.2f} after (other processes on the machine "
                 "distort the times)")
    for note in notes:
        print(f"note: {note}")


if __name__ == "__main__":
    main()
