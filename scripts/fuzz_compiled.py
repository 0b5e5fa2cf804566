"""Random programs (tests/fuzz_programs.py) through compile="numba".

    .venv/bin/python scripts/fuzz_compiled.py [-n 500] [--start 96000]

Each program's gradient with compile="numba" must either match the
interpreted gradient (rtol 1e-9, on two calls: the compiling one and a
guarded one) or be refused with a CompileError; anything else, a wrong
number or another exception, is a finding, printed with its seed. The
table counts each outcome and the most common refusals (what the Numba
form does not take yet).
"""
import argparse
import collections
import os
import sys
import traceback
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import fuzz_oracle as fo  # noqa: E402
import fuzz_programs as fp  # noqa: E402
import tangent_ad as tad  # noqa: E402
from tangent_ad import testing  # noqa: E402


def judge(seed):
    """('match' | 'refused' | 'skipped' | 'wrong' | 'crash', detail)."""
    prog = fp.generate(seed)
    try:
        f = fo.load(prog.source()).f
        args = fo.make_args(prog, np.random.default_rng(seed))
        wrt = tuple(range(len(args)))
        want = tad.grad(f, wrt=wrt)(*args)
        with np.errstate(all="ignore"):
            value = np.asarray(f(*args), dtype=complex)
        if not np.all(np.isfinite(value)):
            return "skipped", "not finite"
    except Exception as exc:  # noqa: BLE001 - the interpreted one's verdict is fuzz_run's
        return "skipped", type(exc).__name__
    try:
        g = tad.grad(f, wrt=wrt, compile="numba")
        results = [g(*args), g(*args)]
    except tad.CompileError as exc:
        return "refused", str(exc).split("numba: ", 1)[-1].splitlines()[0][:80]
    except Exception as exc:  # noqa: BLE001 - a finding
        return "crash", "".join(traceback.format_exception(exc))[-800:]
    for got in results:
        for (_, a), (_, b) in zip(testing._leaves(got), testing._leaves(want)):
            if not np.allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-9):
                return "wrong", f"{a!r} != {b!r}"[:300]
    return "match", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--start", type=int, default=96000)
    opts = parser.parse_args()
    warnings.simplefilter("ignore")
    tally, reasons, findings = collections.Counter(), collections.Counter(), []
    for seed in range(opts.start, opts.start + opts.n):
        verdict, detail = judge(seed)
        tally[verdict] += 1
        if verdict == "refused":
            reasons[detail] += 1
        elif verdict in ("wrong", "crash"):
            findings.append((seed, verdict, detail))
    print(f"programs {opts.start}..{opts.start + opts.n - 1}: " +
          ", ".join(f"{k} {tally[k]}" for k in ("match", "refused", "wrong", "crash",
                                                  "skipped")))
    print("most common refusals:")
    for reason, count in reasons.most_common(12):
        print(f"  {count:5d}  {reason}")
    for seed, verdict, detail in findings:
        print(f"\n{verdict.upper()} seed {seed}:\n{detail}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
