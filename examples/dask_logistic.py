"""Logistic regression on a dataset larger than the memory it uses: the
gradient tangent_ad writes, run on Dask arrays on a local cluster.

The data never exists in full: ``dask.array.random`` makes each block of
rows when a task needs it, so every gradient streams the dataset through
the workers block by block. tangent_ad's gradient is the code it shows
(``tad.show_source``); Dask runs it because the code calls NumPy
functions, which dispatch to Dask. The same gradient written by hand in
dask-glm (``dask_glm.families.Logistic.gradient``) is timed beside it
when dask-glm is installed.

    python examples/dask_logistic.py                       # 10 million rows, 1.6 GB
    python examples/dask_logistic.py --rows 40000000       # 6.4 GB
    python examples/dask_logistic.py --rows 20000 --chunk 5000 --steps 2 --in-process

It prints the size of the data, the peak memory of the workers and of
this process, the time of each gradient and the loss of each step.
"""
import argparse
import resource
import time

import numpy as np

import tangent_ad as tad


def loss(w, X, y):
    """Mean logistic loss of labels `y` in {0, 1} for the linear scores X @ w."""
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) / X.shape[0]


def make_data(rows, features, chunk, seed=0):
    """Lazy (X, y): standard normal features, labels from a fixed weight
    vector through a logistic link, made block by block on the workers."""
    import dask.array as da
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((rows, features), chunks=(chunk, features))
    w_true = np.linspace(-1.0, 1.0, features)
    p = 1.0 / (1.0 + np.exp(-(X @ w_true)))
    y = (rng.random(rows, chunks=chunk) < p).astype(np.float64)
    return X, y


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def hand_written_gradient():
    """dask-glm's gradient of the same loss, or None without dask-glm."""
    try:
        from dask_glm.families import Logistic
    except ImportError:
        return None
    return lambda w, X, y: Logistic.gradient(X @ w, X, y) / X.shape[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=250_000, help="rows per block")
    parser.add_argument("--steps", type=int, default=3, help="gradient-descent steps")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--in-process", action="store_true",
                        help="workers as threads of this process (a quick check)")
    args = parser.parse_args(argv)

    import distributed
    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=not args.in_process, dashboard_address=None)
    client = distributed.Client(cluster)
    X, y = make_data(args.rows, args.features, args.chunk)
    print(f"data: {args.rows:,} rows x {args.features} features, "
          f"{X.nbytes / 2**30:.2f} GiB of float64 if it were held, in {X.numblocks[0]} blocks")

    gradient = tad.grad(loss)
    by_hand = hand_written_gradient()
    w = np.zeros(args.features)
    for step in range(args.steps):
        value = client.compute(loss(w, X, y), sync=True)
        t0 = time.perf_counter()
        g = client.compute(gradient(w, X, y), sync=True)  # lazy until computed
        seconds = time.perf_counter() - t0
        line = f"step {step}: loss {value:.6f}, tangent_ad gradient {seconds:.2f} s"
        if by_hand is not None:
            t0 = time.perf_counter()
            g_hand = client.compute(by_hand(w, X, y), sync=True)
            line += (f", dask-glm gradient {time.perf_counter() - t0:.2f} s, "
                     f"same numbers: {np.allclose(g, g_hand, rtol=1e-10, atol=1e-14)}")
        print(line, flush=True)
        w = w - args.lr * g

    workers = client.run(peak_rss_mb)
    print(f"peak memory: workers {', '.join(f'{m:.0f} MB' for m in workers.values())}; "
          f"this process {peak_rss_mb():.0f} MB; "
          f"data {X.nbytes / 2**20:.0f} MB "
          f"({X.nbytes / 2**20 / (sum(workers.values()) + peak_rss_mb()):.1f}x all of it)")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
