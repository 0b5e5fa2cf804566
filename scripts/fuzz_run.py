"""Run many random programs through tangent_ad and tabulate the verdicts.

    scripts/fuzz [-n 10000] [--start 0] [-j 2] [--timeout 30] [--out DIR]
    scripts/fuzz --repro SEED        # run one program and print everything

Each program (tests/fuzz_programs.py) is judged by tests/fuzz_oracle.py in
a worker process, one program at a time, under a per-program budget of CPU
time; a worker that does not answer within five times that in wall time
(stuck in C code, or starved) is killed, the program counted as a hang, and a new worker started. At the end
it prints a table (ran, passed, refused by error class, wrong, dtype-wrong,
internal error, crash, hang, invalid) and the failures grouped by signature;
with --out it writes results.jsonl, summary.txt and, for each failure
signature, the smallest failing program after dropping statements that do
not matter (minimized in the workers too).
"""
import argparse
import collections
import json
import multiprocessing as mp
import os
import sys
import time
from multiprocessing.connection import wait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import fuzz_oracle as fo  # noqa: E402
import fuzz_programs as fp  # noqa: E402


def as_dict(seed, res, seconds):
    return {"seed": seed, "kind": res.kind, "check": res.check, "error": res.error,
            "detail": res.detail[:2000], "signature": res.signature(),
            "features": res.features, "refusals": [list(r) for r in res.refusals],
            "source_len": len(res.source or ""), "seconds": round(seconds, 3)}


def worker(conn, checks, timeout):
    """checks: a list of check names, or a level for fuzz_oracle.schedule."""
    level = checks
    while True:
        msg = conn.recv()
        if msg is None:
            return
        what, seed = msg
        t0 = time.time()
        prog = fp.generate(seed)
        if isinstance(level, str):
            checks = fo.schedule(seed, level)
        if what == "run":
            res = fo.run_program(prog, checks, timeout=timeout)
            conn.send((seed, as_dict(seed, res, time.time() - t0)))
        elif what == "known":
            # the default test's program: judge it, minimize a failure a little
            prog = fp.generate(seed, fo.QUICK_STATEMENTS)
            checks = fo.schedule(seed, "quick")
            res = fo.run_program(prog, checks, timeout=5)
            out = as_dict(seed, res, 0)
            if res.kind in fo.FAILURES:
                keep, best = fo.minimize(prog, res, checks, timeout=5, budget=15)
                out["min_features"] = best.features
                out["reason"] = fo.tracked_reason(res.kind, res.check, best.features)
                out["source"] = best.source
            conn.send((seed, out))
        else:
            res = fo.run_program(prog, checks, timeout=timeout)
            if res.kind in fo.FAILURES:
                keep, best = fo.minimize(prog, res, checks, timeout=min(timeout, 10))
            else:
                best = res
            out = as_dict(seed, best, time.time() - t0)
            out["source"] = best.source
            out["original"] = res.signature()
            conn.send((seed, out))


class Pool:
    """Workers fed one task at a time over pipes, with a watchdog."""

    def __init__(self, jobs, checks, timeout):
        self.ctx = mp.get_context("fork")
        self.checks, self.timeout = checks, timeout
        self.workers = [self.spawn() for _ in range(jobs)]

    def spawn(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=worker, args=(child, self.checks, self.timeout),
                             daemon=True)
        p.start()
        return {"proc": p, "conn": parent, "task": None, "since": None}

    def map(self, tasks, deadline, on_result):
        tasks = list(tasks)
        pending = collections.deque(tasks)
        while pending or any(w["task"] for w in self.workers):
            for w in self.workers:
                if w["task"] is None and pending:
                    w["task"] = pending.popleft()
                    w["since"] = time.time()
                    w["conn"].send(w["task"])
            busy = [w["conn"] for w in self.workers if w["task"]]
            for conn in wait(busy, timeout=1.0):
                w = next(x for x in self.workers if x["conn"] is conn)
                try:
                    seed, out = conn.recv()
                except EOFError:
                    out = None
                task = w["task"]
                w["task"] = None
                if out is None:
                    self.replace(w)
                    on_result(task, {"seed": task[1], "kind": "crash", "check": None,
                                     "error": "WorkerDied", "detail": "worker died",
                                     "signature": "crash/None/WorkerDied: worker died",
                                     "features": [], "refusals": [], "source_len": 0})
                else:
                    on_result(task, out)
            now = time.time()
            for w in self.workers:
                if w["task"] and now - w["since"] > deadline(w["task"]):
                    task = w["task"]
                    self.replace(w)
                    on_result(task, {"seed": task[1], "kind": "hang", "check": None,
                                     "error": None, "detail": "killed by the watchdog",
                                     "signature": "hang/None/: killed by the watchdog",
                                     "features": [], "refusals": [], "source_len": 0})

    def replace(self, w):
        w["proc"].kill()
        w["proc"].join()
        fresh = self.spawn()
        w.update(fresh)

    def close(self):
        for w in self.workers:
            try:
                w["conn"].send(None)
            except (BrokenPipeError, OSError):
                pass
        for w in self.workers:
            w["proc"].join(5)
            if w["proc"].is_alive():
                w["proc"].kill()


