"""Functions that use Python's builtins on differentiated values, for
tests/test_builtin_forms.py. Each is differentiated in every mode."""
import numpy as np


def sorted_items(w):
    xs = sorted([w[0], w[1] * 2.0, w[2] - 0.5])
    return xs[0] * 3.0 + xs[1] * xs[2]


def sorted_with_key_and_reverse(w):
    xs = sorted([w[0], w[1], w[2]], key=lambda a: -a * a)
    ys = sorted([np.sin(w[0]), w[1] ** 2], reverse=True)
    return xs[0] * 2.0 + xs[2] + ys[0] * w[2]


def sorted_generator(w):
    xs = sorted(w[i] * (i + 1.0) for i in range(3))
    return xs[-1] - xs[0] * xs[1]


def min_max_of_a_list(w):
    items = [w[0], w[1] * 1.5, np.cos(w[2])]
    return max(items) * 2.0 + min(items) + max(np.sum(w * i) for i in range(2))


def min_max_with_key(w):
    return max(w[0], w[1], w[2], key=abs) * min([w[0] + 1.0, w[1] - 1.0], key=np.abs)


def reversed_loop(w):
    s = 0.0
    for a in reversed([w[0], w[1], np.tanh(w[2])]):
        s = s * 0.5 + a * a
    return s


def list_and_tuple(w):
    t = tuple([w, w * 2.0])
    l = list((w, np.sin(w)))
    rows = list(w)
    return np.sum(t[1] * l[1]) + rows[0] * rows[2] + np.sum(tuple(w * i for i in range(2))[1])


def dict_builtin(w):
    d = dict(a=w, b=w * 2.0)
    e = dict(zip(["x", "y"], [np.sin(w), w[0]]))
    return np.sum(d["a"] * d["b"]) + np.sum(e["x"]) * e["y"]


make_dict = dict  # the builtin under another name (autograd's `dict`)


def dict_of_written_items(w):
    d = make_dict([("a", w)], b=w * 2.0)
    e = dict({"x": np.sin(w), "y": w[0]}, z=3.0)
    return np.sum(d["a"] * d["b"]) + np.sum(e["x"]) * e["y"] * e["z"]


def dict_get(w):
    d = {"a": w * 3.0}
    return np.sum(d.get("a", w) + d.get("b", w * w))


def dict_views_in_loops(w):
    d = {"a": w, "b": w * 2.0}
    e = {k: v * w for k, v in d.items() if k != "z"}
    s = sum(np.sum(v) for v in e.values())
    for v in d.values():
        s = s + np.sum(v ** 2)
    for k in d.keys():
        s = s + np.sum(d[k])
    for i, (k, v) in enumerate(d.items()):
        s = s + i * np.sum(np.sin(v))
    return s


def loop_over_pairs(w):
    params = [(w, w * 2.0), (np.sin(w), w[0])]
    s = 0.0
    for W, b in params:
        s = s + np.sum(W * b)
    for i, (a, (b, c)) in enumerate([(w[0], (w[1], w[2])), (w[2], (w[0], w[1]))]):
        s = s + (i + 1.0) * a * b * c
    return s


def loop_over_a_slice(w):
    xs = [w[0], w[1], w[2]]
    s = 0.0
    for x in xs[1:]:
        s = s + x * xs[0]
    return s


def small_builtins(w):
    q, r = divmod(7, 2)
    s = 0.0
    for a, b, c in zip([w[0], w[1]], [w[1], w[2]], [w[2], w[0]]):
        s = s + a * b * c
    for i, a in enumerate([w[0], w[1]], start=1):
        s = s + a * i
    if any([w[0] > 5.0, w[1] < 5.0]) and all([True, w[2] < 5.0]):
        s = s * 2.0
    return s + w[0] * q + w[1] * r


def array_attributes(w):
    t = w * 2.0
    return np.sum(t) * t.ndim + t.shape[0] * w[0] + np.sum(t.astype(t.dtype)) * t.size
