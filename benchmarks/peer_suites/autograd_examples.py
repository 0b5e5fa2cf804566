"""Run autograd's example programs, unchanged, on autograd and on tangent_ad,
and compare their gradients.

    python benchmarks/peer_suites/autograd_examples.py [NAME ...] [--k 3]
           [--timeout 240] [--json FILE] [--reference-python PY] [--time 0.5]

(``scripts/peer_examples`` sets up the environments and runs this.)

The examples of autograd 1.9.1's source distribution (downloaded at run
time into ~/.cache/tangent_ad/, never committed) are run, each in its own
subprocess and twice: with the real autograd (a separate virtual
environment, ``.venv-examples-ref``, made here with autograd==1.9.1 and this
interpreter's NumPy and SciPy versions) and with ``autograd_shim/`` (a
stand-in ``autograd`` on tangent_ad's public API) first on ``sys.path``.
The source of the example is not edited. examples_runner.py records the
outputs of the first calls of every gradient function an example makes and
then stops it; matplotlib is a no-op stand-in (examples_stubs/).

Each example's outcome: match (the same gradients: same structure,
``allclose`` with rtol 1e-5, atol 1e-8, NaN where autograd has NaN), wrong
(a gradient differs: the worst outcome), missing rule (a NoDerivativeError),
refused (another TangentADError), crash (any other exception), timeout,
needs data (the example downloads its data: MNIST, which is not on this
machine; ``--synthetic-mnist`` gives them random data in MNIST's format
instead, for their gradients), or n/a (the reference run fails, or the
example uses autograd's tracing internals).

``--time S`` also times each gradient function the examples make, with
both libraries, at its k-th call (examples_runner.py: the median of about
S seconds of calls with the same arguments), and prints the ratio
tangent_ad / autograd per function: a speed comparison on programs
neither side wrote for it.
"""
import argparse
import collections
import gzip
import json
import os
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

VERSION = "1.9.1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tangent_ad" / "autograd"
REFERENCE_VENV = ROOT / ".venv-examples-ref"
OUTCOMES = ("match", "wrong", "missing rule", "refused", "crash", "timeout", "needs data", "n/a")
NOT_PROGRAMS = {"__init__.py", "data.py", "data_mnist.py"}  # modules the examples import
RTOL, ATOL = 1e-5, 1e-8


def fetch_examples():
    """The unpacked examples/ of autograd's sdist, downloaded once into CACHE."""
    examples = CACHE / f"autograd-{VERSION}" / "examples"
    if examples.is_dir():
        return examples
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / f"autograd-{VERSION}.tar.gz"
    if not archive.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"autograd=={VERSION}", "-d", str(CACHE)], check=True)
    prefix = f"autograd-{VERSION}/examples/"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        tar.extractall(CACHE, members=members, filter="data")
    return examples


def programs(examples):
    """The example programs: every .py of examples/ but the modules they
    import, and those of fluidsim/."""
    found = [p for p in sorted(examples.glob("*.py")) if p.name not in NOT_PROGRAMS]
    return found + sorted((examples / "fluidsim").glob("*.py"))


def reference_python():
    """The interpreter of a virtual environment with the real autograd, made
    once with this interpreter's NumPy and SciPy versions (so that only the
    derivatives differ between the two runs)."""
    python = REFERENCE_VENV / "bin" / "python"
    if not python.exists():
        import scipy
        print(f"creating {REFERENCE_VENV} (autograd=={VERSION})", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(REFERENCE_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"autograd=={VERSION}",
                        f"numpy=={np.__version__}", f"scipy=={scipy.__version__}"], check=True)
    return str(python)


MNIST_FILES = {"train-images-idx3-ubyte.gz": (1000, 28, 28), "train-labels-idx1-ubyte.gz": (1000,),
               "t10k-images-idx3-ubyte.gz": (200, 28, 28), "t10k-labels-idx1-ubyte.gz": (200,)}


def write_synthetic_mnist(folder):
    """MNIST's four files in its format (gzipped IDX: a big-endian header,
    then unsigned bytes) in ``folder/data``, where autograd's data_mnist.py
    looks before it downloads, holding random images and labels (fewer:
    1000 and 200). Seeded: both runs read the same."""
    rng = np.random.RandomState(1)
    (Path(folder) / "data").mkdir()
    for filename, shape in MNIST_FILES.items():
        values = rng.randint(0, 10 if len(shape) == 1 else 256, size=shape).astype(np.uint8)
        magic = 0x0801 if len(shape) == 1 else 0x0803
        header = struct.pack(">I" + "I" * len(shape), magic, *shape)
        with gzip.open(Path(folder) / "data" / filename, "wb") as handle:
            handle.write(header + values.tobytes())