def table(results, seconds):
    kinds = collections.Counter(r["kind"] for r in results)
    lines = ["ran %d programs in %.0f s" % (len(results), seconds), ""]
    lines.append("| outcome | programs |")
    lines.append("|---|---|")
    for k in fo.KINDS:
        lines.append("| %s | %d |" % (k, kinds.get(k, 0)))
    refused = collections.Counter((r["check"], r["error"]) for r in results
                                  if r["kind"] == "refused")
    if refused:
        lines += ["", "refused, by check and error class:", ""]
        for (check, err), n in refused.most_common():
            lines.append("    %5d  %s  %s" % (n, check, err))
        why = collections.Counter(r["signature"] for r in results if r["kind"] == "refused")
        lines += ["", "refusals, by message:", ""]
        for sig, n in why.most_common(15):
            lines.append("    %5d  %s" % (n, sig))
    fails = collections.Counter(r["signature"] for r in results if r["kind"] in fo.FAILURES)
    if fails:
        lines += ["", "failures, by signature:", ""]
        for sig, n in fails.most_common():
            lines.append("    %5d  %s" % (n, sig))
    invalid = [r for r in results if r["kind"] == "invalid"]
    if invalid:
        lines += ["", "invalid programs (a generator bug): seeds %s: %s" % (
            [r["seed"] for r in invalid[:10]], invalid[0]["detail"][:200])]
    feats = collections.Counter(f for r in results for f in r["features"])
    bad = collections.Counter(f for r in results if r["kind"] in fo.FAILURES
                              for f in r["features"])
    lines += ["", "features (programs with it: failing/all): " + ", ".join(
        "%s %d/%d" % (f, bad.get(f, 0), n) for f, n in sorted(feats.items()))]
    return "\n".join(lines)


def write_repros(out, reps, counts):
    """One file per minimized failure, and causes.txt: the minimized
    failures grouped by original signature and by the features they kept."""
    reps.sort(key=lambda r: (-counts[r["original"]], r["original"], len(r.get("source") or "")))
    groups = collections.defaultdict(list)
    for i, r in enumerate(reps):
        kind, check = r["original"].split("/")[:2]
        name = "%03d-%s-%s.py" % (i, kind, check)
        r["file"] = name
        groups[(r["original"], r["kind"], tuple(r["features"]))].append(r)
        with open(os.path.join(out, name), "w") as fh:
            fh.write("# fuzz repro: %s\n" % r["original"])
            fh.write("# programs with this signature: %d; seed %d (python scripts/fuzz_run.py "
                     "--repro %d)\n" % (counts[r["original"]], r["seed"], r["seed"]))
            fh.write("# minimized to: %s\n" % r["signature"])
            fh.write("# features of the kept statements: %s\n" % ", ".join(r["features"]))
            fh.write("# check that failed: %s\n" % r["check"])
            for line in r["detail"].splitlines()[:12]:
                fh.write("#   %s\n" % line)
            args = fp.generate(r["seed"]).args
            fh.write("# arguments: %s\n\n" % args)
            fh.write(r.get("source") or "")
    with open(os.path.join(out, "causes.txt"), "w") as fh:
        for (sig, kind, feats), rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            fh.write("%3d x %s  ->  %s  [%s]: %s\n" % (
                len(rs), sig, kind, ", ".join(feats), " ".join(r["file"] for r in rs)))


def minimize_all(pool, results, a, checks):
    """Minimize the smallest failures of each signature (up to
    --per-signature of them, or 1 for a rare signature) and write repros."""
    counts = collections.Counter(r["signature"] for r in results)
    chosen = collections.defaultdict(list)
    for r in sorted(results, key=lambda r: r.get("source_len", 0)):
        if r["kind"] not in fo.FAILURES or r["detail"].startswith("killed"):
            continue
        s = r["signature"]
        limit = a.per_signature if counts[s] >= 10 else 1
        if len(chosen[s]) < limit:
            chosen[s].append(r)
    reps = []
    seed_sig = {r["seed"]: s for s, rs in chosen.items() for r in rs}

    def on_min(task, out):
        out["original"] = seed_sig[task[1]]
        reps.append(out)

    pool.map([("min", r["seed"]) for rs in chosen.values() for r in rs],
             lambda task: 5 * (40 * min(a.timeout, 10) + a.timeout) + 60, on_min)
    write_repros(a.out, reps, counts)
    print("\nwrote %d repros to %s" % (len(reps), a.out))


