"""What live globals and fresh caches cost (issue 12, section 1).

Prints, as medians of interleaved rounds, in microseconds:

- a cache hit: ``tad.grad(f)`` once the derivative exists (target < 50 us);
- the dependency check alone (``deps.current()``);
- a call of the derivative the user holds (the staged dispatcher, with its
  guard on the argument kinds and on the dependencies) against a call of
  the same staged copy with no guard at all: the per-call overhead;
- the same for a forward-mode derivative (a plain dispatcher).

    .venv/bin/python benchmarks/liveness.py
"""
import statistics
import sys
import timeit

import numpy as np

import tangent_ad as tad

W = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
SCALE = 0.5


def helper(v):
    return np.tanh(v)


def model(v):
    return SCALE * np.sum(helper(W @ v) ** 2)


def _median(fn, number, rounds):
    return statistics.median(timeit.repeat(fn, number=number, repeat=rounds)) / number * 1e6


def main(rounds=7, number=20000):
    v = np.linspace(0.1, 0.3, 3)
    g = tad.grad(model)
    for _ in range(4):
        g(v)  # the staged copy is written on the second call
    (copy,) = g.__tangent_ad_stager__.variants.values()
    deps = g.__tangent_ad__.deps
    j = tad.jvp(model)
    rows = [
        ("cache hit: tad.grad(model)", lambda: tad.grad(model)),
        ("deps.current()", deps.current),
        ("grad call, through the guarded dispatcher", lambda: g(v)),
        ("grad call, the staged copy with no guard", lambda: copy(v, 1.0)),
        ("jvp call, through the dispatcher", lambda: j(v, v)),
        ("jvp call, the generated function", lambda: j.__wrapped__(v, v)),
    ]
    times = {name: [] for name, _ in rows}
    for _ in range(rounds):  # interleaved, so load affects every row alike
        for name, fn in rows:
            times[name].append(_median(fn, number, 1))
    print(f"{'what':48s} {'us':>8s}")
    for name, _ in rows:
        print(f"{name:48s} {statistics.median(times[name]):8.2f}")
    print(f"({len(deps.names)} names, {len(deps.codes)} code objects checked)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
