"""The loop measurement of issue 3: gradient of loop_branch at n = 1000,
tangent_ad / hand-written NumPy, one run, interleaved (see harness.py).

    .venv/bin/python benchmarks/bench_loop.py [--repeats N]
"""
import run  # noqa: I001 - first: it fixes thread counts before NumPy loads
import argparse

from workloads import loop

N = 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    opts = parser.parse_args()
    cells, ratios, _ = run.bench_row(loop, N, ["tangent_ad"], opts.repeats, {})
    if "tangent_ad" not in ratios:
        raise SystemExit(f"loop_branch n={N}: tangent_ad {cells['tangent_ad']}")
    print(f"loop_branch n={N}: tangent_ad / hand-written = {ratios['tangent_ad']:.2f} "
          f"(hand-written {cells['hand']} µs per gradient, median of {opts.repeats})")


if __name__ == "__main__":
    main()