def run_one(python, example, shim, k, timeout, synthetic_mnist=False, seconds=0.0):
    """Run examples_runner.py on `example`; its record, or a timeout."""
    path = [str(HERE / "examples_stubs")]
    if shim:
        path += [str(HERE / "autograd_shim"), str(ROOT)]
    with tempfile.TemporaryDirectory(prefix="peer-example-") as work:
        if synthetic_mnist:
            write_synthetic_mnist(work)
        out = Path(work) / "record.json"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), MPLBACKEND="Agg")
        command = [python, str(HERE / "examples_runner.py"), str(example), str(out), "--k", str(k),
                   "--time", str(seconds)]
        started = time.time()
        try:
            run = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True,
                                 timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "error": {"message": f"no result after {timeout} s"},
                    "records": [], "seconds": timeout}
        if not out.exists():
            tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
            return {"status": "error", "error": {"type": "runner", "message": tail, "tangent_ad": False},
                    "records": [], "seconds": round(time.time() - started, 2)}
        return json.loads(out.read_text())


# ---- comparison ----

def decoded(node):
    """An "array" node of examples_runner.encode as a NumPy array."""
    data = np.array(node["v"], dtype=np.float64)
    if np.dtype(node["dtype"]).kind == "c":
        data = data[..., 0] + 1j * data[..., 1] if data.size else data.astype(complex)
    return data.reshape(node["shape"])


def difference(ref, got, where="output"):
    """None when the encoded values `ref` and `got` agree, else why not."""
    if ref["t"] != got["t"]:
        return f"{where}: {got['t']} where autograd gives {ref['t']}"
    if ref["t"] == "dict":  # the same keys, in any order
        if sorted(ref["k"]) != sorted(got["k"]):
            return f"{where}: keys {sorted(got['k'])} where autograd's are {sorted(ref['k'])}"
        mine = dict(zip(got["k"], got["v"]))
        for key, r in zip(ref["k"], ref["v"]):
            reason = difference(r, mine[key], f"{where}[{key}]")
            if reason:
                return reason
        return None
    if ref["t"] in ("tuple", "list"):
        if len(ref["v"]) != len(got["v"]):
            return f"{where}: {ref['t']} of {len(got['v'])} where autograd's has {len(ref['v'])}"
        for i, (r, g) in enumerate(zip(ref["v"], got["v"])):
            reason = difference(r, g, f"{where}[{i}]")
            if reason:
                return reason
        return None
    if ref["t"] != "array":
        return None if ref == got else f"{where}: {got.get('v')!r} where autograd gives {ref.get('v')!r}"
    a, b = decoded(ref), decoded(got)
    if a.shape != b.shape:
        return f"{where}: shape {b.shape} where autograd's is {a.shape}"
    if np.iscomplexobj(a) != np.iscomplexobj(b):
        return f"{where}: {'complex' if np.iscomplexobj(b) else 'real'} where autograd's is not"
    if np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
        return None
    bad = ~np.isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
    worst = np.unravel_index(np.argmax(np.where(bad, np.abs(a - b), -1)), a.shape) if a.ndim else ()
    return (f"{where}: {int(bad.sum())} of {a.size} values differ, e.g. at {tuple(map(int, worst))} "
            f"{b[worst].item()!r} where autograd gives {a[worst].item()!r}")


# what the shim does not have because a source transformer has no counterpart
# (autograd's tracer, Boxes and VSpaces: the messages of the shim's stand-ins)
INTERNALS = ("from 'autograd.tracer'", "from 'autograd.extend'", "autograd.extend.defvjp",
             "autograd vspaces", "autograd.misc.const_graph", "No module named 'autograd.util'")


def compare(ref, got):
    """(outcome, reason) of one example from its two records."""
    if ref["status"] == "needs data":
        return "needs data", ref["error"]["message"]
    if ref["status"] in ("error", "timeout"):
        return "n/a", f"the reference run fails: {first_line(ref['error'])}"
    for r, g in zip(ref["records"], got["records"]):
        if r["key"] != g["key"] or r["call"] != g["call"]:
            return "wrong", f"call {g['call']} of {g['key']} where autograd's run makes {r['key']}"
        reason = difference(r["value"], g["value"])
        if reason:
            return "wrong", f"{r['key']} call {r['call']}: {reason}"
    if got["status"] == "timeout":
        return "timeout", first_line(got["error"])
    if got["status"] == "error":
        error = got["error"]
        if error.get("no_derivative"):
            return "missing rule", first_line(error)
        if error.get("tangent_ad"):
            return "refused", first_line(error)
        if any(name in error.get("message", "") for name in INTERNALS):
            return "n/a", f"autograd internals: {first_line(error)}"
        return "crash", first_line(error)
    if len(got["records"]) != len(ref["records"]):
        return "wrong", (f"{len(got['records'])} gradient calls where autograd's run makes "
                         f"{len(ref['records'])}")
    if not ref["records"]:
        return "n/a", "the example computes no gradient"
    return "match", f"{len(ref['records'])} gradient calls"


