"""Where a workload's tangent_ad gradient spends its time: cProfile's top
functions by own time, for the derivative ``tad.grad`` returns (staged:
the copy for the arguments' kinds is written before profiling).

    .venv/bin/python benchmarks/profile_workload.py scalar_params
    .venv/bin/python benchmarks/profile_workload.py tree_concat --top 15 --calls 200

Also prints the staged copy's source (``--source``), so a reader can see
which runtime helpers the specialization left in.
"""
import harness  # noqa: F401, I001 - first: it fixes thread counts before NumPy loads
import argparse
import cProfile
import pstats

import numpy as np

import tangent_ad as tad
from tangent_ad.staging import dispatch as staging
import workloads


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=sorted(workloads.EVERY_BY_NAME))
    parser.add_argument("--calls", type=int, default=100, help="gradient calls profiled")
    parser.add_argument("--top", type=int, default=12, help="rows printed")
    parser.add_argument("--source", action="store_true", help="print the staged copy")
    opts = parser.parse_args(argv)
    module = workloads.EVERY_BY_NAME[opts.workload]
    args = module.make_inputs(module.SIZES[0], np.random.default_rng(0))
    df = tad.grad(module.loss, wrt=module.WRT)
    for _ in range(3):
        df(*args)  # the second call with the same kinds writes the staged copy
    if opts.source:
        for kinds, source in staging.variants(df).items():
            print(f"# staged copy for {kinds}\n{source}")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(opts.calls):
        df(*args)
    profile.disable()
    stats = pstats.Stats(profile)
    total = stats.total_tt
    print(f"{module.TITLE}: {opts.calls} calls, {total / opts.calls * 1e6:.0f} µs per call "
          "under cProfile (which inflates Python-level calls)\n")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:opts.top]
    print(f"{'own %':>6}  {'cum %':>6}  {'calls/grad':>10}  function")
    for (path, line, name), (_, ncalls, tottime, cumtime, _) in rows:
        where = f"{path.rsplit('/', 2)[-1] if '/' in path else path}:{line}"
        print(f"{100 * tottime / total:6.1f}  {100 * cumtime / total:6.1f}  "
              f"{ncalls / opts.calls:10.1f}  {name} ({where})")


if __name__ == "__main__":
    main()
