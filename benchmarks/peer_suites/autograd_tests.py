"""Run autograd's own test suite, unchanged, against tangent_ad.

    python benchmarks/peer_suites/autograd_tests.py [-k EXPR] [--reasons N]
           [--json FILE] [FILE.py ...]

(``scripts/peer_autograd`` sets up the virtual environment and runs this.)

autograd 1.9.1's source distribution is downloaded at run time with
``pip download`` into ~/.cache/tangent_ad/ (outside the repository: its
files are never committed) and its ``tests/`` are run with pytest against
``autograd_shim/``, a stand-in ``autograd`` package built on tangent_ad's
public API (``autograd.numpy`` is NumPy, ``autograd.scipy`` is SciPy).
The real autograd must not be importable: the script refuses to run if it
is.

Each test is classified (autograd_plugin.py): pass, wrong (a number that
differs, or an expected error that did not come), refused (a clean
TangentADError), crash (any other exception) or n/a (autograd internals,
listed with a reason in autograd_not_applicable.py, or skipped by the
suite). It prints a table per file, the most frequent reasons for refusals
and crashes, and one closing line.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "1.9.1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tangent_ad" / "autograd"
OUTCOMES = ("pass", "wrong", "refused", "crash", "n/a")


def fetch_tests():
    """The unpacked tests/ of autograd's sdist, downloaded once into CACHE."""
    tests = CACHE / f"autograd-{VERSION}" / "tests"
    if tests.is_dir():
        return tests
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / f"autograd-{VERSION}.tar.gz"
    if not archive.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"autograd=={VERSION}", "-d", str(CACHE)], check=True)
    prefix = f"autograd-{VERSION}/tests/"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        tar.extractall(CACHE, members=members, filter="data")
    return tests


def run_pytest(tests, selection, keyword):
    """Run pytest on `tests` in a subprocess; the list of result records."""
    check = subprocess.run([sys.executable, "-c", "import autograd"], capture_output=True,
                           cwd=tempfile.gettempdir())
    if check.returncode == 0:
        sys.exit("the real autograd is importable in this environment; run in a venv without it "
                 "(scripts/peer_autograd makes one)")
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as handle:
        results = Path(handle.name)
    env = dict(os.environ, PEER_RESULTS=str(results),
               PYTHONPATH=os.pathsep.join([str(HERE / "autograd_shim"), str(HERE), str(ROOT)]))
    config = CACHE / "pytest.ini"  # not autograd's pyproject.toml: it requires pytest-cov and xdist
    config.write_text("[pytest]\n")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "autograd_plugin",
               "-c", str(config), "--rootdir", str(tests), "-W", "ignore", "--tb=no", "--no-header", "-rN"]
    if keyword:
        command += ["-k", keyword]
    command += [str(tests / name) for name in selection] if selection else [str(tests)]
    run = subprocess.run(command, env=env, cwd=str(tests), capture_output=True, text=True)
    records = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    results.unlink()
    if not records:
        sys.exit(f"pytest ran no test:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    return records


def table(records):
    """The per-file table and the closing line, as text."""
    by_file = collections.defaultdict(collections.Counter)
    for record in records:
        by_file[record["id"].split("::")[0]][record["outcome"]] += 1
    lines = [f"{'file':<26}" + "".join(f"{o:>9}" for o in OUTCOMES)]
    total = collections.Counter()
    for name in sorted(by_file):
        counts = by_file[name]
        total.update(counts)
        lines.append(f"{name:<26}" + "".join(f"{counts[o]:>9}" for o in OUTCOMES))
    lines.append(f"{'total':<26}" + "".join(f"{total[o]:>9}" for o in OUTCOMES))
    applicable = sum(total[o] for o in OUTCOMES if o != "n/a")
    percent = 100.0 * total["pass"] / applicable if applicable else 0.0
    lines.append(f"autograd {VERSION} tests on tangent_ad: {applicable} applicable, {total['pass']} passed "
                 f"({percent:.1f} %), {total['wrong']} wrong, {total['refused']} refused, "
                 f"{total['crash']} crash, {total['n/a']} not applicable")
    return "\n".join(lines)


def _general(reason):
    """A reason without its file, line and function names, so that equal
    causes count together."""
    reason = re.sub(r"\S+\.py:\d+:\d+: ", "", reason)
    reason = re.sub(r"\S*<locals>\.(\S+)", r"<local \1>", reason)
    return re.sub(r"\b(test_\w+|fun\w*|f\d*)\b", "F", reason)


def reasons(records, count):
    """The most frequent reasons of the tests that did not pass."""
    tally = collections.Counter((r["outcome"], _general(r["reason"])) for r in records
                                if r["outcome"] in ("wrong", "refused", "crash"))
    return "\n".join(f"{n:>4}  {outcome:<8} {reason}" for (outcome, reason), n in tally.most_common(count))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="test files of autograd's suite (default: all)")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression")
    parser.add_argument("--reasons", type=int, default=25, help="how many failure reasons to list")
    parser.add_argument("--json", help="write every test's record to this file")
    parser.add_argument("--wrong", action="store_true", help="list every wrong test")
    options = parser.parse_args(argv)
    records = run_pytest(fetch_tests(), options.files, options.keyword)
    if options.json:
        Path(options.json).write_text(json.dumps(records, indent=1))
    if options.reasons:
        print(f"most frequent reasons (of {sum(r['outcome'] in ('wrong', 'refused', 'crash') for r in records)}):")
        print(reasons(records, options.reasons))
        print()
    if options.wrong:
        for record in records:
            if record["outcome"] == "wrong":
                print(f"wrong: {record['id']}: {record['reason']}")
        print()
    print(table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
