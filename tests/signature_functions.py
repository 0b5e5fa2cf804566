"""Functions whose helpers take *args and keyword-only parameters, for
tests/test_signatures.py. Each is differentiated in every mode."""
import numpy as np


def total(*parts):
    s = 0.0
    for p in parts:
        s = s + np.sum(p * p)
    return s


def weighted(a, *rest, scale=2.0):
    if len(rest) > 1:
        return np.sum(a) * scale + np.sum(rest[0] * rest[1])
    return np.sum(a) * scale


def fun(a, b):
    return np.sum(a * np.sin(b))


def sym(x):
    return x * 2.0


def forward_the_rest(*args):
    return fun(sym(args[0]), *args[1:])


def keyword_only(w, *, j, k=3.0):
    return np.sum(w * k) * j


def calls_star_args(w):
    return total(w, w * 3.0) + total() + weighted(w, w, np.cos(w), scale=0.5) + weighted(w)


def calls_with_the_rest(w):
    return forward_the_rest(w, w * w) + forward_the_rest(np.tanh(w), w)


def spreads_into_star_args(w):
    xs = [w, w * 2.0]
    ys = (np.sin(w),)
    return total(*xs) + weighted(w, *ys) + total(*[w[0], w[1]])


def calls_keyword_only(w):
    return keyword_only(w, j=2.0) + keyword_only(w, k=1.0, j=w[0])
