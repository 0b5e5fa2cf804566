"""Functions over tuples, lists and dicts, for tests/test_containers.py."""
import numpy as np


def swap(x, y):
    a, b = y, x
    return np.sum(a * 2.0 + b ** 2)


def pair(x):
    return np.sin(x), np.cos(x)


def use_pair(x):
    s, c = pair(x)
    return np.sum(s * c)


def params_dict(params, x):
    h = np.tanh(params["W"] @ x + params["b"])
    return np.sum(h ** 2)


def params_list(layers, x):
    for W in layers:
        x = np.tanh(W @ x)
    return np.sum(x)


def nested(p, x):
    inner = p["inner"]
    a, b = inner
    return np.sum(a * x) + np.sum(b * p["scale"])


def collect(x, n):
    hs = []
    for i in range(n):
        x = np.sin(x) * 1.1
        hs.append(x)
    total = 0.0
    for h in hs:
        total = total + np.sum(h)
    return total


def tree(node, w):
    if isinstance(node, tuple):
        left = tree(node[0], w)
        right = tree(node[1], w)
        return np.tanh(w * left + right)
    return node * w


def tree_of_depth(leaves, lo, hi):
    if hi - lo == 1:
        return leaves[lo]
    mid = (lo + hi) // 2
    return (tree_of_depth(leaves, lo, mid), tree_of_depth(leaves, mid, hi))


def tree_loss(leaves, w):
    return np.sum(tree(tree_of_depth(leaves, 0, len(leaves)), w))


def unused_entry(p, x):
    return np.sum(p["used"] * x)


def fill_buffer(x, n):
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i] * x[i]
    return np.sum(y * np.arange(n))


def overwrite_slices(x):
    y = x.copy()
    y[1:3] = np.sin(x[1:3])
    y[0] += x[2] * 3.0
    return np.sum(y ** 2)


def write_matrix(x):
    y = np.zeros((3, 3))
    y[:, 1:] = x[:, :2] * 2.0
    y[0, 0] = np.sum(x)
    return np.sum(y ** 2)


def add_dict_key(x):
    d = {"a": x}
    d["b"] = d["a"] * 2
    return np.sum(d["b"] + d["a"])


def write_dict(p, x):
    q = {"a": p["a"], "b": p["b"]}
    q["a"] = q["a"] * x
    return np.sum(q["a"] + q["b"])


def write_then_share(x):
    # writes into a fresh array, shared only after the last write: allowed
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    y[1:] += x[1:] ** 2
    z = y
    return np.sum(z * x)


def write_into_alias_never_read_again(x):
    # w and z are one array, but z is not read after the write: allowed
    z = x * 1.0
    w = z
    w[0] = 3.0 * x[1]
    return np.sum(w * x)


CASES = {
    "add_dict_key": (add_dict_key, lambda r: (r.normal(size=3),), (0,)),
    "fill_buffer": (fill_buffer, lambda r: (r.normal(size=5), int(r.integers(0, 6))), (0,)),
    "overwrite_slices": (overwrite_slices, lambda r: (r.normal(size=4),), (0,)),
    "write_matrix": (write_matrix, lambda r: (r.normal(size=(3, 3)),), (0,)),
    "swap": (swap, lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "use_pair": (use_pair, lambda r: (r.normal(size=3),), (0,)),
    "collect": (collect, lambda r: (r.normal(size=3), int(r.integers(0, 5))), (0,)),
    "tree_depth_8": (tree_loss, lambda r: (r.normal(size=(256, 4)) * 0.3,
                                           r.normal(size=4) * 0.3), (0, 1)),
    "write_then_share": (write_then_share, lambda r: (r.normal(size=3),), (0,)),
    "write_into_alias_never_read_again": (write_into_alias_never_read_again,
                                          lambda r: (r.normal(size=3),), (0,)),
}
