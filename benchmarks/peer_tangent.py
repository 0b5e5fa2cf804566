"""Measure the PyPI ``tangent-ad`` package (it imports as ``tangent``).

That package must not share a virtual environment with this project (its
``gast`` pin may conflict with ours), so run.py starts this script with the
interpreter of a separate environment (default ``.venv-peers-tangent``):

    python -m venv .venv-peers-tangent
    .venv-peers-tangent/bin/pip install tangent-ad==0.4.0 numpy==<this project's>

Input: one JSON argument {"rows": [[workload, size], ...], "repeats": R}.
Output: one JSON object on stdout: {"version": ..., "numpy": ..., "rows":
[{"cell": text, "ratio": float or null}, ...]} in the order of the rows.
The ratio is to the hand-written gradient timed interleaved in *this*
process, with the same harness and the same inputs as run.py.
"""
import harness  # noqa: I001 - first: it fixes thread counts before NumPy loads
import json
import os
import sys

import numpy as np

from peers import first_line
from workloads import EVERY_BY_NAME

os.environ.setdefault("TANGENT_DISK_CACHE", "0")  # no cache files in ~/.cache


def bench(tangent, module, size, repeats):
    args = module.make_inputs(size, np.random.default_rng(0))
    want = module.grad_by_hand(*args)
    try:
        df = tangent.grad(module.loss, wrt=module.WRT)
    except Exception as exc:  # noqa: BLE001 - any refusal is reported
        return {"cell": f"unsupported: {first_line(exc)}", "ratio": None}
    peer = harness.Contender("tangent", lambda: df(*args))
    try:
        problem = harness.check(peer.to_numpy(peer.call()), want)
    except Exception as exc:  # noqa: BLE001
        return {"cell": f"error: {type(exc).__name__}: {first_line(exc)}", "ratio": None}
    if problem:
        return {"cell": f"FAIL ({problem})", "ratio": None}
    hand = harness.Contender("hand", lambda: module.grad_by_hand(*args))
    for c in (hand, peer):
        harness.calibrate(c)
    times = harness.measure([hand, peer], repeats)
    ratio = times["tangent"] / times["hand"]
    return {"cell": f"{ratio:.2f}", "ratio": ratio}


def main():
    spec = json.loads(sys.argv[1])
    import tangent
    import importlib.metadata as md
    rows = []
    for name, size in spec["rows"]:
        size = tuple(size) if isinstance(size, list) else size
        rows.append(bench(tangent, EVERY_BY_NAME[name], size, spec["repeats"]))
    print(json.dumps({"version": md.version("tangent-ad"), "numpy": np.__version__,
                      "rows": rows}))


if __name__ == "__main__":
    main()