def first_line(error):
    message = (error or {}).get("message", "").strip().splitlines() or [""]
    kind = (error or {}).get("type")
    return f"{kind}: {message[0]}" if kind and kind not in ("runner",) else message[0]


def table(rows):
    """The table of outcomes and the closing line."""
    width = max(len(r[0]) for r in rows) + 2
    lines = [f"{'example':<{width}}{'outcome':<14}reason"]
    for name, outcome, reason in rows:
        shown = reason if outcome != "match" or reason.startswith("(synthetic") else ""
        lines.append(f"{name:<{width}}{outcome:<14}{shown}".rstrip())
    counts = collections.Counter(r[1] for r in rows)
    rest = ", ".join(f"{counts[o]} {o}" for o in OUTCOMES[1:] if counts[o])
    lines.append(f"autograd {VERSION} examples on tangent_ad: {len(rows)} programs, {counts['match']} give "
                 f"autograd's gradients" + (f", {rest}" if rest else ""))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="examples to run, e.g. rnn fluidsim/wing (default: all)")
    parser.add_argument("--k", type=int, default=3, help="calls recorded per gradient function")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per run")
    parser.add_argument("--json", help="write both records of every example to this file")
    parser.add_argument("--reference-python", help="an interpreter with the real autograd")
    parser.add_argument("--synthetic-mnist", action="store_true",
                        help="give the examples that download MNIST random data in its format")
    parser.add_argument("--time", type=float, default=0.0,
                        help="seconds of calls timed per gradient function, in each library")
    options = parser.parse_args(argv)
    examples = fetch_examples()
    python = options.reference_python or reference_python()
    chosen = programs(examples)
    if options.names:
        wanted = {n.removesuffix(".py") for n in options.names}
        chosen = [p for p in chosen if str(p.relative_to(examples).with_suffix("")) in wanted
                  or p.stem in wanted]
    rows, dump, speeds = [], {}, []
    for example in chosen:
        name = str(example.relative_to(examples).with_suffix(""))
        ref = run_one(python, example, False, options.k, options.timeout, options.synthetic_mnist,
                      options.time)
        got = run_one(sys.executable, example, True, options.k, options.timeout,
                      options.synthetic_mnist, options.time)
        speeds += speed_rows(name, ref, got)
        outcome, reason = compare(ref, got)
        text = example.read_text()
        if options.synthetic_mnist and ("load_mnist" in text or "data_mnist" in text):
            reason = f"(synthetic MNIST) {reason}"
        rows.append((name, outcome, reason))
        dump[name] = {"outcome": outcome, "reason": reason, "autograd": ref, "tangent_ad": got}
        print(f"{name}: {outcome} ({ref['seconds']} s / {got['seconds']} s)", file=sys.stderr, flush=True)
    if options.json:
        Path(options.json).write_text(json.dumps(dump, indent=1))
    print(table(rows))
    if options.time:
        print(speed_table(speeds))
    return 0


def speed_rows(name, ref, got):
    """(example, gradient function, autograd's seconds per call, tangent_ad's)
    for each function both runs timed."""
    theirs = {t["key"]: t["seconds_per_call"] for t in ref.get("timings", ())}
    return [(name, t["key"], theirs[t["key"]], t["seconds_per_call"])
            for t in got.get("timings", ()) if t["key"] in theirs]


def speed_table(speeds):
    """The per-call times as a Markdown table, with their ratio."""
    lines = ["| example | gradient | autograd | tangent_ad | tangent_ad / autograd |",
             "|---|---|---|---|---|"]
    for name, key, theirs, ours in speeds:
        lines.append(f"| {name} | {key} | {_seconds(theirs)} | {_seconds(ours)} | "
                     f"{ours / theirs:.2f} |")
    return "\n".join(lines)


def _seconds(value):
    return f"{value * 1e6:.0f} µs" if value < 1e-2 else f"{value * 1e3:.1f} ms"


if __name__ == "__main__":
    sys.exit(main())