def known(a):
    """Print KNOWN for tests/test_fuzz_reverse.py: each failing default-test
    program with its signature and the issue that tracks its cause."""
    pool = Pool(a.jobs, "quick", a.timeout)
    rows = []
    try:
        seeds = [int(x) for x in a.only.split(",")] if a.only else range(a.known)
        pool.map([("known", s) for s in seeds], lambda task: 1500,
                 lambda task, out: rows.append(out))
    finally:
        pool.close()
    rows.sort(key=lambda r: r["seed"])
    untracked = []
    print("KNOWN = {")
    for r in rows:
        if r["kind"] not in fo.FAILURES:
            continue
        if not r.get("reason"):
            untracked.append(r)
            continue
        print("    %d: (%r,\n         %r)," % (r["seed"], r["signature"], r["reason"]))
    print("}")
    for r in untracked:
        print("# UNTRACKED seed %d: %s\n%s" % (r["seed"], r["signature"], r.get("source", "")))
    kinds = collections.Counter(r["kind"] for r in rows)
    print("# %s" % dict(kinds), file=sys.stderr)
    return 1 if untracked else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10000, help="programs to run")
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per program")
    ap.add_argument("--level", default="sample", choices=["sample", "full", "quick"],
                    help="which checks each program runs (fuzz_oracle.schedule): "
                    "sample (default: grad always, the others on a share), full, quick")
    ap.add_argument("--checks", help="run exactly these checks (comma-separated subset "
                    "of %s) on every program" % ",".join(fo.CHECKS))
    ap.add_argument("--out", help="directory for results.jsonl, summary.txt, repros")
    ap.add_argument("--no-minimize", action="store_true")
    ap.add_argument("--per-signature", type=int, default=6,
                    help="failures minimized per common signature")
    ap.add_argument("--minimize-from", help="skip the run: minimize the failures "
                    "of this results.jsonl (from an earlier run) into --out")
    ap.add_argument("--repro", type=int, help="run one seed and print it all")
    ap.add_argument("--known", type=int, metavar="SEEDS",
                    help="judge the default test's first SEEDS programs and print the "
                    "KNOWN table for tests/test_fuzz_reverse.py (tracked failures)")
    ap.add_argument("--only", help="with --known: just these seeds (comma-separated)")
    ap.add_argument("--summarize", help="print the table of a (partial) results.jsonl")
    a = ap.parse_args(argv)
    checks = [c for c in a.checks.split(",") if c] if a.checks else a.level
    if a.repro is not None:
        prog = fp.generate(a.repro)
        if isinstance(checks, str):
            checks = fo.schedule(a.repro, checks)
        print("checks:", ",".join(checks))
        res = fo.run_program(prog, checks, timeout=a.timeout)
        print(res.source)
        print("arguments:", prog.args)
        print(res.kind, res.check, res.error)
        print(res.detail)
        if res.refusals:
            print("refusals:", res.refusals)
        return 0 if res.kind in ("pass", "refused") else 1
    if a.summarize:
        with open(a.summarize) as fh:
            results = [json.loads(line) for line in fh]
        print(table(results, sum(r.get("seconds", 0) for r in results) / a.jobs))
        return 0
    if a.known:
        return known(a)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    results = []
    log = open(os.path.join(a.out, "results.jsonl"), "w") if a.out and not a.minimize_from \
        else None
    t0 = time.time()
    pool = Pool(a.jobs, checks, a.timeout)

    def on_result(task, out):
        results.append(out)
        if log:
            log.write(json.dumps(out) + "\n")
            log.flush()
        if len(results) % 100 == 0:
            c = collections.Counter(r["kind"] for r in results)
            print("%6d  %s  (%.0f s)" % (len(results), dict(c), time.time() - t0),
                  file=sys.stderr, flush=True)

    try:
        if a.minimize_from:
            with open(a.minimize_from) as fh:
                results = [json.loads(line) for line in fh]
            for r in results:      # signatures as this version of the oracle writes them
                res = fo.Result(r["kind"], r["check"], r["error"], r["detail"])
                r["signature"] = res.signature()
            minimize_all(pool, results, a, checks)
            return 0
        pool.map([("run", s) for s in range(a.start, a.start + a.n)],
                 lambda task: 5 * a.timeout + 60, on_result)
        seconds = time.time() - t0
        results.sort(key=lambda r: r["seed"])
        summary = table(results, seconds)
        print(summary)
        if a.out:
            with open(os.path.join(a.out, "summary.txt"), "w") as fh:
                fh.write(summary + "\n")
        if a.out and not a.no_minimize:
            minimize_all(pool, results, a, checks)
    finally:
        pool.close()
        if log:
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
